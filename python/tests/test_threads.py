"""One Index searched from several Python threads at once: the GIL is released while
searching, sessions are pooled, and the answers are those of sequential searches."""

import gzip
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import bitsift
from conftest import DEMO, GENES, REPLICONS, read_fasta


def answers(results):
    return [
        (r.name, r.kmers_total, [(h.document, h.kmers_found) for h in r.hits]) for r in results
    ]


def workload():
    """Queries of different sizes: single genes, and whole replicon sets."""
    genes = read_fasta(GENES)
    replicons = read_fasta(REPLICONS)
    jobs = [[pair] for pair in genes] + [replicons, genes[:10]]
    return jobs * 3


def run_threads(index, jobs, threads):
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(lambda job: answers(index.search(job, threshold=0.5)), jobs))


def test_threads_get_the_answers_of_sequential_searches(demo_index, record_property):
    index = bitsift.Index(demo_index, max_sessions=4)
    jobs = workload()
    started = time.perf_counter()
    sequential = [answers(index.search(job, threshold=0.5)) for job in jobs]
    sequential_s = time.perf_counter() - started
    for threads in (2, 4, 8):
        started = time.perf_counter()
        concurrent = run_threads(index, jobs, threads)
        elapsed = time.perf_counter() - started
        record_property("seconds_%d_threads" % threads, round(elapsed, 4))
        assert concurrent == sequential, "%d threads" % threads
    record_property("seconds_sequential", round(sequential_s, 4))
    info = index.info()
    assert 1 <= info["sessions"] <= info["max_sessions"] == 4


def test_threads_share_one_cache(demo_index):
    # Smaller than the index (128 MB): a paged cache, not an image of the whole index.
    index = bitsift.Index(demo_index, engine="pread", direct_io="off", cache_size="64M")
    jobs = workload()
    first = run_threads(index, jobs, 4)
    assert run_threads(index, jobs, 4) == first
    hits = [index.search(job)[0].batch_stats["cache_hits"] for job in jobs[:5]]
    assert all(h > 0 for h in hits), "every session reads the rows the others cached"


def test_the_gil_is_released_while_searching(demo_index):
    """A Python thread keeps running while another searches: it could not if the search held
    the GIL. The query (copies of a genome) grows until one search takes 0.2 s."""
    with gzip.open(DEMO / "genomes" / "Phage_lambda_NC_001416.fa.gz", "rt") as lines:
        genome = "".join(line.strip() for line in lines if not line.startswith(">"))
    index = bitsift.Index(demo_index)
    copies = 1
    while True:
        query = {"copy%d" % i: genome for i in range(copies)}
        started = time.perf_counter()
        index.search(query, threshold=0.9)
        if time.perf_counter() - started > 0.2 or copies >= 64:
            break
        copies *= 2
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        time.sleep(0.05)
        started = time.perf_counter()
        results = index.search(query, threshold=0.9)
        ended = time.perf_counter()
    finally:
        stop.set()
        ticker.join()
    assert all(r.hits[0].document == "Phage_lambda_NC_001416" for r in results)
    margin = 0.2 * (ended - started)
    during = [t for t in ticks if started + margin < t < ended - margin]
    assert len(during) > 100, "the other thread ran during the search"


def test_a_session_limit_of_one_serialises_but_answers_everyone(demo_index):
    index = bitsift.Index(demo_index, max_sessions=1)
    jobs = workload()[:20]
    sequential = [answers(index.search(job, threshold=0.5)) for job in jobs]
    assert run_threads(index, jobs, 6) == sequential
    assert index.info()["sessions"] == 1
