#!/usr/bin/env python3
"""Answers at the mission's scale (issue 19): what it costs to say "how many genomes carry
this gene, in which species" when the answer is 600,000 hits.

On a collection of ~661k genomes with a species table:
  - the command line: a universal gene's whole answer as TSV, counted by species
    (--group-by), and as JSON; a 1,000-gene presence matrix (time, peak RSS, output size);
    each cold (page cache dropped) and warm;
  - the server: the same gene with `limit: 0` (the whole answer, streamed) and paged
    (`limit: 100`, with `group_by`), at 1 and 32 concurrent clients (wall time, latency,
    bytes, the server's peak RSS: a fresh server per scenario, VmHWM).

Every command is printed before it runs and written to commands.sh; numbers go to
results.json and a Markdown table (table.md) as they come.

  bench/answers_scale.py --collection DIR --metadata TSV --gene FASTA --batch FASTA \\
      --bitsift target/release/bitsift --out bench/results/DATE-answers
"""

import argparse
import http.client
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", required=True)
    parser.add_argument("--metadata", required=True)
    parser.add_argument("--gene", required=True, help="FASTA: the first record is searched")
    parser.add_argument("--batch", required=True, help="FASTA of ~1,000 genes for the matrix")
    parser.add_argument("--bitsift", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--column", default="species")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--parts", nargs="+", default=["cli", "api"], choices=["cli", "api"])
    parser.add_argument("--whole-only", action="store_true",
                        help="API: only the limit-0 scenario (for a binary without paging)")
    return parser.parse_args()


class Recorder:
    """Writes every command and every result as they come."""

    def __init__(self, out):
        os.makedirs(out, exist_ok=True)
        self.out = out
        self.results = []
        with open(os.path.join(out, "commands.sh"), "w") as f:
            f.write("#!/usr/bin/env bash\n# Every command bench/answers_scale.py ran, in order.\n")

    def command(self, argv):
        line = " ".join(shlex.quote(str(a)) for a in argv)
        print("$", line, flush=True)
        with open(os.path.join(self.out, "commands.sh"), "a") as f:
            f.write(line + "\n")

    def result(self, row):
        print(json.dumps(row), flush=True)
        self.results.append(row)
        with open(os.path.join(self.out, "results.json"), "w") as f:
            json.dump(self.results, f, indent=1)


def drop_caches(rec):
    rec.command(["sync"])
    rec.command(["sh", "-c", "echo 3 > /proc/sys/vm/drop_caches"])
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def timed(rec, argv, output=None):
    """Runs argv under GNU time; returns (seconds, peak RSS bytes, output bytes)."""
    full = ["/usr/bin/time", "-f", "%e %M"] + [str(a) for a in argv]
    rec.command(argv + (["-o", output] if output else []))
    if output:
        full += ["-o", output]
    done = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 3):
        sys.exit("failed: %s\n%s" % (" ".join(full), done.stderr))
    seconds, kib = done.stderr.strip().splitlines()[-1].split()
    size = os.path.getsize(output) if output else 0
    return float(seconds), int(kib) * 1024, size


def cli_runs(args, rec):
    base = [args.bitsift, "query", "-i", args.collection]
    gene = ["-f", args.gene, "-t", "0.8"]
    meta = ["--metadata", args.metadata]
    cases = [
        ("gene, all hits, TSV", base + gene, "hits.tsv"),
        ("gene, --group-by " + args.column, base + gene + meta + ["--group-by", args.column], "groups.tsv"),
        ("gene, all hits, JSON with groups",
         base + gene + meta + ["--group-by", args.column, "--format", "json"], "hits.json"),
        ("1,000 genes, --format matrix",
         base + ["-f", args.batch, "-t", "0.8", "--format", "matrix"], "matrix.tsv"),
    ]
    for name, argv, output in cases:
        for state in ("cold", "warm"):
            if state == "cold":
                drop_caches(rec)
            seconds, rss, size = timed(rec, argv, os.path.join(args.out, output))
            rec.result({"part": "cli", "case": name, "cache": state, "seconds": seconds,
                        "peak_rss_bytes": rss, "output_bytes": size})
        if output != "groups.tsv":  # the answers themselves are too large to keep
            os.remove(os.path.join(args.out, output))


def first_record(path):
    with open(path) as f:
        text = f.read()
    records = [r for r in text.split(">") if r.strip()]
    lines = records[0].splitlines()
    return lines[0].split()[0], "".join(lines[1:])


class Server:
    def __init__(self, args, rec):
        argv = [args.bitsift, "serve", "-i", args.collection, "--metadata", args.metadata,
                "--listen", "127.0.0.1:0", "--max-queued", "256", "--timeout", "600"]
        rec.command(argv)
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        self.address = None
        deadline = time.time() + 600
        while time.time() < deadline and self.address is None:
            line = self.process.stderr.readline()
            if not line:
                sys.exit("the server exited at start-up")
            found = re.search(r"http://(127\.0\.0\.1):(\d+)/", line)
            if found:
                self.address = (found.group(1), int(found.group(2)))
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def peak_rss(self):
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def post(address, body):
    """One request; returns (seconds, status, body bytes, the parsed head of the answer)."""
    started = time.time()
    connection = http.client.HTTPConnection(*address, timeout=900)
    connection.request("POST", "/api/search", json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    received = 0
    first = b""
    while True:
        chunk = response.read(1 << 20)
        if not chunk:
            break
        if len(first) < 4096:
            first += chunk[:4096]
        received += len(chunk)
    connection.close()
    return time.time() - started, response.status, received, first


def api_runs(args, rec):
    name, sequence = first_record(args.gene)
    scenarios = [
        ("limit 0 (whole answer)", {"sequence": sequence, "threshold": 0.8, "limit": 0}),
        ("limit 100, group_by", {"sequence": sequence, "threshold": 0.8, "limit": 100,
                                 "group_by": args.column}),
        ("limit 100, offset 500,000", {"sequence": sequence, "threshold": 0.8, "limit": 100,
                                       "offset": 500000}),
    ]
    if args.whole_only:
        scenarios = scenarios[:1]
    for label, body in scenarios:
        for clients in args.clients:
            server = Server(args, rec)
            # One request first, so that every scenario measures a warm page cache.
            post(server.address, body)
            warm_rss = server.peak_rss()
            results = [None] * clients
            def one(i):
                results[i] = post(server.address, body)
            started = time.time()
            threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.time() - started
            peak = server.peak_rss()
            server.stop()
            statuses = sorted({r[1] for r in results})
            latencies = sorted(r[0] for r in results)
            head = results[0][3].decode("utf-8", "replace")
            total = re.search(r'"total_hits":(\d+)', head)
            rec.result({"part": "api", "case": label, "clients": clients, "statuses": statuses,
                        "wall_seconds": round(wall, 3),
                        "latency_median_seconds": round(latencies[len(latencies) // 2], 3),
                        "latency_max_seconds": round(latencies[-1], 3),
                        "bytes_per_answer": results[0][2],
                        "total_hits": int(total.group(1)) if total else None,
                        "server_peak_rss_bytes_after_one": warm_rss,
                        "server_peak_rss_bytes": peak})


def table(rec):
    lines = ["| part | case | cache/clients | time | peak RSS | size |", "|---|---|---|---|---|---|"]
    for r in rec.results:
        if r["part"] == "cli":
            lines.append("| CLI | %s | %s | %.2f s | %.0f MiB | %.1f MiB |" % (
                r["case"], r["cache"], r["seconds"], r["peak_rss_bytes"] / 2**20,
                r["output_bytes"] / 2**20))
        else:
            lines.append("| API | %s | %d clients (%s) | %.2f s wall, median %.2f s | %.0f MiB (%.0f after one) | %.1f MiB each |" % (
                r["case"], r["clients"], ",".join(map(str, r["statuses"])), r["wall_seconds"],
                r["latency_median_seconds"], r["server_peak_rss_bytes"] / 2**20,
                r["server_peak_rss_bytes_after_one"] / 2**20, r["bytes_per_answer"] / 2**20))
    with open(os.path.join(rec.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    args = parse_args()
    rec = Recorder(args.out)
    try:
        if "cli" in args.parts:
            cli_runs(args, rec)
        if "api" in args.parts:
            api_runs(args, rec)
    finally:
        table(rec)


if __name__ == "__main__":
    main()
