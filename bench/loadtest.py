#!/usr/bin/env python3
"""Load test of `bitsift serve` on loopback.

Starts the server on an index with a page cache smaller than the index, then runs phases of
N concurrent clients, each sending real gene queries (one gene per request, picked at random
with a fixed seed) for a fixed time. Reports per phase: requests, throughput, latency p50 /
p99 / max of answered requests, status codes (503s are expected in the overload phase), and
the server's resident memory sampled every 50 ms (peak VmHWM and the largest sampled VmRSS),
which must stay under the cache budget plus a fixed overhead.

Usage: bench/loadtest.py INDEX GENES.fa [--cache-size 256M] [--phases 4:20,16:20,64:20]
       [--max-concurrent 8] [--max-queued 16] [--json OUT.json] [--bitsift PATH]

Each phase is CLIENTS:SECONDS. Standard library only.
"""
import argparse
import http.client
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_fasta(path):
    records, name, seq = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name and seq:
                    records.append((name, "".join(seq)))
                name, seq = line[1:].split()[0] if len(line) > 1 else "query", []
            elif line:
                seq.append(line)
    if name and seq:
        records.append((name, "".join(seq)))
    return records


def parse_size(text):
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", text.strip().upper())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 256M")
    return int(float(match.group(1)) * 1024 ** "_KMGT".index(match.group(2) or "_"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def client(port, genes, seconds, seed, results, threshold):
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while time.monotonic() < deadline:
        name, sequence = rng.choice(genes)
        body = json.dumps({"sequences": [{"name": name, "sequence": sequence}], "threshold": threshold, "limit": 20})
        started = time.monotonic()
        try:
            connection.request("POST", "/api/search", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            payload = response.read()
            status = response.status
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        except (OSError, http.client.HTTPException):
            status, payload = 0, b""
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        elapsed = time.monotonic() - started
        results.append((status, elapsed, len(payload)))
        if status == 503:
            time.sleep(0.05)  # as a polite client honouring Retry-After would, briefly


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("index")
    parser.add_argument("genes")
    parser.add_argument("--cache-size", type=parse_size, default=parse_size("256M"))
    parser.add_argument("--phases", default="4:20,16:20,64:20")
    parser.add_argument("--max-concurrent", type=int, default=8)
    parser.add_argument("--max-queued", type=int, default=16)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json")
    parser.add_argument("--bitsift", default=os.environ.get("BITSIFT", os.path.join(
        os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release/bitsift")))
    args = parser.parse_args()
    genes = [g for g in read_fasta(args.genes) if len(g[1]) >= 31]
    if not genes:
        sys.exit(f"loadtest: {args.genes}: no gene of 31 bases or more")
    port = free_port()
    server = subprocess.Popen(
        [args.bitsift, "serve", "-i", args.index, "--listen", f"127.0.0.1:{port}",
         "--cache-size", str(args.cache_size), "--max-concurrent", str(args.max_concurrent),
         "--max-queued", str(args.max_queued), "--workers", str(args.workers)],
        stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    if "serving" not in line:
        server.kill()
        sys.exit(f"loadtest: server did not start: {line}{server.stderr.read()}")
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
    idle_rss = memory_kib(server.pid, "VmRSS")
    report = {"index": args.index, "index_bytes": os.path.getsize(args.index), "cache_bytes": args.cache_size,
              "max_concurrent": args.max_concurrent, "max_queued": args.max_queued, "workers": args.workers,
              "genes": len(genes), "idle_rss_kib": idle_rss, "phases": []}
    try:
        for number, phase in enumerate(args.phases.split(",")):
            clients, seconds = (int(x) for x in phase.split(":"))
            results = []
            samples = []
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    value = memory_kib(server.pid, "VmRSS")
                    if value:
                        samples.append(value)
                    time.sleep(0.05)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            threads = [threading.Thread(target=client, args=(port, genes, seconds, 1000 * number + c, results, args.threshold))
                       for c in range(clients)]
            started = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.monotonic() - started
            stop.set()
            sampler.join()
            answered = [r[1] for r in results if r[0] == 200]
            statuses = {}
            for r in results:
                statuses[str(r[0])] = statuses.get(str(r[0]), 0) + 1
            entry = {
                "clients": clients, "seconds": round(wall, 2), "requests": len(results),
                "answered": len(answered), "throughput_per_s": round(len(answered) / wall, 1),
                "p50_ms": round(1e3 * percentile(answered, 0.5), 1), "p99_ms": round(1e3 * percentile(answered, 0.99), 1),
                "max_ms": round(1e3 * max(answered), 1) if answered else None,
                "statuses": statuses, "rss_max_kib": max(samples) if samples else None,
                "peak_rss_kib": memory_kib(server.pid, "VmHWM"),
            }
            report["phases"].append(entry)
            print(json.dumps(entry), file=sys.stderr)
        metrics = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        metrics.request("GET", "/metrics")
        text = metrics.getresponse().read().decode()
        report["metrics"] = {line.split(" ")[0]: float(line.split(" ")[1]) for line in text.splitlines()
                             if line and not line.startswith("#") and " " in line and "bucket" not in line}
    finally:
        server.terminate()
        server.wait(timeout=30)
    overhead = (report["phases"][-1]["peak_rss_kib"] or 0) * 1024 - args.cache_size
    report["peak_rss_minus_cache_bytes"] = overhead
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print("| clients | requests | answered | 503 | throughput/s | p50 ms | p99 ms | max ms | peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in report["phases"]:
        print(f"| {p['clients']} | {p['requests']} | {p['answered']} | {p['statuses'].get('503', 0)} | {p['throughput_per_s']} | "
              f"{p['p50_ms']} | {p['p99_ms']} | {p['max_ms']} | {p['peak_rss_kib'] / 1024:.0f} MiB |")
    print(f"cache budget {args.cache_size / 2**20:.0f} MiB; peak RSS minus cache budget: {overhead / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
