"""What the run ran on: CPU, memory, kernel, the disk and file system of the work directory,
io_uring, bitsift's commit (read from .git without running git), COBS, date."""

import ctypes
import errno
import json
import os
import platform
import subprocess
import time

from .util import human, log, sha256_file


def _read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpu():
    model, flags = None, ""
    for line in (_read("/proc/cpuinfo", "") or "").splitlines():
        if line.startswith("model name") and model is None:
            model = line.split(":", 1)[1].strip()
    hypervisor = None
    try:
        out = subprocess.run(["lscpu", "--json"], capture_output=True, text=True, check=True).stdout
        for f in json.loads(out).get("lscpu", []):
            if f.get("field", "").startswith("Hypervisor vendor"):
                hypervisor = f.get("data")
    except (OSError, subprocess.CalledProcessError, ValueError):
        pass
    return {"model": model, "logical_cpus": os.cpu_count(), "hypervisor": hypervisor,
            "machine": platform.machine()}


def memory():
    info = {}
    for line in (_read("/proc/meminfo", "") or "").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts:
            info[key] = int(parts[0]) * 1024
    return {"total_bytes": info.get("MemTotal"), "available_bytes": info.get("MemAvailable"),
            "swap_bytes": info.get("SwapTotal")}


def mount_of(path):
    """(device, mount point, fstype, options) of the file system holding path."""
    path = os.path.realpath(path)
    best = None
    for line in (_read("/proc/self/mountinfo", "") or "").splitlines():
        left, _, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        mnt = fields[4].replace("\\040", " ")
        if path == mnt or path.startswith(mnt.rstrip("/") + "/") or mnt == "/":
            if best is None or len(mnt) > len(best[1]):
                best = (rfields[1] if len(rfields) > 1 else "?", mnt, rfields[0], fields[5])
    return best


def block_device(path):
    """The whole-disk block device (sysfs name) behind path's file system, if any."""
    while not os.path.exists(path):
        path = os.path.dirname(path)
    dev = os.stat(path).st_dev
    sys_path = "/sys/dev/block/%d:%d" % (os.major(dev), os.minor(dev))
    if not os.path.exists(sys_path):
        return None
    real = os.path.realpath(sys_path)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    return os.path.basename(real)


def disk(name):
    if not name:
        return {"device": None}
    base = "/sys/block/%s" % name
    q = lambda f: _read(os.path.join(base, "queue", f))  # noqa: E731
    info = {"device": name, "model": _read(os.path.join(base, "device/model")),
            "vendor": _read(os.path.join(base, "device/vendor")),
            "size_bytes": int(_read(os.path.join(base, "size"), "0")) * 512,
            "rotational": q("rotational"), "logical_block_size": q("logical_block_size"),
            "physical_block_size": q("physical_block_size"), "read_ahead_kb": q("read_ahead_kb"),
            "scheduler": q("scheduler"), "nr_requests": q("nr_requests"),
            "max_sectors_kb": q("max_sectors_kb")}
    driver = os.path.realpath(os.path.join(base, "device/driver")) if os.path.exists(
        os.path.join(base, "device/driver")) else None
    info["driver"] = os.path.basename(driver) if driver else None
    try:
        out = subprocess.run(["lsblk", "-J", "-d", "-o", "NAME,MODEL,SIZE,ROTA,TYPE,TRAN,DISC-GRAN",
                              "/dev/" + name], capture_output=True, text=True, check=True).stdout
        info["lsblk"] = json.loads(out).get("blockdevices", [{}])[0]
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
        info["lsblk"] = None
    if name.startswith("vd"):
        info["kind"] = "virtio disk"
    elif name.startswith("nvme"):
        info["kind"] = "NVMe"
    elif info["rotational"] == "1":
        info["kind"] = "rotational (as reported)"
    else:
        info["kind"] = "non-rotational"
    return info


def io_uring_probe():
    """io_uring_setup(1, params) through the raw system call: 'ok' or the errno name."""
    disabled = _read("/proc/sys/kernel/io_uring_disabled")
    seccomp = None
    for line in (_read("/proc/self/status", "") or "").splitlines():
        if line.startswith("Seccomp:"):
            seccomp = line.split()[1]
    result = "unknown"
    if platform.machine() in ("x86_64", "aarch64"):
        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)
        fd = libc.syscall(425, 1, params)
        if fd >= 0:
            os.close(fd)
            result = "ok"
        else:
            result = errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return {"io_uring_setup": result, "kernel.io_uring_disabled": disabled, "seccomp": seccomp}


def git_commit(root):
    """The checked-out commit, read from .git (the suite never runs git)."""
    gitdir = os.path.join(root, ".git")
    if os.path.isfile(gitdir):  # worktree: "gitdir: PATH"
        text = _read(gitdir, "")
        if text.startswith("gitdir:"):
            gitdir = os.path.join(root, text.split(":", 1)[1].strip())
    head = _read(os.path.join(gitdir, "HEAD"))
    if head is None:
        return {"commit": None, "ref": None}
    if not head.startswith("ref:"):
        return {"commit": head, "ref": None}
    ref = head.split(":", 1)[1].strip()
    commondir = _read(os.path.join(gitdir, "commondir"))
    dirs = [gitdir] + ([os.path.join(gitdir, commondir)] if commondir else [])
    for d in dirs:
        sha = _read(os.path.join(d, ref))
        if sha:
            return {"commit": sha, "ref": ref}
        packed = _read(os.path.join(d, "packed-refs"), "")
        for line in packed.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref:
                return {"commit": parts[0], "ref": ref}
    return {"commit": None, "ref": ref}


def newest_source_mtime(root):
    newest = 0.0
    for top in ("src", "crates", "Cargo.toml", "Cargo.lock", "build.rs"):
        p = os.path.join(root, top)
        if os.path.isfile(p):
            newest = max(newest, os.path.getmtime(p))
        for dirpath, dirnames, filenames in os.walk(p):
            dirnames[:] = [d for d in dirnames if d != "target"]
            for fn in filenames:
                newest = max(newest, os.path.getmtime(os.path.join(dirpath, fn)))
    return newest


def cobs_version():
    out = {"cobs_index": None, "package": None}
    try:
        import importlib.metadata as md
        out["package"] = "cobs-reloaded " + md.version("cobs-reloaded")
    except Exception:  # noqa: BLE001
        pass
    try:
        import cobs_index
        out["cobs_index"] = getattr(cobs_index, "__version__", "?")
    except Exception as e:  # noqa: BLE001
        out["error"] = str(e)
    return out


def tool_version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
        return (p.stdout or p.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return None


def describe(ctx):
    log("machine: describing CPU, memory, disk, file system, io_uring, versions")
    mnt = mount_of(ctx.work)
    commit = git_commit(ctx.root)
    binary_mtime = os.path.getmtime(ctx.bitsift_src) if os.path.exists(ctx.bitsift_src) else None
    stale = binary_mtime is not None and binary_mtime < newest_source_mtime(ctx.root)
    m = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "hostname": platform.node(),
        "cpu": cpu(),
        "memory": memory(),
        "kernel": platform.release(),
        "os": _read("/etc/debian_version") and ("Debian " + _read("/etc/debian_version")),
        "work_dir": ctx.work,
        "filesystem": {"device": mnt[0], "mount": mnt[1], "type": mnt[2], "options": mnt[3]} if mnt else None,
        "disk": disk(block_device(ctx.work)),
        "io_uring": io_uring_probe(),
        "bitsift": {**commit, "binary": ctx.bitsift_src, "binary_sha256": sha256_file(ctx.bitsift)[:16],
                    "version": tool_version([ctx.bitsift, "--version"]),
                    "binary_older_than_sources": stale},
        "cobs": cobs_version(),
        "fio": tool_version(["fio", "--version"]),
        "python": platform.python_version(),
        "cache_method": ctx.cache.describe(),
        "cgroup": ctx.cgroups.describe(),
    }
    if stale:
        ctx.notes.append("the bitsift binary %s is older than the newest source file: the numbers "
                         "may not match the commit" % ctx.bitsift_src)
    return m


def one_line(m):
    """A compact description for the top of each section."""
    d = m.get("disk") or {}
    fs = m.get("filesystem") or {}
    cpu_ = m.get("cpu") or {}
    mem = m.get("memory") or {}
    bits = m.get("bitsift") or {}
    return ("%s, %s CPUs%s, %s RAM, Linux %s; %s %s (%s, %s, read_ahead_kb %s), %s; io_uring %s; "
            "bitsift %s; COBS %s; %s" % (
                cpu_.get("model"), cpu_.get("logical_cpus"),
                (" (%s VM)" % cpu_["hypervisor"]) if cpu_.get("hypervisor") else "",
                human(mem.get("total_bytes") or 0), m.get("kernel"), d.get("kind"), d.get("device"),
                (d.get("lsblk") or {}).get("model") or d.get("model") or "no model string",
                human(d.get("size_bytes") or 0), d.get("read_ahead_kb"), fs.get("type"),
                (m.get("io_uring") or {}).get("io_uring_setup"),
                (bits.get("commit") or "?")[:12], (m.get("cobs") or {}).get("package"), m.get("date")))
