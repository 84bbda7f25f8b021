#!/usr/bin/env python3
"""cobs_worker: a persistent COBS searcher for the benchmark suite (bench/run.py).

    cobs_worker.py INDEX

Opens `cobs_index.Search(INDEX)` (PyPI cobs-reloaded; it memory-maps the index, as the
`cobs query` command does) and answers requests, one JSON object per line on stdin, with one
JSON object per line on stdout:

    {"op": "search", "seq": "ACGT...", "threshold": 0.8}
        -> {"ok": true, "search_ms": 12.3, "hits": 4, "best": 970,
            "major_faults": 211, "minor_faults": 35, "device_read_bytes": 864256}
    {"op": "reopen"}   drop the Search object (unmapping the index) and open it again, so that
                       a following drop_caches can evict every page of the index: the kernel
                       never drops pages that a process still maps
        -> {"ok": true, "open_ms": 3.1}
    {"op": "quit"}     -> exits 0

The first line written is {"ok": true, "ready": true, "open_ms": ..., "import_ms": ...,
"startup_ms": ...} once the index is open. `search_ms` is `Search.search()` alone, timed with
perf_counter; faults come from getrusage(RUSAGE_SELF) and device bytes from /proc/self/io
(`read_bytes`), as deltas around the call, so interpreter start-up never enters a
measurement. Any failure: {"ok": false, "error": "..."} and exit status 1. COBS writes its
log to the C-level stdout, so fd 1 is moved to stderr and the replies go to a private copy
of the original stdout.
"""

import json
import os
import resource
import sys
import time

STARTED = time.perf_counter()


def io_read_bytes():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("read_bytes:"):
                return int(line.split()[1])
    return 0


def main(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: cobs_worker.py INDEX\n")
        return 2
    path = argv[0]
    # Replies go to a private copy of stdout; COBS's C-level prints go to stderr.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    out = os.fdopen(reply_fd, "w", buffering=1)

    def reply(obj):
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        out.flush()

    try:
        t0 = time.perf_counter()
        import cobs_index
        import_ms = (time.perf_counter() - t0) * 1e3
        if not os.path.isfile(path):
            raise OSError("index %r not found" % path)
        t0 = time.perf_counter()
        search = cobs_index.Search(path)
        open_ms = (time.perf_counter() - t0) * 1e3
    except Exception as e:  # noqa: BLE001 - one line to the driver
        reply({"ok": False, "error": "%s: %s" % (type(e).__name__, e)})
        return 1
    reply({"ok": True, "ready": True, "import_ms": import_ms, "open_ms": open_ms,
           "startup_ms": (time.perf_counter() - STARTED) * 1e3, "pid": os.getpid()})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "quit":
                reply({"ok": True})
                return 0
            if op == "reopen":
                del search
                t0 = time.perf_counter()
                search = cobs_index.Search(path)
                reply({"ok": True, "open_ms": (time.perf_counter() - t0) * 1e3})
                continue
            if op != "search":
                raise ValueError("unknown op %r" % op)
            seq = req["seq"]
            threshold = float(req.get("threshold", 0.8))
            ru0 = resource.getrusage(resource.RUSAGE_SELF)
            io0 = io_read_bytes()
            t0 = time.perf_counter()
            results = search.search(seq, threshold)
            elapsed = time.perf_counter() - t0
            io1 = io_read_bytes()
            ru1 = resource.getrusage(resource.RUSAGE_SELF)
            reply({"ok": True, "search_ms": elapsed * 1e3, "hits": len(results),
                   "best": max((r.score for r in results), default=0),
                   "major_faults": ru1.ru_majflt - ru0.ru_majflt,
                   "minor_faults": ru1.ru_minflt - ru0.ru_minflt,
                   "device_read_bytes": io1 - io0})
        except Exception as e:  # noqa: BLE001
            reply({"ok": False, "error": "%s: %s" % (type(e).__name__, e)})
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
