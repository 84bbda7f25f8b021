"""Per-gene query sweeps, cold and warm, with every bitsift engine and with COBS on the same
file.

- bitsift: one process per query (`bitsift query ... --format json`), in the memory cgroup;
  the query's own `stats.total_ms` (in-process) and the process's wall time are recorded, with
  bytes read, read requests, distinct 4 KiB pages, faults and device bytes from its stats.
- COBS: bench/cobs_worker.py, a persistent process (in the same cgroup) that opened
  `cobs_index.Search` once; `search()` is timed in-process. Before a cold query the worker
  re-opens the index (unmapping it: the kernel never drops pages a process still maps), then
  the cache is dropped. `cobs/oneshot` starts a fresh worker per query: its wall time includes
  interpreter start-up, import and index open, like bitsift's process wall time.
- cold = page cache dropped right before the query; warm = the same query again right after.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from . import device as device_mod
from .util import BenchError, group_by, human, log, resident_bytes, run, rusage_dict, summary, ratio

ENGINES = ("uring", "pread", "mmap", "ram")


# --------------------------------------------------------------------------------------------
# the two tools


def bitsift_query(ctx, index_path, fasta, *, engine=None, threshold=0.8, extra=(), cgroup=None,
                  what="bitsift query"):
    """One `bitsift query` process; returns (Completed, parsed JSON)."""
    cmd = [ctx.bitsift, "query", "-i", index_path, "-f", fasta, "-t", "%g" % threshold,
           "--format", "json"]
    if engine:
        cmd += ["--engine", engine]
    cmd += list(extra)
    out = os.path.join(ctx.tmp, "query-out.json")
    done = run(cmd, cgroup=cgroup, stdout_path=out, what=what, timeout=ctx.args.timeout)
    with open(out) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise BenchError("%s: output is not JSON: %s" % (what, e))
    with_batch_stats(doc)
    return done, doc


def with_batch_stats(doc):
    """Gives each query's stats the fields of its batch that it lacks (reads_pruned,
    device_read_bytes, faults, io_wait_ms...: reported once per batch since issue 10)."""
    batches = {b.get("batch"): b for b in doc.get("batches", [])}
    for query in doc.get("queries", []):
        stats = query.get("stats")
        if stats is not None:
            for key, value in batches.get(stats.get("batch"), {}).items():
                stats.setdefault(key, value)


class CobsWorker:
    """bench/cobs_worker.py on one index, optionally inside a memory cgroup."""

    def __init__(self, ctx, index_path, cgroup=None):
        self.index_path = index_path
        self.err = tempfile.TemporaryFile()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ctx.root, "bench/cobs_worker.py"), index_path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True, bufsize=1,
            preexec_fn=cgroup.attach if cgroup is not None else None)
        self.ready = self._reply()
        self.ready_ms = (time.perf_counter() - self.started) * 1e3
        self.rusage = None

    def _reply(self):
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.err.seek(0)
            tail = self.err.read().decode("utf-8", "replace").strip().splitlines()[-5:]
            raise BenchError("COBS worker on %s died (status %s): %s" % (
                self.index_path, self.proc.returncode, " | ".join(tail)))
        reply = json.loads(line)
        if not reply.get("ok"):
            raise BenchError("COBS worker on %s: %s" % (self.index_path, reply.get("error")))
        return reply

    def request(self, obj):
        started = time.perf_counter()
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()
        reply = self._reply()
        reply["roundtrip_ms"] = (time.perf_counter() - started) * 1e3
        return reply

    def search(self, seq, threshold):
        return self.request({"op": "search", "seq": seq, "threshold": threshold})

    def reopen(self):
        return self.request({"op": "reopen"})

    def close(self):
        if self.proc.poll() is None:
            try:
                self.request({"op": "quit"})
            except (BenchError, BrokenPipeError):
                pass
            self.proc.stdin.close()
            while True:
                try:
                    _, status, ru = os.wait4(self.proc.pid, 0)
                    break
                except InterruptedError:
                    continue
            self.proc.returncode = os.waitstatus_to_exitcode(status)
            self.rusage = rusage_dict(ru)
        self.proc.stdout.close()
        self.err.close()


# --------------------------------------------------------------------------------------------
# helpers


def gene_files(ctx, records):
    """One FASTA file per gene (bitsift reads queries from a file)."""
    gdir = os.path.join(ctx.tmp, "genes")
    os.makedirs(gdir, exist_ok=True)
    paths = []
    for i, (name, seq) in enumerate(records):
        p = os.path.join(gdir, "g%04d.fa" % i)
        with open(p, "w") as f:
            f.write(">%s\n%s\n" % (name, seq))
        paths.append(p)
    return paths


def stats_row(stats):
    keys = ("kmers", "bytes_read", "read_requests", "unique_pages_4k", "unique_rows", "major_faults",
            "minor_faults", "device_read_bytes", "reads_pruned", "blocks_pruned", "cache_hits",
            "cache_misses", "io_wait_ms", "total_ms", "batch_queries")
    return {k: stats.get(k) for k in keys}


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def ram_plan(ctx, index):
    """(allowed, cgroup limit, gene cap, note) for the ram engine on this index."""
    size = index["size_bytes"]
    cap = min(ctx.args.ram_max, int(0.6 * mem_available()))
    if size > cap:
        return False, None, 0, "ram engine skipped on %s: the index (%s) exceeds min(--ram-max, 60 %% " \
                               "of available memory) = %s" % (index["name"], human(size), human(cap))
    limit = ((size + ctx.args.cgroup_limit) >> 20 << 20) + (256 << 20)
    genes = ctx.args.genes if size <= (1 << 30) else ctx.args.ram_genes
    return True, limit, genes, None


def tools_for(ctx, index):
    """The tools measured on an index: [(tool, engine, cgroup, gene cap)]."""
    tools = []
    base = ctx.cgroups.group(ctx.args.cgroup_limit)
    for engine in ctx.args.engines.split(","):
        if engine == "ram":
            ok, limit, cap, note = ram_plan(ctx, index)
            if not ok:
                ctx.note_once(note)
                continue
            if cap < ctx.args.genes:
                ctx.note_once("ram engine on %s: %d genes only (each cold query reads the whole %s index)"
                              % (index["name"], cap, human(index["size_bytes"])))
            tools.append(("bitsift", "ram", ctx.cgroups.group(limit), cap))
        else:
            tools.append(("bitsift", engine, base, ctx.args.genes))
    if ctx.have_cobs:
        tools.append(("cobs", "worker", base, ctx.args.genes))
        tools.append(("cobs", "oneshot", base, ctx.args.genes))
    return tools


# --------------------------------------------------------------------------------------------
# the sweep


def measure_bitsift(ctx, index, gene_path, engine, cgroup, threshold):
    done, doc = bitsift_query(ctx, index["path"], gene_path, engine=engine, threshold=threshold,
                              cgroup=cgroup, what="bitsift query --engine %s on %s" % (engine, index["name"]))
    q = doc["queries"][0]
    row = stats_row(q["stats"])
    row.update({"ms": q["stats"]["total_ms"], "wall_ms": done.wall_s * 1e3, "hits": len(q["hits"]),
                "engine_used": q["stats"]["engine"], "max_rss_bytes": done.rusage["max_rss_bytes"],
                "process_read_bytes": done.rusage["fs_in_blocks"] * 512,
                "process_major_faults": done.rusage["major_faults"]})
    return row


def measure_cobs(reply, wall_ms):
    return {"ms": reply["search_ms"], "wall_ms": wall_ms, "hits": reply["hits"],
            "major_faults": reply["major_faults"], "minor_faults": reply["minor_faults"],
            "device_read_bytes": reply["device_read_bytes"], "bytes_read": reply["device_read_bytes"],
            "process_read_bytes": reply["device_read_bytes"], "process_major_faults": reply["major_faults"]}


def oneshot(ctx, index, seq, threshold, cgroup):
    started = time.perf_counter()
    w = CobsWorker(ctx, index["path"], cgroup)
    try:
        reply = w.search(seq, threshold)
        wall_ms = (time.perf_counter() - started) * 1e3
    finally:
        w.close()
    row = measure_cobs(reply, wall_ms)
    row["startup_ms"] = w.ready["startup_ms"]
    if w.rusage:
        row["process_read_bytes"] = w.rusage["fs_in_blocks"] * 512
        row["process_major_faults"] = w.rusage["major_faults"]
        row["max_rss_bytes"] = w.rusage["max_rss_bytes"]
    return row


def sweep(ctx, indexes, sets, device, threshold=0.8):
    records = sets["records"]["cold"]
    paths = gene_files(ctx, records)
    rows = []
    for index in indexes:
        tools = tools_for(ctx, index)
        log("query: %s (%s): %d genes × %s, cold and warm" % (
            index["name"], human(index["size_bytes"]), len(records),
            ", ".join("%s/%s" % (t, e) for t, e, _, _ in tools)))
        base = ctx.cgroups.group(ctx.args.cgroup_limit)
        worker = CobsWorker(ctx, index["path"], base) if ctx.have_cobs else None
        try:
            # warm-up: one discarded query per tool
            for tool, engine, cg, _ in tools:
                if tool == "bitsift":
                    measure_bitsift(ctx, index, paths[0], engine, cg, threshold)
                elif engine == "worker":
                    worker.search(records[0][1], threshold)
                else:
                    oneshot(ctx, index, records[0][1], threshold, cg)
            started = time.monotonic()
            for gi, ((gname, seq), gpath) in enumerate(zip(records, paths)):
                pages, first = None, len(rows)
                # Rotate which tool goes first: on a VM, dropping the guest's page cache leaves
                # the host's, so only the first tool to read a gene's rows pays the disk. The
                # rotation spreads that cost evenly; `first_touch` marks the run that paid it.
                order = [t for t in tools if gi < t[3]]
                order = order[gi % len(order):] + order[:gi % len(order)] if order else order
                for ti, (tool, engine, cg, cap) in enumerate(order):
                    for state in ("cold", "warm"):
                        if state == "cold":
                            if worker:  # unmap: the kernel keeps pages a live process maps
                                worker.reopen()
                            ctx.cache.drop([index["path"]])
                            resident = resident_bytes(index["path"])
                            if resident > index["info"].get("data_offset", 0) + (1 << 20):
                                ctx.note_once("%s: a cold run started with %s of the index resident "
                                              "(more than its header): cold may be partly warm"
                                              % (index["name"], human(resident)))
                        if tool == "bitsift":
                            r = measure_bitsift(ctx, index, gpath, engine, cg, threshold)
                            pages = pages if pages is not None else r["unique_pages_4k"]
                        elif engine == "worker":
                            reply = worker.search(seq, threshold)
                            r = measure_cobs(reply, reply["roundtrip_ms"])
                        else:
                            r = oneshot(ctx, index, seq, threshold, cg)
                        r.update({"index": index["name"], "index_bytes": index["size_bytes"],
                                  "tool": tool, "engine": engine, "state": state, "gene": gname,
                                  "gene_bases": len(seq), "threshold": threshold,
                                  "first_touch": state == "cold" and ti == 0})
                        if state == "cold":
                            r["resident_before_bytes"] = resident
                        rows.append(r)
                for r in rows[first:]:
                    r["unique_pages_4k"] = r.get("unique_pages_4k") or pages
                    r["fio_limit_ms"] = device_mod.fio_limit_ms(device, r["unique_pages_4k"])
                if gi == 0 or (gi + 1) % 10 == 0 or gi + 1 == len(records):
                    log("query: %s: %d/%d genes (%.0f s)" % (index["name"], gi + 1, len(records),
                                                            time.monotonic() - started))
        finally:
            if worker:
                worker.close()
        check_hits(ctx, rows, index["name"])
    return rows


def check_hits(ctx, rows, index_name):
    """bitsift engines and COBS must report the same number of hits for a gene."""
    by_gene = {}
    for r in rows:
        if r["index"] == index_name:
            by_gene.setdefault(r["gene"], set()).add((r["tool"], r["hits"]))
    bad = [g for g, s in by_gene.items() if len({h for _, h in s}) > 1]
    if bad:
        text = "hit counts differ between tools on %s for %d gene(s), e.g. %s: %s" % (
            index_name, len(bad), bad[0], sorted(by_gene[bad[0]]))
        if ctx.quick:
            raise BenchError(text)
        ctx.notes.append(text)
        log("query: WARNING " + text)


# --------------------------------------------------------------------------------------------
# summary


def summarize(rows):
    """Per index, tool/engine and state: medians with min/max, and paired ratios to COBS and
    to the fio limit (median over genes of the per-gene ratio)."""
    groups = group_by(rows, "index", "tool", "engine", "state")
    cobs = {(r["index"], r["state"], r["gene"]): r for r in rows if r["engine"] == "worker"}
    cobs1 = {(r["index"], r["state"], r["gene"]): r for r in rows if r["engine"] == "oneshot"}
    out = []
    for (index, tool, engine, state), rs in groups.items():
        ms = summary([r["ms"] for r in rs])
        wall = summary([r["wall_ms"] for r in rs])
        x_cobs = summary([ratio(r["ms"], cobs.get((index, state, r["gene"]), {}).get("ms")) for r in rs])
        x_cobs_wall = summary([ratio(r["wall_ms"], cobs1.get((index, state, r["gene"]), {}).get("wall_ms"))
                               for r in rs])
        x_fio = summary([ratio(r["ms"], r.get("fio_limit_ms")) for r in rs])
        med = lambda k: summary([r.get(k) for r in rs])["median"]  # noqa: E731
        out.append({"index": index, "index_bytes": rs[0]["index_bytes"], "tool": tool, "engine": engine,
                    "state": state, "genes": len(rs), "ms_median": ms["median"], "ms_min": ms["min"],
                    "ms_max": ms["max"], "wall_ms_median": wall["median"], "wall_ms_min": wall["min"],
                    "wall_ms_max": wall["max"], "bytes_read": med("bytes_read"),
                    "read_requests": med("read_requests"), "unique_pages_4k": med("unique_pages_4k"),
                    "major_faults": med("major_faults"), "minor_faults": med("minor_faults"),
                    "device_read_bytes": med("device_read_bytes"), "fio_limit_ms": med("fio_limit_ms"),
                    "process_read_bytes": med("process_read_bytes"),
                    "process_major_faults": med("process_major_faults"),
                    "resident_before_max": max([r.get("resident_before_bytes") or 0 for r in rs]),
                    "x_cobs": x_cobs["median"], "x_cobs_wall": x_cobs_wall["median"],
                    "x_fio_limit": x_fio["median"]})
    order = {"uring": 0, "pread": 1, "mmap": 2, "ram": 3, "worker": 4, "oneshot": 5}
    out.sort(key=lambda s: (s["index"], s["state"] != "cold", order.get(s["engine"], 9)))
    return out
