#!/usr/bin/env python3
"""Merge (issue 20): what `bitsift merge` does to a collection grown by many additions, against
one build of the same genomes.

    sudo python3 bench/merge_bench.py [--batches 8] [--per-batch 2000] [--genome-size 15000] ...

1. `--batches` batches of `--per-batch` genomes are simulated (`bitsift-simulate`, the bundled
   AMR genes planted, each batch its own seed and clades).
2. Two collections are grown by one `bitsift add` per batch: with `--rows exact` (as COBS
   sizes them; the default before issue 36) and with `--rows power-of-two`. The same genomes are also
   built at once (`bitsift build`), both ways.
3. Each collection is copied, then merged (`bitsift merge --json`), so that all six indexes
   (two grown, two merged, two built at once) exist side by side. They are measured in
   rounds: `--reps` times, for each of `--genes` genes, each index in turn is searched right
   after `sync; echo 3 > /proc/sys/vm/drop_caches` (root; else POSIX_FADV_DONTNEED on the
   index files), so drift and noise from elsewhere fall on every index alike. Measured:
   sub-indexes, blocks, bytes, and per cold search the process's wall time, the engine's read
   requests, row reads per k-mer (`row_reads_requested / kmers` of `query --stats`), blocks
   ruled out by summaries, and the hits.

Raw results go to RESULTS_DIR/merge.json (default bench/results/merge-<date>/), a Markdown
table to standard output. Everything under --work is deleted at the end unless --keep.
"""

import argparse
import datetime
import glob
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite.util import BenchError, Cache, log, read_fasta, run, summary, write_fasta, write_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENES = os.path.join(ROOT, "data/demo/queries/amr_genes.fa")
TRAIN = os.path.join(ROOT, "data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz")


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bitsift", default=os.path.join(ROOT, "target/release/bitsift"))
    p.add_argument("--simulate", default=os.path.join(ROOT, "target/release/bitsift-simulate"))
    p.add_argument("--work", default=os.path.join(ROOT, "bench/artifacts/merge"))
    p.add_argument("--results", default=None, help="results directory")
    p.add_argument("--batches", type=int, default=8, help="additions that grow each collection")
    p.add_argument("--per-batch", type=int, default=2000, help="genomes per addition")
    p.add_argument("--genome-size", type=int, default=15000, help="core genome bases")
    p.add_argument("--accessory-genes", type=int, default=40, help="accessory gene pool")
    p.add_argument("--gene-length", default="500-2000", help="accessory gene lengths")
    p.add_argument("--genes", type=int, default=10, help="genes searched cold, one at a time")
    p.add_argument("--reps", type=int, default=3, help="cold searches of each gene and index")
    p.add_argument("--threshold", default="0.8")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--keep", action="store_true", help="keep the data under --work")
    return p.parse_args()


def simulate(args, work):
    """Writes the batches' genomes; returns one list of paths per batch (names unique)."""
    batches = []
    for number in range(args.batches):
        directory = os.path.join(work, "batch%d" % number)
        shutil.rmtree(directory, ignore_errors=True)
        run([args.simulate, "-o", directory, "--genomes", args.per_batch,
             "--genome-size", args.genome_size, "--accessory-genes", args.accessory_genes,
             "--gene-length", args.gene_length, "--train", TRAIN, "--genes", GENES,
             "--seed", number + 1, "-q"], what="bitsift-simulate")
        files = sorted(glob.glob(os.path.join(directory, "genome_*.fa")))
        if len(files) != args.per_batch:
            raise BenchError("%s: %d genomes, expected %d" % (directory, len(files), args.per_batch))
        renamed = []
        for path in files:
            target = os.path.join(directory, "b%d_%s" % (number, os.path.basename(path)))
            os.rename(path, target)
            renamed.append(target)
        batches.append(renamed)
        log("simulated batch %d: %d genomes" % (number, len(renamed)))
    return batches


def write_list(path, files):
    with open(path, "w") as f:
        f.write("".join(p + "\n" for p in files))
    return path


def grow(args, work, batches, name, rows):
    """A collection grown by one addition per batch; returns its path and the add times."""
    collection = os.path.join(work, name)
    shutil.rmtree(collection, ignore_errors=True)
    seconds = []
    for number, files in enumerate(batches):
        listing = write_list(os.path.join(work, "%s-%d.list" % (name, number)), files)
        done = run([args.bitsift, "add", "-q", collection, "--list", listing, "--rows", rows,
                    "-T", args.threads], what="add")
        seconds.append(done.wall_s)
    log("%s: %d additions in %.1f s" % (name, len(batches), sum(seconds)))
    return collection, seconds


def build(args, work, batches, name, rows):
    path = os.path.join(work, name + ".cobs_compact")
    listing = write_list(os.path.join(work, name + ".list"), [f for b in batches for f in b])
    done = run([args.bitsift, "build", "-q", "--force", "-o", path, "--list", listing,
                "--rows", rows, "-T", args.threads], what="build")
    log("%s: built in %.1f s" % (name, done.wall_s))
    return path, done.wall_s


def gene_files(args, work):
    records = read_fasta(GENES)[:args.genes]
    paths = []
    for name, sequence in records:
        path = os.path.join(work, "gene-%s.fa" % name.split()[0].replace("/", "_"))
        write_fasta(path, [(name, sequence)])
        paths.append(path)
    return paths


def index_files(index):
    if os.path.isdir(index):
        return sorted(glob.glob(os.path.join(index, "sub-*")))
    return sorted(glob.glob(index + "*"))


def shape(args, index):
    info = json.loads(run([args.bitsift, "info", "--json", index], what="info").stdout)
    if os.path.isdir(index):
        return {"subindexes": len(info["subindexes"]), "blocks": info["blocks"],
                "bytes": info["bytes"]}
    return {"subindexes": 1, "blocks": info["blocks"], "bytes": info["file_size"]}


def cold_search(args, cache, index, gene):
    cache.drop(index_files(index))
    done = run([args.bitsift, "query", "-i", index, "-f", gene, "-t", args.threshold,
                "--format", "json"], what="cold query")
    query = done.json()["queries"][0]
    stats = query["stats"]
    return {"wall_ms": done.wall_s * 1000, "read_requests": stats["read_requests"],
            "row_reads_per_kmer": stats["row_reads_requested"] / max(1, stats["kmers"]),
            "blocks_ruled_out": stats["blocks_ruled_out"], "hits": query["total_hits"],
            "engine": stats["engine"]}


def measure_all(args, cache, indexes, genes):
    """Shapes, then rounds of cold searches: every gene on every index in turn."""
    rows = [dict(state=state, **shape(args, index)) for state, index in indexes]
    searches = [[] for _ in indexes]
    for rep in range(args.reps):
        for number, gene in enumerate(genes):
            for at, (_, index) in enumerate(indexes):
                searches[at].append(dict(gene=number, rep=rep,
                                         **cold_search(args, cache, index, gene)))
        log("round %d of %d done" % (rep + 1, args.reps))
    for row, done in zip(rows, searches):
        pick = lambda key: [s[key] for s in done]
        row.update(cold_wall_ms=summary(pick("wall_ms")),
                   read_requests=summary(pick("read_requests")),
                   row_reads_per_kmer=summary(pick("row_reads_per_kmer")),
                   blocks_ruled_out=summary(pick("blocks_ruled_out")),
                   hits=[s["hits"] for s in done if s["rep"] == 0],
                   engines=sorted(set(pick("engine"))), searches=done)
        log("%s: %d sub-indexes, %d blocks, %.1f MiB; cold %.0f ms, %.1f row reads per k-mer, "
            "%d read requests (medians)" % (
                row["state"], row["subindexes"], row["blocks"], row["bytes"] / 2**20,
                row["cold_wall_ms"]["median"], row["row_reads_per_kmer"]["median"],
                row["read_requests"]["median"]))
    return rows


def merge(args, collection):
    done = run([args.bitsift, "merge", "--json", collection], what="merge")
    plan = done.json()["plan"]
    log("merge %s: %d -> %d blocks in %.1f s" % (
        os.path.basename(collection), plan["blocks_before"], plan["blocks_after"], done.wall_s))
    return {"seconds": done.wall_s, "plan": plan}


def markdown(results):
    lines = ["| index | sub-indexes | blocks | size | row reads per k-mer | read requests | "
             "blocks ruled out | cold wall per gene | hits |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in results["rows"]:
        lines.append("| %s | %d | %d | %.1f MiB | %.1f | %d | %d | %.0f ms (%.0f-%.0f) | %s |" % (
            row["state"], row["subindexes"], row["blocks"], row["bytes"] / 2**20,
            row["row_reads_per_kmer"]["median"], row["read_requests"]["median"],
            row["blocks_ruled_out"]["median"], row["cold_wall_ms"]["median"],
            row["cold_wall_ms"]["min"], row["cold_wall_ms"]["max"],
            ", ".join(str(h) for h in row["hits"])))
    lines.append("")
    for name, merged in results["merges"].items():
        outputs = merged["plan"]["outputs"]
        lines.append("- merge of `%s`: %.1f s, blocks %d -> %d (one row count would need %s), "
                     "page size %s, %d documents folded" % (
                         name, merged["seconds"], merged["plan"]["blocks_before"],
                         merged["plan"]["blocks_after"],
                         ", ".join(str(o["blocks_minimum"]) for o in outputs),
                         ", ".join(str(o["page_size"]) for o in outputs),
                         sum(o["documents_folded"] for o in outputs)))
    return "\n".join(lines)


def main():
    args = arguments()
    work = args.work
    os.makedirs(work, exist_ok=True)
    results_dir = args.results or os.path.join(
        ROOT, "bench/results/merge-%s" % datetime.date.today().isoformat())
    cache = Cache()
    log("cold: " + cache.describe())
    batches = simulate(args, work)
    genes = gene_files(args, work)
    results = {"parameters": {k: v for k, v in vars(args).items()}, "cold": cache.describe(),
               "rows": [], "merges": {}, "adds_s": {}, "builds_s": {}}
    indexes = []
    for rows in ("exact", "power-of-two"):
        collection, seconds = grow(args, work, batches, "collection-" + rows, rows)
        results["adds_s"][rows] = seconds
        grown = collection + "-grown"
        shutil.rmtree(grown, ignore_errors=True)
        shutil.copytree(collection, grown)
        results["merges"][rows] = merge(args, collection)
        fresh, seconds = build(args, work, batches, "fresh-" + rows, rows)
        results["builds_s"][rows] = seconds
        indexes += [("%d additions, %s rows" % (args.batches, rows), grown),
                    ("the same, merged", collection),
                    ("one build, %s rows" % rows, fresh)]
    results["rows"] = measure_all(args, cache, indexes, genes)
    os.makedirs(results_dir, exist_ok=True)
    write_json(os.path.join(results_dir, "merge.json"), results)
    print(markdown(results))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        sys.stderr.write("bench: %s\n" % error)
        sys.exit(1)
