"""bitsift.cobs.Search is a drop-in for cobs_index.Search: same interface, same answers."""

import inspect
import random
import re
import subprocess
import sys

import pytest

import bitsift
from bitsift import cobs
from conftest import GENES, REPLICONS, read_fasta

THRESHOLDS = [0.0, 0.3, 0.8, 1.0, -0.5, -0.01, 1.5, 1.0000000000000002, float("nan")]
LIMITS = [0, 1, 5]


def queries():
    """Genes and replicons, and variants that exercise COBS's byte rule."""
    genes = read_fasta(GENES) + read_fasta(REPLICONS)
    sequences = [sequence for _, sequence in genes]
    first = sequences[0]
    sequences.append(first.lower())  # COBS reads lowercase as A
    sequences.append(first[:200] + "N" * 40 + first[240:600])  # and N
    sequences.append(first[:100] + "RYKMacgtn" + first[109:400])  # IUPAC codes, mixed case
    sequences.append(first[:31])  # a single k-mer: COBS leaves document order
    sequences.append(first[:40])
    rng = random.Random(15)
    sequences.append("".join(rng.choice("ACGT") for _ in range(300)))
    return sequences


def pairs(results):
    return [(r.doc_name, r.score) for r in results]


def assert_same_answers(cobs_index_module, path):
    reference = cobs_index_module.Search(str(path))
    ours = cobs.Search(path)
    compared = 0
    for query in queries():
        for threshold in THRESHOLDS:
            for limit in LIMITS:
                expected = pairs(reference.search(query, threshold, limit))
                got = ours.search(query, threshold, limit)
                assert all(isinstance(r, cobs.SearchResult) for r in got)
                assert pairs(got) == expected, (query[:40], threshold, limit)
                compared += 1
    assert compared == len(queries()) * len(THRESHOLDS) * len(LIMITS)


def test_equal_to_cobs_on_a_cobs_built_compact_index(cobs_index_module, cobs_compact):
    assert_same_answers(cobs_index_module, cobs_compact)


def test_equal_to_cobs_on_a_cobs_built_classic_index(cobs_index_module, cobs_classic):
    assert_same_answers(cobs_index_module, cobs_classic)


def test_equal_to_cobs_on_a_bitsift_built_index(cobs_index_module, demo_cobs_layout_index):
    assert_same_answers(cobs_index_module, demo_cobs_layout_index)


def test_the_minimizer_layout_cobs_refuses_is_read_here(
    cobs_index_module, demo_index, demo_cobs_layout_index
):
    """COBS ends the interpreter on an index in the minimizer layout (it checks the header
    version), so it is opened in a child; bitsift's drop-in reads it and finds the genomes
    that hold every k-mer of a gene, as COBS does in COBS's layout of the same genomes."""
    child = subprocess.run(
        [sys.executable, "-c", "import cobs_index, sys; cobs_index.Search(sys.argv[1])", str(demo_index)],
        capture_output=True,
    )
    assert child.returncode != 0
    theirs = cobs_index_module.Search(str(demo_cobs_layout_index))
    ours = cobs.Search(demo_index)
    found = 0
    for name, gene in read_fasta(GENES):
        expected = sorted(r.doc_name for r in theirs.search(gene, 1.0, 0))
        assert sorted(r.doc_name for r in ours.search(gene, 1.0, 0)) == expected, name
        found += len(expected)
    assert found, "some genes are carried whole"


def test_keyword_arguments_and_the_whole_index_in_memory(cobs_index_module, cobs_classic):
    query = read_fasta(GENES)[3][1]
    reference = cobs_index_module.Search(str(cobs_classic), load_complete_index=True)
    ours = cobs.Search(cobs_classic, load_complete_index=True)
    expected = pairs(reference.search(query, threshold=0.5, num_results=2, step=1))
    assert pairs(ours.search(query, threshold=0.5, num_results=2, step=1)) == expected
    assert pairs(ours.search(query.encode(), threshold=0.5, num_results=2)) == expected
    assert ours._index.engine == "ram"


def test_the_signature_and_defaults_are_cobs_own(cobs_index_module):
    documented = cobs_index_module.Search.search.__doc__
    parameters = re.search(r"search\(self: [\w.]+, (.*)\) ->", documented).group(1)
    theirs = [
        (name, default)
        for name, _, default in re.findall(r"(\w+): (\w+)(?: = ([\w.]+))?", parameters)
    ]
    ours = [
        (name, "" if p.default is inspect.Parameter.empty else repr(p.default))
        for name, p in inspect.signature(cobs.Search.search).parameters.items()
        if name != "self"
    ]
    assert ours == theirs
    constructor = cobs_index_module.Search.__init__.__doc__
    assert "path: str, load_complete_index: bool = False" in constructor
    signature = inspect.signature(cobs.Search.__init__)
    assert list(signature.parameters) == ["self", "path", "load_complete_index"]
    assert signature.parameters["load_complete_index"].default is False
    result = cobs_index_module.SearchResult()
    assert (result.doc_name, result.score) == (cobs.SearchResult().doc_name, cobs.SearchResult().score)


def test_bad_arguments_raise_what_cobs_raises(cobs_index_module, demo_cobs_layout_index):
    query = read_fasta(GENES)[0][1]
    reference = cobs_index_module.Search(str(demo_cobs_layout_index))
    ours = cobs.Search(demo_cobs_layout_index)
    for call in (
        lambda s: s.search(query, 0.5, -1),
        lambda s: s.search(12345),
        lambda s: s.search(query, 0.5, "3"),
    ):
        with pytest.raises(TypeError):
            call(reference)
        with pytest.raises(TypeError):
            call(ours)


def test_where_cobs_ends_the_interpreter_bitsift_raises(tmp_path, demo_index):
    """COBS aborts on a missing or foreign file and exits on a short query (checked by
    tests/peer/README.md); these are exceptions here."""
    with pytest.raises(FileNotFoundError):
        cobs.Search(tmp_path / "missing.cobs_compact")
    foreign = tmp_path / "x.cobs_compact"
    foreign.write_text("not an index")
    with pytest.raises(bitsift.IndexError):
        cobs.Search(foreign)
    with pytest.raises(ValueError, match="shorter than k = 31"):
        cobs.Search(demo_index).search("ACGT")
    with pytest.raises(ValueError, match="step 2 is not supported"):
        cobs.Search(demo_index).search(read_fasta(GENES)[0][1], step=2)
