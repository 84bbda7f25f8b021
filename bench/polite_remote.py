#!/usr/bin/env python3
"""Remote reads against a small server (issue 34): the same index served by nginx and by a
small threaded range server with a listen queue of 5 connections
(tests/remote/small_server.py), queried with the first N genes of a FASTA file.

    python3 bench/polite_remote.py --index INDEX --genes GENES.fa [--counts 100,800] \\
        [--runs 3] [--threshold 0.8] --bitsift [LABEL=]target/release/bitsift [--bitsift LABEL2=OTHER] \\
        [--timeout 600] --out bench/results/X

Starts nginx with tests/remote/servers.py (round trip 0) and the small server on the
index's directory, then for every binary, server, gene count and run does one fresh
`bitsift query -i URL -f GENES -t THRESHOLD` (TSV; no local cache) and records its wall
time; every answer must equal the answer of the same binary from nginx. A run that takes
longer than --timeout seconds is stopped and recorded as such.

Writes OUT/runs.csv, OUT/table.md (medians, the small server's time next to nginx's) and
OUT/commands.sh. Standard library only.
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVERS = os.path.join(ROOT, "tests", "remote", "servers.py")
SMALL = os.path.join(ROOT, "tests", "remote", "small_server.py")


def log(message):
    print("polite_remote: %s" % message, file=sys.stderr, flush=True)


def first_genes(path, count, out):
    """Writes the first `count` records of FASTA `path` to `out`."""
    records = 0
    with open(path) as f, open(out, "w") as w:
        for line in f:
            if line.startswith(">"):
                records += 1
                if records > count:
                    break
            w.write(line)
    return min(records, count)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--genes", required=True)
    parser.add_argument("--counts", default="100,800")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bitsift", action="append", required=True)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--threshold", default="0.8")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    index = os.path.abspath(args.index)
    served = os.path.dirname(index)
    name = os.path.basename(index)
    binaries = []
    for spec in args.bitsift:
        label, _, path = spec.rpartition("=")
        binaries.append((label or os.path.basename(path), os.path.abspath(path)))
    commands = open(os.path.join(out, "commands.sh"), "w")
    commands.write("#!/bin/sh\n# commands of bench/polite_remote.py, in order\n")

    def record(command):
        commands.write(" ".join(command) + "\n")
        commands.flush()

    state = tempfile.mkdtemp(prefix="polite-remote-")
    start = [sys.executable, SERVERS, "start", "--dir", served, "--state", state, "--rtt-ms", "0", "--no-upload"]
    record(start)
    info = subprocess.run(start, check=True, capture_output=True, text=True).stdout
    nginx = __import__("json").loads(info.strip().splitlines()[-1])["http"]
    small_command = [sys.executable, SMALL, "--dir", served, "--backlog", "5"]
    record(small_command)
    small = subprocess.Popen(small_command, stdout=subprocess.PIPE, text=True)
    small_url = small.stdout.readline().strip()
    urls = {"nginx": "%s/%s" % (nginx, name), "small": "%s/%s" % (small_url, name)}
    rows = []
    try:
        for count in [int(c) for c in args.counts.split(",")]:
            genes = os.path.join(state, "genes-%d.fa" % count)
            got = first_genes(args.genes, count, genes)
            for run in range(args.runs):
                for label, binary in binaries:
                    answers = {}
                    for server in ("nginx", "small"):
                        command = [binary, "query", "-i", urls[server], "-f", genes, "-t", args.threshold]
                        record(command)
                        started = time.monotonic()
                        try:
                            done = subprocess.run(command, capture_output=True, timeout=args.timeout)
                            seconds = time.monotonic() - started
                            status = "ok" if done.returncode == 0 else "failed"
                            answers[server] = done.stdout
                        except subprocess.TimeoutExpired:
                            seconds, status = time.monotonic() - started, "timeout"
                        same = server == "nginx" or answers.get("small") == answers.get("nginx")
                        if status == "ok" and not same:
                            status = "different answer"
                        rows.append({"bitsift": label, "server": server, "genes": got, "run": run,
                                     "seconds": round(seconds, 3), "status": status})
                        log("%s %s %d genes run %d: %.2f s %s" % (label, server, got, run, seconds, status))
    finally:
        small.kill()
        small.wait()
        subprocess.run([sys.executable, SERVERS, "stop", "--state", state], check=False)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_table(out, rows, binaries)
    commands.close()


def write_table(out, rows, binaries):
    lines = ["| bitsift | genes | nginx (s) | small server, listen queue 5 (s) | ratio | answers |",
             "|---|---:|---:|---:|---:|---|"]
    for label, _ in binaries:
        for genes in sorted({r["genes"] for r in rows}):
            def median(server):
                times = [r["seconds"] for r in rows
                         if r["bitsift"] == label and r["genes"] == genes and r["server"] == server]
                return statistics.median(times) if times else float("nan")
            statuses = {r["status"] for r in rows
                        if r["bitsift"] == label and r["genes"] == genes and r["server"] == "small"}
            n, s = median("nginx"), median("small")
            lines.append("| %s | %d | %.2f | %.2f | %.1f× | %s |" % (
                label, genes, n, s, s / n if n else float("nan"),
                "identical" if statuses == {"ok"} else ", ".join(sorted(statuses))))
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
