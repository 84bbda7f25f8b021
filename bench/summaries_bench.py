#!/usr/bin/env python3
"""Issue 14: bytes read and cold latency per query class, by document order and block summaries.

Runs `bitsift query` cold (page cache dropped before every command; O_DIRECT reads, so no
query warms the next; after one unmeasured pass that reads every row, so that the VM host's
cache of the virtual disk serves every measured setting alike) over the query sets of a multi-species collection made by
`bitsift-simulate --species` (queries_core.fa, queries_accessory.fa, queries_mobile.fa,
queries_absent.fa and queries_truth.tsv), for every index given, with and without block
summaries, at each threshold. Checks every answer against the simulator's truth (no
document that holds a query at the threshold may be missing) and prints Markdown tables.

    python3 bench/summaries_bench.py --bitsift target/release/bitsift --data DIR \\
        --index size=ms8k_size.cobs_compact --index group=ms8k_group.cobs_compact \\
        --out bench/results/summaries-DATE

Also measures waves against queue depth (--waves-index NAME): bytes read and latency with
and without `--waves` at depths 1, 8 and 64, summaries off, threshold 0.8.
Needs root (to drop the page cache).
"""

import argparse
import collections
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

CLASSES = ["core", "accessory", "mobile", "absent"]


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def load_truth(path):
    """query -> list of (genome, true k-mers found, k-mer positions)."""
    truth = collections.defaultdict(list)
    with open(path) as f:
        next(f)
        for line in f:
            query, _cls, genome, found, total = line.rstrip("\n").split("\t")
            truth[query].append((genome, int(found), int(total)))
    return truth


def run_query(args, index, queries, threshold, extra):
    command = [
        args.bitsift, "query", "-q", "-i", index, "-f", queries, "-t", str(threshold),
        "--batch", "1", "--engine", "uring", "--direct-io", "required", "--format", "json",
    ] + extra
    drop_caches()
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - started
    if done.returncode not in (0,):
        sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    return json.loads(done.stdout), wall, " ".join(command)


def summarise(result, truth, threshold):
    """Sums over the queries of one run, and the truth violations."""
    bytes_read, ms, ruled_out, pruned, missing, hits = 0, [], 0, 0, 0, 0
    for query in result["queries"]:
        stats = query.get("stats", {})
        bytes_read += stats.get("bytes_read", 0)
        ms.append(stats.get("total_ms", 0.0))
        ruled_out += stats.get("blocks_ruled_out", 0)
        pruned += stats.get("blocks_pruned", 0)
        reported = {h["document"] for h in query.get("hits", [])}
        hits += len(reported)
        for genome, found, total in truth.get(query["query"], []):
            if found >= math.ceil(threshold * total) and genome not in reported:
                missing += 1
    batches = result.get("batches", [])
    summary_bytes = max((b.get("summary_bytes", 0) for b in batches), default=0)
    return {
        "queries": len(result["queries"]),
        "bytes_read": bytes_read,
        "total_ms": sum(ms),
        "median_ms": statistics.median(ms) if ms else 0.0,
        "blocks_ruled_out": ruled_out,
        "blocks_pruned": pruned,
        "hits": hits,
        "missing": missing,
        "summary_bytes": summary_bytes,
    }


def mib(n):
    return f"{n / 2**20:,.1f}"


def orders_table(args, truth, records):
    for name, index in args.index:
        for threshold in args.thresholds:
            for cls in args.classes:
                queries = str(pathlib.Path(args.data) / f"queries_{cls}.fa")
                # Every row any setting reads, once, unmeasured: the host's cache of the
                # virtual disk then serves every measured run alike (see BENCHMARKS.md).
                run_query(args, index, queries, threshold, ["--no-summaries", "--no-prune"])
                for mode, extra in (("off", ["--no-summaries"]), ("on", [])):
                    result, wall, command = run_query(args, index, queries, threshold, extra)
                    row = summarise(result, truth, threshold)
                    row.update(index=name, threshold=threshold, cls=cls, summaries=mode,
                               wall_s=wall, command=command)
                    records.append(row)
                    print(f"{name} t={threshold} {cls} summaries={mode}: "
                          f"{mib(row['bytes_read'])} MiB, {row['total_ms']:.0f} ms, "
                          f"missing {row['missing']}", file=sys.stderr)


def waves_table(args, truth, records):
    index = dict(args.index)[args.waves_index]
    queries = str(pathlib.Path(args.data) / "queries_core.fa")
    run_query(args, index, queries, 0.8, ["--no-summaries", "--no-prune"])
    for depth in (1, 8, 64):
        for mode, extra in (("on", ["--waves"]), ("off", [])):
            extra = extra + ["--no-summaries", "--queue-depth", str(depth)]
            result, wall, command = run_query(args, index, queries, 0.8, extra)
            row = summarise(result, truth, 0.8)
            row.update(index=args.waves_index, depth=depth, waves=mode, wall_s=wall,
                       command=command)
            records.append(row)
            print(f"waves={mode} depth={depth}: {mib(row['bytes_read'])} MiB, "
                  f"{row['total_ms']:.0f} ms", file=sys.stderr)


def print_tables(records):
    print("| index | t | class | summaries | MiB read | total ms | median ms | blocks ruled out | hits | missing vs truth |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for r in records:
        if "cls" not in r:
            continue
        print(f"| {r['index']} | {r['threshold']} | {r['cls']} ({r['queries']}) | {r['summaries']} | "
              f"{mib(r['bytes_read'])} | {r['total_ms']:.0f} | {r['median_ms']:.1f} | "
              f"{r['blocks_ruled_out']} | {r['hits']} | {r['missing']} |")
    waves = [r for r in records if "depth" in r]
    if waves:
        print()
        print("| index | depth | waves | MiB read | total ms | blocks pruned |")
        print("|---|---:|---|---:|---:|---:|")
        for r in waves:
            print(f"| {r['index']} | {r['depth']} | {r['waves']} | {mib(r['bytes_read'])} | "
                  f"{r['total_ms']:.0f} | {r['blocks_pruned']} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bitsift", default="target/release/bitsift")
    parser.add_argument("--data", required=True, help="the simulator's output directory")
    parser.add_argument("--index", action="append", required=True, type=lambda s: s.split("=", 1),
                        help="NAME=PATH; repeat")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.8, 0.5])
    parser.add_argument("--classes", nargs="+", default=CLASSES, choices=CLASSES)
    parser.add_argument("--waves-index", help="NAME of the index to measure waves on")
    parser.add_argument("--out", help="directory for results.json and tables.md")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root to drop the page cache between runs")
    truth = load_truth(pathlib.Path(args.data) / "queries_truth.tsv")
    records = []
    orders_table(args, truth, records)
    if args.waves_index:
        waves_table(args, truth, records)
    print_tables(records)
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(records, indent=1))
    if any(r["missing"] for r in records):
        sys.exit("a document that holds a query at the threshold was not reported")


if __name__ == "__main__":
    main()
