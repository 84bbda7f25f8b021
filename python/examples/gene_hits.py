#!/usr/bin/env python3
"""Which of the bundled genomes carry which antimicrobial-resistance genes? Plot it.

    python3 python/examples/gene_hits.py [--index INDEX] [--genes FASTA] [--out PNG]

Builds an index of the bundled genomes (data/demo/genomes) in a temporary directory unless
--index is given, searches the bundled gene list (data/demo/queries/amr_genes.fa) at
threshold 0.8, prints the hits, and saves a bar chart of the genes found per genome (whole
genes, fraction 1.0, stacked on partial ones) as a PNG. It needs matplotlib, draws without a
display, and runs in CI (python/run-tests.sh).
"""

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

import bitsift  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="an index to search (default: build one)")
    parser.add_argument("--genes", type=Path, default=DEMO / "queries" / "amr_genes.fa")
    parser.add_argument("--out", type=Path, default=Path("gene_hits.png"))
    parser.add_argument("--threshold", type=float, default=0.8)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        path = args.index
        if path is None:
            path = Path(scratch) / "demo.cobs_compact"
            report = bitsift.build(path, [DEMO / "genomes"], progress=show_progress)
            print(f"built {report['documents']} genomes in {report['seconds']:.1f} s",
                  file=sys.stderr)
        with bitsift.Index(path) as index:
            results = index.search(args.genes, threshold=args.threshold)
            genomes = index.documents

    whole, partial = Counter(), Counter()
    for result in results:
        for hit in result.hits:
            (whole if hit.fraction == 1.0 else partial)[hit.document] += 1
            print(f"{result.name}\t{hit.document}\t{hit.kmers_found}/{hit.kmers_total}")

    order = sorted(genomes, key=lambda g: (-(whole[g] + partial[g]), g))
    figure, axes = plt.subplots(figsize=(9, 4.5))
    axes.barh(order, [whole[g] for g in order], label="whole gene (all k-mers)")
    axes.barh(order, [partial[g] for g in order], left=[whole[g] for g in order],
              label=f"partial (at least {args.threshold:.0%} of k-mers)")
    axes.invert_yaxis()
    axes.set_xlabel(f"genes of {args.genes.name} found")
    axes.set_title("Resistance genes per genome (bitsift)")
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    found = sum(len(r.hits) for r in results)
    print(f"{found} hits of {len(results)} genes in {len(genomes)} genomes; plot: {args.out}",
          file=sys.stderr)
    return 0 if found else 1


def show_progress(done, total, kmers):
    """The build's progress on one line of a terminal; in a log, its last call only."""
    line = f"indexing: {done}/{total} genomes, {kmers / 1e6:.1f} M k-mers"
    if sys.stderr.isatty():
        print("\r" + line, end="\n" if done == total else "", file=sys.stderr)
    elif done == total:
        print(line, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
