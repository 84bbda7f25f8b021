#!/usr/bin/env python3
"""Single-gene latency of `bitsift serve` alone and while other clients' panels run (issue 34).

    python3 bench/fair_serve.py --index INDEX --genes GENES.fa [--panel-genes 800] \\
        [--panel-clients 2] [--gene-clients 1] [--seconds 20] \\
        --bitsift LABEL=PATH[,EXTRA SERVE OPTIONS] [--bitsift ...] --out bench/results/X

For each binary: starts `bitsift serve -i INDEX` on loopback (with the extra options given
after a comma, e.g. `after=target/release/bitsift,--answer-cache-size 0`), then
1. *alone*: the gene clients each send one gene at a time (picked at random from GENES with a
   fixed seed, `threshold` 0.8) for --seconds;
2. *with panels*: the same, while --panel-clients other clients (each with its own
   `X-Api-Key`) each send panels of the first --panel-genes genes back to back.
Reports per phase and kind: requests answered, statuses, p50 / p99 / max latency (ms).
Writes OUT/table.md, OUT/runs.json and OUT/commands.sh. Standard library only.
"""

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time


def read_fasta(path):
    records, name, seq = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name and seq:
                    records.append((name, "".join(seq)))
                name, seq = line[1:].split()[0], []
            elif line:
                seq.append(line)
    if name and seq:
        records.append((name, "".join(seq)))
    return records


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(port, body, key):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    started = time.monotonic()
    try:
        connection.request("POST", "/api/search", body=body,
                           headers={"Content-Type": "application/json", "X-Api-Key": key})
        response = connection.getresponse()
        response.read()
        status = response.status
    except OSError:
        status = 0
    finally:
        connection.close()
    return status, time.monotonic() - started


def client(port, bodies, key, stop, results, seed):
    rng = random.Random(seed)
    while not stop.is_set():
        status, seconds = post(port, rng.choice(bodies), key)
        results.append((status, seconds))
        if status in (429, 503):
            time.sleep(0.05)


def summary(results):
    answered = sorted(s for status, s in results if status == 200)
    statuses = {}
    for status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    if not answered:
        return {"answered": 0, "statuses": statuses}
    pick = lambda q: answered[min(len(answered) - 1, int(q * len(answered)))] * 1e3
    return {"answered": len(answered), "statuses": statuses, "p50_ms": round(pick(0.5), 1),
            "p99_ms": round(pick(0.99), 1), "max_ms": round(answered[-1] * 1e3, 1)}


def phase(port, gene_bodies, panel_body, args, panels):
    stop = threading.Event()
    genes, panel_results = [], []
    threads = [threading.Thread(target=client, args=(port, gene_bodies, "gene-%d" % i, stop, genes, i))
               for i in range(args.gene_clients)]
    threads += [threading.Thread(target=client, args=(port, [panel_body], "panel-%d" % i, stop, panel_results, 100 + i))
                for i in range(panels)]
    for thread in threads:
        thread.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in threads:
        thread.join()
    return {"gene": summary(genes), "panel": summary(panel_results)}


def serve(binary, extra, index, port, commands):
    command = [binary, "serve", "-q", "-i", index, "--listen", "127.0.0.1:%d" % port] + extra
    commands.write(" ".join(command) + "\n")
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("fair_serve: the server did not start: %s" % " ".join(command))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--genes", required=True)
    parser.add_argument("--panel-genes", type=int, default=800)
    parser.add_argument("--panel-clients", type=int, default=2)
    parser.add_argument("--gene-clients", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--bitsift", action="append", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    genes = read_fasta(args.genes)
    gene_bodies = [json.dumps({"sequence": s, "threshold": 0.8}) for _, s in genes]
    panel = [{"name": n, "sequence": s} for n, s in genes[:args.panel_genes]]
    panel_body = json.dumps({"sequences": panel, "threshold": 0.8})
    commands = open(os.path.join(args.out, "commands.sh"), "w")
    commands.write("#!/bin/sh\n# servers started by bench/fair_serve.py\n")
    runs = []
    for spec in args.bitsift:
        label, _, rest = spec.partition("=")
        binary, _, extra = rest.partition(",")
        port = free_port()
        server = serve(os.path.abspath(binary), extra.split(), os.path.abspath(args.index), port, commands)
        try:
            post(port, gene_bodies[0], "warm")
            for name, panels in (("alone", 0), ("with panels", args.panel_clients)):
                result = phase(port, gene_bodies, panel_body, args, panels)
                runs.append({"bitsift": label, "phase": name, **result})
                print("fair_serve: %s %s: %s" % (label, name, json.dumps(result)), file=sys.stderr, flush=True)
        finally:
            server.kill()
            server.wait()
    with open(os.path.join(args.out, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)
    lines = ["| bitsift | phase | gene requests | gene p50 (ms) | gene p99 (ms) | gene statuses | panels answered | panel p50 (s) | panel statuses |",
             "|---|---|---:|---:|---:|---|---:|---:|---|"]
    for run in runs:
        g, p = run["gene"], run["panel"]
        lines.append("| %s | %s | %d | %s | %s | %s | %d | %s | %s |" % (
            run["bitsift"], run["phase"], g["answered"], g.get("p50_ms", "–"), g.get("p99_ms", "–"),
            g["statuses"], p["answered"], "%.2f" % (p["p50_ms"] / 1e3) if "p50_ms" in p else "–",
            p["statuses"] or "–"))
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
