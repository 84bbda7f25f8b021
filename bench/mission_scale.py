#!/usr/bin/env python3
"""A rehearsal at the mission's scale: a 661k-like simulated collection built through the
Snakemake workflow, grown by 1 %, thinned by 0.1 % and merged, then measured cold under a
memory cap: open time, one gene at a time per query class (with a lower bound of the bytes
and a check for false negatives against the simulator's truth), a 1,000-gene batch, the
server at 1, 8 and 32 clients, the Python package, and COBS on the largest shard.

    bench/mission_scale.sh [--genomes 661405] [--genome-size 20000] [--cap 2G]
                           [--out bench/artifacts/mission] [--sim DIR] ...

(bench/mission_scale.sh checks the tools, builds the binaries and Snakemake, then runs this
script with --bitsift, --simulate and --snakemake.) Standard library only; runs as root to
drop the page cache and to cap the measured processes with a memory cgroup (without root or
a memory cgroup it says so and measures without).

Steps (each writes its results into OUT/summary.json as soon as it ends):

 1. simulate  bitsift-simulate with the flags of crates/simulate/README.md ("A 661k-like
              collection"), N + 1 % genomes (--seed 1), or reuse --sim DIR when its
              collection.json has the same parameters. A simulation of exactly N genomes (such as
              /work/rehearsal/sim661k) is used as it is: the workflow then builds its first
              N - 1 % genomes and the last 1 % are added.
 2. build     the workflow (workflow/Snakefile, order group:species with the simulator's
              metadata, block summaries and checksums) in shards of --shard-documents; the
              collection just built is measured (open, genes per class);
              then `bitsift add` of the held-out 1 %, `bitsift remove` of 0.1 % (evenly spaced),
              `bitsift merge`, `bitsift verify`.
 3. measure   on the final collection, each cold (page cache dropped) and in the memory cgroup:
              open, genes per class (+ --no-summaries for absent and accessory), a batch of
              1,000 genes, the server, the Python package, and COBS against bitsift on the
              largest shard (the COBS-built file itself, and the workflow's shard index).
              --profiles none,cloud,hdd repeats open, genes, batch, server and COBS under
              each frugal disk profile (bench/frugal.sh, bench/suite/frugal.py): the kernel
              throttles the reads of the disk holding OUT (cloud: 3,000 IOPS and 125 MiB/s;
              hdd: 200 IOPS and 150 MiB/s) and --cap caps memory; hdd measures --hdd-genes
              genes a class. Results per profile in summary.json's profiles.NAME.
 4. report    OUT/summary.json, OUT/genes.csv (one row per cold gene run, with its profile),
              OUT/commands.sh (every command, in order), and a table on standard output: per
              profile, class -> read requests, bytes, wall p50/p99.

Cost of the profiles. Every cold process reads its binary and libraries through the throttle
too (the page cache is dropped): at the small scale ~300 of a bitsift query's ~400 device
requests, ~1,800 for COBS's Python worker. The small run's cloud pass takes about 70 s (a gene
~0.16 s, COBS ~0.5 s); under hdd a gene takes ~2 s and a COBS search ~8 s.

Exit status 0 when everything ran and checked out; 1 when a command failed, a gene was
missed (a false negative), a removed genome was reported, a required result is missing, or
hits disagree with COBS. (A Python package that cannot be built is recorded and skipped.)

Cost. The small run (--genomes 2048 --genome-size 5000 --cap 1G) takes about a minute, plus
the first build of the Python package (pip install ./python: 1-5 minutes with a cold cargo
target directory). 70,000 genomes of genome size 5000 took 3 minutes and 4 GB of /tmp. At
the full scale, the index is about 11 GB (21 blocks of 4 KiB rows): the shard indexes and the
merged copy coexist until the merge ends (then all shards but the largest are deleted unless
--keep-shards), so plan on about 25 GB besides the simulation, whose 661,405 genomes take
21 GB more unless an existing one is reused: `--sim /work/rehearsal/sim661k` (read only here;
its 661,405 genomes are then built as 654,790 + 6,615 added). Expect a few hours, most of it
the workflow's build (about 20 GB of FASTA on 2 cores) and the COBS build of one shard.
"""

import argparse
import csv
import hashlib
import http.client
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "peer"))

import loadtest  # noqa: E402  (bench/loadtest.py: client(), free_port(), memory_kib())
from cobs_peer import read_index_header  # noqa: E402  (tests/peer/cobs_peer.py)
from suite import frugal  # noqa: E402  (bench/suite/frugal.py: the frugal disk profiles)
from suite.cgroup import Cgroups  # noqa: E402
from suite.util import BenchError, parse_size, read_fasta, run, write_fasta  # noqa: E402

CLASSES = ("core", "accessory", "mobile", "absent", "universal")
GNU_TIME = "/usr/bin/time"
TRAIN = "data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz"
AMR_GENES = "data/demo/queries/amr_genes.fa"
# crates/simulate/README.md, "A 661k-like collection"; --genomes and --genome-size scale it.
SIM_FLAGS = [
    ("--species", "2800"), ("--species-skew", "1.64"), ("--clades", "32"),
    ("--accessory-genes", "20"), ("--gene-length", "300-2000"), ("--contigs", "1-10"),
    ("--plasmids", "30"), ("--plasmid-host-bias", "1"), ("--universal-genes", "3"),
    ("--query-species", "16"), ("--query-genes", "2"), ("--train", TRAIN),
    ("--genes", AMR_GENES), ("--seed", "1"),
]
# The same, as collection.json records them (parameters), for reusing a simulation.
SIM_PARAMS = {
    "species": 2800, "species_skew": 1.64, "clades": 32, "accessory_genes": 20,
    "gene_length": "300-2000", "contigs": "1-10", "plasmids": 30, "plasmid_host_bias": 1.0,
    "universal_genes": 3, "query_species": 16, "query_genes": 2, "gzip": False,
    "truth_k": 31,
}
REQUIRED_KEYS = ("genomes", "index_bytes", "side_bytes", "cap_bytes", "open_ms",
                 "open_peak_rss_bytes", "gene_p50_ms", "gene_p99_ms", "batch_1000_s", "server")
STARTED = time.monotonic()


def log(message):
    sys.stderr.write("mission [%5.0fs] %s\n" % (time.monotonic() - STARTED, message))
    sys.stderr.flush()


def quote(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def human(n):
    if n is None:
        return "-"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return ("%.0f %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024


def pct(values, fraction):
    """Nearest-rank percentile (p99 of 20 values is the largest)."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    return vals[max(0, min(len(vals) - 1, math.ceil(fraction * len(vals)) - 1))]


def mean(values):
    vals = [v for v in values if v is not None]
    return statistics.fmean(vals) if vals else None


def median(values):
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def rnd(value, digits=1):
    return None if value is None else round(value, digits)


def ratio(a, b):
    return None if a is None or not b else a / b


def dir_bytes(path):
    total = 0
    for base, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(base, f))
            except OSError:
                pass
    return total


# ------------------------------------------------------------------------------------------
# k-mers (COBS's canonical rule, README "Bases, case and k-mers"), for the lower bound of bytes

COMPLEMENT = str.maketrans("ACGT", "TGCA")


def distinct_kmers(seq, k=31):
    seq = seq.upper()
    rc = seq.translate(COMPLEMENT)[::-1]
    n = len(seq)
    half = k // 2
    seen = set()
    for i in range(n - k + 1):
        kmer = seq[i:i + k]
        rev = rc[n - i - k:n - i]
        keep = kmer
        for j in range(half):
            if kmer[j] != rev[j]:
                keep = kmer if kmer[j] < rev[j] else rev
                break
        seen.add(keep)
    return len(seen)


# ------------------------------------------------------------------------------------------
# the run: commands, cold caches, the memory cgroup, partial results


class Mission:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)
        self.tmp = os.path.join(self.out, "tmp")
        os.makedirs(self.tmp, exist_ok=True)
        self.logs = os.path.join(self.out, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.summary_path = os.path.join(self.out, "summary.json")
        self.commands_path = os.path.join(self.out, "commands.sh")
        self.commands = []  # (section, command line)
        self.failures = []
        self.notes = []
        self.gene_rows = []
        self.removed = set()
        self.summary = {
            "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "status": "running",
            "arguments": vars(args),
            "machine": machine(),
        }
        self.section = "setup"
        # cold caches
        self.can_drop = os.geteuid() == 0 and os.access("/proc/sys/vm/drop_caches", os.W_OK)
        self.summary["cold"] = ("sync; echo 3 > /proc/sys/vm/drop_caches before every cold measurement"
                                if self.can_drop else
                                "not root: POSIX_FADV_DONTNEED on the index files instead of drop_caches")
        if not self.can_drop:
            self.note("not root: the page cache is not dropped; POSIX_FADV_DONTNEED on the "
                      "index files is used instead (other files stay cached)")
        # memory cgroup (profile none), or the frugal profiles' throttle + the same cap
        self.cgroups = Cgroups(enabled=not args.no_cgroup)
        self.group = None
        self.groups = {}  # profile -> cgroup.Group (or None: no cgroup)
        if self.cgroups.available:
            self.groups["none"] = self.cgroups.group(args.cap)
            self.summary["cgroup"] = {"mode": self.cgroups.mode, "path": self.groups["none"].path,
                                      "limit_bytes": args.cap, "describe": self.cgroups.describe()}
        else:
            self.groups["none"] = None
            self.summary["cgroup"] = {"mode": None, "reason": self.cgroups.reason}
            self.note("no memory cap (%s): measured processes run without one" % self.cgroups.reason)
        self.summary["cap_bytes"] = args.cap
        self.summary["cap_applied"] = self.groups["none"] is not None
        # Every profile's memory cap is --cap (default 2G, the profiles' 2 GiB); the throttled
        # ones add the kernel's read limits on the disk holding OUT (suite/frugal.py).
        self.summary["profiles"] = {}
        for name in args.profiles:
            prof = frugal.PROFILES[name]
            entry = {"read_iops": prof.iops, "read_bps": prof.bps, "memory_bytes": args.cap,
                     "about": prof.about}
            if prof.throttled:
                capped = frugal.Profile(name, prof.iops, prof.bps, args.cap, prof.about)
                group = frugal.profile_group(self.cgroups, capped, self.out)
                self.groups[name] = group
                entry.update({"device": group.throttle.name, "cgroup": group.describe(),
                              "cgroup_dirs": group.dirs})
            elif self.groups["none"] is not None:
                entry["cgroup"] = self.groups["none"].describe()
            self.summary["profiles"][name] = {"limits": entry}
        if len(args.profiles) > 1 or args.profiles[0] != "none":
            self.summary["cgroup"]["describe"] = self.cgroups.describe()
        self.profile = None
        self.use_profile(args.profiles[0])
        self.write_commands_header()
        self.save()

    def use_profile(self, name):
        """Measured processes from now on run under profile `name` (its cgroup)."""
        self.profile = name
        self.group = self.groups[name]

    @property
    def first_profile(self):
        return self.profile == self.args.profiles[0]

    def put(self, key, value):
        """Stores a result of the current profile: under profiles[NAME], and for the first
        profile (by default none, today's run) at the top level too, where it always was."""
        self.summary["profiles"][self.profile][key] = value
        if self.first_profile:
            self.summary[key] = value

    def capped_prefix(self, name=None):
        """The commands.sh function a measured process of profile `name` runs through."""
        name = name or self.profile
        return "frugal_" + name if frugal.PROFILES[name].throttled else "capped"

    def write_commands_header(self):
        """commands.sh replays the run: `cold` drops the page cache, `capped` runs a command in
        a memory cgroup with the run's limit (as the measured processes ran), `frugal_cloud`
        (and so on) under a frugal disk profile through bench/frugal.sh."""
        lines = ["#!/usr/bin/env bash",
                 "# Every command bench/mission_scale.py ran, in order (%s)." % self.summary["started"],
                 "set -e", "cd %s" % shlex.quote(ROOT),
                 "cold() { sync; echo 3 > /proc/sys/vm/drop_caches; }"]
        none = self.groups["none"]
        if none is not None and self.cgroups.mode == "v1":
            lines += ["G=%s" % shlex.quote(none.path),
                      "mkdir -p \"$G\" && echo %d > \"$G/memory.limit_in_bytes\"" % self.args.cap,
                      "capped() { (echo $BASHPID > \"$G/tasks\" && exec \"$@\"); }"]
        elif none is not None:
            lines += ["G=%s" % shlex.quote(none.path),
                      "mkdir -p \"$G\" && echo %d > \"$G/memory.max\"" % self.args.cap,
                      "capped() { (echo $BASHPID > \"$G/cgroup.procs\" && exec \"$@\"); }"]
        else:
            lines += ["capped() { \"$@\"; }  # this run had no memory cgroup"]
        for name in self.args.profiles:
            if frugal.PROFILES[name].throttled:
                # the profile's throttle and the run's cap, in a cgroup of their own
                lines.append("%s() { bench/frugal.sh %s --memory %d --device-of %s --quiet -- \"$@\"; }" % (
                    self.capped_prefix(name), name, self.args.cap, shlex.quote(self.out)))
        with open(self.commands_path, "w") as f:
            f.write("\n".join(lines) + "\n")

    # -- bookkeeping ---------------------------------------------------------------------

    def note(self, text):
        log("NOTE: " + text)
        self.notes.append(text)

    def fail(self, text):
        log("FAIL: " + text)
        self.failures.append(text)

    def save(self):
        self.summary["notes"] = self.notes
        self.summary["failures"] = self.failures
        self.summary["elapsed_s"] = round(time.monotonic() - STARTED, 1)
        tmp = self.summary_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.summary, f, indent=1, default=str)
            f.write("\n")
        os.replace(tmp, self.summary_path)

    def record(self, cmd, cwd=None, env=None, measured=False, cold=False, stdin=None,
               background=False, comment=None):
        """Writes the command to commands.sh (and prints it): as a measured process it is
        `cold; capped CMD`; stdin: a shell expression piped into it."""
        line = quote(cmd)
        if env:
            line = "env %s %s" % (" ".join("%s=%s" % (k, shlex.quote(str(v))) for k, v in env.items()),
                                  line)
        if measured:
            line = self.capped_prefix() + " " + line
        if stdin:
            line = stdin + " | " + line
        if cwd and os.path.abspath(cwd) != ROOT:
            line = "(cd %s && %s)" % (shlex.quote(cwd), line)
        if background:
            line += " &"
        if cold:
            line = "cold; " + line
        if comment:
            line += "  # " + comment
        self.commands.append((self.section, line))
        with open(self.commands_path, "a") as f:
            f.write(line + "\n")
        if not self.args.quiet_commands:
            sys.stderr.write("$ %s\n" % (line if len(line) < 400 else line[:400] + "..."))
        return line

    def begin(self, section):
        self.section = section
        with open(self.commands_path, "a") as f:
            f.write("\n# --- %s\n" % section)
        log("=== %s" % section)

    # -- processes -----------------------------------------------------------------------

    def sh(self, cmd, *, cwd=None, env=None, stdout_path=None, timeout=None, what=None, check=True):
        """An unmeasured step (simulate, build, add...): runs cmd and returns Completed."""
        self.record(cmd, cwd=cwd, env=env)
        return run(cmd, cwd=cwd, env=env, stdout_path=stdout_path, timeout=timeout, what=what,
                   check=check)

    def drop_caches(self, files=()):
        if self.can_drop:
            os.sync()
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
            return
        for path in files:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)

    def reset_peak(self):
        if self.group is not None:
            self.group.reset_peak()

    def device_reads(self, since=None):
        """(read requests, bytes) the kernel's io controller counted for the current profile's
        cgroup on its disk (throttled profiles only; everything the processes read: binary,
        libraries, index), since `since` when given; (None, None) otherwise."""
        if self.group is None:
            return None, None
        now = self.group.reads()
        if since is None or now[0] is None or since[0] is None:
            return now
        return now[0] - since[0], now[1] - since[1]

    def cgroup_peak(self):
        """Peak memory of the cgroup since reset_peak (page cache included; v2: since it was
        made)."""
        return self.group.peak() if self.group is not None else None

    def measured(self, cmd, *, cold=True, cold_files=(), stdout_path=None, env=None, what=None,
                 timeout=None):
        """A measured process: page cache dropped first (cold), run in the memory cgroup (or the
        current frugal profile's). Returns (Completed, cgroup peak bytes)."""
        self.record(cmd, env=env, measured=True, cold=cold)
        if cold:
            self.drop_caches(cold_files)
        self.reset_peak()
        # Peak RSS from GNU time, which forks the command from its own small process: wait4's
        # ru_maxrss of a child forked from this script counts this script's pages too (the
        # child's memory before exec), hundreds of MB once the truth table is loaded.
        rss_file = os.path.join(self.tmp, "rss")
        wrapped = list(cmd)
        if os.access(GNU_TIME, os.X_OK):
            wrapped = [GNU_TIME, "-f", "%M", "-o", rss_file] + wrapped
        before = self.device_reads()
        done = run(wrapped, cgroup=self.group, env=env, stdout_path=stdout_path, what=what,
                   timeout=timeout or self.args.timeout)
        done.device_reads = self.device_reads(before)
        if wrapped[0] == GNU_TIME:
            with open(rss_file) as f:
                done.rusage["max_rss_bytes"] = int(f.read().split()[-1]) * 1024
        return done, self.cgroup_peak()

    def bitsift_query(self, index, fasta, extra=(), *, cold=True, what="bitsift query"):
        cmd = [self.args.bitsift, "query", "-i", index, "-f", fasta, "-t", "%g" % self.args.threshold,
               "--format", "json"] + list(extra)
        out = os.path.join(self.tmp, "query-out.json")
        done, peak = self.measured(cmd, cold=cold, cold_files=index_files(index), stdout_path=out,
                                   what=what)
        with open(out) as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                raise BenchError("%s: output is not JSON: %s" % (what, e))
        os.unlink(out)
        batches = {b.get("batch"): b for b in doc.get("batches", [])}
        for q in doc.get("queries", []):
            stats = q.get("stats") or {}
            for key, value in batches.get(stats.get("batch"), {}).items():
                stats.setdefault(key, value)
        return done, doc, peak


def index_files(path):
    if os.path.isdir(path):
        return [os.path.join(b, f) for b, _, fs in os.walk(path) for f in fs]
    return [p for p in (path, path + ".bitsift-summaries", path + ".bitsift-checksums")
            if os.path.exists(p)]


def machine():
    info = {"cpus": os.cpu_count()}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(("MemTotal:", "MemAvailable:")):
                    info[line.split(":")[0]] = int(line.split()[1]) * 1024
    except OSError:
        pass
    info["kernel"] = os.uname().release
    try:
        info["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                        text=True).stdout.strip()
        info["dirty"] = bool(subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src"],
                                            capture_output=True, text=True).stdout.strip())
    except OSError:
        pass
    return info


# ------------------------------------------------------------------------------------------
# 1. the simulation


def held_out(n):
    return max(1, math.ceil(n / 100))


def sim_matches(params, args):
    """Why the recorded parameters do not fit this run ('' when they do)."""
    why = []
    for key, want in list(SIM_PARAMS.items()) + [("genome_size", args.genome_size)]:
        have = params.get(key)
        if isinstance(want, float) and isinstance(have, (int, float)):
            same = abs(float(have) - want) < 1e-9
        else:
            same = have == want
        if not same:
            why.append("%s=%r (want %r)" % (key, have, want))
    for key, want in (("train", TRAIN), ("genes", AMR_GENES)):
        if os.path.basename(str(params.get(key))) != os.path.basename(want):
            why.append("%s=%r (want %r)" % (key, params.get(key), want))
    if params.get("genomes", 0) < args.genomes:
        why.append("genomes=%r (want at least %d)" % (params.get("genomes"), args.genomes))
    return "; ".join(why)


def simulate(m):
    args = m.args
    m.begin("simulate")
    sim = os.path.abspath(args.sim) if args.sim else os.path.join(m.out, "sim")
    wanted = args.genomes + held_out(args.genomes)
    manifest = os.path.join(sim, "collection.json")
    reused = False
    if os.path.exists(manifest):
        with open(manifest) as f:
            recorded = json.load(f)
        params = dict(recorded.get("parameters", {}))
        params["seed"] = recorded.get("seed", params.get("seed"))
        why = sim_matches(params, args)
        if params.get("seed") != 1:
            why = (why + "; " if why else "") + "seed=%r (want 1)" % params.get("seed")
        if not why:
            reused = True
            log("simulate: reusing %s (%d genomes)" % (sim, params["genomes"]))
        elif args.sim:
            raise BenchError("--sim %s: its parameters do not fit this run (%s); give another "
                             "directory (it is never overwritten)" % (sim, why))
        else:
            log("simulate: %s does not fit (%s): simulating again" % (sim, why))
    elif args.sim and os.path.isdir(sim) and os.listdir(sim):
        raise BenchError("--sim %s: not empty and without collection.json (an unfinished "
                         "simulation?); give an empty or new directory" % sim)
    seconds = None
    if not reused:
        cmd = [args.simulate, "-o", sim, "--genomes", wanted, "--genome-size", args.genome_size]
        for flag, value in SIM_FLAGS:
            cmd += [flag, value]
        cmd += ["-q"]
        if os.path.exists(manifest) and not args.sim:
            cmd += ["--force"]
        started = time.perf_counter()
        done = m.sh(cmd, cwd=ROOT, what="bitsift-simulate", timeout=None)
        seconds = time.perf_counter() - started
        with open(manifest) as f:
            recorded = json.load(f)
        m.summary["simulate_rss_bytes"] = done.rusage["max_rss_bytes"]
    total = recorded["parameters"]["genomes"]
    names = read_documents(os.path.join(sim, "metadata.tsv"))
    if len(names) != total:
        raise BenchError("%s: metadata.tsv lists %d genomes, collection.json says %d"
                         % (sim, len(names), total))
    n = args.genomes
    hold = held_out(n)
    if total >= n + hold:
        base, held = names[:n], names[n:n + hold]
        layout = "built the first %d genomes, added the next %d" % (n, hold)
    else:  # a simulation of exactly N (e.g. /work/rehearsal/sim661k): N in all, 1 % of it added
        base, held = names[:n - hold], names[n - hold:n]
        layout = ("the simulation has %d genomes (< N + 1 %%): built the first %d, added the next "
                  "%d, so the collection ends with N = %d before removals" % (total, n - hold, hold, n))
        m.note(layout)
    m.sim = sim
    m.sim_total = total
    m.base_names, m.held_names = base, held
    m.summary["simulation"] = {
        "dir": sim, "reused": reused, "seconds": rnd(seconds, 2), "genomes_simulated": total,
        "genomes_built": len(base), "genomes_added": len(held), "layout": layout,
        "bytes": dir_bytes(sim) if not reused or total < 100000 else None,
        "counts": {k: recorded.get("counts", {}).get(k) for k in
                   ("species_with_genomes", "species_top20_share", "total_bases",
                    "genome_fasta_bytes")},
    }
    # disk: the index is about half to 0.8 x the FASTA bytes of its genomes; the shard indexes
    # and the merged copy coexist until the merge is done (then all shards but the largest go)
    fasta = recorded.get("counts", {}).get("genome_fasta_bytes")
    if fasta:
        index_estimate = 0.8 * fasta * (len(base) + len(held)) / total
        needed = 2.3 * index_estimate
        st = os.statvfs(m.out)
        free = st.f_bavail * st.f_frsize
        m.summary["simulation"]["disk"] = {"index_estimate_bytes": int(index_estimate),
                                           "needed_estimate_bytes": int(needed), "free_bytes": free}
        if free < needed:
            m.note("disk: %s free on %s, and the run may need about %s (index ~%s, twice during "
                   "the merge, and COBS's shard index)" % (human(free), m.out, human(needed),
                                                            human(index_estimate)))
    m.summary.setdefault("steps_s", {})["simulate"] = rnd(seconds, 2)
    m.save()


def read_documents(metadata):
    with open(metadata) as f:
        next(f)
        return [line.split("\t", 1)[0] for line in f if line.strip()]


def write_metadata_subset(source, target, names):
    keep = set(names)
    with open(source) as f, open(target, "w") as out:
        out.write(next(f))
        for line in f:
            if line.split("\t", 1)[0] in keep:
                out.write(line)


# ------------------------------------------------------------------------------------------
# genes: the per-class sets, the truth table, the collection's layout


def load_genes(m):
    per_class = {}
    for cls in CLASSES:
        path = os.path.join(m.sim, "queries_%s.fa" % cls)
        if not os.path.exists(path):
            raise BenchError("%s is missing (simulated without --universal-genes?)" % path)
        records = read_fasta(path)
        g = min(m.args.genes_per_class, len(records))
        # evenly spaced over the file, which lists the query species from the largest down
        picks = sorted({int(i * len(records) / g) for i in range(g)})
        per_class[cls] = [records[i] for i in picks]
    gdir = os.path.join(m.out, "genes", "one")
    os.makedirs(gdir, exist_ok=True)
    m.genes = []  # dicts: class, name, seq, path, distinct
    for cls in CLASSES:
        for name, seq in per_class[cls]:
            path = os.path.join(gdir, "%s.fa" % re.sub(r"[^A-Za-z0-9_.-]", "_", name))
            write_fasta(path, [(name, seq)])
            m.genes.append({"class": cls, "name": name, "seq": seq, "path": path,
                            "distinct_kmers": distinct_kmers(seq)})
    wanted = {g["name"] for g in m.genes}
    started = time.perf_counter()
    truth = {name: [] for name in wanted}
    with open(os.path.join(m.sim, "queries_truth.tsv")) as f:
        next(f)
        for line in f:
            query, rest = line.split("\t", 1)
            if query in truth:
                _, genome, found, total = rest.rstrip("\n").split("\t")
                found, total = int(found), int(total)
                if found >= math.ceil(m.args.threshold * total):
                    truth[query].append(genome)
    m.truth = truth
    log("genes: %s; truth table read in %.1f s" % (
        ", ".join("%d %s" % (len(per_class[c]), c) for c in CLASSES), time.perf_counter() - started))


def collection_layout(m, coll):
    """name -> (sub-index file, block) of every shown document, and per (file, block) the
    row count, page size and row layout, from `bitsift info --json --documents`."""
    done = m.sh([m.args.bitsift, "info", "--json", "--documents", coll], what="bitsift info")
    info = json.loads(done.stdout)
    shown = {}
    for file, name in info["document_names"]:
        shown.setdefault(file, set()).add(name)
    where, blocks = {}, {}
    for sub in info["subindexes"]:
        path = os.path.join(coll, sub["file"])
        sdone = m.sh([m.args.bitsift, "info", "--json", "--documents", path], what="bitsift info")
        sinfo = json.loads(sdone.stdout)
        per_block = sinfo["documents_per_block"]
        for b, rows in enumerate(sinfo["block_rows"]):
            blocks[(sub["file"], b)] = {"rows": rows, "page_size": sinfo["page_size"],
                                        "hashes": sinfo["hashes"], "layout": sinfo["layout"]}
        names = shown.get(sub["file"], set())
        for pos, name in enumerate(sinfo["document_names"]):
            if name in names:
                where[name] = (sub["file"], pos // per_block)
    return info, where, blocks


def lower_bound_bytes(carrier_blocks, blocks, kmers):
    """One row read per distinct k-mer (and hash) per block holding a carrier, at least one
    4 KiB page each: kmers x 4096 bytes per block with 4 KiB rows; with smaller rows, the
    expected number of distinct 4 KiB pages that many random rows fall in."""
    total = 0.0
    for key in carrier_blocks:
        b = blocks[key]
        reads = kmers * b["hashes"]
        if b["page_size"] >= 4096:
            total += reads * b["page_size"]
        else:
            pages = max(1, math.ceil(b["rows"] * b["page_size"] / 4096))
            total += 4096 * pages * (1 - (1 - 1 / pages) ** reads)
    return int(total)


def sizes(coll):
    index = summaries = checksums = 0
    with open(os.path.join(coll, "collection.json")) as f:
        manifest = json.load(f)
    for sub in manifest["subindexes"]:
        path = os.path.join(coll, sub["file"])
        index += os.path.getsize(path)
        for suffix in (".bitsift-summaries", ".bitsift-checksums"):
            if os.path.exists(path + suffix):
                size = os.path.getsize(path + suffix)
                if suffix == ".bitsift-summaries":
                    summaries += size
                else:
                    checksums += size
    return {"index_bytes": index, "side_bytes": summaries + checksums,
            "summary_bytes": summaries, "checksum_bytes": checksums,
            "subindexes": len(manifest["subindexes"])}


# ------------------------------------------------------------------------------------------
# 2. the workflow build, add, remove, merge


def build(m):
    args = m.args
    m.begin("build (Snakemake)")
    wf = os.path.join(m.out, "wf")
    if os.path.exists(wf):
        shutil.rmtree(wf)
    os.makedirs(wf)
    base_meta = os.path.join(wf, "metadata-base.tsv")
    write_metadata_subset(os.path.join(m.sim, "metadata.tsv"), base_meta, m.base_names)
    started = time.perf_counter()
    m.sh([sys.executable, os.path.join(ROOT, "workflow/scripts/sheet_from_metadata.py"), m.sim,
          "--metadata", base_meta, "-o", os.path.join(wf, "samples.tsv")], what="sheet_from_metadata.py")
    sheet_s = time.perf_counter() - started
    per_shard = args.shard_documents or max(64, min(65536, math.ceil(len(m.base_names) / 4)))
    config = os.path.join(wf, "config.yaml")
    with open(config, "w") as f:
        f.write("bitsift: %s\nsamples: samples.tsv\ncollection: collection\nwork: work\n"
                "max_documents_per_shard: %d\nbuild_threads: %d\norder: group:species\n"
                "metadata: metadata-base.tsv\nsummaries: true\nlayout: %s\n"
                % (os.path.abspath(args.bitsift), per_shard, args.threads, args.layout))
    cmd = [args.snakemake, "-s", os.path.join(ROOT, "workflow/Snakefile"), "--configfile", config,
           "--profile", os.path.join(ROOT, "workflow/profiles/local"), "-d", wf, "build"]
    started = time.perf_counter()
    done = m.sh(cmd, what="snakemake (the workflow's build)",
                stdout_path=os.path.join(m.logs, "snakemake.log"), check=False)
    workflow_s = time.perf_counter() - started
    if done.returncode != 0:
        with open(os.path.join(m.logs, "snakemake.log")) as f:
            tail = f.read()[-3000:]
        raise BenchError("snakemake failed (exit %d): %s\n%s\n(full log: %s; shard logs: %s)" % (
            done.returncode, quote(cmd), tail, os.path.join(m.logs, "snakemake.log"),
            os.path.join(wf, "work/logs")))
    coll = os.path.join(wf, "collection")
    m.coll = coll
    m.wf = wf
    with open(os.path.join(wf, "work/shards/plan.tsv")) as f:
        plan = list(csv.DictReader(f, delimiter="\t"))
    shard_logs = {}
    for row in plan:
        try:
            with open(os.path.join(wf, "work/logs/build-%s.log" % row["shard"])) as f:
                text = f.read().strip().splitlines()
            shard_logs[row["shard"]] = text[-1] if text else ""
        except OSError:
            shard_logs[row["shard"]] = None
    m.plan = plan
    built = sizes(coll)
    m.summary["build"] = {
        "shard_documents": per_shard, "shards": len(plan), "plan": plan,
        "sheet_s": rnd(sheet_s, 2), "workflow_s": rnd(workflow_s, 2), "shard_logs": shard_logs,
        "config": open(config).read(), **built,
    }
    m.summary.setdefault("steps_s", {}).update({"sample_sheet": rnd(sheet_s, 2),
                                                 "workflow_build": rnd(workflow_s, 2)})
    if len(plan) < 2:
        m.fail("the workflow made %d shard(s); the rehearsal wants at least 2" % len(plan))
    log("build: %d shards of <= %d genomes in %.1f s; %s index + %s side files" % (
        len(plan), per_shard, workflow_s, human(built["index_bytes"]), human(built["side_bytes"])))
    m.save()


def grow(m):
    """add the held-out 1 %, remove 0.1 %, merge, verify."""
    args = m.args
    coll = m.coll
    m.begin("add / remove / merge")
    steps = m.summary.setdefault("steps_s", {})
    held_meta = os.path.join(m.wf, "metadata-held.tsv")
    write_metadata_subset(os.path.join(m.sim, "metadata.tsv"), held_meta, m.held_names)
    files = sim_files(m.sim)
    held_list = os.path.join(m.wf, "held-out.list")
    with open(held_list, "w") as f:
        for name in m.held_names:
            f.write(files[name] + "\n")
    with open(os.path.join(coll, "collection.json")) as f:
        pages = {s["page_size"] for s in json.load(f)["subindexes"]}
    cmd = [args.bitsift, "add", coll, "--list", held_list, "--order", "group:species",
           "--metadata", held_meta, "-T", args.threads]
    if len(pages) == 1 and not args.add_default_page_size:
        # the page size of the shards, so that merge can combine every sub-index
        cmd += ["-p", pages.pop()]
    started = time.perf_counter()
    m.sh(cmd, what="bitsift add")
    steps["add"] = rnd(time.perf_counter() - started, 2)
    # remove 0.1 %, evenly spaced over the names the collection shows
    info = json.loads(m.sh([args.bitsift, "info", "--json", "--documents", coll],
                           what="bitsift info").stdout)
    names = sorted(name for _, name in info["document_names"])
    count = max(1, round(len(names) / 1000))
    removed = [names[int((i + 0.5) * len(names) / count)] for i in range(count)]
    removed_file = os.path.join(m.wf, "removed.txt")
    with open(removed_file, "w") as f:
        f.write("".join(n + "\n" for n in removed))
    started = time.perf_counter()
    m.sh([args.bitsift, "remove", coll, "--documents", removed_file], what="bitsift remove")
    steps["remove"] = rnd(time.perf_counter() - started, 2)
    m.removed = set(removed)
    before = sizes(coll)
    started = time.perf_counter()
    done = m.sh([args.bitsift, "merge", coll, "--json"], what="bitsift merge")
    steps["merge"] = rnd(time.perf_counter() - started, 2)
    merge_plan = json.loads(done.stdout)
    started = time.perf_counter()
    m.sh([args.bitsift, "verify", coll], what="bitsift verify")
    steps["verify"] = rnd(time.perf_counter() - started, 2)
    freed = 0
    if not args.keep_shards:
        # The merge replaced the sub-indexes the shards were hard-linked to: the shard files
        # are now the only copies. Only the largest is used again (the COBS comparison).
        largest = max(m.plan, key=lambda r: (int(r["documents"]), int(r["input_bytes"])))["shard"]
        for row in m.plan:
            if row["shard"] == largest:
                continue
            base = os.path.join(m.wf, "work/indexes/%s.cobs_compact" % row["shard"])
            for path in (base, base + ".bitsift-summaries", base + ".bitsift-checksums"):
                if os.path.exists(path):
                    freed += os.path.getsize(path)
                    os.unlink(path)
        if freed:
            m.record(["rm", "-f", os.path.join(m.wf, "work/indexes/shard-*.cobs_compact*")],
                     comment="all but %s (--keep-shards keeps them)" % largest)
    after = sizes(coll)
    info = json.loads(m.sh([args.bitsift, "info", "--json", coll], what="bitsift info").stdout)
    m.summary["grow"] = {
        "added": len(m.held_names), "added_page_size": cmd[cmd.index("-p") + 1] if "-p" in cmd else None,
        "removed": removed, "removed_count": len(removed),
        "before_merge": before, "merge": merge_plan, "after_merge": after,
        "documents": info["documents"], "documents_hidden": info["documents_hidden"],
        "blocks": info["blocks"], "reads_per_kmer": info.get("reads_per_kmer"),
        "shard_files_deleted_bytes": freed,
    }
    m.summary["genomes"] = info["documents"]
    m.summary["index_bytes"] = after["index_bytes"]
    m.summary["side_bytes"] = after["side_bytes"]
    expected = len(m.base_names) + len(m.held_names) - len(removed)
    if info["documents"] != expected:
        m.fail("the merged collection shows %d documents, expected %d" % (info["documents"], expected))
    if after["subindexes"] != 1:
        m.note("merge left %d sub-indexes" % after["subindexes"])
    log("grow: +%d (%.2f s), -%d (%.2f s), merge %.2f s -> %d sub-index(es), %s; verify %.2f s" % (
        len(m.held_names), steps["add"], len(removed), steps["remove"], steps["merge"],
        after["subindexes"], human(after["index_bytes"]), steps["verify"]))
    m.save()
    # What a later run with --reuse-build measures again without building.
    with open(os.path.join(m.out, "built.json"), "w") as f:
        json.dump({"coll": m.coll, "wf": m.wf, "plan": m.plan, "removed": sorted(m.removed),
                   "layout": args.layout, "summary": {k: m.summary.get(k) for k in (
                       "build", "grow", "genomes", "index_bytes", "side_bytes", "steps_s")}},
                  f, indent=1)


def reuse_build(m):
    """Takes the collection an earlier run of the same OUT built (OUT/built.json) instead of
    building and growing it again."""
    path = os.path.join(m.out, "built.json")
    try:
        with open(path) as f:
            built = json.load(f)
    except OSError as e:
        raise BenchError("--reuse-build: %s: %s (run once without it first)" % (path, e))
    if built.get("layout") != m.args.layout:
        raise BenchError("--reuse-build: %s was built in layout %s, not %s"
                         % (path, built.get("layout"), m.args.layout))
    m.coll, m.wf, m.plan, m.removed = built["coll"], built["wf"], built["plan"], set(built["removed"])
    for key, value in built["summary"].items():
        if value is not None:
            m.summary[key] = value
    m.note("reused the collection built earlier (%s)" % path)
    log("reuse: %s (%s layout)" % (m.coll, built["layout"]))


def sim_files(sim):
    files = {}
    with os.scandir(sim) as it:
        for entry in it:
            if entry.name.startswith("genome_"):
                files[entry.name.split(".", 1)[0]] = entry.path
    return files


# ------------------------------------------------------------------------------------------
# 3. measurements


def measure_open(m, coll, label):
    """A fresh `bitsift query` process answering one absent gene, cold."""
    absent = next(g for g in m.genes if g["class"] == "absent")
    runs = []
    for _ in range(m.args.open_runs):
        done, doc, peak = m.bitsift_query(coll, absent["path"], ["--batch", "1"],
                                          what="bitsift query (open)")
        total_ms = doc["queries"][0]["stats"]["total_ms"]
        runs.append({"wall_ms": done.wall_s * 1e3, "total_ms": total_ms,
                     "open_ms": done.wall_s * 1e3 - total_ms,
                     "peak_rss_bytes": done.rusage["max_rss_bytes"], "cgroup_peak_bytes": peak,
                     "engine": doc["queries"][0]["stats"].get("engine")})
    result = {
        "gene": absent["name"], "runs": runs,
        "wall_ms": rnd(median(r["wall_ms"] for r in runs), 2),
        "total_ms": rnd(median(r["total_ms"] for r in runs), 3),
        "open_ms": rnd(median(r["open_ms"] for r in runs), 2),
        "peak_rss_bytes": max(r["peak_rss_bytes"] for r in runs),
        "cgroup_peak_bytes": max((r["cgroup_peak_bytes"] or 0) for r in runs) or None,
    }
    log("%s open: wall %.1f ms, query %.2f ms, open ~%.1f ms, peak RSS %s" % (
        label, result["wall_ms"], result["total_ms"], result["open_ms"], human(result["peak_rss_bytes"])))
    return result


def measure_genes(m, coll, label, classes=CLASSES, extra=(), variant="default"):
    """Each gene in its own fresh cold process; checks the truth's carriers are all hit."""
    info, where, blocks = m.layouts[coll]
    rows = []
    genes = [g for g in profile_genes(m) if g["class"] in classes]
    started = time.monotonic()
    for i, gene in enumerate(genes):
        done, doc, peak = m.bitsift_query(coll, gene["path"], ["--batch", "1"] + list(extra),
                                          what="bitsift query %s" % gene["name"])
        q = doc["queries"][0]
        stats = q.get("stats", {})
        hits = {h["document"] for h in q.get("hits", [])}
        carriers = [g for g in m.truth[gene["name"]] if g in where]
        missed = sorted(g for g in carriers if g not in hits)
        shown_removed = sorted(hits & m.removed)
        if shown_removed:
            m.fail("%s (%s, %s): removed genomes among the hits: %s" % (
                gene["name"], label, variant, ", ".join(shown_removed[:5])))
        carrier_blocks = {where[g] for g in carriers}
        bound = lower_bound_bytes(carrier_blocks, blocks, gene["distinct_kmers"])
        row = {
            "collection": label, "variant": variant, "profile": m.profile,
            "class": gene["class"], "gene": gene["name"],
            "bases": len(gene["seq"]), "kmers": stats.get("kmers"),
            "unique_kmers": stats.get("unique_kmers"), "distinct_kmers": gene["distinct_kmers"],
            "wall_ms": round(done.wall_s * 1e3, 2), "total_ms": stats.get("total_ms"),
            "bytes_read": stats.get("bytes_read"), "side_bytes_read": stats.get("side_bytes_read"),
            # bytes_read counts the side files' pages too (README: side_bytes_read says how much)
            "index_bytes_read": (None if stats.get("bytes_read") is None else
                                 stats["bytes_read"] - (stats.get("side_bytes_read") or 0)),
            "read_requests": stats.get("read_requests"),
            "blocks_ruled_out": stats.get("blocks_ruled_out"),
            "blocks_pruned": stats.get("blocks_pruned"), "engine": stats.get("engine"),
            "source": stats.get("source"), "peak_rss_bytes": done.rusage["max_rss_bytes"],
            "cgroup_peak_bytes": peak, "device_read_requests": done.device_reads[0],
            "device_read_bytes": done.device_reads[1], "hits": len(hits), "carriers": len(carriers),
            "carrier_blocks": len(carrier_blocks), "lower_bound_bytes": bound,
            "missed": len(missed), "missed_examples": " ".join(missed[:5]),
        }
        if stats.get("unique_kmers") is not None and stats["unique_kmers"] != gene["distinct_kmers"]:
            m.note("%s: bitsift counts %s distinct k-mers, this script %d" % (
                gene["name"], stats["unique_kmers"], gene["distinct_kmers"]))
        if missed:
            m.fail("%s (%s, %s, %s): %d of %d carriers at t=%g not among the hits (false "
                   "negatives), e.g. %s" % (gene["name"], label, variant, m.profile, len(missed),
                                             len(carriers), m.args.threshold, ", ".join(missed[:5])))
        rows.append(row)
        if (i + 1) % 20 == 0 or i + 1 == len(genes):
            log("%s %s (%s): %d/%d genes (%.0f s)" % (label, variant, m.profile, i + 1, len(genes),
                                                       time.monotonic() - started))
    m.gene_rows.extend(rows)
    write_gene_rows(m)
    return rows


def profile_genes(m):
    """The genes measured one at a time under the current profile: all of them, except
    under hdd (--hdd-genes a class, evenly spaced over the class's list)."""
    if m.profile != "hdd":
        return m.genes
    picked = []
    for cls in CLASSES:
        genes = [g for g in m.genes if g["class"] == cls]
        n = min(m.args.hdd_genes, len(genes))
        picked += [genes[int(i * len(genes) / n)] for i in range(n)]
    return picked


def per_class(rows):
    out = {}
    for cls in CLASSES:
        rs = [r for r in rows if r["class"] == cls]
        if not rs:
            continue
        bytes_mean = mean(r["bytes_read"] for r in rs)
        index_mean = mean(r["index_bytes_read"] for r in rs)
        bound_mean = mean(r["lower_bound_bytes"] for r in rs)
        out[cls] = {
            "genes": len(rs),
            "wall_p50_ms": rnd(pct([r["wall_ms"] for r in rs], 0.5), 2),
            "wall_p99_ms": rnd(pct([r["wall_ms"] for r in rs], 0.99), 2),
            "total_p50_ms": rnd(pct([r["total_ms"] for r in rs], 0.5), 3),
            "total_p99_ms": rnd(pct([r["total_ms"] for r in rs], 0.99), 3),
            "bytes_read_mean": rnd(bytes_mean, 0),
            "index_bytes_read_mean": rnd(index_mean, 0),
            "side_bytes_read_mean": rnd(mean(r["side_bytes_read"] for r in rs), 0),
            "read_requests_mean": rnd(mean(r["read_requests"] for r in rs), 1),
            "read_requests_p50": pct([r["read_requests"] for r in rs], 0.5),
            "read_requests_p99": pct([r["read_requests"] for r in rs], 0.99),
            # what the kernel counted for the whole process (throttled profiles only)
            "device_read_requests_p50": pct([r.get("device_read_requests") for r in rs], 0.5),
            "device_read_bytes_mean": rnd(mean(r.get("device_read_bytes") for r in rs), 0),
            "blocks_ruled_out_mean": rnd(mean(r["blocks_ruled_out"] for r in rs), 2),
            "lower_bound_bytes_mean": rnd(bound_mean, 0),
            "index_bytes_over_lower_bound": rnd(ratio(index_mean, bound_mean), 2),
            "hits_mean": rnd(mean(r["hits"] for r in rs), 1),
            "carriers_mean": rnd(mean(r["carriers"] for r in rs), 1),
            "missed": sum(r["missed"] for r in rs),
            "peak_rss_max_bytes": max(r["peak_rss_bytes"] for r in rs),
            "cgroup_peak_max_bytes": max((r["cgroup_peak_bytes"] or 0) for r in rs) or None,
            "engines": sorted({str(r["engine"]) for r in rs}),
        }
    return out


def write_gene_rows(m):
    if not m.gene_rows:
        return
    fields = list(m.gene_rows[0].keys())
    for r in m.gene_rows:
        for k in r:
            if k not in fields:
                fields.append(k)
    path = os.path.join(m.out, "genes.csv")
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(m.gene_rows)
    os.replace(path + ".tmp", path)


def measure_collection(m, label, full):
    """Open and the genes of each class on the collection as it is now, under the current
    profile; results in collections[label] for the first profile (today's place), and in
    profiles[NAME].collection for every profile measured on the final collection."""
    coll = m.coll
    m.begin("measure the %s collection (profile %s)" % (label, m.profile))
    if m.first_profile or coll not in m.layouts:  # later profiles measure the same final collection
        m.layouts[coll] = collection_layout(m, coll)
    if m.first_profile:
        section = m.summary.setdefault("collections", {}).setdefault(label, {})
    else:
        section = {}
    if label == "final":
        m.summary["profiles"][m.profile]["collection"] = section
    section.update(sizes(coll))
    section["documents"] = len(m.layouts[coll][1])
    section["blocks"] = len(m.layouts[coll][2])
    section["open"] = measure_open(m, coll, label)
    m.save()
    rows = measure_genes(m, coll, label)
    section["classes"] = per_class(rows)
    m.save()
    if full and not m.args.skip_no_summaries:
        rows = measure_genes(m, coll, label, classes=("absent", "accessory"),
                             extra=["--no-summaries"], variant="no-summaries")
        section["no_summaries"] = per_class(rows)
        m.save()
    return section


def batch(m):
    m.begin("1,000-gene batch (profile %s)" % m.profile)
    coll = m.coll
    pool, seen = [], set()
    for path in [os.path.join(m.sim, "genes.fa")] + [os.path.join(m.sim, "queries_%s.fa" % c)
                                                      for c in CLASSES]:
        for name, seq in read_fasta(path):
            if name not in seen and len(seq) >= 31:
                seen.add(name)
                pool.append((name, seq))
    count = min(m.args.batch_genes, len(pool))
    picked = random.Random(m.args.seed).sample(pool, count)
    fasta = os.path.join(m.out, "genes", "batch.fa")
    write_fasta(fasta, picked)
    out = os.path.join(m.logs, "batch-hits.json")  # removed once read
    cmd = [m.args.bitsift, "query", "-i", coll, "-f", fasta, "-t", "%g" % m.args.threshold,
           "--format", "json", "-o", out]
    done, peak = m.measured(cmd, cold_files=index_files(coll), what="bitsift query (batch)")
    with open(out) as f:
        doc = json.load(f)
    os.unlink(out)
    queries = doc.get("queries", [])
    searched = [q for q in queries if q.get("status") in ("hit", "no_hit")]
    batches = doc.get("batches", [])
    result = {
        "genes": count, "seed": m.args.seed, "searched": len(searched),
        "wall_s": round(done.wall_s, 3), "genes_per_s": round(count / done.wall_s, 1),
        "peak_rss_bytes": done.rusage["max_rss_bytes"], "cgroup_peak_bytes": peak,
        "batches": len(batches), "bytes_read": sum(b.get("bytes_read", 0) for b in batches),
        "read_requests": sum(b.get("read_requests", 0) for b in batches),
        "hits": sum(len(q.get("hits", [])) for q in queries),
        "device_read_requests": done.device_reads[0], "device_read_bytes": done.device_reads[1],
        "total_ms": rnd(sum(b.get("total_ms", 0) for b in batches), 1),
        "engines": sorted({str(b.get("engine")) for b in batches}),
    }
    if len(searched) != count:
        m.fail("batch: %d of %d genes searched" % (len(searched), count))
    m.put("batch", result)
    m.put("batch_1000_s", result["wall_s"])
    log("batch (%s): %d genes in %.2f s (%.0f genes/s), peak RSS %s, %s read" % (
        m.profile, count, done.wall_s, result["genes_per_s"], human(result["peak_rss_bytes"]),
        human(result["bytes_read"])))
    m.save()


def server(m):
    m.begin("server (profile %s)" % m.profile)
    args = m.args
    coll = m.coll
    genes = [(g["name"], g["seq"]) for g in m.genes]
    if not any(g["class"] == "universal" for g in m.genes):
        m.fail("server: no universal gene in the gene list")
    port = loadtest.free_port()
    cmd = [args.bitsift, "serve", "-i", coll, "--listen", "127.0.0.1:%d" % port,
           "--workers", str(args.threads)] + shlex.split(args.serve_options)
    m.record(cmd, measured=True, cold=True, background=True,
             comment="then bench/loadtest.py's client() threads, phases CLIENTS:SECONDS %s, "
                     "the per-class genes, threshold %g, limit 20" % (
                         ",".join("%d:%g" % (c, args.server_seconds) for c in args.server_clients),
                         args.threshold))
    m.drop_caches(index_files(coll))
    m.reset_peak()
    started = time.perf_counter()
    err_path = os.path.join(m.logs, "serve.log")
    err_file = open(err_path, "w+")
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, preexec_fn=m.group.attach if m.group is not None else None)
    result = {"command": quote(cmd), "phases": {}}
    try:
        line = proc.stderr.readline()
        err_file.write(line)
        if "serving" not in line:
            proc.kill()
            raise BenchError("bitsift serve did not start: %s%s" % (line, proc.stderr.read()))
        result["start_s"] = round(time.perf_counter() - started, 3)
        result["idle_rss_bytes"] = (loadtest.memory_kib(proc.pid, "VmRSS") or 0) * 1024

        def drain():
            for rest in proc.stderr:
                err_file.write(rest)

        threading.Thread(target=drain, daemon=True).start()
        for number, clients in enumerate(args.server_clients):
            results, samples = [], []
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    value = loadtest.memory_kib(proc.pid, "VmRSS")
                    if value:
                        samples.append(value)
                    time.sleep(0.05)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            threads = [threading.Thread(target=loadtest.client, args=(
                port, genes, args.server_seconds, 1000 * number + c, results, args.threshold))
                for c in range(clients)]
            t0 = time.monotonic()
            before = m.device_reads()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.monotonic() - t0
            stop.set()
            sampler.join()
            answered = [r[1] for r in results if r[0] == 200]
            statuses = {}
            for r in results:
                statuses[str(r[0])] = statuses.get(str(r[0]), 0) + 1
            entry = {
                "clients": clients, "seconds": round(wall, 2), "requests": len(results),
                "answered": len(answered), "statuses": statuses,
                "p50_ms": rnd(1e3 * pct(answered, 0.5), 2) if answered else None,
                "p99_ms": rnd(1e3 * pct(answered, 0.99), 2) if answered else None,
                "max_ms": rnd(1e3 * max(answered), 2) if answered else None,
                "genes_per_s": round(len(answered) / wall, 1),
                "rss_max_sampled_bytes": max(samples) * 1024 if samples else None,
                "peak_rss_bytes": (loadtest.memory_kib(proc.pid, "VmHWM") or 0) * 1024,
                "cgroup_peak_bytes": m.cgroup_peak(),
                "device_read_requests": m.device_reads(before)[0],
            }
            result["phases"][str(clients)] = entry
            bad = {s: n for s, n in statuses.items() if s not in ("200", "503")}
            if not answered:
                m.fail("server: no request answered with %d clients (%s)" % (clients, statuses))
            elif bad:
                m.fail("server: %d clients: unexpected statuses %s" % (clients, bad))
            if proc.poll() is not None:
                m.fail("server: exited during the %d-client phase (status %s; out of memory in the "
                       "cgroup?)" % (clients, proc.returncode))
                break
            log("server (%s): %d clients: %d answered, p50 %s ms, p99 %s ms, %.1f genes/s, peak RSS %s" % (
                m.profile, clients, len(answered), entry["p50_ms"], entry["p99_ms"], entry["genes_per_s"],
                human(entry["peak_rss_bytes"])))
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            _, status, _ = os.wait4(proc.pid, 0)
            result["exit_status"] = os.waitstatus_to_exitcode(status)
            # The server's own high-water mark (VmHWM, read in every phase): wait4's ru_maxrss
            # would count this script's pages, which the child held until it executed.
            peaks = [e["peak_rss_bytes"] for e in result["phases"].values() if e.get("peak_rss_bytes")]
            result["peak_rss_bytes"] = max(peaks) if peaks else None
        except ChildProcessError:
            pass
        err_file.close()
    result["cgroup_peak_bytes"] = m.cgroup_peak()
    m.put("server", {
        str(c): {"p50_ms": e["p50_ms"], "p99_ms": e["p99_ms"], "genes_per_s": e["genes_per_s"],
                 "peak_rss": e["peak_rss_bytes"]}
        for c, e in ((int(k), v) for k, v in result["phases"].items())})
    m.put("server_detail", result)
    m.save()


PY_PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import bitsift
t1 = time.perf_counter()
index = bitsift.Index(sys.argv[1])
t2 = time.perf_counter()
with open(sys.argv[2]) as f:
    seq = "".join(l.strip() for l in f if not l.startswith(">"))
result = index.search(seq, threshold=float(sys.argv[3]))[0]
t3 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "open_ms": (t2 - t1) * 1e3,
                  "search_ms": (t3 - t2) * 1e3, "hits": len(result.hits),
                  "total_ms": result.stats.get("total_ms"), "bytes_read": result.stats.get("bytes_read"),
                  "engine": result.stats.get("engine"), "version": getattr(bitsift, "__version__", None)}))
"""


def python_package(m):
    m.begin("Python package")
    args = m.args
    result = {}
    m.summary["python"] = result
    python = args.python
    if not python:
        venv = os.path.join(m.out, "pyvenv")
        python = os.path.join(venv, "bin", "python")
        started = time.perf_counter()
        try:
            if not os.path.exists(python):
                m.sh([sys.executable, "-m", "venv", venv], what="python3 -m venv")
            env = {}
            if os.environ.get("CARGO_TARGET_DIR"):
                env["CARGO_TARGET_DIR"] = os.environ["CARGO_TARGET_DIR"]
            m.sh([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                  "--force-reinstall", "--no-deps", os.path.join(ROOT, "python")], env=env or None,
                 what="pip install ./python", timeout=3600)
        except BenchError as e:
            result["error"] = str(e)
            m.note("the Python package could not be installed, so it is not measured: %s"
                   % str(e).splitlines()[0])
            m.save()
            return
        result["install_s"] = round(time.perf_counter() - started, 1)
    result["python"] = python
    probe = os.path.join(m.out, "genes", "python_probe.py")
    with open(probe, "w") as f:
        f.write(PY_PROBE)
    for cls in ("core", "absent"):
        gene = next(g for g in m.genes if g["class"] == cls)
        done, peak = m.measured([python, probe, m.coll, gene["path"], "%g" % args.threshold],
                                cold_files=index_files(m.coll), what="python probe (%s)" % cls)
        reply = json.loads(done.stdout.strip().splitlines()[-1])
        reply.update({"gene": gene["name"], "wall_ms": round(done.wall_s * 1e3, 2),
                      "peak_rss_bytes": done.rusage["max_rss_bytes"], "cgroup_peak_bytes": peak})
        carriers = [g for g in m.truth[gene["name"]] if g in m.layouts[m.coll][1]]
        reply["carriers"] = len(carriers)
        if reply["hits"] < len(carriers):
            m.fail("python: %s: %d hits, the truth has %d carriers" % (gene["name"], reply["hits"],
                                                                         len(carriers)))
        result[cls] = reply
        log("python %s: import %.0f ms, open %.1f ms, search %.1f ms, %d hits, peak RSS %s" % (
            cls, reply["import_ms"], reply["open_ms"], reply["search_ms"], reply["hits"],
            human(reply["peak_rss_bytes"])))
    result["open_ms"] = rnd(median([result["core"]["open_ms"], result["absent"]["open_ms"]]), 2)
    m.save()


# -- COBS ----------------------------------------------------------------------------------


def cobs_python(m):
    candidates = []
    if m.args.cobs_python:
        candidates.append(m.args.cobs_python)
    if os.environ.get("BITSIFT_VENV"):
        candidates.append(os.path.join(os.environ["BITSIFT_VENV"], "bin", "python"))
    candidates.append(os.path.join(ROOT, ".venv", "bin", "python"))
    candidates.append(os.path.join(m.out, "venv", "bin", "python"))
    for python in candidates:
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import cobs_index"], capture_output=True).returncode == 0:
            return python
    venv = os.path.join(m.out, "venv")
    m.sh([sys.executable, "-m", "venv", venv], what="python3 -m venv")
    python = os.path.join(venv, "bin", "python")
    m.sh([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "cobs-reloaded==0.1.1"], what="pip install cobs-reloaded==0.1.1", timeout=1800)
    return python


def cobs_oneshot(m, python, index, seq, gene_path):
    """A fresh bench/cobs_worker.py in the cgroup, cold: one search; wall from spawn to reply."""
    cmd = [python, os.path.join(HERE, "cobs_worker.py"), index]
    request = ("printf '{\"op\": \"search\", \"seq\": \"%%s\", \"threshold\": %g}\\n' "
               "\"$(grep -v '>' %s | tr -d '\\n')\"" % (m.args.threshold, shlex.quote(gene_path)))
    m.record(cmd, measured=True, cold=True, stdin=request)
    m.drop_caches([index])
    m.reset_peak()
    before = m.device_reads()
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1,
                            preexec_fn=m.group.attach if m.group is not None else None)
    try:
        ready = json.loads(proc.stdout.readline() or '{"ok": false, "error": "no reply"}')
        if not ready.get("ok"):
            raise BenchError("COBS worker on %s: %s" % (index, ready.get("error")))
        proc.stdin.write(json.dumps({"op": "search", "seq": seq, "threshold": m.args.threshold}) + "\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline() or '{"ok": false, "error": "no reply"}')
        wall = time.perf_counter() - started
        if not reply.get("ok"):
            raise BenchError("COBS worker on %s: %s" % (index, reply.get("error")))
        # Its own high-water mark, before it quits (see Measure.measured on ru_maxrss).
        peak_kib = loadtest.memory_kib(proc.pid, "VmHWM")
        proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
        proc.stdin.flush()
        proc.stdin.close()
    finally:
        if proc.poll() is None and proc.stdin.closed is False:
            proc.kill()
        _, status, _ = os.wait4(proc.pid, 0)
        proc.stdout.close()
    code = os.waitstatus_to_exitcode(status)
    device = m.device_reads(before)
    if code != 0:
        raise BenchError("COBS worker exited with %d (killed by the cgroup?)" % code)
    return {"wall_ms": round(wall * 1e3, 2), "search_ms": round(reply["search_ms"], 3),
            "startup_ms": round(ready.get("startup_ms", 0), 1), "hits": reply["hits"],
            "major_faults": reply["major_faults"], "device_read_bytes": reply["device_read_bytes"],
            "peak_rss_bytes": (peak_kib or 0) * 1024 or None, "cgroup_peak_bytes": m.cgroup_peak(),
            "device_read_requests": device[0], "device_read_bytes": device[1]}


def cobs(m):
    m.begin("COBS on the largest shard (profile %s)" % m.profile)
    args = m.args
    result = {}
    m.put("cobs", result)
    python = cobs_python(m)
    result["python"] = python
    shard = max(m.plan, key=lambda r: (int(r["documents"]), int(r["input_bytes"])))
    name = shard["shard"]
    with open(os.path.join(m.wf, "work/shards/%s.list" % name)) as f:
        inputs = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    inputs = [p if os.path.isabs(p) else os.path.join(m.wf, "work/shards", p) for p in inputs]
    shard_index = os.path.join(m.wf, "work/indexes/%s.cobs_compact" % name)
    cdir = os.path.join(m.out, "cobs")
    os.makedirs(cdir, exist_ok=True)
    index = os.path.join(cdir, "%s.cobs_compact" % name)
    with open(os.path.join(m.sim, "collection.json"), "rb") as f:
        simulation = hashlib.sha256(f.read()).hexdigest()  # the same genomes, not only names
    key = hashlib.sha256(("\n".join(sorted(os.path.realpath(p) for p in inputs)) + "\n" +
                          simulation).encode()).hexdigest()
    stamp = index + ".inputs.sha256"
    result.update({"shard": name, "documents": len(inputs), "input_bytes": int(shard["input_bytes"]),
                   "index": index})
    if os.path.exists(index) and os.path.exists(stamp) and open(stamp).read().strip() == key:
        log("cobs: reusing %s (built from the same genomes)" % index)
        result["build_reused"] = True
    else:
        for stale in (index, stamp):
            if os.path.exists(stale):
                os.unlink(stale)
        links = os.path.join(cdir, "input-%s" % name)
        if os.path.exists(links):
            shutil.rmtree(links)
        os.makedirs(links)
        for path in inputs:
            os.symlink(os.path.abspath(path), os.path.join(links, os.path.basename(path)))
        started = time.perf_counter()
        done = m.sh([python, os.path.join(ROOT, "tests/peer/cobs_peer.py"), "build", "--kind",
                     "compact", "-o", index, links], what="COBS build (cobs_peer.py)", timeout=None)
        result["build_s"] = round(time.perf_counter() - started, 1)
        result["build_peak_rss_bytes"] = done.rusage["max_rss_bytes"]
        with open(stamp, "w") as f:
            f.write(key + "\n")
        shutil.rmtree(links)
    header = read_index_header(index)
    result.update({"index_bytes": os.path.getsize(index), "page_size": header["page_size"],
                   "blocks": len(header["blocks"]), "bitsift_shard_index_bytes": os.path.getsize(shard_index),
                   "bitsift_shard_log": m.summary["build"]["shard_logs"].get(name)})
    docs = set(header["names"])
    per = min(args.cobs_genes, args.genes_per_class)
    if m.profile == "hdd":
        per = min(per, args.hdd_genes)
    genes = []
    for cls in CLASSES:
        genes += [g for g in profile_genes(m) if g["class"] == cls][:per]
    tools = ("cobs", "bitsift", "bitsift-shard")
    rows = []
    started = time.monotonic()
    for i, gene in enumerate(genes):
        carriers = [g for g in m.truth[gene["name"]] if g in docs]
        order = list(tools[i % 3:] + tools[:i % 3])  # who reads the gene's rows first rotates
        got = {}
        for t, tool in enumerate(order):
            if tool == "cobs":
                r = cobs_oneshot(m, python, index, gene["seq"], gene["path"])
                r["total_ms"] = r["search_ms"]
                r["requests"] = r["major_faults"]  # one page fault, one read (MADV_RANDOM)
            else:
                path = index if tool == "bitsift" else shard_index
                # COBS's filter (--raw-threshold): on COBS's own file bitsift must give its hits.
                done, doc, peak = m.bitsift_query(path, gene["path"],
                                                  ["--batch", "1", "--raw-threshold"],
                                                  what="bitsift query %s on %s" % (gene["name"], tool))
                q = doc["queries"][0]
                hits = {h["document"] for h in q["hits"]}
                missed = [g for g in carriers if g not in hits]
                if missed:
                    m.fail("cobs section: %s on %s: %d carriers missed, e.g. %s" % (
                        gene["name"], tool, len(missed), ", ".join(missed[:5])))
                r = {"wall_ms": round(done.wall_s * 1e3, 2), "total_ms": q["stats"]["total_ms"],
                     "hits": len(hits), "bytes_read": q["stats"].get("bytes_read"),
                     "requests": q["stats"].get("read_requests"),
                     "device_read_requests": done.device_reads[0],
                     "peak_rss_bytes": done.rusage["max_rss_bytes"], "cgroup_peak_bytes": peak}
            r.update({"tool": tool, "class": gene["class"], "gene": gene["name"],
                      "first_touch": t == 0, "carriers": len(carriers)})
            got[tool] = r
            rows.append(r)
        if got["cobs"]["hits"] != got["bitsift"]["hits"]:
            m.fail("cobs section: %s: COBS reports %d hits, bitsift on the same file %d" % (
                gene["name"], got["cobs"]["hits"], got["bitsift"]["hits"]))
        if got["cobs"]["hits"] < len(carriers):
            m.fail("cobs section: %s: COBS reports %d hits, the truth has %d carriers" % (
                gene["name"], got["cobs"]["hits"], len(carriers)))
        if (i + 1) % 10 == 0 or i + 1 == len(genes):
            log("cobs (%s): %d/%d genes (%.0f s)" % (m.profile, i + 1, len(genes),
                                                     time.monotonic() - started))
    classes = {}
    for cls in CLASSES:
        by_tool = {t: [r for r in rows if r["class"] == cls and r["tool"] == t] for t in tools}
        if not by_tool["cobs"]:
            continue
        entry = {"genes": len(by_tool["cobs"])}
        for tool, rs in by_tool.items():
            entry[tool] = {"wall_p50_ms": rnd(median(r["wall_ms"] for r in rs), 2),
                           "wall_p99_ms": rnd(pct([r["wall_ms"] for r in rs], 0.99), 2),
                           "query_p50_ms": rnd(median(r["total_ms"] for r in rs), 3),
                           # bitsift's read_requests; COBS's major page faults
                           "requests_p50": rnd(median(r.get("requests") for r in rs), 1),
                           # the whole process's, as the kernel counted them (throttled profiles)
                           "device_read_requests_p50": rnd(median(r.get("device_read_requests")
                                                                  for r in rs), 1),
                           "peak_rss_max_bytes": max(r["peak_rss_bytes"] for r in rs)}
        entry["cobs_over_bitsift_wall"] = rnd(ratio(entry["cobs"]["wall_p50_ms"],
                                                    entry["bitsift"]["wall_p50_ms"]), 2)
        entry["cobs_over_bitsift_query"] = rnd(ratio(entry["cobs"]["query_p50_ms"],
                                                     entry["bitsift"]["query_p50_ms"]), 2)
        entry["cobs_over_bitsift_shard_wall"] = rnd(ratio(entry["cobs"]["wall_p50_ms"],
                                                          entry["bitsift-shard"]["wall_p50_ms"]), 2)
        classes[cls] = entry
    result["classes"] = classes
    result["rows"] = rows
    m.save()


# ------------------------------------------------------------------------------------------
# 4. the report


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    lines = ["| " + " | ".join(str(h).ljust(w) for h, w in zip(headers, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c).rjust(w) for c, w in zip(r, widths)) + " |")
    return "\n".join(lines)


def fmt(v, digits=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.*f" % (digits, v)
    return str(v)


def report(m):
    s = m.summary
    out = []
    p = out.append
    p("")
    p("## Mission-scale rehearsal (%s)" % s["started"])
    p("")
    sim = s.get("simulation", {})
    p("Genomes: %s simulated (genome size %d), %s built by the workflow, %s added, %s removed; "
      "%s shown at the end." % (sim.get("genomes_simulated"), m.args.genome_size,
                                sim.get("genomes_built"), sim.get("genomes_added"),
                                s.get("grow", {}).get("removed_count"), s.get("genomes")))
    if s["cap_applied"]:
        p("Memory cap: %s, %s. Cold: %s." % (human(s["cap_bytes"]), s["cgroup"]["describe"], s["cold"]))
    else:
        p("Memory cap: NOT APPLIED (%s). Cold: %s." % (s["cgroup"].get("reason"), s["cold"]))
    first = m.args.profiles[0]
    if m.args.profiles != ["none"]:
        p("Frugal disk profiles: %s. The sections below, up to \"Frugal disk profiles\", are "
          "under the first, %s." % (", ".join(
              frugal.Profile(n, frugal.PROFILES[n].iops, frugal.PROFILES[n].bps, m.args.cap,
                             frugal.PROFILES[n].about).describe() for n in m.args.profiles), first))
    b = s.get("build", {})
    g = s.get("grow", {})
    p("")
    rows = []
    for label, sz in (("after the workflow build", b), ("before merge", g.get("before_merge", {})),
                      ("final (merged)", g.get("after_merge", {}))):
        if sz:
            rows.append([label, sz.get("subindexes"), human(sz.get("index_bytes")),
                         human(sz.get("summary_bytes")), human(sz.get("checksum_bytes")),
                         human(sz.get("side_bytes"))])
    if rows:
        p(table(["collection", "sub-indexes", "index", "summaries", "checksums", "side files"], rows))
        p("")
    steps = s.get("steps_s", {})
    if steps:
        p(table(["step", "seconds"], [[k, fmt(v, 2)] for k, v in steps.items()]))
        p("")
    for label, section in s.get("collections", {}).items():
        o = section.get("open", {})
        p("**%s collection** (%s documents, %s blocks): open %s ms (wall %s ms, query %s ms), "
          "peak RSS %s" % (label, section.get("documents"), section.get("blocks"), fmt(o.get("open_ms")),
                           fmt(o.get("wall_ms")), fmt(o.get("total_ms"), 2), human(o.get("peak_rss_bytes"))))
        p("")
        for variant, key in (("", "classes"), (" --no-summaries", "no_summaries")):
            classes = section.get(key)
            if not classes:
                continue
            rows = [[cls + variant, c["genes"], fmt(c["wall_p50_ms"]), fmt(c["wall_p99_ms"]),
                     fmt(c["total_p50_ms"], 2), fmt(c["total_p99_ms"], 2),
                     human(c["index_bytes_read_mean"]), human(c["lower_bound_bytes_mean"]),
                     fmt(c["index_bytes_over_lower_bound"], 2), human(c["side_bytes_read_mean"]),
                     fmt(c["blocks_ruled_out_mean"], 1), fmt(c["hits_mean"]), c["missed"],
                     human(c["peak_rss_max_bytes"])]
                    for cls, c in classes.items()]
            p(table(["class", "genes", "wall p50 ms", "wall p99 ms", "query p50 ms", "query p99 ms",
                     "index bytes", "lower bound", "x bound", "side bytes", "blocks ruled out",
                     "hits", "missed", "peak RSS"], rows))
            p("(means per gene; index bytes = bytes_read - side_bytes_read; lower bound: one row "
              "read per distinct k-mer per block holding a carrier at t = %g, at least a 4 KiB page)"
              % m.args.threshold)
            p("")
    bt = s.get("batch")
    if bt:
        p("**Batch**: %d genes in %.2f s (%.0f genes/s), peak RSS %s, %s read in %d batch(es)" % (
            bt["genes"], bt["wall_s"], bt["genes_per_s"], human(bt["peak_rss_bytes"]),
            human(bt["bytes_read"]), bt["batches"]))
        p("")
    sv = s.get("server_detail")
    if sv:
        p("**Server** (started cold in %s s; %s)" % (sv.get("start_s"), sv["command"]))
        p("")
        p(table(["clients", "requests", "answered", "p50 ms", "p99 ms", "genes/s", "peak RSS",
                 "cgroup peak"],
                [[e["clients"], e["requests"], e["answered"], fmt(e["p50_ms"]), fmt(e["p99_ms"]),
                  fmt(e["genes_per_s"]), human(e["peak_rss_bytes"]), human(e["cgroup_peak_bytes"])]
                 for e in sv["phases"].values()]))
        p("")
    py = s.get("python")
    if py:
        if py.get("error"):
            p("**Python package**: not measured: %s" % py["error"].splitlines()[0])
        elif "core" in py:
            p("**Python package**: import %.0f ms; open %.1f ms; core gene %.1f ms (%d hits); "
              "absent gene %.1f ms; peak RSS %s" % (
                  py["core"]["import_ms"], py["open_ms"], py["core"]["search_ms"], py["core"]["hits"],
                  py["absent"]["search_ms"], human(max(py["core"]["peak_rss_bytes"],
                                                       py["absent"]["peak_rss_bytes"]))))
        p("")
    cb = s.get("cobs")
    if cb and cb.get("classes"):
        p("**COBS** on %s (%d genomes; COBS index %s, %d blocks of %d-byte rows, built in %s s; "
          "bitsift's shard %s). Per gene, cold, fresh process; medians:" % (
              cb["shard"], cb["documents"], human(cb["index_bytes"]), cb["blocks"], cb["page_size"],
              cb.get("build_s", "(reused)"), human(cb["bitsift_shard_index_bytes"])))
        p("")
        p(table(["class", "genes", "COBS wall ms", "bitsift wall ms", "COBS/bitsift", "COBS search ms",
                 "bitsift query ms", "COBS/bitsift (in-process)", "bitsift shard wall ms"],
                [[cls, e["genes"], fmt(e["cobs"]["wall_p50_ms"]), fmt(e["bitsift"]["wall_p50_ms"]),
                  fmt(e["cobs_over_bitsift_wall"], 2), fmt(e["cobs"]["query_p50_ms"], 2),
                  fmt(e["bitsift"]["query_p50_ms"], 2), fmt(e["cobs_over_bitsift_query"], 2),
                  fmt(e["bitsift-shard"]["wall_p50_ms"])] for cls, e in cb["classes"].items()]))
        p("")
    report_profiles(m, p)
    # commands, one line per distinct shape (gene files folded)
    shapes = {}
    for section, line in m.commands:
        shape = re.sub(r"\S*/genes/one/[^ ']+\.fa'?", "GENE.fa", line)
        key = (section, shape)
        shapes[key] = shapes.get(key, 0) + 1
    p("Commands (all %d, in order, in %s):" % (len(m.commands), m.commands_path))
    for (section, shape), count in shapes.items():
        p("  [%s]%s %s" % (section, " x%d" % count if count > 1 else "", shape))
    p("")
    if m.notes:
        p("Notes:")
        for n in m.notes:
            p("  - " + n)
    if m.failures:
        p("FAILURES:")
        for f in m.failures:
            p("  - " + f)
    p("summary: %s; %.0f s in all; %s" % (m.summary_path, time.monotonic() - STARTED,
                                         failed_line(m.failures)))
    print("\n".join(out))
    sys.stdout.flush()


def report_profiles(m, p):
    """Per profile: class -> read requests, bytes, wall p50/p99; the batch, the server, COBS."""
    s = m.summary
    profiles = [(n, s.get("profiles", {}).get(n, {})) for n in m.args.profiles]
    if len(profiles) < 2 and profiles[0][0] == "none":
        return
    p("**Frugal disk profiles** (cold, a fresh `bitsift query --batch 1` process per gene; "
      "requests: the query's read_requests; device: every read request of the process (binary, "
      "libraries, index) as the kernel's io controller counted them, throttled profiles only; "
      "COBS: major page faults in its search)")
    p("")
    rows = []
    for name, entry in profiles:
        cobs = entry.get("cobs", {}).get("classes", {})
        for cls, c in entry.get("collection", {}).get("classes", {}).items():
            cb = cobs.get(cls, {}).get("cobs", {})
            rows.append([name, cls, c["genes"], fmt(c.get("read_requests_p50")),
                         fmt(c.get("read_requests_p99")), human(c["bytes_read_mean"]),
                         fmt(c["wall_p50_ms"]), fmt(c["wall_p99_ms"]),
                         fmt(c.get("device_read_requests_p50")), fmt(cb.get("requests_p50")),
                         fmt(cb.get("device_read_requests_p50")), fmt(cb.get("wall_p50_ms"))])
    p(table(["profile", "class", "genes", "requests p50", "requests p99", "bytes (mean)",
             "wall p50 ms", "wall p99 ms", "device requests p50", "COBS faults p50",
             "COBS device requests p50", "COBS wall p50 ms"], rows))
    p("")
    rows = []
    for name, entry in profiles:
        bt = entry.get("batch") or {}
        server = entry.get("server") or {}
        cells = [name, fmt(bt.get("wall_s"), 2), fmt(bt.get("genes_per_s")),
                 fmt(bt.get("read_requests"))]
        for c in m.args.server_clients:
            e = server.get(str(c), {})
            cells.append("%s / %s" % (fmt(e.get("genes_per_s")), fmt(e.get("p50_ms"))))
        rows.append(cells)
    p(table(["profile", "batch s", "batch genes/s", "batch requests"] +
            ["server %d clients: genes/s / p50 ms" % c for c in m.args.server_clients], rows))
    p("")


def check_keys(m):
    s = m.summary
    skipped = {"server": m.args.skip_server, "batch_1000_s": m.args.skip_batch}
    for key in REQUIRED_KEYS:
        if skipped.get(key):
            continue
        if s.get(key) in (None, {}, []):
            m.fail("summary.json lacks %r" % key)
    for cls in CLASSES:
        for key in ("gene_p50_ms", "gene_p99_ms"):
            if s.get(key, {}).get(cls) is None:
                m.fail("summary.json lacks %s[%r]" % (key, cls))
    if not m.args.skip_server:
        for c in m.args.server_clients:
            entry = s.get("server", {}).get(str(c))
            if not entry or any(entry.get(k) is None for k in ("p50_ms", "p99_ms", "genes_per_s", "peak_rss")):
                m.fail("summary.json: server[%r] incomplete" % str(c))
    if not m.args.skip_cobs and not s.get("cobs", {}).get("classes"):
        m.fail("summary.json lacks the COBS comparison")
    for name in m.args.profiles[1:]:
        entry = s.get("profiles", {}).get(name, {})
        classes = entry.get("collection", {}).get("classes", {})
        for cls in CLASSES:
            if classes.get(cls, {}).get("wall_p50_ms") is None:
                m.fail("summary.json lacks profiles[%r].collection.classes[%r]" % (name, cls))
        if not m.args.skip_batch and not entry.get("batch"):
            m.fail("summary.json lacks profiles[%r].batch" % name)
        if not m.args.skip_server and len(entry.get("server", {})) != len(m.args.server_clients):
            m.fail("summary.json: profiles[%r].server incomplete" % name)
        if not m.args.skip_cobs and not entry.get("cobs", {}).get("classes"):
            m.fail("summary.json lacks profiles[%r].cobs" % name)


# ------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/mission_scale.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    a = p.add_argument
    a("--genomes", type=int, default=661405, help="genomes of the collection [%(default)s]")
    a("--genome-size", type=int, default=20000, help="core genome length given to the simulator [%(default)s]")
    a("--cap", type=parse_size, default=parse_size("2G"),
      help="memory cgroup limit of every measured process, page cache included [2G]")
    a("--out", default=os.path.join(ROOT, "bench/artifacts/mission"), help="output directory [%(default)s]")
    a("--sim", default=None, help="simulation directory to reuse (or to simulate into) [OUT/sim]")
    a("--bitsift", default=os.path.join(ROOT, "target/release/bitsift"))
    a("--simulate", default=os.path.join(ROOT, "target/release/bitsift-simulate"))
    a("--snakemake", default=os.path.join(ROOT, "target/workflow-venv/bin/snakemake"))
    a("--genes-per-class", type=int, default=20, help="cold one-gene runs per class [%(default)s]")
    a("--batch-genes", type=int, default=1000, help="genes of the batch [%(default)s]")
    a("--seed", type=int, default=1, help="seed of the batch's gene sample [%(default)s]")
    a("--threshold", type=float, default=0.8)
    a("--shard-documents", type=int, default=None,
      help="max_documents_per_shard of the workflow [65536, or N/4 when that is smaller]")
    a("--threads", type=int, default=2, help="build threads and server workers [%(default)s]")
    a("--open-runs", type=int, default=3, help="cold runs of the open measurement [%(default)s]")
    a("--server-seconds", type=float, default=None, help="seconds per server phase [30; 5 below 100,000 genomes]")
    a("--server-clients", default="1,8,32", help="concurrent clients of the server phases [%(default)s]")
    a("--serve-options", default="", help="more options for bitsift serve, e.g. '--cache-size 512M'")
    a("--cobs-genes", type=int, default=10, help="genes per class of the COBS comparison [%(default)s]")
    a("--cobs-python", default=None, help="a Python with cobs_index [.venv, else OUT/venv]")
    a("--python", default=None, help="a Python that already has the bitsift package "
      "[pip install ./python into OUT/pyvenv]")
    a("--timeout", type=float, default=1800, help="seconds a measured process may take [%(default)s]")
    a("--add-default-page-size", action="store_true",
      help="add the 1 %% with its own default page size instead of the shards' (merge then keeps it apart)")
    a("--keep-shards", action="store_true",
      help="keep every shard index of the workflow after the merge (default: only the largest, "
      "which the COBS comparison reads; the others are deleted to save disk)")
    a("--skip-built", action="store_true", help="do not measure the collection right after the build")
    a("--layout", choices=("minimizer", "cobs"), default="minimizer",
      help="row layout of the workflow's indexes (`layout:` of its config) [%(default)s]")
    a("--reuse-build", action="store_true",
      help="measure the collection an earlier run of the same --out built (OUT/built.json) "
      "instead of building, growing and merging it again")
    a("--skip-no-summaries", action="store_true")
    a("--skip-batch", action="store_true")
    a("--skip-server", action="store_true")
    a("--skip-python", action="store_true")
    a("--skip-cobs", action="store_true")
    a("--no-cgroup", action="store_true", help="measure without a memory cgroup")
    a("--profiles", default="none",
      help="frugal disk profiles to measure under, in order (bench/frugal.sh: none = the memory "
      "cap only; cloud = reads throttled to 3,000 IOPS and 125 MiB/s; hdd = 200 IOPS and "
      "150 MiB/s; each with --cap): the cold measurements of the final collection (open, genes "
      "per class, batch, server, COBS) run under each; the first also measures the collection "
      "as built, --no-summaries and the Python package [%(default)s]")
    a("--hdd-genes", type=int, default=5,
      help="genes per class (one cold process each, and for COBS) under the hdd profile, whose "
      "reads are slow [%(default)s]")
    a("--quiet-commands", action="store_true",
      help="do not print every command as it runs (OUT/commands.sh lists them anyway)")
    args = p.parse_args(argv)
    args.server_clients = [int(c) for c in args.server_clients.split(",") if c.strip()]
    args.profiles = [n.strip() for n in args.profiles.split(",") if n.strip()]
    unknown = [n for n in args.profiles if n not in frugal.PROFILES]
    if unknown or not args.profiles or len(set(args.profiles)) != len(args.profiles):
        p.error("--profiles %s: a list of distinct profiles among %s" % (
            ",".join(args.profiles), ", ".join(frugal.PROFILES)))
    throttled = [n for n in args.profiles if frugal.PROFILES[n].throttled]
    if throttled and args.no_cgroup:
        p.error("--profiles %s needs cgroups: it cannot be combined with --no-cgroup" % ",".join(throttled))
    if throttled:
        why = Cgroups(enabled=True).throttle_reason()
        if why:
            p.error("--profiles %s: %s" % (",".join(throttled), why))
    if args.hdd_genes < 1:
        p.error("--hdd-genes must be at least 1")
    # scripts/test.sh's switch for runs without COBS applies here too
    args.skip_cobs_reason = None
    if os.environ.get("BITSIFT_SKIP_COBS") == "1" and not args.skip_cobs:
        args.skip_cobs = True
        args.skip_cobs_reason = "BITSIFT_SKIP_COBS=1"
    if args.server_seconds is None:
        args.server_seconds = 30.0 if args.genomes >= 100000 else 5.0
    if args.genomes < 2:
        p.error("--genomes must be at least 2")
    for tool in ("bitsift", "simulate", "snakemake"):
        path = getattr(args, tool)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            p.error("--%s %s: not an executable (bench/mission_scale.sh builds and sets them up)"
                    % (tool, path))
        setattr(args, tool, os.path.abspath(path))
    return args


def interrupted(signum, frame):
    raise KeyboardInterrupt("signal %d" % signum)


def measure_profile(m):
    """Every cold measurement of the final collection under the current profile: open and the
    genes of each class, the batch, the server, COBS (and, under the first profile only, the
    genes without summaries and the Python package)."""
    args = m.args
    final = measure_collection(m, "final", full=m.first_profile)
    if m.first_profile:
        m.summary["open_ms"] = final["open"]["open_ms"]
        m.summary["open_wall_ms"] = final["open"]["wall_ms"]
        m.summary["open_query_ms"] = final["open"]["total_ms"]
        m.summary["open_peak_rss_bytes"] = final["open"]["peak_rss_bytes"]
        m.summary["gene_ms"] = "wall time of a fresh cold `bitsift query --batch 1` process per gene " \
                               "(gene_query_*: the query's own total_ms)"
        m.summary["gene_p50_ms"] = {c: v["wall_p50_ms"] for c, v in final["classes"].items()}
        m.summary["gene_p99_ms"] = {c: v["wall_p99_ms"] for c, v in final["classes"].items()}
        m.summary["gene_query_p50_ms"] = {c: v["total_p50_ms"] for c, v in final["classes"].items()}
        m.summary["gene_query_p99_ms"] = {c: v["total_p99_ms"] for c, v in final["classes"].items()}
        m.summary["bytes_mean"] = {c: v["bytes_read_mean"] for c, v in final["classes"].items()}
        m.summary["index_bytes_mean"] = {c: v["index_bytes_read_mean"] for c, v in final["classes"].items()}
        m.summary["side_bytes_read_mean"] = {c: v["side_bytes_read_mean"] for c, v in final["classes"].items()}
        m.summary["lower_bound_bytes_mean"] = {c: v["lower_bound_bytes_mean"] for c, v in final["classes"].items()}
        m.summary["misses"] = sum(r["missed"] for r in m.gene_rows)
    m.save()
    if not args.skip_batch:
        batch(m)
    if not args.skip_server:
        server(m)
    if not args.skip_python and m.first_profile:
        python_package(m)
    if not args.skip_cobs:
        cobs(m)


def failed_line(failures):
    """The last line's verdict: ok, or how many failures and the first of them (its first
    line), so that a log's tail says what went wrong."""
    if not failures:
        return "ok"
    first = failures[0].strip().splitlines()[0] if failures[0].strip() else "(no message)"
    return "FAILED (%d failure%s; the first: %s)" % (
        len(failures), "" if len(failures) == 1 else "s", first[:300])


def main(argv):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, interrupted)  # clean up (cgroup, server) as on Ctrl-C
    try:
        m = Mission(args)
    except (frugal.FrugalError, OSError) as e:
        sys.stderr.write("bench/mission_scale.py: error: %s\n" % e)
        return 2
    m.layouts = {}
    code = 0
    if args.skip_cobs_reason:
        m.note("COBS comparison skipped (%s)" % args.skip_cobs_reason)
    try:
        log("out %s; cap %s (%s); genomes %d, genome size %d; profiles %s" % (
            m.out, human(args.cap), m.summary["cgroup"].get("mode") or "no cgroup", args.genomes,
            args.genome_size, ",".join(args.profiles)))
        simulate(m)
        load_genes(m)
        if args.reuse_build:
            reuse_build(m)
        else:
            build(m)
            if not args.skip_built:
                measure_collection(m, "built", full=False)
            grow(m)
        for name in args.profiles:
            m.use_profile(name)
            measure_profile(m)
        check_keys(m)
    except KeyboardInterrupt:
        m.fail("interrupted")
        code = 130
    except BenchError as e:
        m.fail(str(e))
    except Exception as e:  # noqa: BLE001 - a crash of this script is a failure too
        m.fail("%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc()))
    finally:
        m.cgroups.cleanup()
        m.summary["misses"] = sum(r["missed"] for r in m.gene_rows)
        m.summary["status"] = "failed" if m.failures else "ok"
        m.save()
        write_gene_rows(m)
        shutil.rmtree(m.tmp, ignore_errors=True)
    try:
        report(m)
    except Exception as e:  # noqa: BLE001
        m.fail("report: %s: %s" % (type(e).__name__, e))
        traceback.print_exc()
        # The report did not get to its last lines: say what failed here instead.
        print("FAILURES:\n" + "\n".join("  - " + f for f in m.failures))
        print("mission_scale: " + failed_line(m.failures))
    if m.failures:
        return code or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
