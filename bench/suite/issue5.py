"""Issue 5 measurements: pruning and read merging, batches, the page cache, warm-up.

- prune: every cold gene query with and without `--no-prune`, `--merge-gap 0` vs the default,
  at each threshold; bytes read, read requests, latency.
- batch: the batch gene set as one batch (`--batch 0`), one query at a time in one process
  (`--batch 1`), and COBS (a fresh worker, the genes sequentially); cold at the start.
- cache: the cold gene set twice in one process (`--batch 1`) with `--cache-size` = a
  fraction of the index; the second pass's latency and cache hit ratio.
- warmup: one process with a cache at least the size of the index runs the gene stream
  (`--batch 1`) from a cold start, with and without `--warm`, then the stream again (the warm
  reference); from the per-query total_ms timeline, the time until the rolling median is
  within a factor of the warm median.
"""

import os
import statistics
import time

from . import device as device_mod
from .query import CobsWorker, bitsift_query, mem_available
from .util import group_by, human, log, ratio, summary, write_fasta


def _gene_files(ctx, name, records, passes=1):
    path = os.path.join(ctx.tmp, name + ".fa")
    recs = []
    for p in range(passes):
        recs += [("%s#%d" % (n, p + 1), s) if passes > 1 else (n, s) for n, s in records]
    write_fasta(path, recs)
    return path


# --------------------------------------------------------------------------------------------
# pruning and merging


def prune(ctx, indexes, sets, device):
    records = sets["records"]["cold"][:ctx.args.prune_genes]
    gdir = os.path.join(ctx.tmp, "prune-genes")
    os.makedirs(gdir, exist_ok=True)
    paths = []
    for i, (n, s) in enumerate(records):
        paths.append(os.path.join(gdir, "g%04d.fa" % i))
        write_fasta(paths[-1], [(n, s)])
    thresholds = [float(t) for t in ctx.args.thresholds.split(",")]
    configs = [(t, p, g) for t in thresholds for p in (True, False) for g in ("default", "0")]
    cg = ctx.cgroups.group(ctx.args.cgroup_limit)
    rows = []
    for index in indexes:
        log("prune: %s: %d genes × %d configurations (threshold × prune × merge gap), cold"
            % (index["name"], len(records), len(configs)))
        started = time.monotonic()
        bitsift_query(ctx, index["path"], paths[0], engine=ctx.engine, cgroup=cg)  # warm-up
        for gi, ((gname, seq), gpath) in enumerate(zip(records, paths)):
            for t, pr, gap in configs:
                extra = ([] if pr else ["--no-prune"]) + ([] if gap == "default" else ["--merge-gap", gap])
                ctx.cache.drop([index["path"]])
                done, doc = bitsift_query(ctx, index["path"], gpath, engine=ctx.engine, threshold=t,
                                          extra=extra, cgroup=cg)
                st = doc["queries"][0]["stats"]
                rows.append({"index": index["name"], "threshold": t, "prune": pr, "merge_gap": gap,
                             "gene": gname, "ms": st["total_ms"], "wall_ms": done.wall_s * 1e3,
                             "bytes_read": st["bytes_read"], "read_requests": st["read_requests"],
                             "reads_pruned": st["reads_pruned"], "blocks_pruned": st["blocks_pruned"],
                             "unique_pages_4k": st["unique_pages_4k"],
                             "device_read_bytes": st["device_read_bytes"],
                             "hits": len(doc["queries"][0]["hits"]),
                             "fio_limit_ms": device_mod.fio_limit_ms(device, st["unique_pages_4k"])})
            if (gi + 1) % 10 == 0 or gi + 1 == len(records):
                log("prune: %s: %d/%d genes (%.0f s)" % (index["name"], gi + 1, len(records),
                                                        time.monotonic() - started))
    return rows


def prune_summary(rows):
    groups = group_by(rows, "index", "threshold", "prune", "merge_gap")
    base = {(r["index"], r["threshold"], r["gene"]): r for r in rows if r["prune"] is False and r["merge_gap"] == "default"}
    out = []
    for (index, t, pr, gap), rs in groups.items():
        ms = summary([r["ms"] for r in rs])
        med = lambda k: summary([r[k] for r in rs])["median"]  # noqa: E731
        out.append({"index": index, "threshold": t, "prune": pr, "merge_gap": gap, "genes": len(rs),
                    "ms_median": ms["median"], "ms_min": ms["min"], "ms_max": ms["max"],
                    "wall_ms_median": med("wall_ms"), "bytes_read": med("bytes_read"),
                    "read_requests": med("read_requests"), "reads_pruned": med("reads_pruned"),
                    "blocks_pruned": med("blocks_pruned"), "unique_pages_4k": med("unique_pages_4k"),
                    "x_bytes_vs_no_prune": summary([ratio(r["bytes_read"], base.get((index, t, r["gene"]), {}).get("bytes_read"))
                                                    for r in rs])["median"],
                    "x_ms_vs_no_prune": summary([ratio(r["ms"], base.get((index, t, r["gene"]), {}).get("ms"))
                                                 for r in rs])["median"],
                    "x_fio_limit": summary([ratio(r["ms"], r["fio_limit_ms"]) for r in rs])["median"]})
    out.sort(key=lambda s: (s["index"], -s["threshold"], not s["prune"], s["merge_gap"] != "default"))
    return out


# --------------------------------------------------------------------------------------------
# batches


def batch(ctx, indexes, sets):
    records = sets["records"]["batch"]
    path = _gene_files(ctx, "batch", records)
    warm_path = _gene_files(ctx, "batch-warmup", records[:5])
    cg = ctx.cgroups.group(ctx.args.cgroup_limit)
    rows = []
    modes = ["batch0", "batch1"] + (["cobs"] if ctx.have_cobs else [])
    for index in indexes:
        log("batch: %s: %d genes, %s, %d runs each, cold at the start" % (
            index["name"], len(records), ", ".join(modes), ctx.args.reps))
        for mode in modes:  # warm-up: a few genes per mode
            run_batch(ctx, index, mode, warm_path, records[:5], cg)
        for rep in range(ctx.args.reps):
            for mode in modes:
                ctx.cache.drop([index["path"]])
                r = run_batch(ctx, index, mode, path, records, cg)
                r.update({"index": index["name"], "mode": mode, "rep": rep + 1, "genes": len(records)})
                rows.append(r)
                log("batch: %s %s run %d: %.1f s wall, %.1f s in-process, %s read" % (
                    index["name"], mode, rep + 1, r["wall_s"], r["in_process_s"], human(r["bytes_read"] or 0)))
    return rows


def run_batch(ctx, index, mode, path, records, cg):
    if mode == "cobs":
        started = time.perf_counter()
        w = CobsWorker(ctx, index["path"], cg)
        search_ms, dev, majflt, hits = [], 0, 0, 0
        try:
            for _, seq in records:
                reply = w.search(seq, 0.8)
                search_ms.append(reply["search_ms"])
                dev += reply["device_read_bytes"]
                majflt += reply["major_faults"]
                hits += reply["hits"]
            wall = time.perf_counter() - started
        finally:
            w.close()
        return {"wall_s": wall, "in_process_s": sum(search_ms) / 1e3, "bytes_read": dev,
                "device_read_bytes": dev, "major_faults": majflt, "read_requests": None, "hits": hits,
                "startup_s": w.ready_ms / 1e3}
    extra = ["--batch", "0" if mode == "batch0" else "1"]
    done, doc = bitsift_query(ctx, index["path"], path, engine=ctx.engine, extra=extra, cgroup=cg,
                              what="bitsift query %s on %s" % (" ".join(extra), index["name"]))
    qs = doc["queries"]
    if mode == "batch0":
        # The queries are searched in chunks of `batch_queries` consecutive queries (memory
        # bounds); every query of a chunk reports the chunk's I/O, and its total_ms spans the
        # whole chunk. Sum over chunks.
        in_process, bytes_read, requests, dev, i, chunks = 0.0, 0, 0, 0, 0, 0
        while i < len(qs):
            chunk = qs[i:i + max(1, qs[i]["stats"]["batch_queries"])]
            in_process += max(q["stats"]["total_ms"] for q in chunk) / 1e3
            bytes_read += chunk[0]["stats"]["bytes_read"]
            requests += chunk[0]["stats"]["read_requests"]
            dev += chunk[0]["stats"]["device_read_bytes"]
            i += len(chunk)
            chunks += 1
    else:
        in_process = sum(q["stats"]["total_ms"] for q in qs) / 1e3
        bytes_read = sum(q["stats"]["bytes_read"] for q in qs)
        requests = sum(q["stats"]["read_requests"] for q in qs)
        dev = sum(q["stats"]["device_read_bytes"] for q in qs)
    return {"wall_s": done.wall_s, "in_process_s": in_process, "bytes_read": bytes_read,
            "device_read_bytes": dev, "read_requests": requests, "hits": sum(len(q["hits"]) for q in qs),
            "max_rss_bytes": done.rusage["max_rss_bytes"], "major_faults": done.rusage["major_faults"],
            "batch_queries_max": max(q["stats"]["batch_queries"] for q in qs),
            "chunks": chunks if mode == "batch0" else len(qs)}


def batch_summary(rows):
    groups = group_by(rows, "index", "mode")
    out = []
    for (index, mode), rs in groups.items():
        w, ip = summary([r["wall_s"] for r in rs]), summary([r["in_process_s"] for r in rs])
        out.append({"index": index, "mode": mode, "runs": len(rs), "genes": rs[0]["genes"],
                    "wall_s_median": w["median"], "wall_s_min": w["min"], "wall_s_max": w["max"],
                    "in_process_s_median": ip["median"], "in_process_s_min": ip["min"],
                    "in_process_s_max": ip["max"], "bytes_read": summary([r["bytes_read"] for r in rs])["median"],
                    "read_requests": summary([r.get("read_requests") for r in rs])["median"],
                    "hits": rs[0]["hits"]})
    cobs = {s["index"]: s for s in out if s["mode"] == "cobs"}
    for s in out:
        c = cobs.get(s["index"])
        s["x_cobs_wall"] = ratio(s["wall_s_median"], c["wall_s_median"]) if c else None
        s["x_cobs_in_process"] = ratio(s["in_process_s_median"], c["in_process_s_median"]) if c else None
    order = {"batch0": 0, "batch1": 1, "cobs": 2}
    out.sort(key=lambda s: (s["index"], order[s["mode"]]))
    return out


# --------------------------------------------------------------------------------------------
# page cache


def cache(ctx, indexes, sets):
    records = sets["records"]["cold"]
    path = _gene_files(ctx, "cache-two-passes", records, passes=2)
    n = len(records)
    rows = []
    for index in indexes:
        size = index["size_bytes"]
        fractions = [0.0] + [float(f) for f in ctx.args.cache_fractions.split(",")]
        log("cache: %s (%s): cache sizes %s, %d genes twice in one process, %d runs" % (
            index["name"], human(size), ", ".join("%g%%" % (f * 100) for f in fractions), n, ctx.args.reps))
        for f in fractions:
            cache_bytes = int(size * f) >> 12 << 12
            if cache_bytes > 0.6 * mem_available():
                ctx.notes.append("cache %g%% of %s skipped: %s exceeds 60%% of available memory"
                                 % (f * 100, index["name"], human(cache_bytes)))
                continue
            cg = ctx.cgroups.group(ctx.args.cgroup_limit + ((cache_bytes * 105 // 100) >> 20 << 20))
            extra = ["--batch", "1"] + (["--cache-size", str(cache_bytes)] if cache_bytes else [])
            for rep in range(ctx.args.reps):
                ctx.cache.drop([index["path"]])
                done, doc = bitsift_query(ctx, index["path"], path, engine=ctx.engine, extra=extra,
                                          cgroup=cg, what="bitsift query --cache-size on %s" % index["name"])
                qs = doc["queries"]
                first, second = qs[:n], qs[n:]
                hits = sum(q["stats"]["cache_hits"] for q in second)
                looks = hits + sum(q["stats"]["cache_misses"] for q in second)
                rows.append({"index": index["name"], "index_bytes": size, "fraction": f,
                             "cache_bytes": cache_bytes, "rep": rep + 1, "genes": n,
                             "pass1_ms_median": statistics.median(q["stats"]["total_ms"] for q in first),
                             "pass2_ms_median": statistics.median(q["stats"]["total_ms"] for q in second),
                             "pass2_bytes_read": sum(q["stats"]["bytes_read"] for q in second),
                             "pass2_reads_from_cache": sum(q["stats"]["reads_from_cache"] for q in second),
                             "pass2_hit_ratio": ratio(hits, looks), "wall_s": done.wall_s,
                             "max_rss_bytes": done.rusage["max_rss_bytes"]})
            last = rows[-1]
            log("cache: %s %g%%: pass 2 median %.2f ms, hit ratio %s" % (
                index["name"], f * 100, last["pass2_ms_median"],
                "%.3f" % last["pass2_hit_ratio"] if last["pass2_hit_ratio"] is not None else "-"))
    return rows


def cache_summary(rows):
    groups = group_by(rows, "index", "fraction")
    out = []
    for (index, f), rs in groups.items():
        p2, p1 = summary([r["pass2_ms_median"] for r in rs]), summary([r["pass1_ms_median"] for r in rs])
        out.append({"index": index, "fraction": f, "cache_bytes": rs[0]["cache_bytes"], "runs": len(rs),
                    "genes": rs[0]["genes"], "pass1_ms_median": p1["median"],
                    "pass2_ms_median": p2["median"], "pass2_ms_min": p2["min"], "pass2_ms_max": p2["max"],
                    "pass2_hit_ratio": summary([r["pass2_hit_ratio"] for r in rs])["median"],
                    "pass2_bytes_read": summary([r["pass2_bytes_read"] for r in rs])["median"],
                    "max_rss_bytes": summary([r["max_rss_bytes"] for r in rs])["median"]})
    base = {s["index"]: s for s in out if s["fraction"] == 0}
    for s in out:
        b = base.get(s["index"])
        s["x_no_cache"] = ratio(s["pass2_ms_median"], b["pass2_ms_median"]) if b else None
    out.sort(key=lambda s: (s["index"], s["fraction"]))
    return out


# --------------------------------------------------------------------------------------------
# warm-up


def time_to_warm(ms, warm_ms, factor, window):
    """(queries, ms) until the rolling median of `window` queries is within factor × warm_ms,
    on the timeline of cumulative per-query times; (None, total) when never."""
    cum = 0.0
    for i, m in enumerate(ms):
        cum += m
        if i + 1 >= window and statistics.median(ms[i + 1 - window:i + 1]) <= factor * warm_ms:
            return i + 1, cum
    return None, cum


def warmup(ctx, indexes, sets):
    records = sets["records"]["stream"]
    n = len(records)
    path = _gene_files(ctx, "warmup-stream", records, passes=2)
    window = max(3, min(ctx.args.warm_window, n // 5))
    rows, timelines = [], []
    for index in indexes:
        size = index["size_bytes"]
        cache_bytes = ((size * 105 // 100) >> 20 << 20) + (16 << 20)
        if cache_bytes > 0.6 * mem_available():
            ctx.notes.append("warm-up on %s skipped: a cache of %s (≥ the index) exceeds 60%% of "
                             "available memory" % (index["name"], human(cache_bytes)))
            continue
        cg = ctx.cgroups.group(ctx.args.cgroup_limit + ((cache_bytes * 110 // 100) >> 20 << 20))
        log("warmup: %s: cache %s, %d-gene stream (then again as the warm reference), with and "
            "without --warm, %d runs" % (index["name"], human(cache_bytes), n, ctx.args.reps))
        for rep in range(ctx.args.reps):
            for warm in (False, True):
                extra = ["--batch", "1", "--cache-size", str(cache_bytes)] + (["--warm"] if warm else [])
                ctx.cache.drop([index["path"]])
                done, doc = bitsift_query(ctx, index["path"], path, engine=ctx.engine, extra=extra,
                                          cgroup=cg, what="bitsift query --warm on %s" % index["name"])
                qs = doc["queries"]
                ms1 = [q["stats"]["total_ms"] for q in qs[:n]]
                ms2 = [q["stats"]["total_ms"] for q in qs[n:]]
                warm_ms = statistics.median(ms2)
                k, t = time_to_warm(ms1, warm_ms, ctx.args.warm_factor, window)
                rows.append({"index": index["name"], "index_bytes": size, "cache_bytes": cache_bytes,
                             "warm": warm, "rep": rep + 1, "genes": n, "window": window,
                             "warm_median_ms": warm_ms, "pass1_median_ms": statistics.median(ms1),
                             "pass1_total_ms": sum(ms1), "queries_to_warm": k,
                             "ms_to_warm": t if k is not None else None, "wall_s": done.wall_s,
                             "pass1_bytes_read": sum(q["stats"]["bytes_read"] for q in qs[:n])})
                timelines.append({"index": index["name"], "warm": warm, "rep": rep + 1, "ms": ms1,
                                  "warm_median_ms": warm_ms})
                log("warmup: %s %s run %d: warm median %.2f ms; warm after %s" % (
                    index["name"], "--warm" if warm else "no --warm", rep + 1, warm_ms,
                    ("%d queries, %.2f s" % (k, t / 1e3)) if k else "never (%d queries, %.2f s)" % (n, t / 1e3)))
    return rows, timelines


def warmup_summary(rows):
    groups = group_by(rows, "index", "warm")
    out = []
    for (index, warm), rs in groups.items():
        reached = [r for r in rs if r["queries_to_warm"] is not None]
        t = summary([r["ms_to_warm"] for r in reached])
        out.append({"index": index, "warm": warm, "runs": len(rs), "reached": len(reached),
                    "genes": rs[0]["genes"], "cache_bytes": rs[0]["cache_bytes"],
                    "warm_median_ms": summary([r["warm_median_ms"] for r in rs])["median"],
                    "pass1_median_ms": summary([r["pass1_median_ms"] for r in rs])["median"],
                    "pass1_total_s": summary([r["pass1_total_ms"] / 1e3 for r in rs])["median"],
                    "queries_to_warm": summary([r["queries_to_warm"] for r in reached])["median"],
                    "s_to_warm_median": t["median"] / 1e3 if t["median"] is not None else None,
                    "s_to_warm_min": t["min"] / 1e3 if t["min"] is not None else None,
                    "s_to_warm_max": t["max"] / 1e3 if t["max"] is not None else None})
    out.sort(key=lambda s: (s["index"], s["warm"]))
    return out
