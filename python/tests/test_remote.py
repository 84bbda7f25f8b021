"""Remote indexes from Python: `bitsift.Index(URL)` and `bitsift.cobs.Search(URL)` over HTTP
(nginx) and S3 (moto), started by tests/remote/servers.py as the Rust suite (tests/remote.rs)
starts them. Every answer must be the local file's (documents and scores); a missing file is
FileNotFoundError, a forbidden one PermissionError, a server that never answers OSError, a
file changed on the server bitsift.IndexError, each naming the URL.

The servers need root (nginx from apt, a private network namespace) or an installed nginx;
without them, or with BITSIFT_SKIP_REMOTE=1, the tests that need them are skipped, saying why.
"""

import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bitsift
from bitsift import cobs
from conftest import DEMO, REPO

SERVERS = REPO / "tests" / "remote" / "servers.py"
# Small genomes of the demo: indexes of a few MB, quick to upload to the S3 server.
GENOMES = [
    "Eco_O157_pOSAK1_AB011548.fa.gz",
    "Eco_pBK32602_KU295134.fa.gz",
    "Kpn_pMCR_1511_KX377410.fa.gz",
    "Kpn_plasmid12_NC_011385.fa.gz",
    "Phage_lambda_NC_001416.fa.gz",
    "Psy_pPMA4326D_AY603981.fa.gz",
    "Sen_Choleraesuis_virulence_plasmid_AB040415.fa.gz",
    "Sso_53G_plasmids_NC_016833_NC_016823_NC_016834.fa.gz",
]
DEFAULTS = dict(depth=256, timeout=30.0, retries=4, deadline=120.0, cache_dir=False)


def read_genome(path):
    """The records of a gzipped FASTA file, as (name, sequence) pairs."""
    records = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(">"):
                records.append([line[1:].split()[0], []])
            elif line.strip():
                records[-1][1].append(line.strip().upper())
    return [(name, "".join(parts)) for name, parts in records]


def make_queries():
    """Pieces of each genome (whole k-mer sets of one document: found in full) and random
    sequence (absent), as (name, sequence, genome file or None)."""
    rng = random.Random(23)
    queries = []
    for g, name in enumerate(GENOMES):
        record = max(read_genome(DEMO / "genomes" / name), key=lambda r: len(r[1]))[1]
        length = min(900, len(record) // 2)
        pieces = 0
        while pieces < 2:
            start = rng.randrange(0, len(record) - length)
            piece = record[start : start + length]
            if set(piece) <= set("ACGT"):  # plain bases only: every k-mer is looked up
                queries.append(("g%d_%d" % (g, pieces), piece, name))
                pieces += 1
    for r in range(4):
        queries.append(("random%d" % r, "".join(rng.choice("ACGT") for _ in range(600)), None))
    return queries


QUERIES = make_queries()


def answers(results):
    """What a search answered, without where the hits came from (a path or a URL)."""
    return [
        (
            r.name,
            r.kmers_total,
            r.total_hits,
            r.documents_searched,
            [(h.document, h.kmers_found, h.kmers_total) for h in r.hits],
        )
        for r in results
    ]


def search(index, **options):
    return index.search([(name, sequence) for name, sequence, _ in QUERIES], **options)


def brute_force_check(index, results):
    """A piece of a genome is found in full in its genome's document (a Bloom filter has no
    false negatives), and every reported score is at most the query's k-mers."""
    documents = index.documents
    for (name, _, genome), result in zip(QUERIES, results):
        for hit in result.hits:
            assert hit.kmers_found <= hit.kmers_total == result.kmers_total
        if genome is None:
            continue
        document = [d for d in documents if genome.startswith(d)]
        assert len(document) == 1, (genome, documents)
        found = {h.document: h.kmers_found for h in result.hits}
        assert found.get(document[0]) == result.kmers_total, (name, found)


class Served:
    """The servers of the module's tests and the files they serve."""

    def __init__(self, info, serve, state):
        self.info, self.serve, self.state = info, serve, state

    def http(self, relative):
        return "%s/%s" % (self.info["http"], relative)

    def s3(self, relative):
        return "s3://%s/%s" % (self.info["bucket"], relative)

    def local(self, relative):
        return self.serve / relative

    def sync(self):
        harness("sync", "--state", self.state, check=True)


def harness(*args, check=False):
    python = shutil.which("python3") or sys.executable
    done = subprocess.run(
        [python, str(SERVERS), *map(str, args)], capture_output=True, text=True, timeout=1800
    )
    if check and done.returncode != 0:
        raise AssertionError("servers.py %s: %s" % (args, done.stderr))
    return done


def build_served(cli, serve):
    """bitsift's layout (checksums, summaries), a COBS classic file, a collection."""
    genomes = serve.parent / "genomes"
    genomes.mkdir()
    for name in GENOMES:
        shutil.copyfile(DEMO / "genomes" / name, genomes / name)
    serve.mkdir()
    cli("build", "-q", "-o", serve / "bitsift.cobs_compact", genomes)
    for side in (".bitsift-checksums", ".bitsift-summaries"):
        assert (serve / ("bitsift.cobs_compact" + side)).exists(), side
    shutil.copyfile(serve / "bitsift.cobs_compact", serve / "changing.cobs_compact")
    params = cobs.ClassicIndexParameters()
    params.clobber = True
    cobs.classic_construct(str(genomes), str(serve / "cobs.cobs_classic"), index_params=params)
    files = sorted(genomes.iterdir())
    cli("add", "-q", serve / "collection", *files[:4])
    cli("add", "-q", serve / "collection", *files[4:])
    subprocess.run(["chmod", "-R", "a+rX", str(serve.parent)], check=False)


@pytest.fixture(scope="module")
def served(cli, tmp_path_factory):
    if os.environ.get("BITSIFT_SKIP_REMOTE") == "1":
        pytest.skip("BITSIFT_SKIP_REMOTE=1: remote indexes not tested")
    assert bitsift.REMOTE, "the wheel must be built with the remote feature (pyproject.toml)"
    root = tmp_path_factory.mktemp("remote")
    serve, state = root / "serve", root / "state"
    build_served(cli, serve)
    started = harness("start", "--dir", serve, "--state", state, "--rtt-ms", "0")
    if started.returncode != 0:
        harness("stop", "--state", state)
        who = "root" if os.geteuid() == 0 else "not root, and nginx must be installed"
        pytest.skip(
            "the test servers (nginx, moto) cannot start here (%s): %s"
            % (who, started.stderr.strip()[-600:])
        )
    info = json.loads(started.stdout)
    # The S3 client reads its settings from the environment when it is made; no profile
    # files of the machine running the tests.
    environment = {
        "AWS_ENDPOINT_URL": info["s3_endpoint"],
        "AWS_ACCESS_KEY_ID": info["access_key"],
        "AWS_SECRET_ACCESS_KEY": info["secret_key"],
        "AWS_REGION": info["region"],
        "AWS_CONFIG_FILE": str(root / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(root / "no-aws-credentials"),
    }
    saved = {name: os.environ.get(name) for name in environment}
    os.environ.update(environment)
    try:
        yield Served(info, serve, state)
    finally:
        harness("stop", "--state", state)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def test_remote_options_are_checked_and_kept():
    assert bitsift.REMOTE
    before = bitsift.remote_options()
    assert before["depth"] == 256 and before["timeout"] == 30.0 and before["retries"] == 4
    assert before["deadline"] == 120.0 and before["cache_dir"] is None
    try:
        bitsift.configure_remote(depth=8, timeout=2.5)
        bitsift.configure_remote(retries=0, cache_dir="cache", cache_dir_size="10M")
        now = bitsift.remote_options()
        assert (now["depth"], now["timeout"], now["retries"]) == (8, 2.5, 0), "kept"
        assert (now["cache_dir"], now["cache_dir_size"]) == ("cache", 10 << 20)
        bitsift.configure_remote(cache_dir_size=1 << 20)
        assert bitsift.remote_options()["cache_dir_size"] == 1 << 20
        bitsift.configure_remote(cache_dir=False)
        assert bitsift.remote_options()["cache_dir"] is None
        bad = [
            (dict(depth=0), "depth"),
            (dict(depth=-1), "depth"),
            (dict(timeout=0), "timeout"),
            (dict(timeout=float("nan")), "timeout"),
            (dict(deadline=-3), "deadline"),
            (dict(retries=-1), "retries"),
            (dict(cache_dir_size="10M"), "cache_dir"),
            (dict(cache_dir="c", cache_dir_size="ten"), "cache_dir_size"),
            (dict(cache_dir="c", cache_dir_size=0), "cache_dir_size"),
            (dict(cache_dir=True), "cache_dir"),
        ]
        for options, word in bad:
            with pytest.raises(ValueError, match=word):
                bitsift.configure_remote(**options)
        with pytest.raises(TypeError):
            bitsift.configure_remote(8)  # keywords only
        assert bitsift.remote_options()["depth"] == 8, "a refused call changes nothing"
    finally:
        bitsift.configure_remote(**DEFAULTS)
    assert bitsift.remote_options() == before


@pytest.mark.parametrize("scheme", ["http", "s3"])
@pytest.mark.parametrize("name", ["bitsift.cobs_compact", "cobs.cobs_classic"])
def test_answers_equal_the_local_file(served, scheme, name):
    url = getattr(served, scheme)(name)
    local = bitsift.Index(served.local(name))
    remote = bitsift.Index(url)
    assert remote.paths == [url]
    assert remote.info()["indexes"][0]["path"] == url
    assert remote.documents == local.documents
    for options in (dict(threshold=0.3), dict(threshold=0.0, summaries=False)):
        expected = search(local, **options)
        got = search(remote, **options)
        assert answers(got) == answers(expected), (url, options)
        pieces = sum(1 for query in QUERIES if query[2])
        assert sum(len(r.hits) for r in got) >= pieces, "hits to compare"
        brute_force_check(local, expected)
        assert all(hit.index == url for r in got for hit in r.hits)
    batch = got[0].batch_stats
    assert batch["engine"] == "remote"
    for key in ("remote_requests", "remote_bytes", "remote_cache_hits", "remote_request_ms"):
        assert key in batch, key
    assert batch["remote_requests"] > 0 and batch["remote_bytes"] > 0
    if name == "bitsift.cobs_compact" and scheme == "http":
        # The side files were found beside the index, at the same URL, and read.
        log = Path(served.info["access_log"]).read_text()
        for side in (".bitsift-checksums", ".bitsift-summaries"):
            assert "GET /%s%s " % (name, side) in log, side


@pytest.mark.parametrize("scheme", ["http", "s3"])
def test_a_collection_by_its_url(served, scheme):
    local = bitsift.Index(served.local("collection"))
    expected = answers(search(local, threshold=0.3))
    for relative in ("collection", "collection/collection.json"):
        url = getattr(served, scheme)(relative)
        remote = bitsift.Index(url)
        assert answers(search(remote, threshold=0.3)) == expected, url
        assert all(str(p).startswith(getattr(served, scheme)("collection/")) for p in remote.paths)
        assert len(remote.paths) == 2


def test_cobs_search_by_url(served):
    for url in (served.http("cobs.cobs_classic"), served.s3("bitsift.cobs_compact")):
        remote = cobs.Search(url)
        local = cobs.Search(served.local(url.rsplit("/", 1)[1]))
        assert repr(remote) == "Search(%r)" % url
        for _, sequence, _ in QUERIES[::3]:
            for threshold, limit in ((0.3, 0), (0.0, 3)):
                expected = [(r.doc_name, r.score) for r in local.search(sequence, threshold, limit)]
                got = [(r.doc_name, r.score) for r in remote.search(sequence, threshold, limit)]
                assert got == expected, (url, threshold, limit)


def test_missing_and_forbidden_files(served):
    for url in (
        served.http("missing.cobs_compact"),
        served.http("status/404/bitsift.cobs_compact"),
        served.s3("missing.cobs_compact"),
    ):
        with pytest.raises(FileNotFoundError) as raised:
            bitsift.Index(url)
        assert url in str(raised.value) and "not found" in str(raised.value), raised.value
        with pytest.raises(FileNotFoundError):
            cobs.Search(url)
    url = served.http("status/403/bitsift.cobs_compact")
    with pytest.raises(PermissionError) as raised:
        bitsift.Index(url)
    assert url in str(raised.value) and "access denied" in str(raised.value), raised.value


def test_a_server_that_never_answers_fails_within_the_deadline(served):
    url = "%s/bitsift.cobs_compact" % served.info["blackhole"]
    # The blackhole's client is made now, with these options.
    bitsift.configure_remote(timeout=1, retries=1, deadline=2)
    try:
        started = time.monotonic()
        with pytest.raises(OSError) as raised:
            bitsift.Index(url)
        assert time.monotonic() - started < 30
    finally:
        bitsift.configure_remote(**DEFAULTS)
    assert not isinstance(raised.value, (FileNotFoundError, PermissionError))
    assert url in str(raised.value), raised.value
    assert "no answer from the server" in str(raised.value), raised.value


def test_the_cache_serves_a_repeated_search(served, tmp_path):
    url = served.http("cobs.cobs_classic")
    bitsift.configure_remote(cache_dir=tmp_path / "cache", cache_dir_size="64M")
    try:
        index = bitsift.Index(url)
        first = search(index, threshold=0.3)
        second = search(index, threshold=0.3)
    finally:
        bitsift.configure_remote(**DEFAULTS)
    assert answers(first) == answers(second)
    assert first[0].batch_stats["remote_requests"] > 0
    assert second[0].batch_stats["remote_requests"] == 0, second[0].batch_stats
    assert second[0].batch_stats["remote_cache_hits"] > 0
    assert any((tmp_path / "cache").iterdir()), "pages were kept"


@pytest.mark.parametrize("scheme", ["http", "s3"])
def test_a_file_changed_on_the_server_is_an_index_error(served, scheme):
    path = served.local("changing.cobs_compact")
    url = getattr(served, scheme)("changing.cobs_compact")
    index = bitsift.Index(url)
    query = QUERIES[0][1]
    assert index.search(query, threshold=0.3)[0].hits, "an answer before the change"
    original = path.read_bytes()
    changed = bytearray(original)
    changed[-4096:] = bytes(b ^ 0xFF for b in changed[-4096:])
    try:
        path.write_bytes(bytes(changed))
        later = time.time() + 5  # a new ETag even within the same second
        os.utime(path, (later, later))
        if scheme == "s3":
            served.sync()
        with pytest.raises(bitsift.IndexError) as raised:
            index.search(query, threshold=0.3)
        message = str(raised.value)
        assert "changed on the server" in message and "changing.cobs_compact" in message
    finally:
        path.write_bytes(original)
        if scheme == "s3":
            served.sync()
