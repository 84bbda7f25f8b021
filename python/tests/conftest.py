"""Shared fixtures of the Python package's tests.

The tests compare the package with the `bitsift` command (BITSIFT_BIN, or target/debug or
target/release of this repository, built with cargo if absent) and with COBS's own Python
module `cobs_index` (pip `cobs-reloaded`). Without `cobs_index` the COBS tests fail and say
so, unless BITSIFT_SKIP_COBS=1 skips them deliberately (the rule of the Rust tests too).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "data" / "demo"
GENES = DEMO / "queries" / "amr_genes.fa"
REPLICONS = DEMO / "queries" / "replicons.fa"
COBS_PEER = REPO / "tests" / "peer" / "cobs_peer.py"
# Small genomes of the demo: a second index that builds in a moment.
SMALL_GENOMES = [
    "Eco_O157_pOSAK1_AB011548.fa.gz",
    "Phage_lambda_NC_001416.fa.gz",
    "Psy_pPMA4326D_AY603981.fa.gz",
    "Kpn_pMCR_1511_KX377410.fa.gz",
    "Sen_Choleraesuis_virulence_plasmid_AB040415.fa.gz",
]


def read_fasta(path):
    """(name, sequence) pairs of a plain FASTA file, names up to the first space."""
    records = []
    for line in Path(path).read_text().splitlines():
        if line.startswith(">"):
            records.append([line[1:].split()[0], []])
        elif line.strip():
            records[-1][1].append(line.strip())
    return [(name, "".join(parts)) for name, parts in records]


def _binary():
    given = os.environ.get("BITSIFT_BIN")
    if given:
        return Path(given)
    for profile in ("debug", "release"):
        candidate = REPO / "target" / profile / "bitsift"
        if candidate.exists():
            return candidate
    subprocess.run(["cargo", "build", "--quiet", "--bin", "bitsift"], cwd=REPO, check=True)
    return REPO / "target" / "debug" / "bitsift"


@pytest.fixture(scope="session")
def cli():
    """Runs the bitsift command; returns the CompletedProcess (text)."""
    binary = _binary()

    def run(*args, check=True):
        done = subprocess.run(
            [str(binary), *map(str, args)], capture_output=True, text=True
        )
        if check and done.returncode != 0:
            raise AssertionError("bitsift %s failed: %s" % (args, done.stderr))
        return done

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """`bitsift query --format json` as parsed JSON."""

    def run(indexes, *args):
        index_args = []
        for index in indexes:
            index_args += ["-i", index]
        return json.loads(cli("query", *index_args, "--format", "json", *args).stdout)

    return run


@pytest.fixture(scope="session")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("bitsift-python")


@pytest.fixture(scope="session")
def demo_index(cli, work):
    """The bundled genomes indexed by the bitsift command."""
    path = work / "demo.cobs_compact"
    cli("build", "-o", path, DEMO / "genomes")
    return path


@pytest.fixture(scope="session")
def demo_cobs_layout_index(cli, work):
    """The bundled genomes indexed by the bitsift command in COBS's row layout, the one
    COBS itself can open (the default minimizer layout it refuses)."""
    path = work / "demo-cobs-layout.cobs_compact"
    cli("build", "--layout", "cobs", "-o", path, DEMO / "genomes")
    return path


@pytest.fixture(scope="session")
def small_index(cli, work):
    """A second index of a few small genomes, in a directory of its own."""
    folder = work / "small"
    folder.mkdir()
    path = folder / "small.cobs_compact"
    cli("build", "-o", path, *[DEMO / "genomes" / name for name in SMALL_GENOMES])
    return path


def _cobs_required():
    if os.environ.get("BITSIFT_SKIP_COBS") == "1":
        pytest.skip("BITSIFT_SKIP_COBS=1: COBS comparisons skipped")
    try:
        import cobs_index  # noqa: F401
    except ImportError:
        pytest.fail(
            "cobs_index is not installed: pip install cobs-reloaded (CPython 3.11), "
            "or set BITSIFT_SKIP_COBS=1 to skip the COBS comparisons"
        )


@pytest.fixture(scope="session")
def cobs_index_module():
    _cobs_required()
    import cobs_index

    return cobs_index


def _cobs_build(kind, output, inputs):
    subprocess.run(
        [sys.executable, str(COBS_PEER), "build", "--kind", kind, "-o", str(output)]
        + [str(i) for i in inputs],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def cobs_compact(work):
    """The small genomes indexed by COBS itself (compact)."""
    _cobs_required()
    path = work / "cobs" / "small.cobs_compact"
    _cobs_build("compact", path, [DEMO / "genomes" / name for name in SMALL_GENOMES])
    return path


@pytest.fixture(scope="session")
def cobs_classic(work):
    """The bundled genomes indexed by COBS itself (classic)."""
    _cobs_required()
    path = work / "cobs" / "demo.cobs_classic"
    _cobs_build("classic", path, [DEMO / "genomes"])
    return path


@pytest.fixture
def copy_of(tmp_path):
    """A copy of a file in the test's own directory."""

    def copy(path):
        target = tmp_path / Path(path).name
        shutil.copyfile(path, target)
        return target

    return copy
