#!/usr/bin/env python3
"""A served collection under writers (issue 20): `bitsift serve` at N clients while a loop of
add, remove and merge runs, every answer checked against the generation it names.

    python3 bench/live_collection.py [--minutes 10] [--clients 8] [--genomes 1000] ...

The collection starts with --genomes simulated genomes; a pool of further genomes is added
--batch at a time. The writer loop, for --minutes: add a batch, remove --removes shown genomes,
and every --merge-every cycles merge the collection. After each command returns, the manifest
is read and the documents each generation shows are recorded, with the time of the commit.

Each client loops over the bundled AMR genes, asking for every shown document (threshold 0,
no limit, TSV). An answer is checked twice:
  * exact: its documents are exactly those the generation it names (X-Bitsift-Generations)
    shows, no removed genome, no missing one;
  * not stale: that generation is at least the newest one committed before the request was
    sent (a command that has returned is seen by every later request).
Reported: answers per second, latency percentiles, errors, mismatches, stale answers, the
writer's commands and their times, reloads counted by the server, the server's peak RSS.
Raw results go to RESULTS_DIR/live.json and a Markdown table to standard output.
"""

import argparse
import datetime
import glob
import http.client
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite.util import BenchError, log, run, write_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENES = os.path.join(ROOT, "data/demo/queries/amr_genes.fa")
TRAIN = os.path.join(ROOT, "data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz")


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bitsift", default=os.path.join(ROOT, "target/release/bitsift"))
    p.add_argument("--simulate", default=os.path.join(ROOT, "target/release/bitsift-simulate"))
    p.add_argument("--work", default=os.path.join(ROOT, "bench/artifacts/live"))
    p.add_argument("--results", default=None)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--genomes", type=int, default=1000, help="genomes at the start")
    p.add_argument("--batch", type=int, default=20, help="genomes per add")
    p.add_argument("--batches", type=int, default=150, help="batches in the pool")
    p.add_argument("--removes", type=int, default=2, help="genomes removed per cycle")
    p.add_argument("--merge-every", type=int, default=4, help="merge every N cycles")
    p.add_argument("--genome-size", type=int, default=20000)
    p.add_argument("--keep", action="store_true")
    return p.parse_args()


def read_genes():
    genes, name = [], None
    with open(GENES) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                genes.append([line[1:].split()[0], ""])
            elif genes:
                genes[-1][1] += line
    return genes


def simulate(args, directory):
    total = args.genomes + args.batch * args.batches
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    run([args.simulate, "-o", directory, "--genomes", total, "--genome-size", args.genome_size,
         "--train", TRAIN, "--genes", GENES, "--seed", 20, "-q"], what="bitsift-simulate")
    files = sorted(glob.glob(os.path.join(directory, "genome_*.fa")))
    if len(files) != total:
        raise BenchError("%d genomes simulated, expected %d" % (len(files), total))
    return files[:args.genomes], [files[args.genomes + i * args.batch:
                                         args.genomes + (i + 1) * args.batch]
                                  for i in range(args.batches)]


def shown(bitsift, collection):
    """(generation, the set of document names the collection shows), as `bitsift info` lists
    them: the manifest keeps no names since its version 3, they stay in the sub-indexes."""
    out = subprocess.run([bitsift, "info", "--json", "--documents", collection],
                         check=True, capture_output=True).stdout
    info = json.loads(out)
    return info["generation"], {name for _, name in info["document_names"]}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_kib(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def sample_anon(pid, stop, peak):
    """The server's anonymous memory (its own, not the index pages it maps), every 0.2 s."""
    while not stop.is_set():
        peak[0] = max(peak[0], status_kib(pid, "RssAnon"))
        time.sleep(0.2)


class Record:
    """What the writer committed: generation -> shown names, and commit times."""

    def __init__(self, bitsift):
        self.bitsift = bitsift
        self.lock = threading.Lock()
        self.generations = {}
        self.committed = []  # (monotonic time the command returned, generation)
        self.commands = []

    def commit(self, collection, what, seconds):
        generation, names = shown(self.bitsift, collection)
        with self.lock:
            self.generations[generation] = names
            self.committed.append((time.monotonic(), generation))
            self.commands.append({"command": what, "seconds": seconds, "generation": generation,
                                  "documents": len(names)})

    def newest_before(self, moment):
        with self.lock:
            newest = 0
            for at, generation in self.committed:
                if at <= moment:
                    newest = max(newest, generation)
            return newest


def writer(args, collection, pool, record, stop):
    rng = random.Random(7)
    cycle = 0
    while not stop.is_set() and cycle < len(pool):
        listing = os.path.join(args.work, "batch.txt")
        with open(listing, "w") as f:
            f.write("".join(p + "\n" for p in pool[cycle]))
        started = time.monotonic()
        run([args.bitsift, "add", "-q", collection, "--list", listing], what="bitsift add")
        record.commit(collection, "add", time.monotonic() - started)
        _, names = shown(args.bitsift, collection)
        victims = rng.sample(sorted(names), min(args.removes, len(names) - 1))
        removal = os.path.join(args.work, "remove.txt")
        with open(removal, "w") as f:
            f.write("".join(v + "\n" for v in victims))
        started = time.monotonic()
        run([args.bitsift, "remove", collection, "--documents", removal], what="bitsift remove")
        record.commit(collection, "remove", time.monotonic() - started)
        cycle += 1
        if cycle % args.merge_every == 0:
            started = time.monotonic()
            run([args.bitsift, "merge", collection], what="bitsift merge")
            record.commit(collection, "merge", time.monotonic() - started)
    stop.set()


def ask(connection, body):
    """(status, body text, generation header) of one search."""
    connection.request("POST", "/api/search", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    text = response.read().decode()
    return response.status, text, response.getheader("X-Bitsift-Generations")


def client(port, genes, seed, record, stop, results):
    rng = random.Random(seed)
    connect = lambda: http.client.HTTPConnection("127.0.0.1", port, timeout=120)  # noqa: E731
    connection = connect()
    while not stop.is_set():
        name, sequence = genes[rng.randrange(len(genes))]
        body = json.dumps({"sequence": sequence, "threshold": 0, "limit": 0, "format": "tsv"})
        sent = time.monotonic()
        try:
            try:
                status, text, generations = ask(connection, body)
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                # The server closed this keep-alive connection after its idle timeout (a
                # client thread starved of CPU for 5 s): ask again on a new one, as HTTP
                # clients do, and count it.
                results.append({"reconnected": True})
                connection.close()
                connection = connect()
                status, text, generations = ask(connection, body)
        except (OSError, http.client.HTTPException) as error:
            results.append({"error": str(error), "sent": sent})
            connection.close()
            connection = connect()
            continue
        elapsed = time.monotonic() - sent
        if status != 200:
            results.append({"error": "%d %s" % (status, text[:200]), "sent": sent})
            continue
        generation = int(generations.split("=")[-1])
        documents = set()
        header = None
        for line in text.splitlines():
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if header is None:
                header = fields
                continue
            documents.add(fields[header.index("document")])
        results.append({"sent": sent, "seconds": elapsed, "generation": generation,
                        "documents": documents, "due": record.newest_before(sent)})


def check(record, answers):
    mismatched, stale, unknown = 0, 0, 0
    examples = []
    for answer in answers:
        if "error" in answer or "reconnected" in answer:
            continue
        truth = record.generations.get(answer["generation"])
        if truth is None:
            unknown += 1
        elif truth != answer["documents"]:
            mismatched += 1
            if len(examples) < 3:
                examples.append({"generation": answer["generation"],
                                 "extra": sorted(answer["documents"] - truth)[:5],
                                 "missing": sorted(truth - answer["documents"])[:5]})
        if answer["generation"] < answer["due"]:
            stale += 1
        answer.pop("documents")
    return mismatched, stale, unknown, examples


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def metric(port, name):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/metrics")
    for line in connection.getresponse().read().decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def serve_and_load(args, collection, pool, record):
    port = free_port()
    server = subprocess.Popen([args.bitsift, "serve", "-i", collection, "--listen",
                               "127.0.0.1:%d" % port, "--max-queued", "64"],
                              stderr=open(os.path.join(args.work, "serve.log"), "w"))
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise BenchError("the server did not start; see serve.log")
            time.sleep(0.2)
    genes = read_genes()
    stop = threading.Event()
    answers = [[] for _ in range(args.clients)]
    threads = [threading.Thread(target=client, args=(port, genes, i, record, stop, answers[i]))
               for i in range(args.clients)]
    write = threading.Thread(target=writer, args=(args, collection, pool, record, stop))
    anon = [0]
    sampler = threading.Thread(target=sample_anon, args=(server.pid, stop, anon))
    started = time.monotonic()
    for t in threads + [sampler]:
        t.start()
    write.start()
    stop.wait(args.minutes * 60)
    stop.set()
    write.join()
    for t in threads + [sampler]:
        t.join()
    seconds = time.monotonic() - started
    reloads = metric(port, "bitsift_reloads_total")
    failures = metric(port, "bitsift_reload_failures_total")
    rss = (status_kib(server.pid, "VmHWM"), anon[0])
    server.terminate()
    server.wait(timeout=60)
    return [a for per in answers for a in per], seconds, reloads, failures, rss


def main():
    args = arguments()
    os.makedirs(args.work, exist_ok=True)
    date = datetime.date.today().isoformat()
    results_dir = args.results or os.path.join(ROOT, "bench/results/%s-live" % date)
    log("simulating %d + %d x %d genomes" % (args.genomes, args.batches, args.batch))
    initial, pool = simulate(args, os.path.join(args.work, "genomes"))
    collection = os.path.join(args.work, "collection")
    if os.path.isdir(collection):
        shutil.rmtree(collection)
    listing = os.path.join(args.work, "initial.txt")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in initial))
    run([args.bitsift, "add", "-q", collection, "--list", listing], what="bitsift add")
    record = Record(args.bitsift)
    record.commit(collection, "add (initial)", 0.0)
    log("serving at %d clients for %.1f minutes while the writer loops" % (args.clients,
                                                                            args.minutes))
    answers, seconds, reloads, failures, rss = serve_and_load(args, collection, pool, record)
    mismatched, stale, unknown, examples = check(record, answers)
    reconnected = sum(1 for a in answers if "reconnected" in a)
    answers = [a for a in answers if "reconnected" not in a]
    ok = [a for a in answers if "error" not in a]
    errors = [a["error"] for a in answers if "error" in a]
    latencies = [a["seconds"] for a in ok]
    commands = {}
    for c in record.commands[1:]:
        commands.setdefault(c["command"], []).append(c["seconds"])
    result = {
        "clients": args.clients, "seconds": seconds, "answers": len(ok),
        "answers_per_second": len(ok) / seconds, "errors": len(errors),
        "error_examples": errors[:5], "reconnected": reconnected,
        "mismatched": mismatched, "stale": stale,
        "unknown_generation": unknown, "mismatch_examples": examples,
        "p50_ms": 1e3 * percentile(latencies, 0.5), "p99_ms": 1e3 * percentile(latencies, 0.99),
        "max_ms": 1e3 * max(latencies, default=0.0),
        "generations": max(record.generations), "reloads": reloads,
        "reload_failures": failures, "server_peak_rss_mib": rss[0] / 1024,
        "server_peak_anon_mib": rss[1] / 1024,
        "commands": {k: {"count": len(v), "median_s": sorted(v)[len(v) // 2]}
                     for k, v in commands.items()},
        "documents_at_end": record.commands[-1]["documents"],
    }
    write_json(os.path.join(results_dir, "live.json"), result)
    print("| clients | minutes | answers/s | p50 ms | p99 ms | errors | mismatched | stale "
          "| commits | reloads | server peak RSS (anonymous) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("| %d | %.1f | %.1f | %.0f | %.0f | %d | %d | %d | %d | %d | %.0f MiB (%.0f MiB) |" % (
        args.clients, seconds / 60, result["answers_per_second"], result["p50_ms"],
        result["p99_ms"], len(errors), mismatched, stale, len(record.commands) - 1, reloads,
        result["server_peak_rss_mib"], result["server_peak_anon_mib"]))
    print()
    print("Keep-alive connections the server had closed after its idle timeout, asked again on a "
          "new connection: %d" % reconnected)
    print()
    print("| command | count | median s |")
    print("|---|---|---|")
    for k, v in result["commands"].items():
        print("| %s | %d | %.2f |" % (k, v["count"], v["median_s"]))
    if not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)
    if errors or mismatched or stale or unknown:
        raise SystemExit("FAILED: %d errors, %d mismatched, %d stale, %d unknown generation"
                         % (len(errors), mismatched, stale, unknown))


if __name__ == "__main__":
    main()
