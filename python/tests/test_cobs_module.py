"""`bitsift.cobs` against `cobs_index` (COBS's own module): every name COBS has, the same
document lists of every file type, parameters with COBS's defaults, and constructions that
write the very bytes COBS writes, searched with identical results."""

import os
import shutil
import warnings

import pytest

from bitsift import cobs
from conftest import REPO

COBS_DATA = REPO / "tests" / "data" / "cobs" / "tests" / "data"
# The names of the issue, which COBS's module documents.
NAMES = [
    "DocumentList", "DocumentEntry", "FileType", "ClassicIndexParameters",
    "CompactIndexParameters", "classic_construct", "compact_construct",
    "classic_construct_list", "compact_construct_list", "disable_cache", "__version__",
    "Search", "SearchResult",
]
ENTRY_FIELDS = ["path", "type", "name", "size", "subdoc_index", "term_size", "term_count"]


@pytest.fixture
def data(tmp_path):
    """COBS's test inputs in a directory of their own (COBS writes cache files beside its
    inputs, and the suite indexes into it). The 15-mer McCortex graph is left out of
    constructions: COBS keeps the width of the first graph it reads in a static variable."""
    target = tmp_path / "data"
    shutil.copytree(COBS_DATA, target, ignore=shutil.ignore_patterns("sample1-k15*"))
    return target


def entries(documents, k=31):
    return [
        tuple([int(getattr(d, f)) if f == "type" else getattr(d, f) for f in ENTRY_FIELDS])
        + (d.num_terms(k),)
        for d in documents
    ]


def test_every_name_of_cobs_is_here(cobs_index_module):
    for name in NAMES:
        assert hasattr(cobs, name), name
    theirs = {n for n in dir(cobs_index_module) if not n.startswith("__")}
    # classic_construct_from_documents writes COBS's intermediate directories of a build.
    missing = theirs - set(dir(cobs)) - {"classic_construct_from_documents"}
    assert not missing, missing


def test_file_types_are_cobs_own(cobs_index_module):
    theirs = cobs_index_module.FileType
    assert list(cobs.FileType.__members__) == list(theirs.__members__)
    for name, member in theirs.__members__.items():
        ours = getattr(cobs.FileType, name)
        assert int(ours) == int(member) and str(ours) == str(member) and ours.name == member.name
        assert getattr(cobs, name) is ours  # exported into the module, as COBS does


def test_parameters_have_cobs_fields_and_defaults(cobs_index_module):
    for kind in ("ClassicIndexParameters", "CompactIndexParameters"):
        theirs = getattr(cobs_index_module, kind)()
        ours = getattr(cobs, kind)()
        fields = [n for n in dir(theirs) if not n.startswith("_")]
        for name in fields:
            expected = getattr(theirs, name)
            got = getattr(ours, name)
            if name == "mem_bytes":
                assert abs(got - expected) <= expected * 0.01, (kind, got, expected)
            else:
                assert got == expected, (kind, name, got, expected)
        setattr(ours, "continue", True)
        assert ours.continue_ is True and getattr(ours, "continue") is True
        with pytest.raises(AttributeError):
            ours.clobbr = True  # a misspelt field, as in COBS


def test_document_lists_of_every_type_are_cobs_own(cobs_index_module, tmp_path):
    cobs_index_module.disable_cache()
    data = tmp_path / "data"
    shutil.copytree(COBS_DATA, data)
    cases = [
        (data, "Any"), (data, "Fasta"), (data, "Fastq"), (data, "Text"), (data, "Cortex"),
        (data, "FastaMulti"), (data / "fasta_files.list", "Any"), (data / "text", "Any"),
    ]
    for path, filter_name in cases:
        theirs = cobs_index_module.DocumentList(str(path), getattr(cobs_index_module.FileType, filter_name))
        ours = cobs.DocumentList(path, getattr(cobs.FileType, filter_name))
        assert len(ours) == len(theirs) == ours.size() == theirs.size() > 0, (path, filter_name)
        assert entries(ours) == entries(theirs), (path, filter_name)
        assert entries(ours, 20) == entries(theirs, 20), (path, filter_name)
        ours.sort_by_size()
        theirs.sort_by_size()
        assert [e.path for e in ours] == [e.path for e in theirs]
        ours.sort_by_path()
        theirs.sort_by_path()
        assert [e.path for e in ours] == [e.path for e in theirs]
    # add() appends one file without sorting; indexing returns a copy, as COBS.
    theirs = cobs_index_module.DocumentList()
    ours = cobs.DocumentList()
    for name in ("text/sample2.txt", "fasta_multi/sample2.mfasta", "cortex/document.ctx"):
        theirs.add(str(data / name))
        ours.add(data / name)
    assert entries(ours) == entries(theirs)
    copy = ours[0]
    copy.name = "changed"
    assert ours[0].name == theirs[0].name == "sample2"
    with pytest.raises(TypeError):
        cobs.DocumentEntry()


def same_search(cobs_index_module, ours_path, theirs_path, queries):
    ours = cobs.Search(ours_path)
    theirs = cobs_index_module.Search(str(theirs_path))
    for query in queries:
        got = [(r.doc_name, r.score) for r in ours.search(query)]
        expected = [(r.doc_name, r.score) for r in theirs.search(query)]
        assert got == expected, query


def queries(data):
    found = []
    for name in ("fasta/sample1.fasta", "fasta_multi/sample2.mfasta", "fastq/sample3.fastq"):
        lines = (data / name).read_text().splitlines()
        found += [line for line in lines if len(line) >= 40 and line[0] not in ">@+"][:3]
    found.append("Hello,this is the second sample text.")
    found.append("AAAAAACGGCCTACGCTCCCTTTAAACCCAATAAAAAGCCGCCTTCGCCACTGGTGTTCCTCC")
    return found


@pytest.mark.parametrize("kind", ["classic", "compact"])
def test_constructions_write_cobs_bytes(cobs_index_module, data, tmp_path, kind):
    cobs_index_module.disable_cache()
    params_class = "ClassicIndexParameters" if kind == "classic" else "CompactIndexParameters"
    cases = [
        (data, "any"), (data / "fasta_multi", "any"), (data / "text", "text"),
        (data / "cortex", "cortex"), (data / "fastq", "fastq"), (data / "fasta_files.list", "list"),
    ]
    for number, (path, file_type) in enumerate(cases):
        ours = tmp_path / ("ours%d.cobs_%s" % (number, kind))
        theirs = tmp_path / ("theirs%d.cobs_%s" % (number, kind))
        getattr(cobs, kind + "_construct")(
            input=str(path), out_file=str(ours), index_params=getattr(cobs, params_class)(),
            file_type=file_type)
        getattr(cobs_index_module, kind + "_construct")(
            input=str(path), out_file=str(theirs),
            index_params=getattr(cobs_index_module, params_class)(), file_type=file_type)
        assert ours.read_bytes() == theirs.read_bytes(), (path, file_type)
        same_search(cobs_index_module, ours, theirs, queries(data))
    assert not list(data.rglob("*.cobs_cache"))


@pytest.mark.parametrize("kind", ["classic", "compact"])
def test_list_constructions_keep_cobs_order(cobs_index_module, data, tmp_path, kind):
    cobs_index_module.disable_cache()
    params_class = "ClassicIndexParameters" if kind == "classic" else "CompactIndexParameters"
    ours_list = cobs.DocumentList(data / "fasta")
    theirs_list = cobs_index_module.DocumentList(str(data / "fasta"))
    ours_list.add(data / "text" / "sample1.txt")
    theirs_list.add(str(data / "text" / "sample1.txt"))
    ours_list.sort_by_size()
    theirs_list.sort_by_size()
    ours_params = getattr(cobs, params_class)()
    theirs_params = getattr(cobs_index_module, params_class)()
    for params in (ours_params, theirs_params):
        params.term_size = 21
        params.num_hashes = 2
        params.false_positive_rate = 0.1
    ours = tmp_path / ("ours.cobs_" + kind)
    theirs = tmp_path / ("theirs.cobs_" + kind)
    getattr(cobs, kind + "_construct_list")(ours_list, str(ours), ours_params)
    getattr(cobs_index_module, kind + "_construct_list")(theirs_list, str(theirs), theirs_params)
    assert ours.read_bytes() == theirs.read_bytes()
    same_search(cobs_index_module, ours, theirs, queries(data))


def test_refusals(data, tmp_path):
    index = tmp_path / "x.cobs_classic"
    cobs.classic_construct(data / "fasta", index)
    with pytest.raises(FileExistsError):
        cobs.classic_construct(data / "fasta", index)
    params = cobs.ClassicIndexParameters()
    params.clobber = True
    cobs.classic_construct(data / "fasta", index, params)
    with pytest.raises(ValueError, match="must end with .cobs_compact"):
        cobs.compact_construct(data / "fasta", tmp_path / "x.cobs")
    with pytest.raises(ValueError, match="unknown file type"):
        cobs.compact_construct(data / "fasta", tmp_path / "y.cobs_compact", file_type="genbank")
    with pytest.raises(TypeError):
        cobs.compact_construct(data / "fasta", tmp_path / "y.cobs_compact", params)
    (tmp_path / "reads.mfastq").write_text("@r\nACGT\n+\nIIII\n")
    with pytest.raises(ValueError, match="multi-FASTQ"):
        cobs.DocumentList().add(tmp_path / "reads.mfastq")
    with pytest.raises(FileNotFoundError):
        cobs.DocumentList(tmp_path / "missing")
    params.signature_size = 1000
    with pytest.raises(ValueError, match="signature_size"):
        cobs.classic_construct(data / "fasta", index, params)


def test_results_unpack_as_tuples_and_lowercase_warns_once(data, tmp_path):
    index = tmp_path / "x.cobs_compact"
    cobs.compact_construct(data / "fasta", index)
    search = cobs.Search(index)
    query = "AGTCAACGCTAAGGCATTTCCCCCCTGCCTCCTGCCTGCTGCCAAGCCCT"
    results = search.search(query)
    assert results[0].doc_name == "sample1" and results[0].score == 20
    for result, (score, doc) in zip(results, results):
        assert (score, doc) == (result.score, result.doc_name)
        assert result[0] == score and result[1] == doc and result == (score, doc)
    cobs._warned_lowercase = False
    with pytest.warns(UserWarning, match="lowercase"):
        search.search(query.lower())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search.search(query.lower())  # said once


def test_signature_sizes_and_version(cobs_index_module):
    for args in ((199970, 1, 0.3), (10**6, 3, 0.1), (1, 2, 0.5)):
        assert cobs.calc_signature_size(*args) == cobs_index_module.calc_signature_size(*args)
    assert isinstance(cobs.__version__, str) and cobs.__version__
    cobs.disable_cache()
    cobs.disable_cache(False)
