#!/usr/bin/env python3
"""The Python package against the Rust path and against COBS's Python module (issue 15).

    pip install ./python cobs-reloaded            # into the interpreter that runs this
    cargo build --release --bin bitsift
    python3 bench/python_bench.py --bitsift target/release/bitsift [--index FILE] \\
        [--genes FASTA] [--runs 5] [--engines uring,mmap] [--threads 1,2,4] [--json OUT]

Without --index it builds the bundled genomes (data/demo/genomes) with `bitsift build` into
a temporary directory; every measurement then uses that one index file.

Per gene query (the bundled resistance genes, threshold 0.8), for each engine, warm and cold:
- `python_ms`: wall time of `Index.search(gene)` in Python, conversion of the results and
  their hits included (best of --runs after a warm-up, then the median over the genes);
- `rust_ms`: the same call's own `stats["total_ms"]`, the time inside the Rust search;
- `cli_ms`: `stats.total_ms` of `bitsift query --format json -i INDEX GENE` (the command's
  in-process time, its start-up excluded);
- `cobs_ms`: wall time of `cobs_index.Search(INDEX).search(gene, 0.8)` in Python.
The overhead of Python is `python_ms / rust_ms - 1` (target: 5 % or less), also given
against `cli_ms`. Cold runs first evict the index file from the page cache
(`posix_fadvise(POSIX_FADV_DONTNEED)` on that file only, so the machine's other work keeps
its cache) and reopen it, as a new process would; O_DIRECT engines (uring) never use the page
cache, so for them cold and warm differ only by what the device caches.

Throughput: --threads Python threads share one `Index` and answer the gene queries (each
gene --runs times, 8 times at least) as fast as they can, one gene per call, or the whole
gene list per call (one planned batch); gene queries per second, and the speed-up over one
thread. The ratios matter, not the absolute times: the machine is shared.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def read_fasta(path):
    records, name, parts = [], None, []
    for line in Path(path).read_text().splitlines():
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(parts)))
            name, parts = line[1:].split()[0], []
        elif line.strip():
            parts.append(line.strip())
    if name is not None:
        records.append((name, "".join(parts)))
    return records


def evict(path):
    """Drops `path` from the page cache (this file only)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def warm_file(path):
    with open(path, "rb") as f:
        while f.read(8 << 20):
            pass


def best(samples):
    return min(samples)


def python_latency(bitsift, index_path, genes, engine, cold, runs):
    """Per gene: (python wall ms, rust total ms), best of `runs`."""
    python_ms, rust_ms = [], []
    index = None if cold else bitsift.Index(index_path, engine=engine, max_sessions=1)
    if index is not None:
        for _, sequence in genes:  # warm-up
            index.search(sequence)
    for _, sequence in genes:
        walls, totals = [], []
        for _ in range(runs):
            if cold:
                if index is not None:
                    index.close()
                evict(index_path)
                index = bitsift.Index(index_path, engine=engine, max_sessions=1)
            started = time.perf_counter()
            result = index.search(sequence)[0]
            result.hits  # the hits as Python objects: part of what a user pays
            walls.append((time.perf_counter() - started) * 1e3)
            totals.append(result.stats["total_ms"])
        python_ms.append(best(walls))
        rust_ms.append(best(totals))
    index.close()
    return python_ms, rust_ms


def cli_latency(binary, index_path, genes, engine, cold, runs):
    """Per gene: the command's own stats.total_ms, best of `runs`."""
    per_gene = []
    if not cold:
        warm_file(index_path)
    for _, sequence in genes:
        totals = []
        for _ in range(runs):
            if cold:
                evict(index_path)
            done = subprocess.run(
                [binary, "query", "-i", index_path, "--engine", engine, "--format", "json",
                 sequence],
                capture_output=True, text=True, check=True,
            )
            totals.append(json.loads(done.stdout)["queries"][0]["stats"]["total_ms"])
        per_gene.append(best(totals))
    return per_gene


def cobs_latency(index_path, genes, cold, runs):
    try:
        import cobs_index
    except ImportError:
        return None
    per_gene = []
    search = None if cold else cobs_index.Search(str(index_path))
    if search is not None:
        for _, sequence in genes:
            search.search(sequence, 0.8)
    for _, sequence in genes:
        walls = []
        for _ in range(runs):
            if cold:
                search = None
                evict(index_path)
                search = cobs_index.Search(str(index_path))
            started = time.perf_counter()
            search.search(sequence, 0.8)
            walls.append((time.perf_counter() - started) * 1e3)
        per_gene.append(best(walls))
    return per_gene


def throughput(bitsift, index_path, genes, engine, threads, repeats, per_call):
    """Gene queries per second of `threads` Python threads sharing one Index, each call
    searching `per_call` genes."""
    index = bitsift.Index(index_path, engine=engine, max_sessions=max(threads, 1))
    calls = [genes[i : i + per_call] for i in range(0, len(genes), per_call)]
    jobs = calls * repeats
    for job in calls:
        index.search(job)
    position = iter(range(len(jobs)))
    lock = threading.Lock()

    def work():
        while True:
            with lock:
                job = next(position, None)
            if job is None:
                return
            for result in index.search(jobs[job]):
                result.hits

    workers = [threading.Thread(target=work) for _ in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    index.close()
    return len(genes) * repeats / elapsed


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bitsift", default=str(ROOT / "target" / "release" / "bitsift"))
    parser.add_argument("--index", type=Path)
    parser.add_argument("--genes", type=Path, default=ROOT / "data/demo/queries/amr_genes.fa")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engines", default="uring,mmap")
    parser.add_argument("--threads", default="1,2,4")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import bitsift

    genes = read_fasta(args.genes)
    scratch = tempfile.TemporaryDirectory()
    index_path = args.index
    if index_path is None:
        index_path = Path(scratch.name) / "demo.cobs_compact"
        subprocess.run([args.bitsift, "build", "-q", "-o", str(index_path),
                        str(ROOT / "data/demo/genomes")], check=True)
    index_path = str(index_path)
    report = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "kernel": platform.release()},
        "index": {"path": index_path, "bytes": os.path.getsize(index_path)},
        "genes": len(genes),
        "runs": args.runs,
        "latency": [],
        "throughput": [],
    }
    print("| engine | cache | python ms | rust ms | cli ms | cobs_index ms | python / rust "
          "| python / cli |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for engine in args.engines.split(","):
        for cold in (True, False):
            python_ms, rust_ms = python_latency(bitsift, index_path, genes, engine, cold,
                                                args.runs)
            cli_ms = cli_latency(args.bitsift, index_path, genes, engine, cold, args.runs)
            cobs_ms = cobs_latency(index_path, genes, cold, args.runs)
            ratio_rust = median([p / r for p, r in zip(python_ms, rust_ms)])
            ratio_cli = median([p / c for p, c in zip(python_ms, cli_ms)])
            row = {
                "engine": engine,
                "cache": "cold" if cold else "warm",
                "python_ms": median(python_ms),
                "rust_ms": median(rust_ms),
                "cli_ms": median(cli_ms),
                "cobs_ms": median(cobs_ms) if cobs_ms else None,
                "python_over_rust": ratio_rust,
                "python_over_cli": ratio_cli,
            }
            report["latency"].append(row)
            cobs_text = "%.3f" % row["cobs_ms"] if cobs_ms else "n/a"
            print("| %s | %s | %.3f | %.3f | %.3f | %s | %.3f | %.3f |" % (
                engine, row["cache"], row["python_ms"], row["rust_ms"], row["cli_ms"],
                cobs_text, ratio_rust, ratio_cli), flush=True)
    print()
    print("| engine | genes per call | threads | gene queries/s | speed-up |")
    print("|---|---:|---:|---:|---:|")
    for engine in args.engines.split(","):
        for per_call in (1, len(genes)):
            one = None
            for threads in [int(t) for t in args.threads.split(",")]:
                rate = throughput(bitsift, index_path, genes, engine, threads,
                                  max(args.runs, 8), per_call)
                one = one or rate
                report["throughput"].append({"engine": engine, "genes_per_call": per_call,
                                             "threads": threads, "queries_per_s": rate,
                                             "speedup": rate / one})
                print("| %s | %d | %d | %.0f | %.2f |" % (engine, per_call, threads, rate,
                                                          rate / one), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    scratch.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
