#!/usr/bin/env python3
"""Cold per-gene latency of local queries, for one or more bitsift binaries side by side.

    sudo python3 bench/cold_genes.py --index DIR/collection --genes DIR/genes/one \\
        --bitsift before=PATH1 --bitsift after=PATH2 [--runs 3] --out bench/results/X

For every run, gene and binary (interleaved, so the binaries see the same machine state), drops
the page cache (`sync; echo 3 > /proc/sys/vm/drop_caches`) and runs one fresh
`bitsift query -i INDEX -f GENE --format json --batch 1`; records the process's wall time and
the batch's own `total_ms`, bytes and requests. The first run also warms the host's cache of
the VM's disk (dropping the guest's page cache does not empty it): compare runs after it. The difference
between wall and `total_ms` is the open: header, names, side-file preambles, manifest.

Writes OUT/runs.csv (one row per run), OUT/table.md (medians per binary and gene class) and
OUT/commands.sh. Standard library only; must run as root (it drops caches).
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def gene_class(name):
    """The class of a rehearsal gene file by its name (`core_…`, `sp0013_acc_…`, `absent_…`)."""
    for prefix, label in (("core_", "core"), ("absent_", "absent"), ("universal_", "universal")):
        if name.startswith(prefix):
            return label
    return "accessory" if "_acc_" in name else "mobile"


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run_one(command):
    """Runs `command`; returns (wall seconds, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status = os.waitpid(process.pid, 0)
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            sys.exit("cold_genes: %s failed (%d): %s" % (
                " ".join(command), process.returncode, err.read().decode(errors="replace")[-2000:]))
        return wall, out.read()


def batch_stats(stdout):
    """The first batch's statistics of `--format json` output."""
    for line in stdout.decode().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        stats = record.get("stats") if isinstance(record, dict) else None
        if stats:
            return stats
    return {}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--index", required=True)
    p.add_argument("--genes", required=True, help="a directory of one-gene FASTA files")
    p.add_argument("--bitsift", action="append", required=True, help="LABEL=PATH, repeatable")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    if os.geteuid() != 0:
        sys.exit("cold_genes: run as root (it drops the page cache)")
    binaries = [b.split("=", 1) for b in args.bitsift]
    genes = sorted(f for f in os.listdir(args.genes) if f.endswith((".fa", ".fasta")))
    os.makedirs(args.out, exist_ok=True)
    commands = open(os.path.join(args.out, "commands.sh"), "w")
    rows = []
    for run in range(args.runs):
        for gene in genes:
            for label, binary in binaries:
                command = [binary, "query", "-i", args.index, "-f",
                           os.path.join(args.genes, gene), "--format", "json", "--batch", "1"]
                commands.write("sync; echo 3 > /proc/sys/vm/drop_caches; %s\n" % " ".join(command))
                drop_caches()
                wall, out = run_one(command)
                stats = batch_stats(out)
                rows.append({"run": run, "gene": gene, "class": gene_class(gene), "binary": label,
                             "wall_ms": round(wall * 1000, 1),
                             "total_ms": stats.get("total_ms"),
                             "bytes_read": stats.get("bytes_read"),
                             "read_requests": stats.get("read_requests")})
                print("cold_genes: run %d %-28s %-8s wall %7.1f ms  query %s ms" % (
                    run, gene, label, wall * 1000, stats.get("total_ms")), file=sys.stderr, flush=True)
    with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_table(rows, binaries, os.path.join(args.out, "table.md"))


def write_table(rows, binaries, path):
    """Medians per class and binary of the runs after the first (see the module docs)."""
    if any(r["run"] > 0 for r in rows):
        rows = [r for r in rows if r["run"] > 0]
    classes = sorted({r["class"] for r in rows})
    labels = [label for label, _ in binaries]
    lines = ["| class | " + " | ".join("%s wall p50 ms | %s query p50 ms" % (l, l)
                                       for l in labels) + " |",
             "|---|" + "---:|" * (2 * len(labels))]
    for c in classes:
        cells = []
        for label in labels:
            mine = [r for r in rows if r["class"] == c and r["binary"] == label]
            cells.append("%.0f" % statistics.median(r["wall_ms"] for r in mine))
            cells.append("%.1f" % statistics.median(r["total_ms"] or 0 for r in mine))
        lines.append("| %s | %s |" % (c, " | ".join(cells)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
