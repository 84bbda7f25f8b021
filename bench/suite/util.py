"""Shared helpers: progress lines, checked subprocesses with resource usage, cold caches,
disk space, statistics and cached artifacts."""

import csv
import hashlib
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time

STARTED = time.monotonic()


class BenchError(Exception):
    """A failed step or measurement: the suite stops and exits non-zero."""


def log(message):
    """One progress line on standard error."""
    elapsed = time.monotonic() - STARTED
    sys.stderr.write("bench [%5.0fs] %s\n" % (elapsed, message))
    sys.stderr.flush()


def quote(cmd):
    return " ".join(shlex.quote(str(c)) for c in cmd)


def is_root():
    return os.geteuid() == 0


# --------------------------------------------------------------------------------------------
# subprocesses


class Completed:
    """A finished child: exit status, wall time and its own resource usage (wait4)."""

    def __init__(self, cmd, returncode, wall_s, rusage, stdout, stderr):
        self.cmd = cmd
        self.returncode = returncode
        self.wall_s = wall_s
        self.rusage = rusage
        self.stdout = stdout
        self.stderr = stderr

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError as e:
            raise BenchError("%s: output is not JSON (%s): %r" % (self.cmd[0], e, self.stdout[:200]))


def rusage_dict(ru):
    return {"max_rss_bytes": ru.ru_maxrss * 1024, "minor_faults": ru.ru_minflt,
            "major_faults": ru.ru_majflt, "user_s": ru.ru_utime, "system_s": ru.ru_stime,
            "fs_in_blocks": ru.ru_inblock, "fs_out_blocks": ru.ru_oublock}


def run(cmd, *, cgroup=None, env=None, cwd=None, check=True, stdout_path=None, stdin_data=None,
        quiet_stderr=False, what=None, timeout=None):
    """Runs cmd to completion and returns a Completed with its wall time and rusage.

    cgroup: a memory cgroup (cgroup.Group) the child joins before it executes cmd.
    stdout_path: write the child's stdout there (large outputs) instead of capturing it.
    A non-zero exit (or a signal) raises BenchError with the tail of standard error."""
    cmd = [str(c) for c in cmd]
    out_file = open(stdout_path, "wb") if stdout_path else tempfile.TemporaryFile()
    err_file = tempfile.TemporaryFile()
    stdin = subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL
    preexec = cgroup.attach if cgroup is not None else None
    full_env = None
    if env:
        full_env = dict(os.environ)
        full_env.update(env)
    try:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=stdin, stdout=out_file, stderr=err_file, cwd=cwd,
                                env=full_env, preexec_fn=preexec)
        timer = None
        if timeout:
            timer = threading.Timer(timeout, proc.kill)
            timer.daemon = True
            timer.start()
        if stdin_data is not None:
            proc.stdin.write(stdin_data if isinstance(stdin_data, bytes) else stdin_data.encode())
            proc.stdin.close()
        while True:
            try:
                _, status, ru = os.wait4(proc.pid, 0)
                break
            except InterruptedError:
                continue
        wall = time.perf_counter() - started
        if timer is not None:
            timer.cancel()
            if wall >= timeout:
                raise BenchError("%s timed out after %.0f s: %s" % (what or cmd[0], timeout, quote(cmd)))
        proc.returncode = os.waitstatus_to_exitcode(status)
        err_file.seek(0)
        stderr = err_file.read().decode("utf-8", "replace")
        stdout = ""
        if not stdout_path:
            out_file.seek(0)
            stdout = out_file.read().decode("utf-8", "replace")
    except BaseException:
        if "proc" in locals() and proc.returncode is None:
            proc.kill()
            proc.wait()
        raise
    finally:
        out_file.close()
        err_file.close()
    done = Completed(cmd, proc.returncode, wall, rusage_dict(ru), stdout, stderr)
    if check and proc.returncode != 0:
        tail = "\n    ".join(stderr.strip().splitlines()[-8:])
        why = ("killed by signal %d" % -proc.returncode) if proc.returncode < 0 else \
            ("exit status %d" % proc.returncode)
        if cgroup is not None and proc.returncode == -9:
            why += " (SIGKILL: out of memory in cgroup %s?)" % cgroup.describe()
        raise BenchError("%s failed (%s): %s\n    %s" % (what or os.path.basename(cmd[0]), why,
                                                       quote(cmd), tail))
    if not quiet_stderr and stderr.strip() and os.environ.get("BENCH_VERBOSE"):
        sys.stderr.write(stderr)
    return done


# --------------------------------------------------------------------------------------------
# cold cache


class Cache:
    """Empties the page cache before a cold measurement: `sync; echo 3 > drop_caches` as
    root, else POSIX_FADV_DONTNEED on the files given (benchmarking.md allows both)."""

    def __init__(self, prefer_fadvise=False):
        can_drop = is_root() and os.access("/proc/sys/vm/drop_caches", os.W_OK)
        self.method = "drop_caches" if can_drop and not prefer_fadvise else "fadvise"
        self.forced = can_drop and prefer_fadvise
        self.calls = 0
        self.seconds = 0.0

    def describe(self):
        if self.method == "drop_caches":
            return "`sync; echo 3 > /proc/sys/vm/drop_caches` before each cold run"
        return "POSIX_FADV_DONTNEED on the index files before each cold run (%s)" % (
            "--quick: cheaper than drop_caches" if self.forced else "not root: drop_caches unavailable")

    def drop(self, files=()):
        started = time.perf_counter()
        if self.method == "drop_caches":
            os.sync()
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("3\n")
        else:
            for path in files:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
        self.calls += 1
        self.seconds += time.perf_counter() - started


# --------------------------------------------------------------------------------------------
# disk space


def free_bytes(path):
    while not os.path.exists(path):
        path = os.path.dirname(path) or "/"
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def fits(path, needed_bytes, what, notes, reserve_bytes=2 << 30):
    """True when needed_bytes (plus a reserve) fit on path's file system; otherwise records a
    note saying which step is skipped and returns False."""
    free = free_bytes(path)
    if needed_bytes + reserve_bytes <= free:
        log("disk: %s needs ~%s, %s free: ok" % (what, human(needed_bytes), human(free)))
        return True
    notes.append("skipped %s: needs ~%s (+%s reserve) but only %s is free on %s"
                 % (what, human(needed_bytes), human(reserve_bytes), human(free), path))
    log("disk: " + notes[-1])
    return False


def human(n):
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return ("%.0f %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024


def parse_size(text):
    text = str(text).strip().upper().rstrip("B").rstrip("I")
    scale = 1
    for suffix, factor in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)):
        if text.endswith(suffix):
            text, scale = text[:-1], factor
            break
    return int(float(text) * scale)


# --------------------------------------------------------------------------------------------
# statistics


def summary(values):
    """median, min, max, n of the finite values (None when there are none)."""
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


# --------------------------------------------------------------------------------------------
# files


def sha256_file(path, limit=None):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        remaining = limit
        while True:
            chunk = f.read(1 << 20 if remaining is None else min(1 << 20, remaining))
            if not chunk:
                break
            h.update(chunk)
            if remaining is not None:
                remaining -= len(chunk)
                if remaining <= 0:
                    break
    return h.hexdigest()


def group_by(rows, *keys):
    """{(row[k] for k in keys): [rows]}, in first-seen order."""
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    return groups


def portable(text):
    """Published text names no path of the measuring machine: the checkout becomes relative,
    the Python interpreter `python3`, the home directory `~`."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for old, new in ((sys.executable, "python3"), (root + "/", ""), (root, "."),
                     (os.path.expanduser("~") + "/", "~/")):
        if old and old not in ("/", "."):
            text = text.replace(old, new)
    return text


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(portable(json.dumps(obj, indent=1, sort_keys=False, default=str)))
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def write_csv(path, rows, fields=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if fields is None:
        fields = []
        for r in rows:
            for k in r:
                if k not in fields:
                    fields.append(k)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: portable(fmt_csv(r.get(k))) if isinstance(r.get(k), str) else fmt_csv(r.get(k))
                        for k in fields})
    os.replace(tmp, path)


def fmt_csv(v):
    if isinstance(v, float):
        return "%.6g" % v
    return "" if v is None else v


def cached_meta(artifact, params):
    """The stored metadata of artifact when it exists and was made with exactly params."""
    meta_path = artifact + ".bench.json"
    if not (os.path.exists(artifact) and os.path.exists(meta_path)):
        return None
    try:
        meta = read_json(meta_path)
    except (OSError, ValueError):
        return None
    if meta.get("params") != json.loads(json.dumps(params)):
        return None
    return meta


def store_meta(artifact, params, **fields):
    meta = {"params": params, "made": time.strftime("%Y-%m-%d %H:%M:%S")}
    meta.update(fields)
    write_json(artifact + ".bench.json", meta)
    return meta


def read_fasta(path):
    """[(name, sequence)] of a plain FASTA file; name = header up to the first space."""
    records, name, seq = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(seq)))
                name, seq = line[1:].split()[0] if line[1:].split() else "", []
            else:
                seq.append(line)
    if name is not None:
        records.append((name, "".join(seq)))
    return records


def write_fasta(path, records):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for name, seq in records:
            f.write(">%s\n" % name)
            for i in range(0, len(seq), 80):
                f.write(seq[i:i + 80] + "\n")
    os.replace(tmp, path)


def resident_bytes(path):
    """Bytes of path in the page cache (mincore over a temporary read-only mapping)."""
    import ctypes
    import mmap
    size = os.path.getsize(path)
    if size == 0:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    page = mmap.PAGESIZE
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed for mincore")
        try:
            vec = ctypes.create_string_buffer((size + page - 1) // page)
            if libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore failed")
            raw = vec.raw
            return (len(raw) - raw.count(b"\x00")) * page
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)
