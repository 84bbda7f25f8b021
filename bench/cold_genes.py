#!/usr/bin/env python3
"""Cold per-gene cost of local queries: several bitsift binaries and indexes side by side,
optionally on a frugal machine's disk.

    sudo python3 bench/cold_genes.py --index DIR/collection --genes DIR/genes/one \\
        --bitsift before=PATH1 --bitsift after=PATH2 [--runs 3] --out bench/results/X

    sudo python3 bench/cold_genes.py --index minimizer=MIN/collection --index cobs=COBS/collection \\
        --genes DIR/genes/one --bitsift PATH --profiles none,cloud,hdd \\
        [--truth SIM/queries_truth.tsv --threshold 0.8] --out bench/results/Y

For every profile, run, gene and (binary, index) pair (interleaved, so that every pair sees
the same machine state), drops the page cache (`sync; echo 3 > /proc/sys/vm/drop_caches`),
reads the binary back into it (a cold index, not a cold program: a server or a pipeline has
its program cached), and runs one fresh `bitsift query -i INDEX -f GENE --format json
--batch 1`, under the profile's read throttle and memory cap (bench/suite/frugal.py: `none`
caps memory only, `cloud` 3,000 IOPS and 125 MiB/s, `hdd` 200 IOPS and 150 MiB/s, both 2 GiB).
Records the process's wall time, the batch's own `total_ms`, read requests (side files
included) and bytes, and the read requests the kernel counted on the device. The first run
also warms the host's cache of the VM's disk (dropping the guest's page cache does not empty
it): the table uses the runs after it when there are several. The difference between wall and
`total_ms` is the open: header, names, side-file preambles, manifest. With --truth (the
simulator's queries_truth.tsv: query, class, genome, k-mers found, k-mers total), every answer's hits
at --threshold are judged: a carrier the index shows but does not report is a false negative
(reported as a failure, exit status 1), a reported genome below the threshold a false-positive
pair.

Writes OUT/runs.csv (one row per run), OUT/table.md (per profile, class and target: requests,
bytes, wall p50/p99, false-positive pairs) and OUT/commands.sh. Standard library only; must run
as root (it drops caches; profiles need cgroups).
"""

import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.dont_write_bytecode = True

from suite import frugal  # noqa: E402
from suite.cgroup import Cgroups  # noqa: E402


def gene_class(name):
    """The class of a rehearsal gene file by its name (`core_…`, `sp0013_acc_…`, `absent_…`)."""
    for prefix, label in (("core_", "core"), ("absent_", "absent"), ("universal_", "universal")):
        if name.startswith(prefix):
            return label
    return "accessory" if "_acc_" in name else "mobile"


def drop_caches(binaries):
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    for binary in binaries:
        with open(binary, "rb") as f:
            while f.read(1 << 20):
                pass


def run_one(command, group):
    """Runs `command` in `group`; returns (wall seconds, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=err,
                                   preexec_fn=group.attach if group else None)
        _, status = os.waitpid(process.pid, 0)
        wall = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            sys.exit("cold_genes: %s failed (%d): %s" % (
                " ".join(command), process.returncode, err.read().decode(errors="replace")[-2000:]))
        return wall, out.read()


def answer_of(stdout):
    """The first query of `--format json` output: (its batch's statistics, its hit names)."""
    text = stdout.decode()
    try:
        document = json.loads(text)
    except ValueError:
        return {}, set()
    queries = document.get("queries") or [{}]
    stats = (document.get("batches") or [{}])[0]
    return stats, {h["document"] for h in queries[0].get("hits", [])}


def read_truth(path, genes, threshold):
    """query -> {genome: (found, total)} for the queries of `genes` (file stems → names)."""
    wanted = set(genes)
    truth = {}
    with open(path) as f:
        next(f)
        for line in f:
            query, _, genome, found, total = line.rstrip("\n").split("\t")
            if query in wanted:
                truth.setdefault(query, {})[genome] = (int(found), int(total))
    return truth


def shown_documents(binary, index):
    """The documents `index` shows (`bitsift info --json --documents`: removed genomes left
    out), which are the only ones a carrier can be judged among."""
    done = subprocess.run([binary, "info", "--json", "--documents", index], check=True,
                          stdout=subprocess.PIPE)
    names = json.loads(done.stdout).get("document_names", [])
    return {n[1] if isinstance(n, list) else n for n in names}


def query_name(path):
    with open(path) as f:
        return f.readline()[1:].split()[0]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__)
    p.add_argument("--index", action="append", required=True, help="[LABEL=]PATH, repeatable")
    p.add_argument("--genes", required=True, help="a directory of one-gene FASTA files")
    p.add_argument("--bitsift", action="append", required=True, help="[LABEL=]PATH, repeatable")
    p.add_argument("--profiles", default="none", help="comma-separated: none, cloud, hdd [none]")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--genes-per-class", type=int, default=None,
                   help="at most this many genes of each class (evenly spaced)")
    p.add_argument("--truth", default=None, help="the simulator's queries_truth.tsv")
    p.add_argument("--threshold", type=float, default=0.8)
    p.add_argument("--no-memory-cap", action="store_true", help="profiles without their memory cap")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    labelled = lambda text, default: text.split("=", 1) if "=" in text else [default, text]
    args.binaries = [labelled(b, "bitsift") for b in args.bitsift]
    args.indexes = [labelled(i, "index") for i in args.index]
    args.profiles = [p.strip() for p in args.profiles.split(",") if p.strip()]
    return args


def pick_genes(directory, per_class):
    genes = sorted(f for f in os.listdir(directory) if f.endswith((".fa", ".fasta")))
    if per_class is None:
        return genes
    picked = []
    for cls in sorted({gene_class(g) for g in genes}):
        mine = [g for g in genes if gene_class(g) == cls]
        n = min(per_class, len(mine))
        picked += [mine[i] for i in sorted({int(j * len(mine) / n) for j in range(n)})]
    return picked


def main():
    args = parse_args()
    if os.geteuid() != 0:
        sys.exit("cold_genes: run as root (it drops the page cache)")
    genes = pick_genes(args.genes, args.genes_per_class)
    names = {g: query_name(os.path.join(args.genes, g)) for g in genes}
    truth = read_truth(args.truth, names.values(), args.threshold) if args.truth else None
    shown = {index: shown_documents(args.binaries[0][1], index) for _, index in args.indexes} \
        if truth is not None else {}
    os.makedirs(args.out, exist_ok=True)
    commands = open(os.path.join(args.out, "commands.sh"), "w")
    cgroups = Cgroups(prefix="bitsift-cold")
    rows, failures = [], []
    try:
        for profile_name in args.profiles:
            profile = frugal.profile(profile_name)
            if args.no_memory_cap:
                profile = profile.with_overrides(memory=0)
            group = frugal.profile_group(cgroups, profile, args.indexes[0][1], count_reads=True)
            commands.write("# profile %s: %s\n" % (profile_name, profile.describe()))
            for run in range(args.runs):
                for gene in genes:
                    for (label, binary) in args.binaries:
                        for (index_label, index) in args.indexes:
                            row = measure(args, group, commands, run, gene, names[gene], binary,
                                          index, truth, shown.get(index), failures)
                            row.update({"profile": profile_name, "binary": label,
                                        "index": index_label})
                            rows.append(row)
    finally:
        cgroups.cleanup()
    with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_table(rows, args, os.path.join(args.out, "table.md"))
    for failure in failures:
        print("cold_genes: FAILURE: %s" % failure, file=sys.stderr)
    return 1 if failures else 0


def measure(args, group, commands, run, gene, name, binary, index, truth, shown, failures):
    command = [binary, "query", "-i", index, "-f", os.path.join(args.genes, gene), "--format",
               "json", "--batch", "1", "-t", str(args.threshold)]
    commands.write("sync; echo 3 > /proc/sys/vm/drop_caches; %s\n" % " ".join(command))
    drop_caches([binary])
    before = group.reads() if group else (None, None)
    wall, out = run_one(command, group)
    after = group.reads() if group else (None, None)
    stats, hits = answer_of(out)
    row = {"run": run, "gene": gene, "class": gene_class(gene), "wall_ms": round(wall * 1000, 1),
           "total_ms": stats.get("total_ms"), "bytes_read": stats.get("bytes_read"),
           "read_requests": stats.get("read_requests"),
           "side_read_requests": stats.get("side_read_requests"),
           "device_requests": (after[0] - before[0]) if before[0] is not None else None,
           "device_bytes": (after[1] - before[1]) if before[1] is not None else None,
           "hits": len(hits), "false_positive_pairs": None, "false_negatives": None}
    if truth is not None:
        pairs = truth.get(name, {})
        needed = lambda total: math.ceil(args.threshold * total)
        carriers = {g for g, (found, total) in pairs.items()
                    if found >= needed(total) and g in shown}
        missed = carriers - hits
        row["false_negatives"] = len(missed)
        row["false_positive_pairs"] = len(hits - carriers)
        if missed:
            failures.append("%s on %s: %d carriers not reported, e.g. %s" % (
                name, index, len(missed), ", ".join(sorted(missed)[:3])))
    print("cold_genes: run %d %-30s wall %8.1f ms  query %8s ms  requests %6s  device %6s" % (
        run, gene, wall * 1000, stats.get("total_ms"), stats.get("read_requests"),
        row["device_requests"]), file=sys.stderr, flush=True)
    return row


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(math.ceil(q * len(values))) - 1)] if values else None


def write_table(rows, args, path):
    """Per profile, class and (binary, index): medians and p99 of the runs after the first."""
    if any(r["run"] > 0 for r in rows):
        rows = [r for r in rows if r["run"] > 0]
    header = ("| profile | class | binary | index | requests p50 / p99 | device requests p50 | "
              "MiB p50 | wall ms p50 / p99 | query ms p50 | false-positive pairs |")
    lines = [header, "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
    classes = sorted({r["class"] for r in rows})
    for profile in args.profiles:
        for cls in classes:
            for label, _ in args.binaries:
                for index_label, _ in args.indexes:
                    mine = [r for r in rows if (r["profile"], r["class"], r["binary"],
                                                r["index"]) == (profile, cls, label, index_label)]
                    if not mine:
                        continue
                    num = lambda key: [r[key] for r in mine if r[key] is not None]
                    fp = num("false_positive_pairs")
                    device = num("device_requests")
                    lines.append("| %s | %s | %s | %s | %s / %s | %s | %.1f | %.0f / %.0f | %.1f | %s |" % (
                        profile, cls, label, index_label, statistics.median(num("read_requests")),
                        pct(num("read_requests"), 0.99),
                        statistics.median(device) if device else "-",
                        statistics.median(num("bytes_read")) / 2**20,
                        statistics.median(num("wall_ms")), pct(num("wall_ms"), 0.99),
                        statistics.median(num("total_ms")), sum(fp) if fp else "-"))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
