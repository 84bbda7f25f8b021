#!/usr/bin/env python3
"""Collections (issue 13): what growing a collection costs, what merging does to queries, and
the Snakemake workflow on this machine's cores.

    python3 bench/collection_bench.py [--genomes N] [--genome-size BASES] [--work DIR] ...

1. add vs rebuild: a simulated collection of N genomes is built (`bitsift add`), then 1 % more
   genomes are added; the same N + 1 % genomes are also built from scratch. Reported: both
   wall times and their ratio (issue target: adding >= 50x faster than rebuilding).
2. queries before and after merge: the collection is grown in `--batches` adds; the genes are
   searched (warm: one run to warm, then the median of `--runs`), then `bitsift merge`
   combines the sub-indexes and the same queries run again.
3. the workflow: the N genomes through workflow/Snakefile with --cores 2 as 1, 2 and 4 shards
   (build + assemble + a split search); wall time and k-mers per second per core.

Raw results go to RESULTS_DIR/collection.json (default bench/results/collection-<date>/), and a
Markdown table to standard output for BENCHMARKS.md. Nothing here needs root. Everything made
under --work is deleted at the end unless --keep.
"""

import argparse
import datetime
import glob
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite.util import BenchError, log, run, summary, write_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENES = os.path.join(ROOT, "data/demo/queries/amr_genes.fa")
TRAIN = os.path.join(ROOT, "data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz")
KMERS_PER_S = re.compile(r"in ([0-9.]+) s \(([0-9.]+) M k-mers/s")


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bitsift", default=os.path.join(ROOT, "target/release/bitsift"))
    p.add_argument("--simulate", default=os.path.join(ROOT, "target/release/bitsift-simulate"))
    p.add_argument("--snakemake", default=os.path.join(ROOT, "target/workflow-venv/bin/snakemake"),
                   help="snakemake executable (workflow/test.sh installs one here)")
    p.add_argument("--work", default=os.path.join(ROOT, "bench/artifacts/collection"))
    p.add_argument("--results", default=None, help="results directory")
    p.add_argument("--genomes", type=int, default=400, help="genomes of the base collection")
    p.add_argument("--genome-size", type=int, default=500_000, help="core genome bases")
    p.add_argument("--batches", type=int, default=8, help="adds that grow the merge collection")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--shards", default="1,2,4")
    p.add_argument("--only", default="add,merge,workflow")
    p.add_argument("--keep", action="store_true", help="keep the data under --work")
    return p.parse_args()


def simulate(args, directory, genomes, seed):
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    run([args.simulate, "-o", directory, "--genomes", genomes, "--genome-size", args.genome_size,
         "--train", TRAIN, "--genes", GENES, "--seed", seed, "-q"], what="bitsift-simulate")
    files = sorted(glob.glob(os.path.join(directory, "genome_*.fa")))
    if len(files) != genomes:
        raise BenchError("%s: %d genomes, expected %d" % (directory, len(files), genomes))
    return files


def write_list(path, files):
    with open(path, "w") as f:
        f.write("".join(p + "\n" for p in files))
    return path


def rename_batch(files, prefix):
    """Gives a second simulated batch names that do not clash with the first's."""
    renamed = []
    for path in files:
        target = os.path.join(os.path.dirname(path), prefix + os.path.basename(path))
        os.rename(path, target)
        renamed.append(target)
    return renamed


def add_vs_rebuild(args, work):
    base = simulate(args, os.path.join(work, "base"), args.genomes, 1)
    extra_count = max(1, args.genomes // 100)
    extra = rename_batch(simulate(args, os.path.join(work, "extra"), extra_count, 2), "new_")
    threads = ["-T", args.threads]
    collection = os.path.join(work, "grown")
    shutil.rmtree(collection, ignore_errors=True)
    first = run([args.bitsift, "add", collection, "--list",
                 write_list(os.path.join(work, "base.list"), base)] + threads, what="add base")
    added = run([args.bitsift, "add", collection, "--list",
                 write_list(os.path.join(work, "extra.list"), extra)] + threads, what="add 1%")
    rebuilt_path = os.path.join(work, "rebuilt.cobs_compact")
    rebuilt = run([args.bitsift, "build", "--force", "-o", rebuilt_path, "--list",
                   write_list(os.path.join(work, "all.list"), base + extra)] + threads,
                  what="rebuild")
    size = lambda path: os.path.getsize(path)
    subs = sorted(glob.glob(os.path.join(collection, "sub-*.cobs_compact")))
    row = {"genomes": args.genomes, "added": extra_count, "genome_size": args.genome_size,
           "threads": args.threads, "base_add_s": first.wall_s, "add_s": added.wall_s,
           "rebuild_s": rebuilt.wall_s, "rebuild_over_add": rebuilt.wall_s / added.wall_s,
           "added_bytes": size(subs[-1]), "rebuilt_bytes": size(rebuilt_path),
           "add_peak_rss_bytes": added.rusage["max_rss_bytes"]}
    log("add %d to %d genomes: %.2f s; rebuild of all: %.2f s (%.0fx)" % (
        extra_count, args.genomes, added.wall_s, rebuilt.wall_s, row["rebuild_over_add"]))
    os.remove(rebuilt_path)
    return row, base


def query_times(args, index):
    cmd = [args.bitsift, "query", "-i", index, "-f", GENES, "-t", "0.8", "--format", "json"]
    run(cmd, what="warm-up query")
    walls, reads = [], []
    for _ in range(args.runs):
        done = run(cmd, what="query")
        walls.append(done.wall_s * 1000)
        reads.append(sum(q["stats"]["read_requests"] for q in done.json()["queries"] if "stats" in q))
    return summary(walls), summary(reads)


def merge_section(args, work, base):
    collection = os.path.join(work, "batched")
    shutil.rmtree(collection, ignore_errors=True)
    per_batch = -(-len(base) // args.batches)
    for number, start in enumerate(range(0, len(base), per_batch)):
        listing = write_list(os.path.join(work, "batch%d.list" % number), base[start:start + per_batch])
        run([args.bitsift, "add", "-q", collection, "--list", listing, "-T", args.threads],
            what="add batch")
    info = lambda: json.loads(run([args.bitsift, "info", "--json", collection]).stdout)
    before = info()
    wall_before, reads_before = query_times(args, collection)
    merged = run([args.bitsift, "merge", "--json", collection], what="merge")
    after = info()
    wall_after, reads_after = query_times(args, collection)
    row = {"batches": args.batches, "genomes": len(base),
           "subindexes_before": len(before["subindexes"]), "blocks_before": before["blocks"],
           "bytes_before": before["bytes"], "subindexes_after": len(after["subindexes"]),
           "blocks_after": after["blocks"], "bytes_after": after["bytes"],
           "merge_s": merged.wall_s, "query_wall_ms_before": wall_before,
           "query_wall_ms_after": wall_after, "query_reads_before": reads_before["median"],
           "query_reads_after": reads_after["median"]}
    log("merge: %d sub-indexes (%d blocks) -> %d (%d blocks) in %.1f s; 30 genes %.0f -> %.0f ms" % (
        row["subindexes_before"], row["blocks_before"], row["subindexes_after"], row["blocks_after"],
        merged.wall_s, wall_before["median"], wall_after["median"]))
    return row


def workflow_section(args, work, base):
    if not os.path.exists(args.snakemake):
        raise BenchError("%s: no snakemake; run workflow/test.sh once (it installs one) or pass "
                         "--snakemake" % args.snakemake)
    sheet = os.path.join(work, "samples.tsv")
    with open(sheet, "w") as f:
        f.write("path\n" + "".join(p + "\n" for p in base))
    rows = []
    for shards in [int(s) for s in args.shards.split(",")]:
        directory = os.path.join(work, "workflow-%d" % shards)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        config = os.path.join(directory, "config.yaml")
        threads = 2 if shards == 1 else 1
        with open(config, "w") as f:
            f.write("bitsift: %s\nsamples: %s\ncollection: collection\nwork: work\n"
                    "max_documents_per_shard: %d\nbuild_threads: %d\nqueries: %s\n"
                    "hits: hits.tsv\nsubindexes_per_job: 1\n" % (
                        args.bitsift, sheet, -(-len(base) // shards), threads, GENES))
        done = run([args.snakemake, "-s", os.path.join(ROOT, "workflow/Snakefile"), "--configfile",
                    config, "--cores", "2", "-d", directory, "--quiet", "all"], what="snakemake")
        kmers = 0.0
        for path in glob.glob(os.path.join(directory, "work/logs/build-*.log")):
            match = KMERS_PER_S.search(open(path).read())
            if match:
                kmers += float(match.group(1)) * float(match.group(2)) * 1e6
        row = {"shards": shards, "cores": 2, "build_threads": threads, "wall_s": done.wall_s,
               "kmers": kmers, "kmers_per_s_per_core": kmers / done.wall_s / 2}
        log("workflow, %d shard(s): %.1f s, %.1f M k-mers/s per core" % (
            shards, done.wall_s, row["kmers_per_s_per_core"] / 1e6))
        rows.append(row)
    return rows


def markdown(results):
    lines = []
    add = results.get("add")
    if add:
        lines += ["| genomes | added | add | rebuild | rebuild / add | added sub-index | rebuilt index |",
                  "|---|---|---|---|---|---|---|",
                  "| %d | %d | %.2f s | %.2f s | %.0fx | %.1f MiB | %.1f MiB |" % (
                      add["genomes"], add["added"], add["add_s"], add["rebuild_s"],
                      add["rebuild_over_add"], add["added_bytes"] / 2**20,
                      add["rebuilt_bytes"] / 2**20), ""]
    merge = results.get("merge")
    if merge:
        lines += ["| state | sub-indexes | blocks | size | 30 genes, wall (median, min-max) | read requests |",
                  "|---|---|---|---|---|---|"]
        for when in ("before", "after"):
            wall = merge["query_wall_ms_" + when]
            lines.append("| %s merge | %d | %d | %.1f MiB | %.0f ms (%.0f-%.0f) | %s |" % (
                when, merge["subindexes_" + when], merge["blocks_" + when],
                merge["bytes_" + when] / 2**20, wall["median"], wall["min"], wall["max"],
                merge["query_reads_" + when]))
        lines += ["", "merge took %.1f s" % merge["merge_s"], ""]
    flow = results.get("workflow")
    if flow:
        lines += ["| shards | threads per build | wall (build + assemble + search) | M k-mers/s per core |",
                  "|---|---|---|---|"]
        for row in flow:
            lines.append("| %d | %d | %.1f s | %.2f |" % (
                row["shards"], row["build_threads"], row["wall_s"], row["kmers_per_s_per_core"] / 1e6))
    return "\n".join(lines)


def main():
    args = arguments()
    for tool in (args.bitsift, args.simulate):
        if not os.path.exists(tool):
            raise BenchError("%s: not built; run cargo build --release --workspace" % tool)
    work = args.work
    os.makedirs(work, exist_ok=True)
    date = datetime.date.today().isoformat()
    results_dir = args.results or os.path.join(ROOT, "bench/results/collection-%s" % date)
    only = set(args.only.split(","))
    results = {"command": " ".join(sys.argv), "date": date}
    try:
        row, base = add_vs_rebuild(args, work)
        if "add" in only:
            results["add"] = row
        if "merge" in only:
            results["merge"] = merge_section(args, work, base)
        if "workflow" in only:
            results["workflow"] = workflow_section(args, work, base)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    os.makedirs(results_dir, exist_ok=True)
    write_json(os.path.join(results_dir, "collection.json"), results)
    print(markdown(results))


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        sys.stderr.write("collection_bench: %s\n" % e)
        sys.exit(1)
