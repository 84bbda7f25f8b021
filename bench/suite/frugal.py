"""Frugal disk profiles: run a command as if the index sat on a cloud volume or a hard disk
(issue 29). Such disks are limited by read requests per second, not bytes:

    profile  read IOPS  read bandwidth  memory (page cache included)
    cloud        3,000      125 MiB/s   2 GiB   a cloud block volume's baseline
    hdd            200      150 MiB/s   2 GiB   a hard disk
    none             -              -   2 GiB   no throttle: the memory cap only

The kernel does the throttling: one cgroup per invocation (suite/cgroup.py), with the read
limits on the disk that holds a path (cgroup v1 blkio.throttle.read_iops_device and
read_bps_device, or v2 io.max riops/rbps) and the memory limit (v1 memory.limit_in_bytes, v2
memory.max). The command joins it before it executes (a preexec function), so every thread
and io_uring worker it starts is throttled too: O_DIRECT and buffered reads, io_uring and
mmap page faults all count (bench/frugal.sh --check measures each). blk-throttle counts
requests as the block layer sees them: a buffered read-ahead or an mmap read-around is a few
large requests (up to 4 MiB each here), held to the bandwidth limit; a large O_DIRECT read is
split (at most 254 memory segments a request here) and each part counts against the IOPS
limit. An idle group starts with about one throttle slice's budget at once (100 ms: ~300
requests under cloud); steady rates are exact (BENCHMARKS.md, "Frugal disk profiles").

    bench/frugal.sh PROFILE [--iops N] [--bps SIZE] [--memory SIZE] [--device-of PATH]
                    [--stats] [--quiet] [--] CMD [ARGS...]
    bench/frugal.sh --check PROFILE [--device-of PATH] [--seconds S] [--size SIZE]
                    [--file PATH] [--bitsift PATH]
    bench/frugal.sh --list

--stats prints, when the command ends, the read requests and bytes the kernel's io controller
counted for it on the device (a large read counts as the requests it was split into).
Options may come before or after PROFILE; the first other word starts the command. Root is
required (cgroups). The device is the disk holding --device-of PATH (default: the current
directory), found from stat's st_dev through /sys/dev/block, a partition resolved to its
whole disk (the throttle refuses partitions). The cgroup is named bitsift-frugal-<pid> and
removed when the command ends, also on Ctrl-C or SIGTERM (which are passed to the command).

Exit status: the command's (128 + N when a signal N ended it); 125 when frugal.sh itself
fails (not root, no cgroup controller, a bad option), 126/127 when the command cannot be
executed or is not found. --check: 0 when the throttle held for every access method (no rate
above its limit by more than 10 %), 1 otherwise.

Python benchmarks use it directly: `profile_group(cgroups, profile, path)` gives a
cgroup.Group whose `attach` is the preexec function (bench/mission_scale.py --profiles)."""

import json
import mmap
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

from .cgroup import Cgroups, Throttle, hierarchies
from .util import human

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
ROOT = os.path.dirname(HERE)
GiB = 1 << 30
MiB = 1 << 20


class FrugalError(Exception):
    """An expected failure (not root, no controller, no block device...): one clear line."""


class Profile:
    def __init__(self, name, iops, bps, memory, about):
        self.name = name
        self.iops = iops
        self.bps = bps
        self.memory = memory
        self.about = about

    @property
    def throttled(self):
        return bool(self.iops or self.bps)

    def with_overrides(self, iops=None, bps=None, memory=None):
        """A copy with some limits replaced (0 removes a limit)."""
        def pick(new, old):
            return old if new is None else (new or None)
        changed = iops is not None or bps is not None or memory is not None
        return Profile(self.name + ("*" if changed else ""), pick(iops, self.iops),
                       pick(bps, self.bps), pick(memory, self.memory), self.about)

    def describe(self):
        parts = []
        if self.iops:
            parts.append("{:,} IOPS".format(self.iops))
        if self.bps:
            parts.append("%s/s" % human(self.bps))
        disk = " and ".join(parts) if parts else "no read throttle"
        memory = ("memory %s" % human(self.memory)) if self.memory else "no memory cap"
        return "%s: %s, %s (%s)" % (self.name, disk, memory, self.about)

    def as_dict(self):
        return {"name": self.name, "read_iops": self.iops, "read_bps": self.bps,
                "memory_bytes": self.memory, "about": self.about}


PROFILES = {
    "none": Profile("none", None, None, 2 * GiB, "no throttle: the memory cap only"),
    "cloud": Profile("cloud", 3000, 125 * MiB, 2 * GiB, "a cloud block volume's baseline"),
    "hdd": Profile("hdd", 200, 150 * MiB, 2 * GiB, "a hard disk"),
}


def profile(name):
    try:
        return PROFILES[name]
    except KeyError:
        raise FrugalError("unknown profile %r (profiles: %s)" % (name, ", ".join(PROFILES))) from None


# ------------------------------------------------------------------------------------------
# the device behind a path


class Device:
    def __init__(self, major, minor, name, path, note=""):
        self.major, self.minor = major, minor
        self.name = name  # /dev/vda
        self.path = path  # the path it was found from
        self.note = note  # e.g. "partition vda1 resolved to its disk"

    @property
    def id(self):
        return "%d:%d" % (self.major, self.minor)

    def describe(self):
        return "%s (%s)%s" % (self.name, self.id, ", " + self.note if self.note else "")


def _mount_of(dev):
    """(file system type, source) of the mount whose device is `dev` (MAJ:MIN), or Nones."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) > 2 and fields[2] == dev and len(tail) >= 2:
                    return tail[0], tail[1]
    except OSError:
        pass
    return None, None


def device_of(path):
    """The whole disk holding `path`, from stat's st_dev: /sys/dev/block/MAJ:MIN, and for a
    partition its parent (blk-throttle takes whole disks only). A file system without a
    block device of its own (btrfs's anonymous device) is followed to the device it was
    mounted from; tmpfs, overlay, NFS and FUSE have none, which is an error."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise FrugalError("--device-of %s: %s" % (path, e.strerror)) from None
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    note = ""
    if major == 0:
        fstype, source = _mount_of("%d:%d" % (major, minor))
        try:
            src = os.stat(source) if source and source.startswith("/dev/") else None
        except OSError:
            src = None
        if src is None or not (src.st_mode & 0o170000 == 0o060000):
            raise FrugalError(
                "%s is on a file system without a block device (%s): reads there cannot be "
                "throttled; give --device-of a path on a disk" % (path, fstype or "unknown type"))
        major, minor = os.major(src.st_rdev), os.minor(src.st_rdev)
        note = "%s mounted from %s" % (fstype, source)
    sys_dir = "/sys/dev/block/%d:%d" % (major, minor)
    if not os.path.exists(sys_dir):
        raise FrugalError("%s: device %d:%d has no %s; cannot tell its disk" % (path, major, minor, sys_dir))
    real = os.path.realpath(sys_dir)
    if os.path.exists(os.path.join(real, "partition")):
        disk = os.path.dirname(real)
        with open(os.path.join(disk, "dev")) as f:
            major, minor = (int(x) for x in f.read().strip().split(":"))
        note = (note + "; " if note else "") + "partition %s resolved to its disk" % os.path.basename(real)
        real = disk
    return Device(major, minor, "/dev/" + os.path.basename(real), path, note)


# ------------------------------------------------------------------------------------------
# cgroups


def profile_group(cgroups, prof, path, name=None, count_reads=False):
    """The cgroup.Group applying `prof` (a Profile) to the disk holding `path`, made through
    `cgroups` (a cgroup.Cgroups): a read throttle when the profile has one, and its memory
    cap. None when the profile sets nothing. count_reads: join the io controller even without
    a throttle, so that Group.reads() counts. Raises FrugalError with the reason when the
    throttle or the cap cannot be made (not root, no controller)."""
    throttle = None
    if prof.throttled or count_reads:
        why = cgroups.throttle_reason()
        if why:
            raise FrugalError("profile %s: %s" % (prof.name, why))
        device = device_of(path)
        throttle = Throttle(device.id, prof.iops, prof.bps, name=device.describe())
    if prof.memory and not cgroups.available:
        raise FrugalError("profile %s: %s" % (prof.name, cgroups.reason))
    if throttle is None and not prof.memory:
        return None
    try:
        return cgroups.group(prof.memory, throttle=throttle, name=name)
    except OSError as e:
        raise FrugalError("profile %s: %s" % (prof.name, e.strerror or e)) from None


# ------------------------------------------------------------------------------------------
# running a command


SI_KERNEL = 0x80  # siginfo si_code of a signal the kernel raised (the terminal's Ctrl-C)
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
             signal.SIGUSR2)


def say(text):
    sys.stderr.write("frugal: %s\n" % text)
    sys.stderr.flush()


def run_command(group, cmd):
    """Runs cmd in `group` (None: no cgroup) and returns its exit status as a shell would.

    Signals: they are blocked here and taken with sigwaitinfo. One the terminal raised
    (Ctrl-C) reached the command too and is not sent again; one sent with kill() is passed to
    the command (unless the command itself sent it to its process group). The caller removes
    the group afterwards, whatever happened."""
    waited = set(FORWARDED) | {signal.SIGCHLD}
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, waited)

    def child_setup():
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        if group is not None:
            group.attach()

    try:
        try:
            proc = subprocess.Popen(cmd, preexec_fn=child_setup)
        except FileNotFoundError:
            say("%s: command not found" % cmd[0])
            return 127
        except PermissionError as e:
            say("%s: cannot execute: %s" % (cmd[0], e.strerror))
            return 126
        except subprocess.SubprocessError as e:  # the preexec function failed
            raise FrugalError("cannot put the command into the cgroup: %s" % e) from None
        while True:
            info = signal.sigwaitinfo(waited)
            if info.si_signo == signal.SIGCHLD:
                pid, status = os.waitpid(proc.pid, os.WNOHANG)
                if pid:
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    break
                continue
            if info.si_code == SI_KERNEL:
                continue  # from the terminal: the command's process group had it too
            if info.si_pid == proc.pid:
                continue  # the command signalled its own process group (`kill 0`): it had it too
            try:
                os.kill(proc.pid, info.si_signo)
            except ProcessLookupError:
                pass
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    code = proc.returncode
    return 128 - code if code < 0 else code


def announce(prof, group):
    """One line: what the command runs under, and where."""
    parts = []
    if group.throttle is not None:
        parts.append(group.throttle.describe())
    parts.append(("memory capped at %s (page cache included)" % human(prof.memory))
                 if prof.memory else "no memory cap")
    versions = sorted({v for v, _ in group.controllers.values()})
    return "%s: %s; cgroup %s %s" % (prof.name, ", ".join(parts), "+".join(versions),
                                     os.path.basename(group.dirs[0]))


def run_main(opts):
    prof = profile(opts["profile"]).with_overrides(opts.get("iops"), opts.get("bps"), opts.get("memory"))
    cmd = opts["command"]
    if not cmd:
        raise FrugalError("no command to run (usage: frugal.sh PROFILE CMD [ARGS...])")
    if not prof.throttled and not prof.memory and not opts.get("stats"):
        if not opts.get("quiet"):
            say("%s: no throttle and no memory cap: running the command as it is" % prof.name)
        return run_command(None, cmd)
    if os.geteuid() != 0:
        raise FrugalError("needs root: the %s profile makes a cgroup under /sys/fs/cgroup (a read "
                          "throttle and a memory cap); run it with sudo" % prof.name)
    cgroups = Cgroups(prefix="bitsift-frugal", announce=False)
    group = None
    try:
        group = profile_group(cgroups, prof, opts.get("device_of") or ".",
                              name="bitsift-frugal-%d" % os.getpid(), count_reads=opts.get("stats"))
        if not opts.get("quiet"):
            say(announce(prof, group))
        before = group.reads()
        code = run_command(group, cmd)
        after = group.reads()
        kills = group.oom_kills()
        if kills:
            say("the memory cap (%s) made the OOM killer end %d process(es)" % (human(prof.memory), kills))
        if opts.get("stats") and before[0] is not None:
            ios, nbytes = after[0] - before[0], after[1] - before[1]
            say("%s read requests, %s read from %s, as the kernel's io controller counted them%s" % (
                "{:,}".format(ios), human(nbytes), group.throttle.name,
                " (%s per request)" % human(nbytes / ios) if ios else ""))
        left = group.members()
        if left:
            say("the command left processes in the cgroup (%s); it stays until they end: %s" % (
                " ".join(map(str, left)), " ".join(group.dirs)))
            cgroups.groups = {}
        return code
    finally:
        cgroups.cleanup()


# ------------------------------------------------------------------------------------------
# --check: does the throttle hold for every way bitsift and COBS read?


WARMUP_S = 0.3  # blk-throttle lets an idle group start with about one slice's budget at once


def probe(method, path, seconds, threads, warmup=WARMUP_S):
    """Runs in a child in the cgroup: reads `path` by `method` for `warmup` + `seconds` and
    returns {"requests", "bytes", "seconds"} of the reads completed after the warm-up, and
    {"burst_requests", "burst_s"}: what the first 0.1 s of the warm-up let through (the
    kernel's throttle slice lets a group that was idle start with a burst)."""
    size = os.path.getsize(path)
    block = 4096
    rng = random.Random(1)
    seen = set()
    lock = threading.Lock()
    started = time.perf_counter()
    counted_from = started + warmup
    deadline = counted_from + seconds
    burst_until = started + 0.1
    totals = {"requests": 0, "bytes": 0, "burst_requests": 0}

    def offset():
        """A random 4 KiB page not read before in this run (a repeat would hit the cache)."""
        with lock:
            while True:
                page = rng.randrange(size // block)
                if page not in seen:
                    seen.add(page)
                    return page * block

    def done(nbytes):
        """Counts one completed request (the clock is read after it)."""
        now = time.perf_counter()
        with lock:
            if now >= counted_from:
                totals["requests"] += 1
                totals["bytes"] += nbytes
            elif now < burst_until:
                totals["burst_requests"] += 1

    def random_direct():
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, block)  # page-aligned, as O_DIRECT wants
        while time.perf_counter() < deadline:
            os.preadv(fd, [buf], offset())
            done(block)
        os.close(fd)

    def random_buffered():
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead, as bitsift's pread
        while time.perf_counter() < deadline:
            os.pread(fd, block, offset())
            done(block)
        os.close(fd)

    chunk = MiB
    next_chunk = [0]

    def sequential_direct():
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, chunk)
        while time.perf_counter() < deadline:
            with lock:
                at = next_chunk[0]
                next_chunk[0] = (at + chunk) % (size - size % chunk)
            os.preadv(fd, [buf], at)
            done(chunk)
        os.close(fd)

    if method == "mmap":
        # COBS: the index mapped with MADV_RANDOM, one page fault per row read.
        with open(path, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        m.madvise(mmap.MADV_RANDOM)
        total = 0
        while time.perf_counter() < deadline:
            total += m[offset()]
            done(block)
        m.close()
    elif method == "sequential-buffered":
        # A plain sequential read: the kernel's read-ahead turns it into large requests.
        with open(path, "rb", buffering=0) as f:
            buf = bytearray(chunk)
            while time.perf_counter() < deadline:
                got = f.readinto(buf)
                if not got:
                    f.seek(0)
                    continue
                done(got)
    else:
        body = {"direct": random_direct, "buffered": random_buffered,
                "sequential-direct": sequential_direct}[method]
        workers = [threading.Thread(target=body) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return dict(totals, seconds=time.perf_counter() - counted_from, burst_s=0.1)


# method, request bytes, threads, what it stands for
CHECKS = [
    ("direct", 4096, 16, "O_DIRECT pread, random 4 KiB, 16 threads (bitsift --engine pread)"),
    ("uring", 4096, 32, "io_uring O_DIRECT, random 4 KiB, depth 32 (bitsift iobench --variants uring)"),
    ("buffered", 4096, 16, "buffered pread, random 4 KiB, POSIX_FADV_RANDOM, 16 threads"),
    ("mmap", 4096, 1, "mmap page faults, MADV_RANDOM, random pages (COBS)"),
    ("sequential-direct", MiB, 4, "O_DIRECT pread, sequential 1 MiB, 4 threads"),
    ("sequential-buffered", MiB, 1, "buffered sequential read, 1 MiB calls, kernel read-ahead"),
]


def find_bitsift(given):
    candidates = [given, os.environ.get("BITSIFT")]
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    candidates += [os.path.join(target, "release", "bitsift"), shutil.which("bitsift")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


def drop_file_cache(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def write_check_file(path, size):
    """Real bytes (never sparse): a random 1 MiB block, each 4 KiB page stamped with its
    number so no two pages are equal."""
    block = bytearray(random.Random(7).randbytes(MiB))
    with open(path, "wb") as f:
        for i in range(size // MiB):
            for page in range(0, MiB, 4096):
                block[page:page + 8] = (i * 256 + page // 4096).to_bytes(8, "little")
            f.write(block)
        f.flush()
        os.fsync(f.fileno())


def check_main(opts):
    prof = profile(opts["profile"]).with_overrides(opts.get("iops"), opts.get("bps"), opts.get("memory"))
    if os.geteuid() != 0:
        raise FrugalError("--check needs root: it makes a cgroup under /sys/fs/cgroup; run it with sudo")
    where = opts.get("device_of") or "."
    # 1 s at the cloud limit is 3,000 requests; the hdd's 200 IOPS get 2 s (400 requests).
    seconds = opts.get("seconds") or max(1.0, min(5.0, 400.0 / (prof.iops or 3000)))
    size = opts.get("size") or 512 * MiB
    device = device_of(where)
    bitsift = find_bitsift(opts.get("bitsift"))
    directory = os.path.abspath(where if os.path.isdir(where) else os.path.dirname(os.path.abspath(where)))
    path = opts.get("file")
    made = False
    cgroups = Cgroups(prefix="bitsift-frugal", announce=False)
    try:
        if path is None:
            path = os.path.join(directory, ".bitsift-frugal-check-%d.dat" % os.getpid())
            made = True
            started = time.perf_counter()
            if bitsift:
                # bitsift iobench writes its verifiable pattern, which its uring run needs.
                done = subprocess.run([bitsift, "iobench", path, "--size", str(size), "--variants",
                                       "pread", "-T", "1", "-d", "1ms", "-q", "--format", "json"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if done.returncode != 0:
                    raise FrugalError("bitsift iobench could not write %s: %s" % (path, done.stderr.strip()))
            else:
                write_check_file(path, size)
            say("wrote %s (%s of real bytes) in %.1f s" % (path, human(size), time.perf_counter() - started))
        elif device_of(path).id != device.id:
            raise FrugalError("--file %s is on %s, not on %s" % (path, device_of(path).describe(), device.describe()))
        group = profile_group(cgroups, prof, where, name="bitsift-frugal-%d" % os.getpid())
        if group is None or group.throttle is None:
            group_note = "no throttle"
        else:
            group_note = "cgroup %s" % " + ".join(group.dirs)
        io = hierarchies().get("io")
        print("frugal check: %s" % prof.describe())
        print("device: %s; %s (%s)" % (device.describe(), group_note,
                                       "cgroup %s io controller" % io[0] if io else "no io controller"))
        print("file: %s (%s); its page cache dropped (POSIX_FADV_DONTNEED) before each method; "
              "each method in a fresh process in the cgroup, %.1f s counted after a %.1f s warm-up"
              % (path, human(os.path.getsize(path)), seconds, WARMUP_S))
        print("")
        rows = []
        for method, request, threads, about in CHECKS:
            rows.append(check_one(method, request, threads, about, path, seconds, group, prof, bitsift))
            print_row(rows[-1])
        return summarize(rows, prof)
    finally:
        cgroups.cleanup()
        if made and path and os.path.exists(path):
            os.unlink(path)


def check_one(method, request, threads, about, path, seconds, group, prof, bitsift):
    row = {"method": method, "about": about, "request": request}
    drop_file_cache(path)
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONDONTWRITEBYTECODE="1")
    if method == "uring":
        if not bitsift:
            row["skipped"] = "no bitsift binary (build it, or give --bitsift PATH)"
            return row
        cmd = [bitsift, "iobench", path, "--variants", "uring", "--depths", str(threads), "-d",
               "%gs" % seconds, "--format", "json", "-q"]
    else:
        cmd = [sys.executable, "-m", "suite.frugal", "--probe", method, path, str(seconds), str(threads)]
    before = group.reads() if group is not None else (None, None)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          preexec_fn=group.attach if group is not None else None)
    after = group.reads() if group is not None else (None, None)
    if done.returncode != 0:
        row["skipped"] = "failed: %s" % (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
        return row
    if method == "uring":
        if "foreign" in done.stderr or "pattern" in done.stderr:
            row["skipped"] = "the file was not written by bitsift iobench"
            return row
        run = json.loads(done.stdout)["runs"][0]
        result = {"requests": run["reads"], "bytes": run["bytes_read"], "seconds": run["seconds"]}
    else:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    row["iops"] = result["requests"] / result["seconds"]
    if "burst_requests" in result:
        row["burst_requests"] = result["burst_requests"]
    row["bps"] = result["bytes"] / result["seconds"]
    if before[0] is not None:
        row["kernel_requests"] = after[0] - before[0]
        row["kernel_bytes"] = after[1] - before[1]
    # The limit this method meets: at most iops requests a second and bps bytes a second, a
    # request being what the kernel counted (the block layer may split a large read: each
    # part is charged against the IOPS limit).
    counted = request
    if row.get("kernel_requests"):
        counted = row["kernel_bytes"] / row["kernel_requests"]
        if abs(counted - request) < 512:
            counted = request  # a few requests of another size (e.g. iobench's file check)
    row["counted_request_bytes"] = counted
    limits = []
    if prof.iops:
        limits.append(("iops", prof.iops * counted))
    if prof.bps:
        limits.append(("bps", prof.bps))
    if limits:
        kind, limit_bps = min(limits, key=lambda kv: kv[1])
        row["bound"] = kind
        row["limit_bps"] = limit_bps
        row["ratio"] = row["bps"] / limit_bps
    return row


def print_row(row):
    if "skipped" in row:
        print("%-20s skipped: %s" % (row["method"], row["skipped"]))
        return
    kernel = ""
    if row.get("kernel_requests") is not None:
        per = row["kernel_bytes"] / row["kernel_requests"] if row["kernel_requests"] else 0
        kernel = "; kernel counted {:,} requests, {} ({} each)".format(
            row["kernel_requests"], human(row["kernel_bytes"]), human(per))
    if "ratio" in row:
        limit = row["limit_bps"]
        if row["bound"] == "iops" and abs(row["counted_request_bytes"] - row["request"]) < 512:
            target = "limit {:,.0f} IOPS".format(limit / row["request"])
        elif row["bound"] == "iops":
            target = "limit {:,.0f} IOPS x {} = {}/s".format(
                limit / row["counted_request_bytes"], human(row["counted_request_bytes"]), human(limit))
        else:
            target = "limit %s/s" % human(limit)
        verdict = "within 10 %" if abs(row["ratio"] - 1) <= 0.10 else (
            "ABOVE the limit" if row["ratio"] > 1.10 else "below the limit")
        judged = "%s: %.2f x, %s" % (target, row["ratio"], verdict)
    else:
        judged = "no limit"
    print("{:<20} {:>9,.0f} IOPS {:>8}/s  {}{}".format(row["method"], row["iops"], human(row["bps"]),
                                                      judged, kernel))
    about = row["about"]
    if row.get("burst_requests") is not None:
        about += "; first 0.1 s: %d requests" % row["burst_requests"]
    print("{:<20} ({})".format("", about))


def summarize(rows, prof):
    measured = [r for r in rows if "skipped" not in r]
    print("")
    if not prof.throttled:
        print("result: profile %s has no read throttle; rates above are the device's" % prof.name)
        return 0
    above = [r["method"] for r in measured if r.get("ratio", 0) > 1.10]
    within = [r for r in measured if abs(r.get("ratio", 0) - 1) <= 0.10]
    skipped = [r["method"] for r in rows if "skipped" in r]
    text = "result: %d of %d methods within 10 %% of the limit" % (len(within), len(measured))
    if skipped:
        text += "; skipped: %s" % ", ".join(skipped)
    if above:
        print(text + "; the throttle did NOT hold for: %s" % ", ".join(above))
        return 1
    below = [r["method"] for r in measured if r.get("ratio", 1) < 0.90]
    if below:
        text += "; below the limit (something else, such as the device or the CPU, bounds them): %s" % ", ".join(below)
    print(text + "; the throttle held for every method (none above its limit by more than 10 %)")
    return 0


# ------------------------------------------------------------------------------------------
# command line


def parse_size(text, what):
    if text.lower() in ("none", "0", "max", "off"):
        return 0
    units = {"": 1, "K": 1 << 10, "M": MiB, "G": GiB, "T": 1 << 40}
    t = text.strip().upper().replace("IB", "").rstrip("B") if text.upper() != "B" else ""
    number, unit = t, ""
    if t and t[-1] in units:
        number, unit = t[:-1], t[-1]
    try:
        value = float(number) * units[unit]
    except ValueError:
        raise FrugalError("%s %r: not a size such as 125M, 2G or none" % (what, text)) from None
    if value < 0:
        raise FrugalError("%s %r: must not be negative" % (what, text))
    return int(value)


def parse_count(text, what):
    if text.lower() in ("none", "0", "max", "off"):
        return 0
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise FrugalError("%s %r: not a whole number (or none)" % (what, text)) from None
    if value < 0:
        raise FrugalError("%s %r: must not be negative" % (what, text))
    return value


VALUED = {"--iops": ("iops", parse_count), "--bps": ("bps", parse_size),
          "--memory": ("memory", parse_size), "--device-of": ("device_of", None),
          "--seconds": ("seconds", float), "--size": ("size", parse_size), "--file": ("file", None),
          "--bitsift": ("bitsift", None)}
FLAGS = {"--check": "check", "--stats": "stats", "--quiet": "quiet", "-q": "quiet", "--list": "list"}


def parse(argv):
    opts = {"command": []}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            opts["help"] = True
        elif arg == "--":
            opts["command"] = argv[i + 1:]
            break
        elif arg in FLAGS:
            opts[FLAGS[arg]] = True
        elif arg.split("=", 1)[0] in VALUED:
            name, _, value = arg.partition("=")
            if not _:
                if i + 1 >= len(argv):
                    raise FrugalError("%s needs a value" % name)
                i += 1
                value = argv[i]
            key, convert = VALUED[name]
            try:
                opts[key] = convert(value, name) if convert in (parse_size, parse_count) else (
                    convert(value) if convert else value)
            except ValueError:
                raise FrugalError("%s %r: not a number" % (name, value)) from None
        elif arg.startswith("-") and "profile" not in opts:
            raise FrugalError("unknown option %s (see --help)" % arg)
        elif "profile" not in opts:
            opts["profile"] = arg
        else:
            opts["command"] = argv[i:]
            break
        i += 1
    return opts


def main(argv):
    if argv[:1] == ["--probe"]:
        method, path, seconds, threads = argv[1], argv[2], float(argv[3]), int(argv[4])
        print(json.dumps(probe(method, path, seconds, threads)))
        return 0
    try:
        opts = parse(argv)
        if opts.get("help"):
            print(__doc__)
            return 0
        if opts.get("list"):
            for p in PROFILES.values():
                print(p.describe())
            return 0
        if "profile" not in opts:
            raise FrugalError("no profile given (profiles: %s; see --help)" % ", ".join(PROFILES))
        if opts.get("check"):
            if opts["command"]:
                raise FrugalError("--check runs its own reads; give no command")
            return check_main(opts)
        return run_main(opts)
    except FrugalError as e:
        say("error: %s" % e)
        return 125


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
