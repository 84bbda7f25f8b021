"""Every error is a Python exception of the right type with the command line's words; none
crashes the interpreter."""

import builtins
import os
import subprocess
import sys

import pytest

import bitsift
from conftest import GENES, read_fasta

GENE = read_fasta(GENES)[0][1]


def cli_error(cli, *args):
    """The error line `bitsift` prints for `args`, without its `bitsift: ` prefix."""
    done = cli(*args, check=False)
    assert done.returncode != 0, done
    line = [l for l in done.stderr.splitlines() if l.startswith("bitsift: ")][-1]
    return line[len("bitsift: ") :]


def test_index_error_is_its_own_exception():
    assert issubclass(bitsift.IndexError, Exception)
    assert bitsift.IndexError is not builtins.IndexError
    assert not issubclass(bitsift.IndexError, builtins.IndexError)
    assert bitsift.IndexError.__module__ == "bitsift"
    namespace = {}
    exec("from bitsift import *", namespace)
    assert "IndexError" not in namespace, "a star import keeps the builtin in view"


def test_a_missing_index_is_file_not_found(cli, tmp_path):
    missing = tmp_path / "missing.cobs_compact"
    with pytest.raises(FileNotFoundError) as raised:
        bitsift.Index(missing)
    message = str(raised.value)
    assert message == "%s: cannot open index: No such file or directory (os error 2)" % missing
    # The command line says the same (before issue 11 it repeated the cause at the end).
    assert cli_error(cli, "query", "-i", missing, GENE).startswith(message)


def test_a_file_that_is_not_an_index_is_an_index_error(cli, tmp_path):
    foreign = tmp_path / "genes.cobs_compact"
    foreign.write_text(GENES.read_text())
    with pytest.raises(bitsift.IndexError) as raised:
        bitsift.Index(foreign)
    assert str(raised.value) == cli_error(cli, "query", "-i", foreign, GENE)
    assert "not a COBS index" in str(raised.value)


def test_a_truncated_index_is_an_index_error(cli, demo_index, tmp_path):
    truncated = tmp_path / "truncated.cobs_compact"
    with open(demo_index, "rb") as source, open(truncated, "wb") as target:
        target.write(source.read(os.path.getsize(demo_index) - 4096))
    with pytest.raises(bitsift.IndexError, match="truncated") as raised:
        bitsift.Index(truncated)
    assert str(raised.value) == cli_error(cli, "query", "-i", truncated, GENE)


def test_a_directory_without_indexes_is_an_index_error(cli, tmp_path):
    (tmp_path / "notes.txt").write_text("no index here")
    with pytest.raises(bitsift.IndexError) as raised:
        bitsift.Index(tmp_path)
    assert str(raised.value) == cli_error(cli, "query", "-i", tmp_path, GENE)
    assert "holds no .cobs_compact or .cobs_classic files" in str(raised.value)


def test_not_dna_is_a_value_error_or_a_skipped_result(demo_index):
    index = bitsift.Index(demo_index)
    protein = "MKTLLILAVLAAVLAQPEFGHIKMKTLLILAVLAAVLAQ"
    with pytest.raises(ValueError) as raised:
        index.search({"gene": GENE, "protein": protein})
    assert str(raised.value) == (
        'query "protein": not a nucleotide sequence: it looks like a protein '
        "('L', 'I', 'Q', 'P', 'E', 'F' from position 4; 18 in all); bitsift searches DNA: "
        "A, C, G, T, U, N and the IUPAC codes"
    )
    with pytest.raises(ValueError, match="alignment gaps"):
        index.search("ACGT--" * 10)
    skipped = index.search({"gene": GENE, "protein": protein}, on_invalid="skip")
    assert [r.name for r in skipped] == ["gene", "protein"]
    assert skipped[0].skipped is None and skipped[0].hits
    assert skipped[1].skipped.startswith("not a nucleotide sequence: it looks like a protein")
    assert (skipped[1].hits, skipped[1].kmers_total, skipped[1].stats) == ([], 0, None)
    assert "skipped=" in repr(skipped[1])


def test_a_short_query_is_a_value_error_or_a_skipped_result(cli, demo_index):
    index = bitsift.Index(demo_index)
    with pytest.raises(ValueError) as raised:
        index.search("ACGTACGT")
    message = str(raised.value)
    assert message == 'query "query": query is 8 bases, shorter than k = 31; it has no k-mer to look up'
    assert message in cli(
        "query", "-i", demo_index, "ACGTACGT", check=False
    ).stderr, "the command line's warning"
    skipped = index.search([("short", "ACGT"), ("gene", GENE)], on_invalid="skip")
    assert skipped[0].skipped == "query is 4 bases, shorter than k = 31; it has no k-mer to look up"
    assert skipped[1].hits


def test_bad_options_are_value_errors(demo_index):
    index = bitsift.Index(demo_index)
    meaning = (
        "the threshold is the fraction of a query's k-mers a document must contain, "
        "from 0 to 1 (e.g. 0.8)"
    )
    with pytest.raises(ValueError) as raised:
        index.search(GENE, threshold=1.5)
    assert str(raised.value) == "1.5 is out of range; " + meaning
    with pytest.raises(ValueError, match="out of range"):
        index.search(GENE, threshold=-0.1)
    with pytest.raises(ValueError, match="is not a number"):
        index.search(GENE, threshold=float("nan"))
    with pytest.raises(ValueError, match="limit -1 is negative"):
        index.search(GENE, limit=-1)
    with pytest.raises(ValueError, match="on_invalid 'ignore'|on_invalid \"ignore\""):
        index.search(GENE, on_invalid="ignore")
    with pytest.raises(ValueError, match='engine "fast" is not one of auto, uring, pread, mmap, ram'):
        bitsift.Index(demo_index, engine="fast")
    with pytest.raises(ValueError, match="direct_io"):
        bitsift.Index(demo_index, direct_io="sometimes")
    with pytest.raises(ValueError, match="cache_size"):
        bitsift.Index(demo_index, cache_size="lots")
    with pytest.raises(ValueError, match="give cache_size too"):
        bitsift.Index(demo_index, warm=True)


def test_wrong_types_are_type_errors(demo_index):
    index = bitsift.Index(demo_index)
    with pytest.raises(TypeError, match="query must be a sequence"):
        index.search(42)
    with pytest.raises(TypeError, match="not a \\(name, sequence\\) pair"):
        index.search([GENE])
    with pytest.raises(TypeError, match="a sequence must be a str or bytes"):
        index.search({"x": 42})
    with pytest.raises(TypeError, match="a name must be a str or an int"):
        index.search({3.5: GENE})
    with pytest.raises(TypeError, match="path must be"):
        bitsift.Index(42)


def test_query_files_that_are_missing_or_malformed(cli, demo_index, tmp_path):
    index = bitsift.Index(demo_index)
    missing = tmp_path / "none.fa"
    with pytest.raises(FileNotFoundError) as raised:
        index.search(missing)
    assert str(raised.value) == cli_error(cli, "query", "-i", demo_index, "-f", missing)
    with pytest.raises(FileNotFoundError):
        index.search("genes.fa"), "a str that looks like a path"
    truncated = tmp_path / "t.fq"
    truncated.write_text("@r1\n%s\n+\n%s\n@r2\nACGT\n+\n" % (GENE[:40], "I" * 40))
    with pytest.raises(ValueError, match="malformed FASTQ after record 1") as raised:
        index.search(truncated)
    assert str(raised.value) == cli_error(cli, "query", "-i", demo_index, "-f", truncated)
    empty = tmp_path / "e.fa"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty file"):
        index.search(empty)


def test_a_damaged_index_never_crashes_the_interpreter(demo_index, tmp_path):
    """An index that shrinks while open fails its reads; in a child interpreter, so that a
    crash would show as a signal instead of taking the test run with it."""
    damaged = tmp_path / "damaged.cobs_compact"
    damaged.write_bytes(open(demo_index, "rb").read())
    script = (
        "import os, bitsift\n"
        "for engine in ('uring', 'pread', 'mmap'):\n"
        "    index = bitsift.Index(%r, engine=engine)\n"
        "    os.truncate(%r, 4096)\n"
        "    try:\n"
        "        index.search(%r)\n"
        "        print(engine, 'answered')\n"
        "    except (OSError, bitsift.IndexError) as e:\n"
        "        print(engine, type(e).__name__)\n"
        "    open(%r, 'wb').write(open(%r, 'rb').read())\n"
    ) % (str(damaged), str(damaged), GENE, str(damaged), str(demo_index))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert [l.split()[0] for l in lines if l] == ["uring", "pread", "mmap"]
    for line in filter(None, lines):
        assert line.split()[1] in ("OSError", "IndexError", "answered"), line
