"""BENCHMARKS.md sections (between `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->`,
so hand-written text outside the markers survives reruns), and the plots."""

import os
import re

from .machine import one_line
from .util import human, log, portable

SECTIONS = ("machine", "device", "data", "build", "query", "prune", "batch", "cache", "warmup")
TITLES = {"machine": "Machine", "device": "Device: fio and bitsift iobench",
          "data": "Data", "build": "Builds: bitsift and COBS",
          "query": "Single-gene queries, cold and warm: every engine and COBS",
          "prune": "Issue 5: pruning and read merging", "batch": "Issue 5: a batch of genes",
          "cache": "Issue 5: the page cache", "warmup": "Issue 5: warm-up after a cold start"}

HEADER = """# Benchmarks

Every number between a pair of `bench:` markers below is written by the benchmark suite, from
runs made on the machine described in that section. One command reruns everything (as root:
it drops the page cache and uses memory cgroups):

```sh
sudo python3 bench/run.py [--quick] [--work DIR] [--only SECTION,...] [--genes N] ...
```

- `sudo python3 bench/run.py`: the full run, every section below, on the bundled genomes, a
  simulated collection of 4,096 genomes and a `bitsift synth` index with the 661k geometry.
  Data, indexes and device files are cached in `--work` (default `bench/artifacts/`) and
  reused while their parameters match.
- `--only query,prune`: some sections (`machine device data build query prune batch cache
  warmup`); the artifacts they need are made or reused. `--only report` re-renders this file
  from `bench/results/<date>/`.
- `python3 bench/run.py --quick`: bundled data, a few genes, short device runs, a temporary
  work directory; results in `bench/results/quick/`, this file untouched (CI).
- `python3 bench/run.py --help` lists every option (gene counts, runs per cell, cgroup limit,
  cache fractions, fio depths, `--where SECTION:INDEX,...`, `--no-publish` for trial runs).

Raw results (CSV/JSON) are in `bench/results/<date>/`, plots in `bench/plots/`. The method
follows `shared/docs/benchmarking.md`: ratios measured side by side in one run, each query
against its fio limit, COBS on the same file, cold = `drop_caches` right before the query, the
measured process in a memory cgroup. Text outside the markers is hand-written and survives
reruns.

"""


# --------------------------------------------------------------------------------------------
# formatting


def f_ms(v, digits=None):
    if v is None:
        return "–"
    if digits is None:
        digits = 0 if v >= 100 else (1 if v >= 10 else 2)
    return "%.*f" % (digits, v)


def f_range(med, lo, hi):
    if med is None:
        return "–"
    return "%s (%s–%s)" % (f_ms(med), f_ms(lo), f_ms(hi))


def f_bytes(v):
    return "–" if v is None else human(v)


def f_num(v):
    if v is None:
        return "–"
    if isinstance(v, float) and not v.is_integer():
        return "%.1f" % v
    return "{:,}".format(int(v))


def f_x(v):
    return "–" if v is None else ("%.2f×" % v if v < 10 else "%.0f×" % v)


def table(headers, rows, align=None):
    align = align or ["l"] + ["r"] * (len(headers) - 1)
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def preamble(ctx, name, machine, extra_cmds=()):
    lines = ["_Measured %s with:_" % machine.get("date", "?"), "",
             "```sh", ctx.command_for(name)] + list(extra_cmds) + ["```", "",
             "_Machine: %s._" % one_line(machine), ""]
    return "\n".join(lines)


def notes_md(notes):
    if not notes:
        return ""
    return "\n" + "\n".join("- Note: %s" % n for n in notes) + "\n"


# --------------------------------------------------------------------------------------------
# sections


def render_machine(ctx, m, res):
    c, mem, d, fs = m["cpu"], m["memory"], m["disk"] or {}, m["filesystem"] or {}
    b, io = m["bitsift"], m["io_uring"]
    rows = [("date", m["date"]), ("CPU", "%s, %s logical CPUs, %s" % (c["model"], c["logical_cpus"], c.get("hypervisor") or "bare metal?")),
            ("memory", "%s total, %s available at the start, swap %s" % (
                human(mem["total_bytes"]), human(mem["available_bytes"]), human(mem["swap_bytes"] or 0))),
            ("kernel", "Linux %s (%s)" % (m["kernel"], m.get("os") or "?")),
            ("disk", "%s `%s`: model %s, %s, rotational=%s, logical block %s B, read_ahead_kb %s, scheduler `%s`, driver %s" % (
                d.get("kind"), d.get("device"), (d.get("lsblk") or {}).get("model") or d.get("model") or "none reported",
                human(d.get("size_bytes") or 0), d.get("rotational"), d.get("logical_block_size"),
                d.get("read_ahead_kb"), d.get("scheduler"), d.get("driver"))),
            ("file system", "%s on %s mounted at %s (%s); work dir `%s`" % (
                fs.get("type"), fs.get("device"), fs.get("mount"), fs.get("options"), m["work_dir"])),
            ("io_uring", "io_uring_setup: %s; kernel.io_uring_disabled=%s; seccomp=%s" % (
                io["io_uring_setup"], io["kernel.io_uring_disabled"], io["seccomp"])),
            ("bitsift", "commit %s (%s), `%s`, binary sha256 %s…%s" % (
                b.get("commit"), b.get("ref"), b.get("version"), b.get("binary_sha256"),
                "; **binary older than the sources**" if b.get("binary_older_than_sources") else "")),
            ("COBS", "%s (module cobs_index %s)" % (m["cobs"].get("package"), m["cobs"].get("cobs_index"))),
            ("fio", m.get("fio") or "not installed"), ("Python", m["python"]),
            ("cold cache", m["cache_method"]), ("memory cgroup", m["cgroup"])]
    return "_Described by `%s`._\n\n%s\n" % (ctx.command_for("machine"), table(["", ""], rows, ["l", "l"]))


def render_device(ctx, m, res):
    out = [preamble(ctx, "device", m)]
    fio = res.get("fio")
    if fio:
        out.append("**fio**: random 4 KiB reads, O_DIRECT, `ioengine=io_uring`, %s file of real bytes "
                   "in the work dir, page cache dropped before each job, %g s per depth after %g s ramp."
                   % (human(fio["file_bytes"]), ctx.args.fio_runtime, ctx.args.fio_ramp))
        out.append("")
        out.append(table(["queue depth", "IOPS", "p50 µs", "p99 µs", "MB/s"],
                         [(r["depth"], f_num(round(r["iops"])), f_ms(r["p50_us"], 0), f_ms(r["p99_us"], 0),
                           "%.1f" % r["mb_per_s"]) for r in fio["rows"]]))
        out.append("")
        out.append("**fio limit** of a query that needs R distinct 4 KiB pages: R / %s IOPS (%s)."
                   % (f_num(round(res["limit_iops"])), res["limit_source"]))
        out.append("")
    io = res.get("iobench")
    if io:
        out.append("**bitsift iobench** (`%s`):" % " ".join(os.path.basename(c) if i == 0 else c
                                                            for i, c in enumerate(io["command"])))
        out.append("")
        out.append(table(["variant", "depth", "IOPS", "MB/s", "p50 µs", "p99 µs", "major faults", "device read"],
                         [(r["variant"], "%d %s" % (r["depth"], "thr" if r["depth_unit"] == "threads" else "QD"),
                           f_num(round(r["iops"])), "%.1f" % r["mb_per_s"], f_ms(r["p50_us"], 0),
                           f_ms(r["p99_us"], 0), f_num(r["major_faults"]), f_bytes(r["device_read_bytes"]))
                          for r in io["rows"]]))
        out.append("")
        out.append("Recommendation: %s" % (io.get("recommendation") or "none"))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


def render_data(ctx, m, res):
    out = [preamble(ctx, "data", m)]
    rows = []
    for c in res["collections"]:
        rows.append((c["name"], f_num(c["documents"]), f_bytes(c.get("input_bytes")), c["description"]))
    s = res.get("synth")
    if s:
        rows.append((s["name"], f_num(s["documents"]), "–", "%s; %s, %d blocks of %d-byte rows%s" % (
            s["description"], f_bytes(s["info"]["file_size"]), s["info"]["blocks"], s["info"]["page_size"],
            " (reused `%s`: its geometry matches `bitsift synth --dry-run`)" % s["path"] if s.get("reused") else "")))
    out.append(table(["collection", "documents", "input", "what"], rows, ["l", "r", "r", "l"]))
    out.append("")
    g = res["genes"]
    out.append("Gene sets (seed %s, sources %s): %s. %d of the %d cold genes and %d of the %d batch "
               "genes were inserted into the simulated collection; the rest are real genes that were "
               "not inserted (expected misses, apart from false positives)." % (
                   ctx.args.seed, ", ".join("`%s`" % v for v in g["sources"].values()),
                   ", ".join("%s %d" % (k, v) for k, v in g["counts"].items()),
                   g["cold_inserted"], g["counts"].get("cold", 0), g["batch_inserted"], g["counts"].get("batch", 0)))
    if res.get("sim_command"):
        out.append("")
        out.append("Simulated with `%s`." % " ".join(res["sim_command"]))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


def render_build(ctx, m, res):
    out = [preamble(ctx, "build", m)]
    rows = []
    for r in res["rows"]:
        rows.append((r["collection"], r["tool"], f_num(r["documents"]), "%.1f" % r["wall_s"],
                     f_bytes(r["max_rss_bytes"]), f_num(r["minor_faults"]), f_num(r["major_faults"]),
                     "%.0f" % (r["user_s"] + r["system_s"]), f_bytes(r["index_bytes"]),
                     "%d × %d B" % (r["blocks"], r["page_size"]),
                     ("cached, built %s" % r["built"]) if r["cached"] else "this run"))
    out.append(table(["collection", "tool", "documents", "wall s", "peak RSS", "minor faults",
                      "major faults", "CPU s", "index", "blocks × row", "when"], rows,
                     ["l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "l"]))
    out.append("")
    out.append("Inputs cold (page cache dropped) at the start of each build; wall time, peak RSS and "
               "faults from `wait4` of the builder (COBS runs in a child of `tests/peer/cobs_peer.py`, "
               "included). Commands:")
    out.append("")
    for r in res["rows"]:
        out.append("- %s/%s: `%s`" % (r["collection"], r["tool"], r["command"]))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


ENGINE_LABEL = {"uring": "bitsift uring", "pread": "bitsift pread", "mmap": "bitsift mmap",
                "ram": "bitsift ram", "worker": "COBS (worker)", "oneshot": "COBS (process per query)"}


def render_query(ctx, m, res):
    out = [preamble(ctx, "query", m)]
    out.append("Each gene is a separate query: bitsift runs one process per query "
               "(`bitsift query -i INDEX -f gene.fa -t 0.8 --engine E --format json`), COBS a persistent "
               "worker (`bench/cobs_worker.py`) timing `Search.search()` in-process; `COBS (process per "
               "query)` starts a fresh worker per query. **ms** is the in-process time (bitsift's "
               "`stats.total_ms`, COBS's `search()`), **wall** the whole process (start-up and index "
               "open included; for the worker, the request round trip). Medians over genes "
               "(min–max). × COBS is the median over genes of the per-gene ratio to COBS on the same "
               "file and cache state (in-process to in-process; for wall, to the process-per-query "
               "COBS); × fio limit divides by R / fio IOPS for the query's R distinct 4 KiB pages. "
               "Measured processes run in %s." % res.get("cgroup", "?"))
    out.append("")
    by_index = {}
    for s in res["summary"]:
        by_index.setdefault(s["index"], []).append(s)
    for index, ss in by_index.items():
        cold = {(s["tool"], s["engine"]): s for s in ss if s["state"] == "cold"}
        warm = {(s["tool"], s["engine"]): s for s in ss if s["state"] == "warm"}
        anyone = ss[0]
        out.append("**%s** (%s, fio limit of the median gene %s ms):" % (
            index, f_bytes(anyone["index_bytes"]), f_ms(anyone.get("fio_limit_ms"))))
        out.append("")
        rows = []
        for key, c in cold.items():
            w = warm.get(key, {})
            rows.append((ENGINE_LABEL.get(c["engine"], c["engine"]), c["genes"],
                         f_range(c["ms_median"], c["ms_min"], c["ms_max"]),
                         f_range(w.get("ms_median"), w.get("ms_min"), w.get("ms_max")),
                         f_ms(c["wall_ms_median"]), f_ms(w.get("wall_ms_median")),
                         f_bytes(c["bytes_read"]), f_num(c["read_requests"]),
                         "%s / %s" % (f_num(c["major_faults"]), f_num(c["minor_faults"])),
                         "%s / %s" % (f_bytes(c["device_read_bytes"]), f_bytes(c.get("process_read_bytes"))),
                         f_x(c["x_cobs"]), f_x(w.get("x_cobs")), f_x(c["x_cobs_wall"]), f_x(c["x_fio_limit"])))
        out.append(table(["tool", "genes", "cold ms", "warm ms", "cold wall ms", "warm wall ms", "bytes read",
                          "read requests", "faults major / minor", "device read query / process",
                          "× COBS cold", "× COBS warm", "× COBS wall (cold)", "× fio limit (cold)"], rows))
        out.append("")
        plot = res.get("plots", {}).get(index)
        if plot:
            out.append("![latency distributions on %s](%s)" % (index, plot))
            out.append("")
    if res.get("plots", {}).get("time_vs_size"):
        out.append("![median cold single-gene latency against index size](%s)" % res["plots"]["time_vs_size"])
        out.append("")
    out.append("Columns are cold-run medians unless marked warm. Bytes read: the engine's delivered "
               "bytes for bitsift, `/proc/self/io` read_bytes for COBS. Faults and device read (query): "
               "bitsift's per-query stats (getrusage, `/proc/self/io`), COBS's deltas around `search()`; "
               "device read (process): the whole process from `wait4` (`ru_inblock` × 512), index open "
               "included (for the COBS worker, the same as the query). Warm bitsift uring/pread read "
               "with O_DIRECT, so their warm runs read the device again by design. Before every cold "
               "run the suite checks with `mincore` that no page of the index is resident.")
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


def render_prune(ctx, m, res):
    out = [preamble(ctx, "prune", m, ["# each cell: bitsift query -i INDEX -f gene.fa -t T --engine %s "
                                      "--format json [--no-prune] [--merge-gap 0]" % ctx.engine])]
    out.append("Cold single-gene queries (cache dropped before each), medians over %d genes (min–max). "
               "\"vs no prune\" is the median per-gene ratio to `--no-prune` with the default merge gap."
               % res.get("genes", 0))
    out.append("")
    rows = [(s["index"], "%g" % s["threshold"], "on" if s["prune"] else "**off**",
             "default" if s["merge_gap"] == "default" else "**0**",
             f_range(s["ms_median"], s["ms_min"], s["ms_max"]), f_bytes(s["bytes_read"]),
             f_num(s["read_requests"]), f_num(s["reads_pruned"]), f_num(s["blocks_pruned"]),
             f_x(s["x_bytes_vs_no_prune"]), f_x(s["x_ms_vs_no_prune"]), f_x(s["x_fio_limit"]))
            for s in res["summary"]]
    out.append(table(["index", "t", "prune", "merge gap", "ms", "bytes read", "read requests", "reads pruned",
                      "blocks pruned", "bytes vs no prune", "ms vs no prune", "× fio limit"], rows,
                     ["l", "r", "l", "l"] + ["r"] * 8))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


MODE_LABEL = {"batch0": "bitsift, one batch (`--batch 0`)", "batch1": "bitsift, one at a time (`--batch 1`)",
              "cobs": "COBS worker, sequential"}


def render_batch(ctx, m, res):
    out = [preamble(ctx, "batch", m, ["# bitsift query -i INDEX -f batch.fa --engine %s --format json --batch 0|1"
                                      % ctx.engine, "# bench/cobs_worker.py INDEX  (the genes one after the other)"])]
    out.append("%d genes, page cache dropped before each run; median of %d runs (min–max). In-process: "
               "bitsift's batch `total_ms` (one batch) or the sum of per-query `total_ms`; COBS's summed "
               "`search()` times. Wall includes process start, index open and output (for COBS: "
               "interpreter start-up and import)." % (res.get("genes", 0), ctx.args.reps))
    out.append("")
    rows = [(s["index"], MODE_LABEL[s["mode"]], s["runs"], f_range(s["wall_s_median"], s["wall_s_min"], s["wall_s_max"]),
             f_range(s["in_process_s_median"], s["in_process_s_min"], s["in_process_s_max"]),
             f_bytes(s["bytes_read"]), f_num(s["read_requests"]), f_num(s["hits"]), f_x(s["x_cobs_wall"]),
             f_x(s["x_cobs_in_process"])) for s in res["summary"]]
    out.append(table(["index", "how", "runs", "wall s", "in-process s", "bytes read", "read requests", "hits",
                      "× COBS wall", "× COBS in-process"], rows, ["l", "l"] + ["r"] * 8))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


def render_cache(ctx, m, res):
    out = [preamble(ctx, "cache", m, ["# bitsift query -i INDEX -f genes-twice.fa --engine %s --format json "
                                      "--batch 1 --cache-size BYTES" % ctx.engine])]
    out.append("The %d cold genes, then the same genes again, in one process started cold; the second "
               "pass's median per-query `total_ms` and cache hit ratio (cache hits / lookups). Median of "
               "%d runs (min–max). The process's memory cgroup is raised by the cache size."
               % (res.get("genes", 0), ctx.args.reps))
    out.append("")
    rows = [(s["index"], "none" if s["fraction"] == 0 else "%g %% (%s)" % (s["fraction"] * 100, human(s["cache_bytes"])),
             s["runs"], f_range(s["pass2_ms_median"], s["pass2_ms_min"], s["pass2_ms_max"]), f_ms(s["pass1_ms_median"]),
             "–" if s["pass2_hit_ratio"] is None else "%.3f" % s["pass2_hit_ratio"], f_bytes(s["pass2_bytes_read"]),
             f_bytes(s["max_rss_bytes"]), f_x(s["x_no_cache"])) for s in res["summary"]]
    out.append(table(["index", "cache", "runs", "pass 2 ms", "pass 1 ms", "pass 2 hit ratio", "pass 2 bytes read",
                      "peak RSS", "pass 2 vs no cache"], rows, ["l", "l"] + ["r"] * 7))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


def render_warmup(ctx, m, res):
    out = [preamble(ctx, "warmup", m, ["# bitsift query -i INDEX -f stream-twice.fa --engine %s --format json "
                                       "--batch 1 --cache-size ≥INDEX [--warm]" % ctx.engine])]
    out.append("One process, cache ≥ the index, started cold: the %d-gene stream, then the stream again "
               "(its median is the warm speed). Timeline = cumulative per-query `total_ms` of the first "
               "pass; warm when the rolling median of %d queries is within %g× the warm median. Median "
               "of %d runs (min–max); \"reached\" counts the runs that got there within the stream."
               % (res.get("genes", 0), res.get("window", 0), ctx.args.warm_factor, ctx.args.reps))
    out.append("")
    rows = [(s["index"], "yes" if s["warm"] else "no", s["runs"], s["reached"], f_num(s["queries_to_warm"]),
             f_range(s["s_to_warm_median"], s["s_to_warm_min"], s["s_to_warm_max"]), f_ms(s["warm_median_ms"]),
             f_ms(s["pass1_median_ms"]), f_ms(s["pass1_total_s"]), f_bytes(s["cache_bytes"]))
            for s in res["summary"]]
    out.append(table(["index", "--warm", "runs", "reached", "queries to warm", "s to warm", "warm median ms",
                      "pass 1 median ms", "pass 1 total s", "cache"], rows, ["l", "l"] + ["r"] * 8))
    out.append("")
    for index, plot in sorted(res.get("plots", {}).items()):
        out.append("![warm-up timeline on %s](%s)" % (index, plot))
    out.append(notes_md(res.get("section_notes", [])))
    return "\n".join(out)


RENDER = {"machine": render_machine, "device": render_device, "data": render_data, "build": render_build,
          "query": render_query, "prune": render_prune, "batch": render_batch, "cache": render_cache,
          "warmup": render_warmup}


def render(ctx, name, machine, result):
    return RENDER[name](ctx, machine, result).rstrip() + "\n"


# --------------------------------------------------------------------------------------------
# BENCHMARKS.md


def marker(name, end=False):
    return "<!-- bench:%s:%s -->" % (name, "end" if end else "begin")


def update_markdown(path, blocks):
    """Replaces the content between each block's markers; creates the file, or appends a
    missing section (heading and markers) at the end."""
    text = open(path).read() if os.path.exists(path) else HEADER + "".join(
        "## %s\n\n%s\n%s\n\n" % (TITLES[s], marker(s), marker(s, True)) for s in SECTIONS)
    for name, body in blocks.items():
        begin, end = marker(name), marker(name, True)
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        replacement = begin + "\n" + body + end
        if pattern.search(text):
            text = pattern.sub(lambda _m: replacement, text, count=1)
        else:
            text = text.rstrip("\n") + "\n\n## %s\n\n%s\n" % (TITLES[name], replacement)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(portable(text))
    os.replace(tmp, path)
    log("report: updated %s (%s)" % (path, ", ".join(blocks)))


# --------------------------------------------------------------------------------------------
# plots


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_latency(rows, index, path):
    plt = _plt()
    order = ["uring", "pread", "mmap", "ram", "worker", "oneshot"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, state in zip(axes, ("cold", "warm")):
        data, labels = [], []
        for e in order:
            vals = [r["ms"] for r in rows if r["index"] == index and r["state"] == state and r["engine"] == e]
            if vals:
                data.append(vals)
                labels.append(ENGINE_LABEL[e].replace("bitsift ", "").replace(" (process per query)", "\n(1 process/query)"))
        if data:
            ax.boxplot(data, showfliers=True)
            ax.set_xticks(range(1, len(labels) + 1))
            ax.set_xticklabels(labels, fontsize=8)
        ax.set_yscale("log")
        ax.set_title("%s, %s" % (index, state))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("in-process latency per gene (ms)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_time_vs_size(summary, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    series = [("uring", "bitsift uring", "o-"), ("mmap", "bitsift mmap", "s-"), ("worker", "COBS", "^-")]
    cobs_format = [s for s in summary if s["state"] == "cold" and not s["index"].endswith("/bitsift")]
    for engine, label, style in series:
        pts = sorted((s["index_bytes"], s["ms_median"], s["index"]) for s in cobs_format if s["engine"] == engine)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
    own = sorted((s["index_bytes"], s["ms_median"]) for s in summary
                 if s["state"] == "cold" and s["index"].endswith("/bitsift") and s["engine"] == "uring")
    if own:
        ax.plot([p[0] for p in own], [p[1] for p in own], "o", mfc="none", label="bitsift uring, own index")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("index size (bytes)")
    ax.set_ylabel("median cold single-gene latency (ms)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_warmup(timelines, index, path):
    import statistics
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for warm, label in ((False, "no --warm"), (True, "--warm")):
        runs = [t for t in timelines if t["index"] == index and t["warm"] == warm]
        if not runs:
            continue
        run_ = sorted(runs, key=lambda t: sum(t["ms"]))[len(runs) // 2]  # the median run by total time
        cum, xs = 0.0, []
        for m in run_["ms"]:
            cum += m
            xs.append(cum / 1e3)
        w = 15
        roll = [statistics.median(run_["ms"][max(0, i - w + 1):i + 1]) for i in range(len(run_["ms"]))]
        ax.plot(xs, roll, label="%s (rolling median of %d)" % (label, w))
        ax.axhline(run_["warm_median_ms"], ls=":", color=ax.lines[-1].get_color(), lw=1)
    ax.set_yscale("log")
    ax.set_xlabel("time since start (s, cumulative per-query total_ms)")
    ax.set_ylabel("query latency (ms)")
    ax.set_title("warm-up on %s (dotted: warm median)" % index)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
