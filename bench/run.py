#!/usr/bin/env python3
"""bitsift's benchmark suite: one command, one machine, every table of BENCHMARKS.md.

    sudo python3 bench/run.py [--quick] [--work DIR] [--only SECTION,...] [--genes N] ...

Sections, in order (all by default):
  machine  CPU, memory, kernel, disk, file system, io_uring, bitsift commit, COBS, date
  device   fio random 4 KiB O_DIRECT io_uring reads at QD 1/8/32/128; bitsift iobench
  data     gene sets; bundled, simulated (bitsift-simulate) and synth (bitsift synth) collections
  build    bitsift build and COBS build of each collection: time, peak RSS, faults, size
  query    single genes, cold and warm, every bitsift engine and COBS on the same files
  prune    issue 5: --no-prune and --merge-gap 0 vs defaults, t = 0.8 and 0.5
  batch    issue 5: the batch gene set as one batch, one at a time, and with COBS
  cache    issue 5: --cache-size 1/10/50 % of the index, second pass latency and hit ratio
  warmup   issue 5: time to warm speed from a cold start, with and without --warm
  report   (with --only) re-render BENCHMARKS.md from the results of --date

Later sections build on the cached artifacts of earlier ones (data, indexes), which are
made when missing. --quick: bundled data only, a few genes, short device runs, a temporary
work directory, results in bench/results/quick/; BENCHMARKS.md is not touched; exit status 1
if anything fails. Progress goes to standard error.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from suite import build as build_mod  # noqa: E402
from suite import data as data_mod  # noqa: E402
from suite import device as device_mod  # noqa: E402
from suite import issue5, machine as machine_mod, query as query_mod, report  # noqa: E402
from suite.cgroup import Cgroups  # noqa: E402
from suite.util import BenchError, Cache, log, parse_size, read_json, write_csv, write_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTIONS = report.SECTIONS
MEASURED = ("query", "prune", "batch", "cache", "warmup")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    a = p.add_argument
    a("--quick", action="store_true", help="bundled data, a few genes, < 1 minute; for CI")
    a("--work", default=None, help="work directory for data, indexes, device files "
      "[bench/artifacts/ in the checkout]")
    a("--only", default="", metavar="SECTION,...", help="run these sections only (see above)")
    a("--genes", type=int, default=50, help="genes of the cold one-by-one runs [%(default)s]")
    a("--batch-genes", type=int, default=500, help="genes of the batch measurement [%(default)s]")
    a("--warmup-genes", type=int, default=400, help="genes of the warm-up stream [%(default)s]")
    a("--prune-genes", type=int, default=None, help="genes of the prune/merge runs [--genes]")
    a("--insert-genes", type=int, default=400, help="real AMR genes inserted into the simulated "
      "collection [%(default)s]")
    a("--hit-fraction", type=float, default=0.8, help="share of query genes drawn from the inserted "
      "ones [%(default)s]")
    a("--reps", type=int, default=5, help="runs per cell of the batch, cache and warm-up "
      "measurements [%(default)s]")
    a("--seed", type=int, default=1, help="seed of the gene samples [%(default)s]")
    a("--sim-genomes", type=int, default=4096)
    a("--sim-genome-size", type=int, default=2000000)
    a("--sim-seed", type=int, default=1)
    a("--synth-documents", type=int, default=661405)
    a("--synth-genome-size", type=int, default=5000000)
    a("--synth-max-bytes", type=parse_size, default=parse_size("25G"),
      help="largest synth index; picks --scale [25G]")
    a("--synth-scale", default=None, help="use this scale instead of fitting --synth-max-bytes")
    a("--cgroup-limit", type=parse_size, default=parse_size("1G"),
      help="memory limit of the measured processes [1G]")
    a("--no-cgroup", action="store_true", help="measure without a memory cgroup")
    a("--engines", default="uring,pread,mmap,ram", help="bitsift engines of the query sweep [%(default)s]")
    a("--ram-max", type=parse_size, default=parse_size("8G"),
      help="largest index the ram engine loads [8G]")
    a("--ram-genes", type=int, default=5, help="genes for the ram engine on indexes > 1 GiB [%(default)s]")
    a("--thresholds", default="0.8,0.5", help="thresholds of the prune runs [%(default)s]")
    a("--cache-fractions", default="0.01,0.1,0.5", help="--cache-size as fractions of the index "
      "[%(default)s]")
    a("--warm-factor", type=float, default=1.5, help="warm = rolling median within this factor of the "
      "warm median [%(default)s]")
    a("--warm-window", type=int, default=15, help="queries in the rolling median [%(default)s]")
    a("--fio-size", type=parse_size, default=parse_size("4G"), help="fio/iobench file size [4G]")
    a("--fio-depths", default="1,8,32,128")
    a("--fio-runtime", type=float, default=10.0, help="seconds per fio job [%(default)s]")
    a("--fio-ramp", type=float, default=2.0, help="fio ramp seconds [%(default)s]")
    a("--iobench-duration", default="3s", help="bitsift iobench --duration [%(default)s]")
    a("--where", action="append", default=[], metavar="SECTION:INDEX,...",
      help="indexes of a section, e.g. batch:sim4096/cobs,sim4096/bitsift (repeatable)")
    a("--index", action="append", default=[], metavar="NAME=PATH",
      help="also measure this existing COBS index (repeatable; e.g. a published one)")
    a("--sim-gzip", action="store_true", help="simulate gzipped genomes (--gzip: ~1/3 of the disk)")
    a("--no-publish", action="store_true", help="trial run: results to bench/results/scratch/, "
      "plots there too, BENCHMARKS.md untouched")
    a("--timeout", type=float, default=3600.0, help="seconds before a measured bitsift process is "
      "killed (a failure) [%(default)s]")
    a("--rebuild", action="store_true", help="rebuild indexes even when cached ones match")
    a("--bitsift", default=os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"),
                                        "release/bitsift"))
    a("--no-cargo-build", action="store_true", help="do not run `cargo build --release --workspace` "
      "first (the full run does by default; --quick only when the binary is missing)")
    a("--date", default=None, help="results directory name [today, YYYY-MM-DD]")
    a("--keep-quick-dir", action="store_true", help="keep --quick's temporary work directory")
    args = p.parse_args(argv)
    if args.quick:
        for key, value in (("genes", 3), ("batch_genes", 12), ("warmup_genes", 12), ("reps", 1),
                           ("fio_size", 64 << 20), ("fio_runtime", 0.5), ("fio_ramp", 0.0),
                           ("thresholds", "0.8"), ("cache_fractions", "0.1"), ("prune_genes", 2)):
            if getattr(args, key) == p.get_default(key):
                setattr(args, key, value)
    if args.prune_genes is None:
        args.prune_genes = args.genes
    only = [s for s in args.only.split(",") if s]
    for s in only:
        if s not in SECTIONS and s != "report":
            p.error("unknown section %r (sections: %s, report)" % (s, ", ".join(SECTIONS)))
    args.sections = [s for s in SECTIONS if not only or s in only]
    args.report_only = only == ["report"]
    args.defaults = {k: p.get_default(k) for k in vars(args)}
    return args


class Context:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.root = ROOT
        self.notes = []
        self._noted = set()
        self.cache = Cache(prefer_fadvise=args.quick)
        self.cgroups = Cgroups(enabled=not args.no_cgroup)
        self.have_cobs = True
        self.engine = "uring"
        self.date = args.date or time.strftime("%Y-%m-%d")
        if self.quick:
            self.work = tempfile.mkdtemp(prefix="bitsift-bench-quick-")
            self.results = os.path.join(ROOT, "bench/results/quick")
            self.plots = os.path.join(self.results, "plots")
        elif args.no_publish:
            self.work = os.path.abspath(args.work or os.path.join(ROOT, "bench/artifacts"))
            self.results = os.path.join(ROOT, "bench/results/scratch")
            self.plots = os.path.join(self.results, "plots")
        else:
            self.work = os.path.abspath(args.work or os.path.join(ROOT, "bench/artifacts"))
            self.results = os.path.join(ROOT, "bench/results", self.date)
            self.plots = os.path.join(ROOT, "bench/plots")
        os.makedirs(self.work, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="tmp-", dir=self.work)
        self.bitsift_src = os.path.abspath(args.bitsift)
        self.bitsift = self.bitsift_src
        self.simulate = os.path.join(os.path.dirname(self.bitsift_src), "bitsift-simulate")

    def note_once(self, text):
        if text not in self._noted:
            self._noted.add(text)
            self.notes.append(text)
            log("note: " + text)

    def command_for(self, section):
        if self.quick:
            return "python3 bench/run.py --quick"
        parts = ["sudo", "python3", "bench/run.py", "--only", section]
        for key, value in sorted(vars(self.args).items()):
            if key in ("only", "sections", "report_only", "defaults", "date", "quick", "keep_quick_dir",
                       "bitsift", "rebuild", "no_cargo_build", "no_publish"):
                continue
            if value != self.args.defaults.get(key):
                flag = "--" + key.replace("_", "-")
                if isinstance(value, bool):
                    parts.append(flag)
                elif isinstance(value, list):
                    parts += [x for v in value for x in (flag, v)]
                else:
                    parts += [flag, str(value)]
        return " ".join(parts)


# --------------------------------------------------------------------------------------------
# set-up


def prepare_binaries(ctx):
    args = ctx.args
    missing = not os.path.exists(ctx.bitsift_src) or not os.path.exists(ctx.simulate)
    if (not args.no_cargo_build and not ctx.quick) or (missing and args.bitsift == parse_args([]).bitsift):
        log("setup: cargo build --release --workspace")
        p = subprocess.run(["cargo", "build", "--release", "--workspace"], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            raise BenchError("cargo build --release --workspace failed:\n" + p.stderr[-3000:])
    for path in (ctx.bitsift_src,):
        if not os.path.exists(path):
            raise BenchError("%s not found (build it with cargo build --release --workspace)" % path)
    # Snapshot the binaries: colleagues may rebuild target/ while the suite runs.
    bindir = os.path.join(ctx.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    ctx.bitsift = os.path.join(bindir, "bitsift")
    shutil.copy2(ctx.bitsift_src, ctx.bitsift + ".tmp")
    os.replace(ctx.bitsift + ".tmp", ctx.bitsift)
    if os.path.exists(ctx.simulate):
        dst = os.path.join(bindir, "bitsift-simulate")
        shutil.copy2(ctx.simulate, dst + ".tmp")
        os.replace(dst + ".tmp", dst)
        ctx.simulate = dst
    elif not ctx.quick:
        raise BenchError("%s not found (cargo build --release --workspace builds it)" % ctx.simulate)


def pip_install(package):
    log("setup: pip install %s" % package)
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        package], capture_output=True, text=True)
    return p.returncode == 0


def check_python_deps(ctx):
    try:
        import cobs_index  # noqa: F401
    except ImportError:
        if os.environ.get("BITSIFT_SKIP_COBS") == "1":
            ctx.have_cobs = False
            ctx.notes.append("COBS skipped (BITSIFT_SKIP_COBS=1): no COBS builds or queries")
        elif not pip_install("cobs-reloaded==0.1.1"):
            raise BenchError("COBS (PyPI cobs-reloaded, module cobs_index) is missing and `pip install "
                             "cobs-reloaded` failed; set BITSIFT_SKIP_COBS=1 to run without COBS")
    ctx.have_plots = True
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if not pip_install("matplotlib"):
            if not ctx.quick:
                raise BenchError("matplotlib is missing and `pip install matplotlib` failed")
            ctx.have_plots = False
            ctx.notes.append("plots skipped: matplotlib unavailable")


# --------------------------------------------------------------------------------------------
# sections


def select(ctx, indexes, section):
    """The indexes a section measures."""
    for spec in ctx.args.where:
        name, _, names = spec.partition(":")
        if name == section:
            wanted = [n for n in names.split(",") if n]
            return [i for i in indexes if i["name"] in wanted]
    if section == "query":
        return indexes
    if ctx.quick:
        return [i for i in indexes if i["name"] == "bundled/cobs"] or indexes[:1]
    sim = "sim%d" % ctx.args.sim_genomes
    names = ["%s/bitsift" % sim, "%s/cobs" % sim] + (["synth661k/synth"] if section != "warmup" else [])
    return [i for i in indexes if i["name"] in names]


def plot_per_index(ctx, kind, rows, plot):
    """One PNG per index of `rows` (`plot(rows, index, path)`); {index: path from the repo}."""
    plots = {}
    if not ctx.have_plots:
        return plots
    os.makedirs(ctx.plots, exist_ok=True)
    for index in sorted({r["index"] for r in rows}):
        path = os.path.join(ctx.plots, "%s-%s.png" % (kind, index.replace("/", "-")))
        plot(rows, index, path)
        plots[index] = os.path.relpath(path, ROOT)
    return plots


class Runner:
    def __init__(self, ctx):
        self.ctx = ctx
        self.results = {}
        self.machine = None

    def save(self, name, result, started_notes):
        result["section_notes"] = self.ctx.notes[started_notes:]
        result["args"] = saved_args(self.ctx.args)
        result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
        write_json(os.path.join(self.ctx.results, name + ".json"), result)
        self.results[name] = result

    def run(self):
        ctx, args = self.ctx, self.ctx.args
        n0 = len(ctx.notes)
        self.machine = machine_mod.describe(ctx)
        ctx.engine = "uring" if self.machine["io_uring"]["io_uring_setup"] == "ok" else "pread"
        if ctx.engine != "uring":
            ctx.notes.append("io_uring unavailable (%s): issue-5 runs use --engine pread"
                             % self.machine["io_uring"]["io_uring_setup"])
            args.engines = ",".join(e for e in args.engines.split(",") if e != "uring")
        if not ctx.cgroups.available:
            ctx.notes.append("memory cgroup: " + ctx.cgroups.reason)
        write_json(os.path.join(ctx.results, "machine.json"), self.machine)
        if "machine" in args.sections:
            self.save("machine", {"machine": self.machine}, n0)
        sections = args.sections
        device = None
        if "device" in sections or any(s in sections for s in ("query", "prune")):
            dev_json = os.path.join(ctx.results, "device.json")
            if "device" not in sections and os.path.exists(dev_json):
                device = read_json(dev_json)
                log("device: using the fio limit measured at %s (%s)" % (device.get("finished"), dev_json))
            else:
                n0 = len(ctx.notes)
                device = device_mod.measure(ctx)
                self.save("device", device, n0)
        if not any(s in sections for s in ("data", "build") + MEASURED):
            return
        n0 = len(ctx.notes)
        data = data_mod.prepare(ctx)
        if "data" in sections:
            g = data["sets"]
            self.save("data", {
                "collections": [{k: v for k, v in c.items() if k not in ("files",)} for c in data["collections"].values()],
                "synth": data["synth"], "sim_command": next((c.get("command") for c in data["collections"].values()
                                                             if c.get("command")), None),
                "genes": {"counts": {k: len(v) for k, v in g["records"].items()}, "sources": g["sources"],
                          "cold_inserted": g["cold_inserted"], "batch_inserted": g["batch_inserted"],
                          "cold": [n for n, _ in g["records"]["cold"]]}}, n0)
        n0 = len(ctx.notes)
        indexes, build_rows = build_mod.build_all(ctx, data)
        if "build" in sections:
            write_csv(os.path.join(ctx.results, "build.csv"), build_rows)
            self.save("build", {"rows": build_rows, "indexes": indexes}, n0)
        sets = data["sets"]
        if "query" in sections:
            n0 = len(ctx.notes)
            rows = query_mod.sweep(ctx, select(ctx, indexes, "query"), sets, device)
            summary = query_mod.summarize(rows)
            write_csv(os.path.join(ctx.results, "query.csv"), rows)
            write_csv(os.path.join(ctx.results, "query-summary.csv"), summary)
            plots = plot_per_index(ctx, "latency", rows, report.plot_latency)
            if ctx.have_plots:
                path = os.path.join(ctx.plots, "time-vs-index-size.png")
                report.plot_time_vs_size(summary, path)
                plots["time_vs_size"] = os.path.relpath(path, ROOT)
            self.save("query", {"summary": summary, "genes": args.genes, "plots": plots,
                                "cgroup": self.cgroup_text()}, n0)
        if "prune" in sections:
            n0 = len(ctx.notes)
            rows = issue5.prune(ctx, select(ctx, indexes, "prune"), sets, device)
            write_csv(os.path.join(ctx.results, "prune.csv"), rows)
            self.save("prune", {"summary": issue5.prune_summary(rows), "genes": min(args.prune_genes, len(sets["records"]["cold"]))}, n0)
        if "batch" in sections:
            n0 = len(ctx.notes)
            rows = issue5.batch(ctx, select(ctx, indexes, "batch"), sets)
            write_csv(os.path.join(ctx.results, "batch.csv"), rows)
            self.save("batch", {"summary": issue5.batch_summary(rows), "genes": len(sets["records"]["batch"])}, n0)
        if "cache" in sections:
            n0 = len(ctx.notes)
            rows = issue5.cache(ctx, select(ctx, indexes, "cache"), sets)
            write_csv(os.path.join(ctx.results, "cache.csv"), rows)
            self.save("cache", {"summary": issue5.cache_summary(rows), "genes": len(sets["records"]["cold"])}, n0)
        if "warmup" in sections:
            n0 = len(ctx.notes)
            rows, timelines = issue5.warmup(ctx, select(ctx, indexes, "warmup"), sets)
            write_csv(os.path.join(ctx.results, "warmup.csv"), rows)
            write_json(os.path.join(ctx.results, "warmup-timelines.json"), timelines)
            plots = plot_per_index(ctx, "warmup", timelines, report.plot_warmup)
            self.save("warmup", {"summary": issue5.warmup_summary(rows), "genes": len(sets["records"]["stream"]),
                                 "window": max(3, min(args.warm_window, len(sets["records"]["stream"]) // 5)),
                                 "plots": plots}, n0)

    def cgroup_text(self):
        c = self.ctx.cgroups
        if c.available:
            return "a memory cgroup limited to %d MiB (%s; the ram engine's and the cache runs' limits are " \
                   "raised by what they hold)" % (self.ctx.args.cgroup_limit >> 20, c.describe())
        return "no memory cgroup (%s)" % c.reason

    def write_report(self):
        ctx = self.ctx
        blocks = {}
        for name in SECTIONS:
            if name in self.results:
                res = self.results[name]
                base = ctx.args
                ctx.args = argparse.Namespace(**{**vars(base), **(res.get("args") or {})})
                try:
                    blocks[name] = report.render(ctx, name, self.machine, res if name != "machine" else self.machine)
                finally:
                    ctx.args = base
        if ctx.quick or ctx.args.no_publish:
            path = os.path.join(ctx.results, "BENCHMARKS.%s.md" % ("quick" if ctx.quick else "scratch"))
            if os.path.exists(path):
                os.unlink(path)
            report.update_markdown(path, blocks)
        elif blocks:
            report.update_markdown(os.path.join(ROOT, "BENCHMARKS.md"), blocks)


def saved_args(args):
    """The options a section ran with, so a re-render shows the command actually used."""
    return {k: v for k, v in vars(args).items()
            if k not in ("sections", "report_only", "defaults", "only") and isinstance(v, (str, int, float, bool, list, type(None)))}


def report_only(ctx):
    """Re-renders BENCHMARKS.md from the JSON results of --date, each section with the
    options it was measured with."""
    runner = Runner(ctx)
    mpath = os.path.join(ctx.results, "machine.json")
    if not os.path.exists(mpath):
        raise BenchError("no results in %s (use --date)" % ctx.results)
    runner.machine = read_json(mpath)
    for name in SECTIONS:
        p = os.path.join(ctx.results, name + ".json")
        if os.path.exists(p):
            runner.results[name] = read_json(p)
    runner.write_report()





def main(argv):
    args = parse_args(argv)
    started = time.monotonic()
    ctx = Context(args)
    ok = False
    try:
        log("bitsift benchmark suite: %s; work dir %s; results %s" % (
            "quick" if ctx.quick else ("re-render the report" if args.report_only
                                       else "sections " + ",".join(args.sections)), ctx.work, ctx.results))
        if os.geteuid() != 0:
            log("note: not root: cold runs use POSIX_FADV_DONTNEED, no memory cgroup")
        os.makedirs(ctx.results, exist_ok=True)
        if args.report_only:
            report_only(ctx)
            ok = True
            return 0
        prepare_binaries(ctx)
        check_python_deps(ctx)
        runner = Runner(ctx)
        runner.run()
        runner.write_report()
        if ctx.notes:
            log("notes:\n  - " + "\n  - ".join(ctx.notes))
        log("done in %.0f s (%d cache drops, %.1f s dropping); results in %s" % (
            time.monotonic() - started, ctx.cache.calls, ctx.cache.seconds, ctx.results))
        ok = True
        return 0
    except BenchError as e:
        log("error: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    except Exception:  # noqa: BLE001 - a bug in the suite is a failure too
        log("error: unexpected exception:\n" + traceback.format_exc())
        return 1
    finally:
        ctx.cgroups.cleanup()
        shutil.rmtree(ctx.tmp, ignore_errors=True)
        if ctx.quick and not args.keep_quick_dir:
            shutil.rmtree(ctx.work, ignore_errors=True)
        elif ctx.quick:
            log("kept %s" % ctx.work)
        if not ok:
            log("FAILED")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
