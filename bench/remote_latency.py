#!/usr/bin/env python3
"""Per-gene latency of a remote index against the round-trip time and the bandwidth (issues 23
and 32).

    sudo python3 bench/remote_latency.py --index DIR/collection --gene species=G1.fa \\
        --gene core=G2.fa --gene absent=G3.fa [--rtt 0,10,50] [--mbit 0,100,1000] [--runs 3] \\
        [--via http,s3] [--fuse] [--cached] [--download] --bitsift [LABEL=]target/release/bitsift \\
        [--bitsift LABEL2=OTHER] --out bench/results/X

Starts nginx and an S3-compatible server with tests/remote/servers.py serving the index's
directory, then for every round-trip time and bandwidth runs one fresh `bitsift query -i URL -f
GENE --format json` per gene and run (no local cache: every run fetches what it needs), and
records the wall time of the process, the query's own time and its requests and bytes.
`--mbit` lists bandwidths in Mbit/s each way, crossed with `--rtt`: each is one link shared by
all the connections of a query, as its parallel range requests share a real link (`netem rate`,
or the delaying proxy's shared link where the kernel has no netem); 0, the default, does not
limit it (then only the machine's loopback and the proxy bound the transfer). `--fuse` adds the same
queries with one read at a time and no coalescing (what a FUSE mount of the bucket gives a
program that faults pages in one by one: COBS on a mounted index); `--cached` adds them with a
local cache (`--cache-dir`) filled by one query of the same gene first (a lab asking again);
several `--bitsift LABEL=PATH` compare binaries, their runs interleaved; `--download` times a
download of the index's files (one stream each, as `curl`/`aws s3 cp` would), to compare with.

Writes OUT/runs.csv (one row per run), OUT/summary.json and OUT/table.md (medians), and
OUT/commands.sh (every command, in order); each row names its `rtt_ms` and `mbit` (0: not
limited), and the table has a Mbit/s column when `--mbit` limits some rows. Standard library
only.
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
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVERS = os.path.join(ROOT, "tests", "remote", "servers.py")


def log(message):
    print("remote_latency: %s" % message, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)
        self.commands = open(os.path.join(self.out, "commands.sh"), "w")
        self.commands.write("#!/bin/sh\n# commands of bench/remote_latency.py, in order\n")
        self.rows = []
        self.index = os.path.abspath(args.index)
        self.served = os.path.dirname(self.index)
        self.state = tempfile.mkdtemp(prefix="remote-latency-")
        self.info = None

    def record(self, command):
        self.commands.write(" ".join(command).replace(ROOT + os.sep, "") + "\n")
        self.commands.flush()

    def servers(self, *args):
        command = [sys.executable, SERVERS] + list(args) + ["--state", self.state]
        self.record(command)
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else None

    def start(self):
        extra = [] if "s3" in self.args.via else ["--no-upload"]
        self.info = self.servers("start", "--dir", self.served, "--rtt-ms", "0", *extra)
        log("servers: %s" % json.dumps(self.info))

    def url(self, via):
        name = os.path.relpath(self.index, self.served)
        if via == "http":
            return "%s/%s" % (self.info["http"], name)
        return "s3://%s/%s" % (self.info["bucket"], name)

    def env(self, via):
        env = dict(os.environ)
        if via == "s3":
            env.update(AWS_ENDPOINT_URL=self.info["s3_endpoint"], AWS_ACCESS_KEY_ID=self.info["access_key"],
                       AWS_SECRET_ACCESS_KEY=self.info["secret_key"], AWS_REGION=self.info["region"])
        return env

    def query(self, via, rtt, mbit, cls, gene, mode, run, label, binary):
        options = self.args.fuse_options if mode == "fuse" else self.args.remote_options
        command = [binary, "query", "-i", self.url(via), "-f", gene, "-t",
                   str(self.args.threshold), "--format", "json"] + options.split()
        if mode == "cached":
            # One cache per binary, filled by a first query of the same gene (not recorded).
            cache = os.path.join(self.state, "cache-%s" % (label or "bitsift"))
            command += ["--cache-dir", cache]
            if run == 0:
                subprocess.run(command, capture_output=True, env=self.env(via), timeout=self.args.timeout)
        self.record(command)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=self.env(via),
                              timeout=self.args.timeout)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit("remote_latency: %s failed: %s" % (" ".join(command), done.stderr.strip()))
        doc = json.loads(done.stdout)
        row = {"via": via, "rtt_ms": rtt, "mbit": mbit, "class": cls, "gene": os.path.basename(gene),
               "mode": mode + ("@" + label if label else ""), "run": run,
               "wall_ms": round(wall * 1000, 1)}
        row.update(flatten_stats(doc))
        self.rows.append(row)
        return row

    def download(self, rtt, mbit):
        """Seconds to fetch every file of the index over HTTP, one stream per file."""
        files = index_files(self.index)
        total, started = 0, time.perf_counter()
        for path in files:
            url = "%s/%s" % (self.info["http"], os.path.relpath(path, self.served))
            self.record(["curl", "-s", "-o", "/dev/null", url])
            with urllib.request.urlopen(url, timeout=3600) as response:
                while True:
                    chunk = response.read(1 << 22)
                    if not chunk:
                        break
                    total += len(chunk)
        return {"rtt_ms": rtt, "mbit": mbit, "bytes": total, "seconds": round(time.perf_counter() - started, 2)}


def index_files(index):
    if os.path.isdir(index):
        return sorted(os.path.join(d, f) for d, _, fs in os.walk(index) for f in fs)
    base = os.path.dirname(index)
    stem = os.path.basename(index)
    return sorted(os.path.join(base, f) for f in os.listdir(base) if f.startswith(stem))


def flatten_stats(doc):
    """The query's own numbers: total time, requests, bytes, from the JSON `queries[0].stats`
    and the batch it ran in (keys vary with the version: every number is kept)."""
    out = {}
    batches = {b.get("batch"): b for b in doc.get("batches", [])}
    queries = doc.get("queries", [])
    if not queries:
        return out
    stats = dict(queries[0].get("stats") or {})
    for key, value in batches.get(stats.get("batch"), {}).items():
        stats.setdefault(key, value)
    for key, value in stats.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
        elif isinstance(value, dict):
            for sub, v in value.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    out["%s.%s" % (key, sub)] = v
    out["hits"] = len(queries[0].get("hits", queries[0].get("results", [])))
    return out


def summarize(rows, downloads):
    groups = {}
    for row in rows:
        key = (row["via"], row["mode"], row["rtt_ms"], row.get("mbit", 0), row["class"])
        groups.setdefault(key, []).append(row)
    table = []
    for (via, mode, rtt, mbit, cls), rs in sorted(groups.items()):
        entry = {"via": via, "mode": mode, "rtt_ms": rtt, "mbit": mbit, "class": cls, "runs": len(rs),
                 "wall_ms_p50": statistics.median(r["wall_ms"] for r in rs),
                 "wall_ms_max": max(r["wall_ms"] for r in rs)}
        for key in rs[0]:
            if key.startswith(("requests", "bytes", "total_ms", "remote", "io.")) or "request" in key:
                values = [r[key] for r in rs if isinstance(r.get(key), (int, float))]
                if values:
                    entry[key + "_p50"] = statistics.median(values)
        table.append(entry)
    return {"groups": table, "downloads": downloads}


def link(mbit):
    """A bandwidth for the table: Mbit/s, or "unlimited" for 0."""
    return "%g" % mbit if mbit else "unlimited"


def markdown(summary, request_key, bytes_key, limited):
    """The table of medians; with a Mbit/s column after the RTT when `limited` (some rows ran
    on a link of limited bandwidth), else as before bandwidths could be limited."""
    bandwidth = (" Mbit/s |", "---:|") if limited else ("", "")
    lines = ["| via | reads | RTT ms |%s gene | runs | wall p50 ms | wall max ms | query p50 ms | requests | MiB |"
             % bandwidth[0],
             "|---|---|---:|%s---|---:|---:|---:|---:|---:|---:|" % bandwidth[1]]
    for g in summary["groups"]:
        requests = g.get(request_key + "_p50", "")
        mib = g.get(bytes_key + "_p50")
        query = g.get("total_ms_p50")
        lines.append("| %s | %s | %g |%s %s | %d | %.0f | %.0f | %s | %s | %s |" % (
            g["via"], g["mode"], g["rtt_ms"], " %s |" % link(g["mbit"]) if limited else "", g["class"],
            g["runs"], g["wall_ms_p50"], g["wall_ms_max"],
            "%.0f" % query if isinstance(query, (int, float)) else "", requests,
            "%.2f" % (mib / 2**20) if isinstance(mib, (int, float)) else ""))
    if summary["downloads"]:
        lines += ["", "| download of the index, RTT ms |%s GiB | seconds |" % bandwidth[0],
                  "|---:|%s---:|---:|" % bandwidth[1]]
        for d in summary["downloads"]:
            lines.append("| %g |%s %.2f | %.1f |" % (d["rtt_ms"], " %s |" % link(d["mbit"]) if limited else "",
                                                     d["bytes"] / 2**30, d["seconds"]))
    return "\n".join(lines) + "\n"


def numbers(text, option):
    """A comma-separated list of non-negative numbers, or a clear error naming `option`."""
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise SystemExit("remote_latency: %s %s: not a comma-separated list of numbers" % (option, text))
    if any(v < 0 for v in values):
        raise SystemExit("remote_latency: %s %s: negative" % (option, text))
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", required=True, help="index file or collection directory")
    parser.add_argument("--gene", action="append", required=True, metavar="CLASS=FASTA")
    parser.add_argument("--bitsift", action="append", metavar="[LABEL=]PATH",
                        help="the binary; repeat with labels to compare binaries side by side "
                             "(runs interleaved)")
    parser.add_argument("--rtt", default="0,10,50", help="round-trip times in ms")
    parser.add_argument("--mbit", default="0",
                        help="bandwidths in Mbit/s each way, crossed with --rtt; 0 (default): not limited")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--via", default="http", help="http, s3 or http,s3")
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--remote-options", default="", help="more options of every query")
    parser.add_argument("--fuse", action="store_true", help="also one read at a time, no coalescing")
    parser.add_argument("--fuse-runs", type=int, default=1)
    parser.add_argument("--fuse-options", default="--remote-depth 1 --remote-ranges 1 --merge-gap 0 --read-max 4K",
                        help="the options giving one read at a time")
    parser.add_argument("--download", action="store_true")
    parser.add_argument("--cached", action="store_true",
                        help="also with a local cache (--cache-dir) filled by one query first")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--out", required=True)
    parser.add_argument("--request-key", default="remote_requests")
    parser.add_argument("--bytes-key", default="remote_bytes")
    args = parser.parse_args()
    args.via = args.via.split(",")
    args.rtts = numbers(args.rtt, "--rtt")
    args.mbits = numbers(args.mbit, "--mbit")
    # Only a limit changes the link: the default runs exactly the commands it always ran.
    args.limited = any(args.mbits)
    binaries = args.bitsift or [os.path.join(ROOT, "target", "release", "bitsift")]
    args.binaries = [tuple(b.split("=", 1)) if "=" in b else ("", b) for b in binaries]
    bench = Bench(args)
    bench.start()
    downloads = []
    try:
        for rtt in args.rtts:
            bench.servers("rtt", "--rtt-ms", "%g" % rtt)
            for mbit in args.mbits:
                if args.limited:
                    bench.servers("rate", "--mbit", "%g" % mbit)
                at = "rtt %g" % rtt + (" mbit %s" % link(mbit) if args.limited else "")
                for via in args.via:
                    modes = ["planned"] + (["fuse"] if args.fuse else []) + (["cached"] if args.cached else [])
                    for mode in modes:
                        for spec in args.gene:
                            cls, gene = spec.split("=", 1)
                            runs = args.fuse_runs if mode == "fuse" else args.runs
                            for run in range(runs):
                                for label, binary in args.binaries:
                                    row = bench.query(via, rtt, mbit, cls, gene, mode, run, label, binary)
                                    log("%s %s%s %s %s run %d: %.0f ms (query %s ms), %s requests" % (
                                        via, mode, "@" + label if label else "", at, cls, run,
                                        row["wall_ms"], row.get("total_ms"), row.get(args.request_key)))
                            write(bench, downloads)
                if args.download:
                    downloads.append(bench.download(rtt, mbit))
                    log("download at %s: %s" % (at, downloads[-1]))
                    write(bench, downloads)
    finally:
        bench.servers("stop")
    print(open(os.path.join(bench.out, "table.md")).read())


def write(bench, downloads):
    with open(os.path.join(bench.out, "runs.csv"), "w", newline="") as f:
        keys = []
        for row in bench.rows:
            keys += [k for k in row if k not in keys]
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(bench.rows)
    summary = summarize(bench.rows, downloads)
    with open(os.path.join(bench.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(bench.out, "table.md"), "w") as f:
        f.write(markdown(summary, bench.args.request_key, bench.args.bytes_key, bench.args.limited))


if __name__ == "__main__":
    main()
