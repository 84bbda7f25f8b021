#!/usr/bin/env python3
"""False positives of the two row layouts on related genomes, at the same index size.

    bench/layout_fp.py [--bitsift target/release/bitsift] [--out DIR] [--genomes 96]
                       [--genome-size 60000] [--genes 300] [--max-snp 0.04]
                       [--range-rows 16,64,auto] [--fpr 0.3,0.01] [--threshold 0.8] [--seed 1]

A family of near-identical genomes (each the same random ancestor with its own SNP rate, drawn
uniformly from 0 to --max-snp, plus a few unrelated genomes) is indexed in COBS's layout and in
the minimizer layout with several range sizes, all with the same page size, so that every index
has (nearly) the same rows: the same size. Genes of the ancestor (300-2,000 bases) are searched
at --threshold in each index. Each (gene, genome) pair is judged against an exact k-mer count
(Python sets, canonical 31-mers): a *false-positive pair* is reported while the genome truly
holds fewer than the threshold of the gene's k-mers; a *false negative* (a genome that holds
enough but is not reported) must never happen. Prints a table and writes OUT/layout_fp.json.

Why related genomes: a genome that differs from the gene's carrier by SNPs keeps most of the
gene's minimizers, so in the minimizer layout its variant k-mers fall into the very ranges of
the gene's k-mers it lacks, and raise their false-positive rate (docs/formats.md, "Row
layouts"). Unrelated genomes spread their k-mers over all ranges, as in COBS's layout.

Standard library only.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

K = 31
COMPLEMENT = str.maketrans("ACGT", "TGCA")


def canonical_kmers(seq):
    rc = seq.translate(COMPLEMENT)[::-1]
    n = len(seq) - K + 1
    out = set()
    for i in range(n):
        f = seq[i:i + K]
        r = rc[n - 1 - i:n - 1 - i + K]
        out.add(min(f, r))
    return out


def mutate(rng, seq, rate):
    seq = list(seq)
    for i in range(len(seq)):
        if rng.random() < rate:
            seq[i] = rng.choice([b for b in "ACGT" if b != seq[i]])
    return "".join(seq)


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(">%s\n" % name)
            for i in range(0, len(seq), 80):
                f.write(seq[i:i + 80] + "\n")


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if done.returncode != 0:
        sys.exit("layout_fp.py: %s failed:\n%s" % (" ".join(map(str, cmd)), done.stderr))
    return done.stdout


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/layout_fp.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument("--bitsift", default="target/release/bitsift")
    p.add_argument("--out", default="bench/artifacts/layout_fp")
    p.add_argument("--genomes", type=int, default=96, help="related genomes [%(default)s]")
    p.add_argument("--unrelated", type=int, default=8, help="unrelated genomes [%(default)s]")
    p.add_argument("--genome-size", type=int, default=60000)
    p.add_argument("--genes", type=int, default=300)
    p.add_argument("--max-snp", type=float, default=0.04,
                   help="SNP rates are drawn uniformly from 0 to this [%(default)s]")
    p.add_argument("--range-rows", default="16,64,auto",
                   help="minimizer layouts to compare, rows per range ('auto': the page size's)")
    p.add_argument("--fpr", default="0.3,0.01")
    p.add_argument("--page-size", type=int, default=16)
    p.add_argument("--threshold", type=float, default=0.8)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    rng = random.Random(args.seed)
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    genomes_dir = os.path.join(out, "genomes")
    os.makedirs(genomes_dir)
    started = time.time()
    ancestor = "".join(rng.choice("ACGT") for _ in range(args.genome_size))
    kmers = {}
    rates = {}
    for g in range(args.genomes):
        rate = rng.uniform(0, args.max_snp)
        seq = mutate(rng, ancestor, rate)
        name = "rel%03d" % g
        rates[name] = rate
        write_fasta(os.path.join(genomes_dir, name + ".fa"), [(name, seq)])
        kmers[name] = canonical_kmers(seq)
    for g in range(args.unrelated):
        seq = "".join(rng.choice("ACGT") for _ in range(args.genome_size))
        name = "unrel%02d" % g
        rates[name] = None
        write_fasta(os.path.join(genomes_dir, name + ".fa"), [(name, seq)])
        kmers[name] = canonical_kmers(seq)
    genes = []
    for i in range(args.genes):
        length = rng.randint(300, 2000)
        at = rng.randrange(0, args.genome_size - length)
        genes.append(("gene%03d" % i, ancestor[at:at + length]))
    queries = os.path.join(out, "genes.fa")
    write_fasta(queries, genes)
    truth = {}  # (gene, genome) -> fraction of the gene's k-mers the genome holds
    for name, seq in genes:
        gk = [min(seq[i:i + K], seq[i:i + K].translate(COMPLEMENT)[::-1])
              for i in range(len(seq) - K + 1)]
        for genome, ks in kmers.items():
            truth[(name, genome)] = sum(1 for k in gk if k in ks) / len(gk)
    print("layout_fp: %d genomes, %d genes, truth in %.0f s" % (len(kmers), len(genes),
                                                               time.time() - started),
          file=sys.stderr)
    layouts = [("cobs", ["--layout", "cobs"])]
    for rows in args.range_rows.split(","):
        extra = ["--layout", "minimizer"]
        if rows != "auto":
            extra += ["--range-rows", rows]
        layouts.append(("minimizer-%s" % rows, extra))
    results = []
    for fpr in args.fpr.split(","):
        for label, extra in layouts:
            index = os.path.join(out, "%s-%s.cobs_compact" % (label, fpr))
            run([args.bitsift, "build", "-q", "-o", index, "--fpr", fpr, "--page-size",
                 args.page_size, "--no-summaries", "-T", "2"] + extra + [genomes_dir])
            info = json.loads(run([args.bitsift, "info", "--json", index]))
            answer = json.loads(run([args.bitsift, "query", "-i", index, "-f", queries, "-t",
                                     args.threshold, "--format", "json", "--no-summaries"]))
            reported = set()
            for q in answer["queries"]:
                for hit in q["hits"]:
                    reported.add((q["query"], hit["document"]))
            false_pos = [p for p in reported if truth[p] < args.threshold]
            false_neg = [p for p, f in truth.items() if f >= args.threshold and p not in reported]
            related_fp = [p for p in false_pos if rates[p[1]] is not None]
            results.append({
                "fpr": float(fpr), "layout": label, "index_bytes": os.path.getsize(index),
                "range_rows": info["layout"].get("range_rows"),
                "reported": len(reported), "true_pairs": sum(1 for f in truth.values()
                                                             if f >= args.threshold),
                "false_positive_pairs": len(false_pos),
                "false_positive_pairs_related": len(related_fp),
                "false_negative_pairs": len(false_neg),
            })
            print("layout_fp: fpr %s %-16s %s" % (fpr, label, json.dumps(results[-1])),
                  file=sys.stderr)
    for r in results:
        base = next(b for b in results if b["fpr"] == r["fpr"] and b["layout"] == "cobs")
        r["false_positive_ratio"] = (round(r["false_positive_pairs"] / base["false_positive_pairs"], 2)
                                     if base["false_positive_pairs"] else None)
        r["bytes_ratio"] = round(r["index_bytes"] / base["index_bytes"], 4)
    with open(os.path.join(out, "layout_fp.json"), "w") as f:
        json.dump({"arguments": vars(args), "results": results}, f, indent=1)
    print("| fpr | layout | rows/range | index bytes (vs cobs) | true pairs | reported | "
          "false-positive pairs (vs cobs) | false negatives |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print("| %s | %s | %s | %d (%.3f) | %d | %d | %d (%s) | %d |" % (
            r["fpr"], r["layout"], r["range_rows"] or "-", r["index_bytes"], r["bytes_ratio"],
            r["true_pairs"], r["reported"], r["false_positive_pairs"],
            r["false_positive_ratio"], r["false_negative_pairs"]))
    return 1 if any(r["false_negative_pairs"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
