#!/usr/bin/env python3
"""Per-query cold and warm timings of bitsift's engines (and COBS) on one index.

For every query record and every engine: drop the page cache (cold), run one `bitsift query`
of that record alone with `--format json`, record wall time and the query's own stats; then run
it again without dropping (warm). COBS (PyPI cobs-reloaded, via tests/peer/cobs_peer.py) is
timed the same way on the same file. Needs root for /proc/sys/vm/drop_caches.

Usage: bench/cold_queries.py INDEX QUERIES.fa [--engines uring,pread,mmap,ram] [--cobs]
       [--limit N] [--csv OUT.csv]
"""
import argparse, csv, json, os, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BITSIFT = os.environ.get("BITSIFT", os.path.join(ROOT, "target/release/bitsift"))
PEER = os.path.join(ROOT, "tests/peer/cobs_peer.py")


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def records(path):
    name, seq = None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(seq)
                name, seq = line[1:].split()[0], []
            elif line:
                seq.append(line.strip())
    if name is not None:
        yield name, "".join(seq)


def run_bitsift(index, fasta, engine, threshold):
    start = time.perf_counter()
    out = subprocess.run([BITSIFT, "query", "-i", index, "-f", fasta, "-t", str(threshold),
                          "--engine", engine, "--format", "json"], capture_output=True, check=True)
    wall = time.perf_counter() - start
    stats = json.loads(out.stdout)["queries"][0]["stats"]
    return wall, stats


def run_cobs(index, fasta, threshold):
    start = time.perf_counter()
    subprocess.run([sys.executable, PEER, "query", "-i", index, "-f", fasta, "-t", str(threshold)],
                   capture_output=True, check=True)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index")
    ap.add_argument("queries")
    ap.add_argument("--engines", default="uring,pread,mmap,ram")
    ap.add_argument("--cobs", action="store_true")
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--csv")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, seq) in enumerate(records(args.queries)):
            if n >= args.limit:
                break
            fasta = os.path.join(tmp, "q.fa")
            with open(fasta, "w") as f:
                f.write(f">{name}\n{seq}\n")
            for engine in args.engines.split(","):
                for state in ("cold", "warm"):
                    if state == "cold":
                        drop_caches()
                    wall, s = run_bitsift(args.index, fasta, engine, args.threshold)
                    rows.append(dict(query=name, tool="bitsift", engine=engine, state=state,
                                     wall_ms=wall * 1e3, query_ms=s["total_ms"], io_wait_ms=s["io_wait_ms"],
                                     kmers=s["kmers"], read_requests=s["read_requests"], bytes_read=s["bytes_read"],
                                     major_faults=s["major_faults"], minor_faults=s["minor_faults"],
                                     device_read_bytes=s["device_read_bytes"]))
            if args.cobs:
                for state in ("cold", "warm"):
                    if state == "cold":
                        drop_caches()
                    wall = run_cobs(args.index, fasta, args.threshold)
                    rows.append(dict(query=name, tool="cobs", engine="mmap", state=state, wall_ms=wall * 1e3))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=sorted({k for r in rows for k in r}))
            w.writeheader()
            w.writerows(rows)
    groups = {}
    for r in rows:
        groups.setdefault((r["tool"], r["engine"], r["state"]), []).append(r)
    print("| tool | engine | cache | queries | wall ms median (min-max) | query ms median | reads | bytes read | major faults | device bytes |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|---:|")
    for (tool, engine, state), rs in sorted(groups.items()):
        med = lambda key: statistics.median(r[key] for r in rs) if key in rs[0] else float("nan")
        walls = [r["wall_ms"] for r in rs]
        print(f"| {tool} | {engine} | {state} | {len(rs)} | {statistics.median(walls):.1f} ({min(walls):.1f}-{max(walls):.1f}) | "
              f"{med('query_ms'):.2f} | {med('read_requests'):.0f} | {med('bytes_read'):.0f} | {med('major_faults'):.0f} | {med('device_read_bytes'):.0f} |")


if __name__ == "__main__":
    main()
