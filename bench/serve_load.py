#!/usr/bin/env python3
"""A load test of `bitsift serve` as a public service meets it (issue 34): about 200 clients
on loopback, most asking single genes (popular genes more often than others), a few sending
800-gene panels or asking for huge answers, several at once.

    python3 bench/serve_load.py --index INDEX --genes GENES.fa --bitsift PATH \\
        [--serve-args "--workers 2"] [--clients 200] [--heavy 20] [--heavy-parallel 4] \\
        [--seconds 30] [--think 1.0] [--panel-genes 800] [--huge-genes 100] --out DIR

One server for every phase (started with `bitsift serve -q -i INDEX` and --serve-args):
1. *unloaded*: one gene client, one gene after another;
2. *genes*: CLIENTS - HEAVY gene clients, each sending one gene, then pausing (exponential,
   mean --think seconds);
3. *genes + heavy*: the same gene clients, and HEAVY clients with --heavy-parallel requests
   in flight each, back to back: three in four send panels of the first --panel-genes genes
   (threshold 0.8), one in four asks for every hit of --huge-genes genes (threshold 0.1,
   `limit` 0: every document of a small index, a huge answer). Each heavy request takes its
   genes at random, each with two random substitutions: never answered from the cache.
Single genes are picked with Zipf weights (the k-th gene of GENES asked 1/k as often as the
first), with fixed seeds. Every client has its own `X-Api-Key`; a 429 or 503 is waited out for its
`Retry-After`. A request is timed from connecting to its answer's last byte.

Reports per phase and kind: requests answered, statuses, p50 / p99 / max of the 200s, p99
and max of the 429/503 answers (how fast overload is told), answers per gene client (min,
median; "starved": none in the phase), the answer cache's hit rate over the phase (from
`/metrics`), the load generator's own lateness (p99 of how late its event loop runs a 10 ms
timer: latencies include up to that much of the generator's delay) and the server's peak
resident memory. Writes DIR/table.md, DIR/runs.json and
DIR/command.sh. Standard library only.
"""

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import shlex
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite.util import read_fasta  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def post(port, body, key, keep):
    """One POST /api/search on a new connection: (status, seconds, Retry-After, whether the
    answer came from the answer cache (`stats.answers_from_cache`, read when `keep`))."""
    started = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return 0, time.monotonic() - started, 1.0, False
    try:
        head = ("POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "X-Api-Key: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (key, len(body)))
        writer.write(head.encode() + body)
        await writer.drain()
        status_line = await reader.readline()
        status = int(status_line.split()[1]) if len(status_line.split()) > 1 else 0
        retry_after = 0.0
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "retry-after":
                retry_after = float(value.strip() or 0)
        cached, tail = False, b""
        while True:
            chunk = await reader.read(1 << 20)
            if not chunk:
                break
            if keep:
                tail = (tail + chunk)[-(1 << 16):]
        if keep:
            match = re.search(rb'"answers_from_cache":(\d+)', tail)
            cached = bool(match and int(match.group(1)) > 0)
        return status, time.monotonic() - started, retry_after, cached
    except (OSError, ValueError, IndexError):
        return 0, time.monotonic() - started, 1.0, False
    finally:
        writer.close()


class Phase:
    """Results of one phase, per kind of request and per client."""

    def __init__(self):
        self.results = {}  # kind -> [(status, seconds)]
        self.answered = {}  # client key -> answers (200)
        self.cached = {}  # kind -> answers from the answer cache
        self.lags = []  # the event loop's lateness, seconds

    def record(self, kind, key, status, seconds, cached):
        self.results.setdefault(kind, []).append((status, seconds))
        self.cached[kind] = self.cached.get(kind, 0) + int(cached)
        if status == 200:
            self.answered[key] = self.answered.get(key, 0) + 1
        else:
            self.answered.setdefault(key, 0)


async def client(port, key, kind, make_body, think, stop, phase, seed):
    rng = random.Random(seed)
    while not stop.is_set():
        status, seconds, retry_after, cached = await post(port, make_body(rng), key, kind == "gene")
        phase.record(kind, key, status, seconds, cached)
        pause = retry_after if status in (0, 429, 503) else (rng.expovariate(1.0 / think) if think else 0)
        if pause:
            try:
                await asyncio.wait_for(stop.wait(), pause)
            except asyncio.TimeoutError:
                pass


def metrics(port):
    text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30).read().decode()
    values = {}
    for line in text.splitlines():
        match = re.match(r"^([a-z_]+(?:\{[^}]*\})?) ([0-9.e+-]+)$", line)
        if match:
            values[match.group(1)] = float(match.group(2))
    return values


async def run_phase(port, args, makers, gene_clients, heavy):
    stop = asyncio.Event()
    phase = Phase()
    tasks = []
    for i in range(gene_clients):
        think = args.think if gene_clients > 1 else 0
        tasks.append(client(port, "gene-%d" % i, "gene", makers["gene"], think, stop, phase, i))
    for i in range(heavy):
        kind = "huge" if i % 4 == 3 else "panel"
        for j in range(args.heavy_parallel):
            tasks.append(client(port, "heavy-%d" % i, kind, makers[kind], 0, stop, phase, 1000 + i * 10 + j))
    running = [asyncio.ensure_future(t) for t in tasks]
    lag = asyncio.ensure_future(watch_lag(stop, phase))
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.gather(*running, lag)
    return phase


async def watch_lag(stop, phase):
    """How late the load generator's own event loop runs a 10 ms timer: a latency measured
    here includes up to that much of the generator's delay, not the server's."""
    while not stop.is_set():
        due = time.monotonic() + 0.01
        await asyncio.sleep(0.01)
        phase.lags.append(max(0.0, time.monotonic() - due))


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else None


def summarize(phase, gene_clients):
    kinds = {}
    for kind, results in phase.results.items():
        ok = [s for status, s in results if status == 200]
        refused = [s for status, s in results if status in (429, 503)]
        statuses = {}
        for status, _ in results:
            statuses[str(status)] = statuses.get(str(status), 0) + 1
        kinds[kind] = {
            "answered": len(ok), "statuses": statuses,
            "p50_ms": ms(percentile(ok, 0.5)), "p99_ms": ms(percentile(ok, 0.99)), "max_ms": ms(max(ok, default=None)),
            "refused_p99_ms": ms(percentile(refused, 0.99)), "refused_max_ms": ms(max(refused, default=None)),
            "from_answer_cache": round(phase.cached.get(kind, 0) / len(ok), 3) if ok else None,
        }
    shares = [phase.answered.get("gene-%d" % i, 0) for i in range(gene_clients)]
    return {"kinds": kinds, "generator_lag_p99_ms": ms(percentile(phase.lags, 0.99)),
            "gene_client_answers_min": min(shares, default=0),
            "gene_client_answers_median": statistics.median(shares) if shares else 0,
            "gene_clients_starved": sum(1 for s in shares if s == 0)}


def ms(seconds):
    return None if seconds is None else round(seconds * 1e3, 1)


def cache_rate(before, after):
    hits = after.get("bitsift_answer_cache_hits_total", 0) - before.get("bitsift_answer_cache_hits_total", 0)
    misses = after.get("bitsift_answer_cache_misses_total", 0) - before.get("bitsift_answer_cache_misses_total", 0)
    return round(hits / (hits + misses), 3) if hits + misses else None


def peak_rss_mib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024)
    except OSError:
        pass
    return None


def start_server(args, port, out):
    command = [args.bitsift, "serve", "-q", "-i", args.index, "--listen", "127.0.0.1:%d" % port]
    command += shlex.split(args.serve_args)
    with open(os.path.join(out, "command.sh"), "a") as f:
        f.write(" ".join(shlex.quote(c) for c in command) + "\n")
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=2).close()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("serve_load: the server did not start: %s" % " ".join(command))


def mutated(sequence, rng):
    """`sequence` with two random substitutions: a query no one asked before (the answer
    cache keeps answers by the query's bases), as costly to search. (Slices, not a list of
    bases: the load generator must not hold up its own clients.)"""
    for _ in range(2):
        at = rng.randrange(len(sequence))
        base = "C" if sequence[at] == "A" else "A"
        sequence = sequence[:at] + base + sequence[at + 1:]
    return sequence


def body_makers(args):
    """Per kind, a function of a random generator giving the next request's body: a gene
    picked with Zipf weights (popular genes repeat, as the answer cache expects), or a
    panel or huge request of genes of its own (mutated, so never answered from the cache)."""
    genes = read_fasta(args.genes)
    if len(genes) < max(args.panel_genes, args.huge_genes):
        raise SystemExit("serve_load: %s has %d genes; the panels need %d"
                         % (args.genes, len(genes), max(args.panel_genes, args.huge_genes)))
    gene_bodies = [json.dumps({"sequence": s, "threshold": 0.8}).encode() for _, s in genes]
    weights = list(itertools.accumulate(1.0 / (k + 1) for k in range(len(genes))))

    def heavy(count, threshold, limit):
        tail = '],"threshold":%g%s}' % (threshold, "" if limit is None else ',"limit":%d' % limit)

        def make(rng):
            picked = rng.sample(genes, count)
            sequences = ['{"name":%s,"sequence":"%s"}' % (json.dumps(n), mutated(s, rng)) for n, s in picked]
            return ('{"sequences":[' + ",".join(sequences) + tail).encode()
        return make

    return {"gene": lambda rng: rng.choices(gene_bodies, cum_weights=weights)[0],
            "panel": heavy(args.panel_genes, 0.8, None), "huge": heavy(args.huge_genes, 0.1, 0)}


def table(runs):
    lines = ["| phase | kind | clients | answered | statuses | p50 (ms) | p99 (ms) | max (ms) | 429/503 p99 (ms) | per gene client: min / median answers, starved | gene answers from the cache | answer cache hit rate (/metrics, all queries) | generator lag p99 (ms) |",
             "|---|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for run in runs:
        for kind, k in sorted(run["kinds"].items(), key=lambda item: item[0] != "gene"):
            share = ("%d / %g, %d" % (run["gene_client_answers_min"], run["gene_client_answers_median"],
                                      run["gene_clients_starved"]) if kind == "gene" else "")
            cell = lambda v: "–" if v is None else "%g" % v
            statuses = ", ".join("%s: %d" % item for item in sorted(k["statuses"].items()))
            lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                run["phase"], kind, run["clients"][kind], k["answered"], statuses, cell(k["p50_ms"]),
                cell(k["p99_ms"]), cell(k["max_ms"]), cell(k["refused_p99_ms"]), share,
                cell(k["from_answer_cache"]) if kind == "gene" else "",
                cell(run["answer_cache_hit_rate"]) if kind == "gene" else "",
                cell(run["generator_lag_p99_ms"]) if kind == "gene" else ""))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--genes", required=True)
    parser.add_argument("--bitsift", required=True)
    parser.add_argument("--serve-args", default="")
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--heavy", type=int, default=20)
    parser.add_argument("--heavy-parallel", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--panel-genes", type=int, default=800)
    parser.add_argument("--huge-genes", type=int, default=100)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    args.index, args.bitsift = os.path.abspath(args.index), os.path.abspath(args.bitsift)
    makers = body_makers(args)
    with open(os.path.join(args.out, "command.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s\n" % " ".join(shlex.quote(a) for a in sys.argv))
    port = free_port()
    server = start_server(args, port, args.out)
    gene_clients = args.clients - args.heavy
    heavy_kinds = {"panel": sum(1 for i in range(args.heavy) if i % 4 != 3), "huge": args.heavy // 4}
    runs = []
    try:
        for name, genes, heavy in (("unloaded", 1, 0), ("genes", gene_clients, 0), ("genes + heavy", gene_clients, args.heavy)):
            before = metrics(port)
            phase = asyncio.run(run_phase(port, args, makers, genes, heavy))
            after = metrics(port)
            run = {"phase": name, "clients": {"gene": genes, **heavy_kinds}, **summarize(phase, genes),
                   "answer_cache_hit_rate": cache_rate(before, after), "peak_rss_mib": peak_rss_mib(server.pid)}
            runs.append(run)
            print("serve_load: %s" % json.dumps(run), file=sys.stderr, flush=True)
    finally:
        server.terminate()
        server.wait()
    with open(os.path.join(args.out, "runs.json"), "w") as f:
        json.dump(runs, f, indent=1)
    text = table(runs)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
