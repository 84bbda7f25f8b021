"""bitsift.Index gives the command line's answers, from every kind of query input."""

import math
import os
import sys
import time
from pathlib import Path

import pytest

import bitsift
from conftest import DEMO, GENES, REPLICONS, SMALL_GENOMES, read_fasta


def rounded(value, scale=1e4):
    """As the command line rounds a score: half away from zero, at 4 decimals by default."""
    scaled = value * scale
    whole = math.floor(scaled)
    if scaled - whole >= 0.5:
        whole += 1
    return whole / scale


def corrected_as_cli(hit):
    """A hit's corrected score as `bitsift query --format json` writes it (none when the
    search did not correct it)."""
    if hit.containment is None:
        return {}
    return {
        "containment": rounded(hit.containment),
        "containment_low": rounded(hit.containment_low),
        "containment_high": rounded(hit.containment_high),
        "borderline": hit.borderline,
        "fpr": rounded(hit.fpr),
        "fp_expected": rounded(hit.fp_expected, 10.0),
        "p_false": float(f"{hit.p_false:.2e}"),
    }


def as_cli(results):
    """Results in the shape of `bitsift query --format json` queries (without stats)."""
    shaped = []
    for result in results:
        shaped.append(
            {
                "query": result.name,
                "kmers_total": result.kmers_total,
                "total_hits": result.total_hits,
                "documents_searched": result.documents_searched,
                "hits": [
                    {
                        "document": hit.document,
                        "kmers_found": hit.kmers_found,
                        "kmers_total": hit.kmers_total,
                        "fraction": round(hit.fraction, 4),
                        "identity": round(hit.identity, 4),
                        **corrected_as_cli(hit),
                    }
                    for hit in result.hits
                ],
            }
        )
    return shaped


def cli_queries(output):
    """The queries of `bitsift query --format json`, without stats and hit labels."""
    queries = []
    for query in output["queries"]:
        hits = []
        for hit in query["hits"]:
            hit = dict(hit)
            hit.pop("index", None)
            hit.pop("file", None)
            hits.append(hit)
        queries.append(
            {
                "query": query["query"],
                "kmers_total": query["kmers_total"],
                "total_hits": query["total_hits"],
                "documents_searched": query["documents_searched"],
                "hits": hits,
            }
        )
    return queries


@pytest.mark.parametrize("threshold,limit", [(0.8, 0), (0.5, 0), (0.0, 3), (1.0, 1)])
def test_gene_results_equal_the_cli(demo_index, cli_json, threshold, limit):
    index = bitsift.Index(demo_index)
    results = index.search(GENES, threshold=threshold, limit=limit)
    expected = cli_json([demo_index], "-f", GENES, "-t", threshold, "-l", limit)
    assert len(results) == 30
    assert as_cli(results) == cli_queries(expected)
    assert all(hit.index == str(demo_index) for r in results for hit in r.hits)


def test_raw_threshold_is_cobs_filter(demo_index, cli_json):
    """Threshold 0 lists the documents with evidence by default (the corrected filter), every
    document with raw_threshold=True (COBS's filter), as `--raw-threshold` does."""
    index = bitsift.Index(demo_index)
    documents = len(index.documents)
    corrected = index.search(GENES, threshold=0.0)
    raw = index.search(GENES, threshold=0.0, raw_threshold=True)
    assert all(len(r.hits) == documents for r in raw)
    assert all(len(r.hits) < documents for r in corrected)
    expected = cli_json([demo_index], "-f", GENES, "-t", 0.0, "--raw-threshold")
    assert as_cli(raw) == cli_queries(expected)
    # The same hits keep their scores: the filter differs, not the numbers.
    scores = {(r.name, h.document): h for r in raw for h in r.hits}
    for result in corrected:
        for hit in result.hits:
            assert scores[(result.name, hit.document)] == hit


def test_every_input_form_gives_the_same_answers(demo_index):
    index = bitsift.Index(demo_index)
    pairs = read_fasta(REPLICONS)
    from_file = as_cli(index.search(REPLICONS))
    assert as_cli(index.search(str(REPLICONS))) == from_file, "a str path"
    assert as_cli(index.search(dict(pairs))) == from_file, "a dict"
    assert as_cli(index.search(pairs)) == from_file, "a list of pairs"
    assert as_cli(index.search(iter(pairs))) == from_file, "an iterator of pairs"
    as_bytes = [(name, sequence.encode()) for name, sequence in pairs]
    assert as_cli(index.search(as_bytes)) == from_file, "bytes sequences"
    name, sequence = pairs[0]
    one = as_cli(index.search(sequence))
    assert one == [dict(from_file[0], query="query")], "a lone str is named query"
    assert as_cli(index.search(sequence.encode())) == one
    assert as_cli(index.search(bytearray(sequence.encode()))) == one
    assert as_cli(index.search({7: sequence})) == [dict(from_file[0], query="7")]
    assert index.search({}) == []


def test_a_lone_sequence_equals_the_cli_argument(demo_index, cli_json):
    name, sequence = read_fasta(GENES)[0]
    results = bitsift.Index(demo_index).search(sequence, threshold=0.3)
    assert as_cli(results) == cli_queries(cli_json([demo_index], "-t", 0.3, sequence))


def test_case_and_whitespace_follow_the_base_rule(demo_index):
    """Lowercase is a base and whitespace is not, as the command line reads queries
    (issue 11); U reads as T."""
    index = bitsift.Index(demo_index)
    pairs = read_fasta(GENES)[:5]
    upper = as_cli(index.search(pairs))
    lower = [(n, s.lower()) for n, s in pairs]
    spaced = [(n, "\n".join(s[i : i + 60] for i in range(0, len(s), 60)) + " \t") for n, s in pairs]
    rna = [(n, s.replace("T", "U")) for n, s in pairs]
    assert as_cli(index.search(lower)) == upper
    assert as_cli(index.search(spaced)) == upper
    assert as_cli(index.search(rna)) == upper


def test_several_indexes_and_a_directory_equal_the_cli(demo_index, small_index, cli_json):
    index = bitsift.Index([demo_index, small_index.parent])
    assert index.paths == [demo_index, small_index]
    results = index.search(GENES, threshold=0.6)
    expected = cli_json([demo_index, small_index], "-f", GENES, "-t", 0.6)
    assert as_cli(results) == cli_queries(expected)
    labels = [[hit["index"] for hit in q["hits"]] for q in expected["queries"]]
    assert [[hit.index for hit in r.hits] for r in results] == labels
    assert index.documents == bitsift.Index(demo_index).documents + bitsift.Index(
        small_index
    ).documents


def test_a_collection_opens_with_its_removed_documents_hidden(cli, cli_json, tmp_path):
    collection = tmp_path / "collection"
    genomes = [DEMO / "genomes" / name for name in SMALL_GENOMES]
    cli("add", "-q", collection, *genomes[:3])
    cli("add", "-q", collection, *genomes[3:])
    removed = tmp_path / "removed.txt"
    removed.write_text("Kpn_pMCR_1511_KX377410\n")
    cli("remove", collection, "--documents", removed)
    index = bitsift.Index(collection)
    # COBS's raw filter at 0: every document not removed is reported.
    results = index.search(GENES, threshold=0.0, raw_threshold=True)
    expected = cli_json([collection], "-f", GENES, "-t", 0.0, "--raw-threshold")
    assert as_cli(results) == cli_queries(expected)
    reported = {hit.document for r in results for hit in r.hits}
    # One collection, named after its directory, whatever its number of sub-indexes.
    assert {hit.index for r in results for hit in r.hits} == {str(collection)}
    assert all(r.documents_searched == len(SMALL_GENOMES) - 1 for r in results)
    assert len(index.documents) == len(SMALL_GENOMES) - 1
    assert "Kpn_pMCR_1511_KX377410" not in reported
    assert "Phage_lambda_NC_001416" in reported


def test_coverage_equals_the_cli(demo_index, cli_json):
    index = bitsift.Index(demo_index)
    results = index.search(GENES, threshold=0.6, coverage=True)
    expected = cli_json([demo_index], "-f", GENES, "-t", 0.6, "--coverage")
    got = [[hit.coverage for hit in r.hits] for r in results]
    assert got == [[hit["coverage"] for hit in q["hits"]] for q in expected["queries"]]
    assert any(c["longest_gap"] > 0 for hits in got for c in hits), "partial hits too"
    whole = results[0].hits[0].coverage
    assert whole == {"intervals": [[1, 1626]], "covered_bases": 1626, "longest_gap": 0}
    frame = results.to_pandas()
    assert list(frame.columns[-2:]) == ["intervals", "longest_gap"]
    assert frame["intervals"].iloc[0] == "1-1626"
    plain = index.search(GENES).to_pandas()
    assert "intervals" not in plain.columns


def test_stats_have_the_keys_of_the_cli(demo_index, cli_json):
    result = bitsift.Index(demo_index).search(GENES)[0]
    expected = cli_json([demo_index], "-f", GENES)
    assert list(result.stats) == list(expected["queries"][0]["stats"])
    assert list(result.batch_stats) == list(expected["batches"][0])
    assert result.stats["kmers"] == result.kmers_total
    assert result.batch_stats["queries"] == 30
    assert result.skipped is None


def test_info_matches_bitsift_info(demo_index, small_index, cli):
    import json

    index = bitsift.Index([demo_index, small_index])
    info = index.info()
    assert info["documents"] == len(index.documents)
    assert info["file_size"] == os.path.getsize(demo_index) + os.path.getsize(small_index)
    assert info["engine"] == index.engine in ("uring", "pread", "mmap", "ram")
    for path, entry in zip([demo_index, small_index], info["indexes"]):
        expected = json.loads(cli("info", "--json", path).stdout)
        assert entry == {key: expected[key] for key in entry}
        assert set(entry) >= {"path", "k", "canonical", "hashes", "documents", "blocks"}
        assert set(entry) >= {"page_size", "file_size"}


@pytest.mark.parametrize("engine", ["uring", "pread", "mmap", "ram"])
def test_every_engine_gives_the_same_answers(demo_index, engine):
    reference = as_cli(bitsift.Index(demo_index).search(GENES, threshold=0.5))
    index = bitsift.Index(demo_index, engine=engine, queue_depth=8)
    assert index.engine == engine
    assert as_cli(index.search(GENES, threshold=0.5)) == reference


def test_a_cache_serves_repeated_queries(demo_index):
    index = bitsift.Index(demo_index, engine="pread", cache_size="64M", direct_io="off")
    first = index.search(GENES)
    again = index.search(GENES)
    assert as_cli(again) == as_cli(first)
    assert again[0].batch_stats["cache_hits"] > 0
    assert index.info()["cache_size"] > 0


def test_a_cache_that_holds_the_index_scores_it_in_place(demo_index):
    reference = as_cli(bitsift.Index(demo_index).search(GENES))
    size = demo_index.stat().st_size
    index = bitsift.Index(demo_index, engine="uring", direct_io="required",
                          cache_size=2 * size)
    # The image holds every file a search reads: the index and its side files.
    files = [demo_index] + [demo_index.with_name(demo_index.name + suffix)
                            for suffix in (".bitsift-checksums", ".bitsift-summaries",
                                           ".bitsift-ones")]
    assert index.info()["cache_size"] == sum(f.stat().st_size for f in files if f.exists())
    deadline = time.monotonic() + 60
    while True:
        results = index.search(GENES)
        assert as_cli(results) == reference
        if results[0].batch_stats["source"] == "image":
            break
        assert time.monotonic() < deadline, "the index never came into memory"
        time.sleep(0.05)
    assert results[0].batch_stats["bytes_read"] == 0


def test_a_warm_up_fills_the_cache_in_the_background(demo_index):
    index = bitsift.Index(demo_index, engine="pread", direct_io="off", cache_size="256M",
                          warm=True)
    reference = as_cli(bitsift.Index(demo_index).search(GENES))
    assert as_cli(index.search(GENES)) == reference
    index.close()  # stops the warm-up
    assert index.closed


def test_limit_batch_and_prune_options(demo_index):
    index = bitsift.Index(demo_index)
    full = as_cli(index.search(GENES, threshold=0.5))
    assert as_cli(index.search(GENES, threshold=0.5, prune=False)) == full
    one_by_one = index.search(GENES, threshold=0.5, batch=1)
    assert as_cli(one_by_one) == full
    assert len({r.batch_stats["batch"] for r in one_by_one}) == 30
    assert all(r.batch_stats["queries"] == 1 for r in one_by_one)
    # COBS's threshold 0: every document is a hit, so the limit is what keeps 2 of them.
    limited = index.search(GENES, threshold=0.0, limit=2, raw_threshold=True)
    assert all(len(r.hits) == 2 for r in limited)


def test_to_pandas(demo_index):
    pandas = pytest.importorskip("pandas")
    results = bitsift.Index(demo_index).search(GENES, threshold=0.9)
    frame = results.to_pandas()
    assert list(frame.columns) == [
        "query",
        "index",
        "document",
        "kmers_found",
        "kmers_total",
        "fraction",
        "identity",
        "containment",
        "containment_low",
        "containment_high",
        "borderline",
        "fpr",
        "fp_expected",
        "p_false",
    ]
    assert len(frame) == sum(len(r.hits) for r in results)
    first = results[0].to_pandas()
    assert isinstance(first, pandas.DataFrame)
    assert [row[:7] for row in first.itertuples(index=False, name=None)] == [
        (results[0].name, hit.index, hit.document) + tuple(hit[2:6]) for hit in results[0].hits
    ]
    assert frame["kmers_found"].dtype.kind == "i"


def test_to_pandas_without_pandas_says_what_to_install(demo_index, monkeypatch):
    results = bitsift.Index(demo_index).search(GENES)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="to_pandas\\(\\) needs pandas.*pip install pandas"):
        results.to_pandas()
    with pytest.raises(ImportError, match="pip install pandas"):
        results[0].to_pandas()


def test_results_are_typed_objects(demo_index):
    results = bitsift.Index(demo_index).search(GENES)
    assert isinstance(results, bitsift.Results) and isinstance(results, list)
    result = results[0]
    assert isinstance(result, bitsift.QueryResult)
    hit = result.hits[0]
    assert isinstance(hit, bitsift.Hit)
    document, index, found, total, fraction, identity, coverage = hit[:7]
    assert (document, found, total) == ("Kpn_pMCR_1511_KX377410", 1596, 1596)
    assert fraction == 1.0 and identity == 1.0 and index == str(demo_index)
    # The score corrected for the document's false positives (README, Corrected scores).
    assert hit.containment == 1.0 and hit.borderline is False
    assert 0.0 <= hit.fpr < 1.0 and hit.p_false == 0.0
    assert coverage is None, "only asked for with coverage=True"
    assert result.hits is result.hits, "built once"
    assert (
        repr(result)
        == "QueryResult(name='mcr-1.1_1_KP347127', kmers_total=1596, total_hits=1, hits=<1 shown>)"
    )
    assert repr(results).startswith("Results([QueryResult(")


def test_a_path_like_and_a_str_that_names_a_file(demo_index, tmp_path):
    index = bitsift.Index(Path(demo_index))
    named = tmp_path / "ACGT"  # a file whose name is all bases: a str of bases is a sequence
    named.write_text(">x\n" + read_fasta(GENES)[0][1] + "\n")
    with pytest.raises(ValueError, match="shorter than k"):
        index.search(str(named.name))
    assert index.search(named)[0].name == "x"
    relative = os.path.relpath(GENES)
    assert len(index.search(relative)) == 30


def test_the_index_can_be_closed(demo_index):
    with bitsift.Index(demo_index) as index:
        assert not index.closed
        index.search(GENES)
    assert index.closed
    assert "closed" in repr(index)
    with pytest.raises(ValueError, match="closed index"):
        index.search(GENES)


def _species_table(path):
    """A sample table: each demo genome's species is its name's prefix (Kpn, Eco, ...)."""
    names = bitsift.Index(path).documents
    table = path.parent / "species.tsv"
    table.write_text(
        "document\tspecies\n" + "".join("%s\t%s\n" % (n, n.split("_")[0]) for n in names)
    )
    return table, names


def test_totals_and_groups_count_every_hit_whatever_the_limit(demo_index, cli_json):
    table, names = _species_table(demo_index)
    index = bitsift.Index(demo_index, metadata=table)
    full = index.search(GENES, threshold=0.5)
    limited = index.search(GENES, threshold=0.5, limit=1, group_by="species")
    for whole, one in zip(full, limited):
        assert one.total_hits == len(whole.hits) == whole.total_hits
        assert one.documents_searched == len(names)
        assert len(one.hits) == min(1, len(whole.hits))
        # The groups, counted again from the full hit list and the table.
        species = {n: n.split("_")[0] for n in names}
        for group in one.groups:
            carriers = [h for h in whole.hits if species[h.document] == group["value"]]
            assert group["carriers"] == len(carriers)
            assert group["searched"] == sum(1 for n in names if species[n] == group["value"])
            if carriers:
                assert group["score_max"] == round(max(h.fraction for h in carriers), 4)
            else:
                assert group["score_max"] is None
        assert sum(g["searched"] for g in one.groups) == len(names)
    expected = cli_json(
        [demo_index], "-f", GENES, "-t", 0.5, "-l", 1, "--metadata", table, "--group-by", "species"
    )
    assert [q["groups"] for q in expected["queries"]] == [r.groups for r in limited]
    assert full[0].groups is None, "groups only when asked for"
    with pytest.raises(ValueError, match="no column \"host\""):
        index.search(GENES, group_by="host")
    with pytest.raises(ValueError, match="metadata=PATH"):
        bitsift.Index(demo_index).search(GENES, group_by="species")


def test_min_identity_is_a_threshold_on_the_identity_estimate(demo_index):
    index = bitsift.Index(demo_index)
    by_identity = index.search(GENES, min_identity=0.99)
    # 0.99 ** 31 of the k-mers: the fraction a copy at 99 % identity keeps.
    by_fraction = index.search(GENES, threshold=0.99**31)
    assert as_cli(by_identity) == as_cli(by_fraction)
    assert all(hit.identity >= 0.99 - 1e-9 for r in by_identity for hit in r.hits)


def test_a_matrix_has_a_row_per_hit_document_and_a_column_per_query(demo_index, cli):
    pandas = pytest.importorskip("pandas")
    results = bitsift.Index(demo_index).search(GENES, threshold=0.9)
    matrix = results.matrix()
    assert list(matrix.columns) == [r.name for r in results]
    hit_documents = {h.document for r in results for h in r.hits}
    assert set(matrix.index) == hit_documents
    for result in results:
        column = matrix[result.name]
        assert {d for d, v in column.items() if v > 0} == {h.document for h in result.hits}
        for hit in result.hits:
            assert column[hit.document] == hit.containment
    presence = results.matrix(presence=True, sparse=True)
    assert isinstance(presence[results[0].name].dtype, pandas.SparseDtype)
    assert presence.sparse.to_dense().sum().sum() == sum(len(r.hits) for r in results)
    # The command line's matrix, read back, is the same table.
    text = cli("query", "-i", demo_index, "-f", GENES, "-t", 0.9, "--format", "matrix").stdout
    lines = [line.split("\t") for line in text.rstrip("\n").split("\n")]
    assert lines[0][1:] == list(matrix.columns)
    assert [line[0] for line in lines[1:]] == list(matrix.index)
    for line, (_, row) in zip(lines[1:], matrix.iterrows()):
        got, want = [float(v) if v else 0.0 for v in line[1:]], [round(v, 4) for v in row]
        assert got == want, [(a, b) for a, b in zip(got, want) if a != b]
