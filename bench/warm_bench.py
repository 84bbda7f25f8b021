#!/usr/bin/env python3
"""Issue 10: warm queries in one process, bitsift against COBS, side by side in one run.

For every index given (e.g. one built by COBS and one built by bitsift from the same
genomes), the index is read into the page cache, then:

- COBS: `cobs_index.Search` in one process (bench/cobs_worker.py); the genes are searched
  twice and the second pass is timed (sum of `Search.search()` times);
- bitsift: one `bitsift query --batch 1` process over a file holding the genes twice; the
  second pass is timed (sum of the queries' `stats.total_ms`), for each engine setting
  (default, --cache-size, --engine ram, --engine mmap, and O_DIRECT reads for reference),
  and with a baseline binary when given;
- a second process: the page cache is dropped, the default `bitsift query` runs twice over
  the genes; both wall times are reported (the second should be faster: the first left the
  index in the page cache).

    python3 bench/warm_bench.py --bitsift target/release/bitsift --baseline OLD_BINARY \\
        --python .venv/bin/python --genes genes.fa --count 20 \\
        --index cobs=sim.cobs.cobs_compact --index bitsift=sim.bitsift.cobs_compact

Prints a Markdown table (times in ms, summed over the genes of the second pass) and the
ratios to COBS. Needs root for the second-process measurement (drop_caches).

`--cold-side` drops the index's side files (`INDEX.bitsift-*`: checksums, summaries, catalog)
from the page cache after the index is read into it, before every bitsift run: the state of
issue 35 (side files are read a page at a time, so rarely cached whole). `--settings` keeps
only the named settings (e.g. `default,baseline default`).
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def read_fasta(path, count):
    records, name, seq = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(seq)))
                name, seq = line[1:].split()[0], []
            elif line:
                seq.append(line)
    if name is not None:
        records.append((name, "".join(seq)))
    return records[:count]


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def drop_side_files(index):
    """Drops the side files of `index` (INDEX.bitsift-*) from the page cache."""
    directory, name = os.path.split(os.path.abspath(index))
    for entry in os.listdir(directory):
        if entry.startswith(name + ".bitsift-"):
            fd = os.open(os.path.join(directory, entry), os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def cobs_warm_ms(python, index, genes, threshold):
    worker = subprocess.Popen([python, str(HERE / "cobs_worker.py"), index],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert json.loads(worker.stdout.readline())["ok"]
    passes = []
    for _ in range(2):
        total, hits = 0.0, 0
        for _, seq in genes:
            worker.stdin.write(json.dumps({"op": "search", "seq": seq, "threshold": threshold}) + "\n")
            worker.stdin.flush()
            reply = json.loads(worker.stdout.readline())
            if not reply["ok"]:
                sys.exit(f"COBS failed: {reply}")
            total += reply["search_ms"]
            hits += reply["hits"]
        passes.append((total, hits))
    worker.stdin.write('{"op": "quit"}\n')
    worker.stdin.flush()
    worker.wait()
    return passes[1]


def bitsift_warm_ms(binary, index, twice, genes, threshold, extra):
    command = [binary, "query", "-q", "-i", index, "-f", twice, "-t", str(threshold),
               "--batch", "1", "--format", "json"] + extra
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)}: {done.stderr}")
    queries = json.loads(done.stdout)["queries"][len(genes):]
    total = sum(q["stats"]["total_ms"] for q in queries)
    hits = sum(len(q["hits"]) for q in queries)
    engine = queries[0]["stats"].get("engine", "?") if queries else "?"
    # Where the second pass's rows came from (reads, resident, image): a row cache that
    # holds the index becomes an image loaded in the background, maybe not yet by then.
    sources = sorted({q["stats"].get("source", "?") for q in queries})
    return total, hits, f"{engine}/{'+'.join(sources)}", " ".join(command)


def second_process(binary, index, once, threshold):
    drop_caches()
    walls = []
    for _ in range(2):
        started = time.monotonic()
        subprocess.run([binary, "query", "-q", "-i", index, "-f", once, "-t", str(threshold)],
                       check=True, capture_output=True)
        walls.append((time.monotonic() - started) * 1000)
    return walls


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bitsift", default="target/release/bitsift")
    parser.add_argument("--baseline", help="an older bitsift binary to compare with")
    parser.add_argument("--python", default=".venv/bin/python", help="has cobs_index")
    parser.add_argument("--genes", required=True)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--cache-size", default="4G")
    parser.add_argument("--index", action="append", required=True, type=lambda s: s.split("=", 1))
    parser.add_argument("--out", help="write results.json here")
    parser.add_argument("--cold-side", action="store_true",
                        help="drop the index's side files from the page cache before each bitsift run")
    parser.add_argument("--settings", help="comma-separated labels of the settings to run (default: all)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per setting (COBS included), in turn; the median is reported")
    args = parser.parse_args()
    genes = read_fasta(args.genes, args.count)
    work = tempfile.mkdtemp(prefix="warm-bench-")
    once, twice = os.path.join(work, "once.fa"), os.path.join(work, "twice.fa")
    with open(once, "w") as f:
        f.writelines(f">{n}\n{s}\n" for n, s in genes)
    with open(twice, "w") as f:
        f.writelines(f">{n}\n{s}\n" for n, s in genes + genes)
    settings = [("default", args.bitsift, []),
                (f"--cache-size {args.cache_size}", args.bitsift,
                 ["--engine", "uring", "--direct-io", "required", "--cache-size", args.cache_size]),
                ("--engine ram", args.bitsift, ["--engine", "ram"]),
                ("--engine mmap", args.bitsift, ["--engine", "mmap"]),
                ("O_DIRECT uring", args.bitsift, ["--engine", "uring", "--direct-io", "required"])]
    if args.baseline:
        settings.append(("baseline default", args.baseline, []))
    if args.settings:
        keep = args.settings.split(",")
        settings = [s for s in settings if s[0] in keep]
    results = []
    for name, index in args.index:
        runs = {"COBS": []}
        runs.update({label: [] for label, _, _ in settings})
        # Every setting once per round, rounds in turn, so that the machine's drift over the
        # run falls on all of them alike.
        for _ in range(max(1, args.repeat)):
            warm(index)
            runs["COBS"].append(cobs_warm_ms(args.python, index, genes, args.threshold))
            for label, binary, extra in settings:
                warm(index)
                if args.cold_side:
                    drop_side_files(index)
                runs[label].append(bitsift_warm_ms(binary, index, twice, genes,
                                                   args.threshold, extra))
        cobs_ms = statistics.median(ms for ms, _ in runs["COBS"])
        cobs_hits = runs["COBS"][0][1]
        row = {"index": name, "path": index, "genes": len(genes), "cobs_ms": cobs_ms,
               "cobs_runs_ms": [ms for ms, _ in runs["COBS"]], "cobs_hits": cobs_hits,
               "bitsift": {}}
        for label, _, _ in settings:
            ms = statistics.median(r[0] for r in runs[label])
            _, hits, engine, command = runs[label][-1]
            engines = sorted({r[2] for r in runs[label]})
            row["bitsift"][label] = {"ms": ms, "runs_ms": [r[0] for r in runs[label]],
                                     "hits": hits, "engine": "; ".join(engines),
                                     "command": command}
            print(f"{name} {label}: {ms:.1f} ms (median of "
                  f"{', '.join(f'{r[0]:.1f}' for r in runs[label])}; {'; '.join(engines)}), "
                  f"{hits} hits; COBS {cobs_ms:.1f} ms, {cobs_hits} hits", file=sys.stderr)
        if os.geteuid() == 0 and not args.settings:
            row["second_process_ms"] = second_process(args.bitsift, index, once, args.threshold)
        results.append(row)
    labels = [s[0] for s in settings]
    print("| index | COBS warm | " + " | ".join(f"bitsift {l}" for l in labels) + " |")
    print("|---|---:|" + "---:|" * len(labels))
    for r in results:
        cells = [f"{r['bitsift'][l]['ms']:.1f} ({r['cobs_ms'] / r['bitsift'][l]['ms']:.1f}×)"
                 for l in labels]
        print(f"| {r['index']} | {r['cobs_ms']:.1f} | " + " | ".join(cells) + " |")
    print()
    for r in results:
        if "second_process_ms" in r:
            first, second = r["second_process_ms"]
            print(f"- {r['index']}: first process after drop_caches {first:.0f} ms, "
                  f"second process {second:.0f} ms (wall)")
    if args.out:
        pathlib.Path(args.out).mkdir(parents=True, exist_ok=True)
        (pathlib.Path(args.out) / "warm.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
