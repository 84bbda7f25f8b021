"""bitsift.build: the command line's index, a progress callback, and clean failures."""

import hashlib
import logging
import os

import pytest

import bitsift
from conftest import DEMO, GENES, SMALL_GENOMES

SMALL = [DEMO / "genomes" / name for name in SMALL_GENOMES]


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_a_build_equals_the_cli_build_and_reports_progress(cli, tmp_path):
    output = tmp_path / "small.cobs_compact"
    calls = []
    report = bitsift.build(output, SMALL, progress=lambda *counts: calls.append(counts), threads=2)
    expected = tmp_path / "cli.cobs_compact"
    cli("build", "-o", expected, *SMALL)
    assert digest(output) == digest(expected), "byte for byte the command line's index"
    assert report["documents"] == 5 and report["file_bytes"] == os.path.getsize(output)
    assert set(report) >= {"documents", "blocks", "page_size", "kmers", "bases", "seconds"}
    assert calls, "the callback was called"
    assert calls[-1] == (5, 5, report["kmers"]), "the last call has every document"
    assert all(total == 5 for _, total, _ in calls)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert [c[2] for c in calls] == sorted(c[2] for c in calls)
    results = bitsift.Index(output).search(GENES)
    assert any(r.hits for r in results)


def test_options_reach_the_index(tmp_path):
    output = tmp_path / "x.cobs_compact"
    bitsift.build(output, [str(p) for p in SMALL], k=21, fpr=0.1, hashes=2, page_size=16,
                  memory="512M", canonical=False)
    entry = bitsift.Index(output).info()["indexes"][0]
    assert (entry["k"], entry["hashes"], entry["page_size"], entry["canonical"]) == (21, 2, 16, False)
    listed = tmp_path / "inputs.txt"
    listed.write_text("\n".join(str(p) for p in SMALL[:2]) + "\n")
    per_record = tmp_path / "y.cobs_compact"
    report = bitsift.build(per_record, [], lists=[listed], per_record=True)
    assert report["documents"] >= 2


def test_both_row_layouts_find_the_same_whole_genes(cli, tmp_path):
    minimizer = tmp_path / "minimizer.cobs_compact"
    cobs = tmp_path / "cobs.cobs_compact"
    bitsift.build(minimizer, SMALL, range_rows=64)
    bitsift.build(cobs, SMALL, layout="cobs")
    expected = tmp_path / "cli.cobs_compact"
    cli("build", "--layout", "cobs", "-o", expected, *SMALL)
    assert digest(cobs) == digest(expected), "COBS's layout, byte for byte the command line's"
    layouts = [bitsift.Index(i).info()["indexes"][0]["layout"] for i in (minimizer, cobs)]
    assert layouts == [{"name": "minimizer", "range_rows": 64, "minimizer": 13}, {"name": "cobs"}]
    whole = []
    for index in (minimizer, cobs):
        results = bitsift.Index(index).search(GENES, threshold=1.0)
        whole.append(sorted((r.name, h.document) for r in results for h in r.hits))
    assert whole[0] and whole[0] == whole[1], "every k-mer present: no false positive needed"
    with pytest.raises(ValueError, match="expected \"minimizer\" or \"cobs\""):
        bitsift.build(tmp_path / "x.cobs_compact", SMALL, layout="rows")
    with pytest.raises(ValueError, match="rows per range = 24"):
        bitsift.build(tmp_path / "x.cobs_compact", SMALL, range_rows=24)
    with pytest.raises(ValueError, match="range_rows: is for layout"):
        bitsift.build(tmp_path / "x.cobs_compact", SMALL, layout="cobs", range_rows=16)


def test_an_exception_in_the_callback_stops_the_build_and_leaves_nothing(tmp_path):
    class Stop(Exception):
        pass

    calls = []

    def progress(done, total, kmers):
        calls.append(done)
        raise Stop("enough")

    output = tmp_path / "x.cobs_compact"
    with pytest.raises(Stop, match="enough"):
        bitsift.build(output, SMALL, progress=progress)
    assert len(calls) == 1
    assert os.listdir(tmp_path) == [], "neither the index nor a temporary file"


def test_an_exception_at_the_last_call_still_leaves_nothing(tmp_path):
    def progress(done, total, kmers):
        if done == total:
            raise KeyboardInterrupt

    output = tmp_path / "x.cobs_compact"
    with pytest.raises(KeyboardInterrupt):
        bitsift.build(output, SMALL, progress=progress)
    assert os.listdir(tmp_path) == []


def test_a_build_without_callback_and_an_existing_output(tmp_path):
    output = tmp_path / "x.cobs_compact"
    bitsift.build(output, SMALL[:2])
    before = digest(output)
    with pytest.raises(FileExistsError, match="already exists"):
        bitsift.build(output, SMALL)
    assert digest(output) == before
    bitsift.build(output, SMALL, force=True)
    assert digest(output) != before


def test_build_errors(tmp_path):
    missing = tmp_path / "missing.fa"
    with pytest.raises(FileNotFoundError, match="missing.fa: no such file or directory"):
        bitsift.build(tmp_path / "x.cobs_compact", [missing])
    with pytest.raises(ValueError, match="out of range"):
        bitsift.build(tmp_path / "x.cobs_compact", SMALL, k=0)
    with pytest.raises(ValueError, match="out of range"):
        bitsift.build(tmp_path / "x.cobs_compact", SMALL, fpr=1.5)
    bad = tmp_path / "bad.fa"
    bad.write_text("this is not FASTA\n")
    with pytest.raises(ValueError, match="not FASTA or FASTQ"):
        bitsift.build(tmp_path / "x.cobs_compact", [bad])
    with pytest.raises(TypeError, match="progress must be a callable"):
        bitsift.build(tmp_path / "x.cobs_compact", SMALL, progress=3)
    assert sorted(os.listdir(tmp_path)) == ["bad.fa"]


def test_library_warnings_reach_logging(tmp_path, caplog):
    short = tmp_path / "short.fa"
    short.write_text(">tiny\nACGTACGT\n")
    with caplog.at_level(logging.WARNING, logger="bitsift"):
        bitsift.build(tmp_path / "x.cobs_compact", [short, SMALL[0]])
    messages = [r.getMessage() for r in caplog.records if r.name == "bitsift"]
    assert any("fewer than k = 31" in m and "short" in m for m in messages), messages


def test_ctrl_c_stops_a_build_and_leaves_nothing(tmp_path):
    """SIGINT while the build runs: Python's handler runs on the calling thread between two
    progress steps, the build stops, and KeyboardInterrupt is raised."""
    import signal
    import threading

    output = tmp_path / "demo.cobs_compact"
    # Python leaves SIGINT ignored when it was started so (a script's background job);
    # the test is about an interpreter that turns it into KeyboardInterrupt.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            bitsift.build(output, [DEMO / "genomes"], threads=1)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert os.listdir(tmp_path) == []
