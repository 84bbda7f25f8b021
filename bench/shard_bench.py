#!/usr/bin/env python3
"""Sharded builds at scale (issue 21): what one shard of whole blocks costs, measured on
simulated genomes and scaled to real ones.

    python3 bench/shard_bench.py [--genomes 2048] [--genome-size 500000] [--memory 8G,256M]
                                 [--target-documents 32768] [--target-genome-bases 5000000]
                                 [--collection 661405] [--work DIR] [--keep] [--drop-caches]
    python3 bench/shard_bench.py --report bench/results/DATE-shard/shard.json

1. `bitsift-simulate` writes --genomes genomes (one species, clades, accessory genes, as in
   bench/collection_bench.py; --genome-size is the core genome, the genomes come out larger).
2. One shard is built as the workflow builds it (`bitsift build --list`, -T --threads, a page
   size of genomes/8 so the shard is exactly one whole block), once per --memory budget,
   under `/usr/bin/time -v`: wall time, CPU time, maximum resident set size.
3. Scaling to a shard of --target-documents genomes of --target-genome-bases (one block of
   4096-byte rows, 5 Mb genomes): build time in proportion to k-mer positions (every
   position is hashed and sets one bit; the measured rate is kept), index bytes in
   proportion to documents x bases (rows follow the largest genome's distinct k-mers),
   memory: the budget (the builder stays within -m; a block larger than it is built in column
   groups spilled to disk beside the output, which the smaller budget measures). Then the
   whole collection: ceil(--collection / target documents) shards, core-hours = shards x
   scaled CPU time. CPU time is scaled rather than wall time because this machine is shared:
   the wall time on idle cores is CPU time / threads (2 threads keep 2 cores busy: see
   BENCHMARKS.md, "Builds at a job slot's memory").

Raw results go to RESULTS_DIR/shard.json (default bench/results/<date>-shard/) and a Markdown
table to standard output for BENCHMARKS.md. --drop-caches (root) drops the page cache before
each build so the genomes are read from disk. Everything under --work is deleted at the end
unless --keep.
"""

import argparse
import datetime
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENES = os.path.join(ROOT, "data/demo/queries/amr_genes.fa")
TRAIN = os.path.join(ROOT, "data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz")
# bitsift build's last line: "... in 12.3 s (45.6 M k-mers/s ..."
KMERS_PER_S = re.compile(r"in ([0-9.]+) s \(([0-9.]+) M k-mers/s")


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bitsift", default=os.path.join(ROOT, "target/release/bitsift"))
    p.add_argument("--simulate", default=os.path.join(ROOT, "target/release/bitsift-simulate"))
    p.add_argument("--work", default=os.path.join(ROOT, "bench/artifacts/shard"))
    p.add_argument("--results", default=None, help="results directory")
    p.add_argument("--genomes", type=int, default=2048, help="genomes of the measured shard")
    p.add_argument("--genome-size", type=int, default=500_000, help="core genome bases")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--memory", default="8G,256M", help="build budgets (-m), comma-separated")
    p.add_argument("--target-documents", type=int, default=32768)
    p.add_argument("--target-genome-bases", type=int, default=5_000_000)
    p.add_argument("--collection", type=int, default=661405, help="genomes of the collection")
    p.add_argument("--drop-caches", action="store_true", help="drop the page cache (root)")
    p.add_argument("--keep", action="store_true", help="keep the data under --work")
    p.add_argument("--report", help="only print the table of this shard.json")
    return p.parse_args()


def timed(cmd):
    """Runs cmd under /usr/bin/time -v; returns (its standard error, GNU time's fields)."""
    done = subprocess.run(["/usr/bin/time", "-v"] + [str(c) for c in cmd],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("shard_bench: %s failed:\n%s" % (cmd[0], done.stderr[-2000:]))
    fields = {}
    for line in done.stderr.splitlines():
        key, _, value = line.strip().rpartition(": ")
        if key:
            fields[key] = value
    clock = [float(x) for x in fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")]
    return done.stderr, {
        "wall_s": sum(x * 60 ** i for i, x in enumerate(reversed(clock))),
        "cpu_s": float(fields["User time (seconds)"]) + float(fields["System time (seconds)"]),
        "max_rss_mib": int(fields["Maximum resident set size (kbytes)"]) / 1024,
    }


def report(result):
    """The Markdown table of a result: measured, then scaled by k-mer positions."""
    target, scale = result["target"], result["target"]["scale"]
    print("%d genomes, %.2f M k-mer positions each (%.2f G in all), page size %d (one block),"
          " -T %d; scaled to %d x %.1f Mb genomes: x%.1f"
          % (result["genomes"], result["kmer_positions"] / result["genomes"] / 1e6,
             result["kmer_positions"] / 1e9, result["page_size"], result["threads"],
             target["documents"], target["genome_bases"] / 1e6, scale))
    print()
    print("| -m | wall | CPU | M k-mers per CPU-s | max RSS | index | scaled: CPU per shard |"
          " wall on %d idle cores | index | %d shards, core-hours |"
          % (result["threads"], target["shards"]))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for b in result["builds"]:
        cpu_hours = b["cpu_s"] * scale / 3600
        print("| %s | %.1f s | %.1f s | %.1f | %.0f MiB | %.0f MiB | %.1f h | %.1f h | %.1f GB"
              " | %.0f |"
              % (b["memory"], b["wall_s"], b["cpu_s"], b["kmers"] / b["cpu_s"] / 1e6,
                 b["max_rss_mib"], b["index_bytes"] / 2**20, cpu_hours,
                 cpu_hours / result["threads"], b["index_bytes"] * scale / 1e9,
                 target["shards"] * cpu_hours))


def main():
    args = arguments()
    if args.report:
        with open(args.report) as handle:
            report(json.load(handle))
        return
    genomes_dir = os.path.join(args.work, "genomes")
    if os.path.isdir(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    _, simulated = timed([args.simulate, "-o", genomes_dir, "--genomes", args.genomes,
                          "--genome-size", args.genome_size, "--train", TRAIN,
                          "--genes", GENES, "--seed", 1, "-q"])
    files = sorted(glob.glob(os.path.join(genomes_dir, "genome_*.fa")))
    if len(files) != args.genomes:
        sys.exit("shard_bench: %d genomes, expected %d" % (len(files), args.genomes))
    listing = os.path.join(args.work, "shard.list")
    with open(listing, "w") as handle:
        handle.write("".join(path + "\n" for path in files))
    input_bytes = sum(os.path.getsize(path) for path in files)
    # One whole block: 8 x page size documents.
    page_size = max(8, 1 << (args.genomes // 8 - 1).bit_length())

    builds = []
    for memory in args.memory.split(","):
        index = os.path.join(args.work, "shard-%s.cobs_compact" % memory)
        if args.drop_caches:
            subprocess.run(["sync"], check=True)
            with open("/proc/sys/vm/drop_caches", "w") as handle:
                handle.write("3\n")
        log, figures = timed([args.bitsift, "build", "--force", "-o", index, "--list", listing,
                              "-T", args.threads, "-m", memory, "--page-size", page_size])
        found = KMERS_PER_S.findall(log)
        if not found:
            sys.exit("shard_bench: no k-mer rate in bitsift build's output:\n" + log[-2000:])
        seconds, rate = (float(x) for x in found[-1])
        figures.update(memory=memory, kmers=int(seconds * rate * 1e6),
                       index_bytes=os.path.getsize(index))
        builds.append(figures)
        for path in glob.glob(index + "*"):
            os.remove(path)

    kmers = builds[0]["kmers"]
    result = {
        "date": datetime.date.today().isoformat(),
        "genomes": args.genomes, "genome_size": args.genome_size, "page_size": page_size,
        "threads": args.threads, "input_bytes": input_bytes, "kmer_positions": kmers,
        "load_average": os.getloadavg(), "simulate": simulated, "builds": builds,
        "target": {"documents": args.target_documents,
                   "genome_bases": args.target_genome_bases,
                   "scale": args.target_documents * args.target_genome_bases / kmers,
                   "collection": args.collection,
                   "shards": math.ceil(args.collection / args.target_documents)},
    }
    results = args.results or os.path.join(ROOT, "bench/results", result["date"] + "-shard")
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "shard.json"), "w") as handle:
        json.dump(result, handle, indent=2)
    report(result)
    if not args.keep:
        shutil.rmtree(args.work)


if __name__ == "__main__":
    main()
