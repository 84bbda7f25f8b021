"""cgroups for the measured processes: a memory cap, so the page cache cannot hold an index
that is larger than the limit (benchmarking.md: "Index larger than RAM"), and optionally a
read throttle on one disk, so a fast disk behaves like a frugal one (suite/frugal.py: the
`cloud` and `hdd` profiles of bench/frugal.sh).

cgroup v1 (these machines): /sys/fs/cgroup/memory/<name>/memory.limit_in_bytes and
/sys/fs/cgroup/blkio/<name>/blkio.throttle.read_iops_device / read_bps_device ("MAJ:MIN N");
the child writes its own PID to each hierarchy's `tasks` before it executes the measured
program (`Group.attach`, a preexec function: the same as `sh -c 'echo $$ > tasks; exec "$@"'`
without the shell). cgroup v2: <root>/<name>/memory.max, io.max ("MAJ:MIN riops=N rbps=N")
and cgroup.procs. Where each controller lives is read from /proc/self/mountinfo, so a hybrid
machine (v1 controllers, an empty v2 hierarchy beside them) and a pure v2 one both work.
Without a controller, or without root, the suite says so and measures without it."""

import errno
import os
import re

from .util import human, log

V1_ROOT = "/sys/fs/cgroup/memory"
V2_ROOT = "/sys/fs/cgroup"
MOUNTINFO = "/proc/self/mountinfo"
# The names of the two controllers in each version.
V1_NAMES = {"memory": "memory", "io": "blkio"}
V2_NAMES = {"memory": "memory", "io": "io"}


def _unescape(path):
    """mountinfo escapes space, tab, newline and backslash as \\ooo."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def hierarchies(mountinfo=MOUNTINFO):
    """controller ("memory" or "io") -> (version, directory where groups are made), for the
    controllers this machine has. A controller mounted in a v1 hierarchy is used there (a
    hybrid machine's v2 hierarchy then lacks it); otherwise the v2 hierarchy, if its
    cgroup.controllers lists it."""
    found = {}
    v2 = None
    try:
        with open(mountinfo) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        mount, fstype, options = _unescape(fields[4]), tail[0], tail[2].split(",")
        if fstype == "cgroup":
            for controller, name in V1_NAMES.items():
                if name in options and controller not in found:
                    found[controller] = ("v1", mount)
        elif fstype == "cgroup2" and v2 is None:
            v2 = mount
    if not lines:  # no mountinfo (not Linux?): the usual places
        if os.path.isfile(os.path.join(V1_ROOT, "memory.limit_in_bytes")):
            found["memory"] = ("v1", V1_ROOT)
        if os.path.isfile("/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device"):
            found["io"] = ("v1", "/sys/fs/cgroup/blkio")
        if os.path.isfile(os.path.join(V2_ROOT, "cgroup.controllers")):
            v2 = V2_ROOT
    if v2 is not None:
        try:
            with open(os.path.join(v2, "cgroup.controllers")) as f:
                available = f.read().split()
        except OSError:
            available = []
        for controller, name in V2_NAMES.items():
            if controller not in found and name in available:
                found[controller] = ("v2", v2)
    return found


class Throttle:
    """Read limits on one disk: `device` is "MAJ:MIN" of a whole disk (suite/frugal.py finds
    it from a path); iops and bps (bytes a second) may be None (no limit)."""

    def __init__(self, device, iops=None, bps=None, name=None):
        self.device = device
        self.iops = int(iops) if iops else None
        self.bps = int(bps) if bps else None
        self.name = name or device

    def key(self):
        return (self.device, self.iops, self.bps)

    def describe(self):
        parts = []
        if self.iops:
            parts.append("{:,} IOPS".format(self.iops))
        if self.bps:
            parts.append("%s/s" % human(self.bps))
        if not parts:
            return "reads of %s counted, not throttled" % self.name
        return "reads of %s throttled to %s" % (self.name, " and ".join(parts))


class Group:
    """One cgroup, made in every hierarchy that holds one of its controllers.

    path: the directory of the memory controller's group (or of the only one), as before;
    dirs: every directory; procs_files: where attach() writes the PID."""

    def __init__(self, path, limit_bytes, procs_file, mode="v1", dirs=None, procs_files=None,
                 throttle=None, controllers=None):
        self.path = path
        self.limit_bytes = limit_bytes
        self.procs_file = procs_file
        self.mode = mode
        self.dirs = dirs if dirs is not None else [path]
        self.procs_files = procs_files if procs_files is not None else [procs_file]
        self.throttle = throttle
        self.controllers = controllers if controllers is not None else {}  # controller -> (version, group directory)

    def attach(self):
        """Runs in the child between fork and exec: the child joins every hierarchy."""
        pid = str(os.getpid())
        for procs in self.procs_files:
            with open(procs, "w") as f:
                f.write(pid)

    def describe(self):
        parts = []
        if self.limit_bytes:
            parts.append("memory limit %s" % human(self.limit_bytes))
        if self.throttle is not None:
            parts.append(self.throttle.describe())
        return "%s (%s)" % (" + ".join(self.dirs), "; ".join(parts) or "no limits")

    def _read(self, controller, name):
        where = self.controllers.get(controller)
        if where is None:
            return None
        try:
            with open(os.path.join(where[1], name)) as f:
                return f.read()
        except OSError:
            return None

    def reads(self):
        """(read requests, bytes read) on the throttled device, as the kernel's io controller
        counted them for this group (v1 blkio.throttle.io_serviced / io_service_bytes, v2
        io.stat rios / rbytes), or (None, None)."""
        if self.throttle is None or "io" not in self.controllers:
            return None, None
        device = self.throttle.device
        if self.controllers["io"][0] == "v1":
            counts = []
            for name in ("blkio.throttle.io_serviced", "blkio.throttle.io_service_bytes"):
                text = self._read("io", name) or ""
                value = 0
                for line in text.splitlines():
                    parts = line.split()
                    if len(parts) == 3 and parts[0] == device and parts[1] == "Read":
                        value = int(parts[2])
                counts.append(value)
            return counts[0], counts[1]
        text = self._read("io", "io.stat") or ""
        for line in text.splitlines():
            parts = line.split()
            if parts and parts[0] == device:
                fields = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
                return int(fields.get("rios", 0)), int(fields.get("rbytes", 0))
        return 0, 0

    def reset_peak(self):
        """Starts the memory high-water mark again (v1 only: v2's memory.peak resets only for
        the file descriptor that wrote to it)."""
        where = self.controllers.get("memory")
        if where is None or where[0] != "v1":
            return
        try:
            with open(os.path.join(where[1], "memory.max_usage_in_bytes"), "w") as f:
                f.write("0")
        except OSError:
            pass

    def peak(self):
        """Peak memory of the group since reset_peak (page cache included), or None."""
        where = self.controllers.get("memory")
        if where is None:
            return None
        text = self._read("memory", "memory.max_usage_in_bytes" if where[0] == "v1" else "memory.peak")
        try:
            return int(text.split()[0])
        except (AttributeError, ValueError, IndexError):
            return None

    def oom_kills(self):
        """Processes the OOM killer ended in this group (v1 memory.oom_control, v2
        memory.events), or None when the kernel does not say."""
        where = self.controllers.get("memory")
        if where is None:
            return None
        text = self._read("memory", "memory.oom_control" if where[0] == "v1" else "memory.events")
        for line in (text or "").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "oom_kill":
                return int(parts[1])
        return None

    def members(self):
        """PIDs still in the group (a command that left children behind)."""
        pids = set()
        for d in self.dirs:
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    pids.update(int(p) for p in f.read().split())
            except (OSError, ValueError):
                pass
        return sorted(pids)

    def remove(self):
        """Removes the group's directories; returns the errors (an empty list when all went)."""
        errors = []
        for d in self.dirs:
            try:
                os.rmdir(d)
            except FileNotFoundError:
                pass
            except OSError as e:
                errors.append("%s: %s" % (d, e.strerror))
        return errors


class Cgroups:
    """Creates one cgroup per set of limits, named PREFIX-<pid>-<MiB>M (plus the throttle),
    and removes them at the end. `prefix` names the owner: groups of PIDs that no longer run
    and that hold no process are removed when a Cgroups is made (left by a killed run)."""

    def __init__(self, enabled=True, prefix="bitsift-bench", announce=True):
        self.groups = {}
        self.announce = announce
        self.mode = None
        self.reason = ""
        self.prefix = prefix
        self.found = {}
        if not enabled:
            self.reason = "disabled (--no-cgroup)"
            return
        if os.geteuid() != 0:
            self.reason = "not root: measured processes run without a memory cap"
            return
        self.found = hierarchies()
        memory = self.found.get("memory")
        if memory is not None and os.access(memory[1], os.W_OK):
            self.mode = memory[0]
        elif memory is not None:
            self.reason = "%s is not writable: no memory cap" % memory[1]
        elif any(v == "v2" for v, _ in self.found.values()) or os.path.isfile(
                os.path.join(V2_ROOT, "cgroup.controllers")):
            self.reason = "cgroup v2 without the memory controller (%s): no memory cap" % (
                os.path.join(V2_ROOT, "cgroup.controllers"))
        else:
            self.reason = "no memory cgroup controller found (neither %s nor %s): no memory cap" % (
                V1_ROOT, os.path.join(V2_ROOT, "cgroup.controllers"))
        self.remove_stale()

    @property
    def available(self):
        return self.mode is not None

    def throttle_reason(self):
        """Why reads cannot be throttled here ('' when they can)."""
        if os.geteuid() != 0:
            return "not root: throttling reads needs root (it writes the io controller's files under /sys/fs/cgroup)"
        where = self.found.get("io") or hierarchies().get("io")
        if where is None:
            return ("no io controller: neither a cgroup v1 blkio hierarchy nor io in a cgroup v2 "
                    "hierarchy's cgroup.controllers (see /proc/self/mountinfo)")
        if not os.access(where[1], os.W_OK):
            return "%s is not writable" % where[1]
        return ""

    def describe(self):
        text = []
        memory = self.found.get("memory")
        if self.mode == "v1":
            text.append("cgroup v1 memory controller (%s/<group>/memory.limit_in_bytes, PID written to "
                        "`tasks` before exec)" % memory[1])
        elif self.mode == "v2":
            text.append("cgroup v2 (%s/<group>/memory.max, PID written to cgroup.procs before exec)"
                        % memory[1])
        else:
            return "none: " + self.reason
        if any(g.throttle is not None for g in self.groups.values()):
            io = self.found.get("io")
            if io and io[0] == "v1":
                text.append("reads throttled by cgroup v1 blkio (%s/<group>/blkio.throttle."
                            "read_iops_device and read_bps_device)" % io[1])
            elif io:
                text.append("reads throttled by cgroup v2 io.max (%s/<group>/io.max riops, rbps)" % io[1])
        return "; ".join(text)

    def group(self, limit_bytes, throttle=None, name=None):
        """The cgroup with this memory limit (None: no cap) and this read throttle (a Throttle,
        or None), created on first use; None without cgroups. A throttle that cannot be set
        raises OSError naming the file."""
        if self.mode is None and throttle is None:
            return None
        limit_bytes = int(limit_bytes) if limit_bytes else None
        key = (limit_bytes, throttle.key() if throttle is not None else None)
        if key in self.groups:
            return self.groups[key]
        if name is None:
            name = "%s-%d-%dM" % (self.prefix, os.getpid(), (limit_bytes or 0) >> 20)
            if throttle is not None:
                name += "-%siops-%sbps" % (throttle.iops or "max", throttle.bps or "max")
        wanted = []
        if limit_bytes:
            if "memory" not in self.found:
                raise OSError(errno.ENOENT, "no memory cgroup controller (%s)" % self.reason)
            wanted.append("memory")
        if throttle is not None:
            why = self.throttle_reason()
            if why:
                raise OSError(errno.EPERM, why)
            wanted.append("io")
        controllers, dirs, procs_files = {}, [], []
        group = Group(None, limit_bytes, None, mode=self.mode, dirs=dirs, procs_files=procs_files,
                      throttle=throttle, controllers=controllers)
        try:
            for controller in wanted:
                version, root = self.found[controller]
                path = os.path.join(root, name)
                if version == "v2":  # the parent hands the controller down (writes add up)
                    _write(os.path.join(root, "cgroup.subtree_control"), "+" + V2_NAMES[controller])
                if path not in dirs:
                    os.makedirs(path, exist_ok=True)
                    dirs.append(path)
                    procs_files.append(os.path.join(path, "tasks" if version == "v1" else "cgroup.procs"))
                controllers[controller] = (version, path)
                if controller == "memory":
                    _write(os.path.join(path, "memory.limit_in_bytes" if version == "v1" else "memory.max"),
                           str(limit_bytes))
                elif version == "v1":
                    for file, value in (("blkio.throttle.read_iops_device", throttle.iops),
                                        ("blkio.throttle.read_bps_device", throttle.bps)):
                        if value:
                            _write(os.path.join(path, file), "%s %d" % (throttle.device, value))
                else:
                    _write(os.path.join(path, "io.max"), "%s riops=%s rbps=%s" % (
                        throttle.device, throttle.iops or "max", throttle.bps or "max"))
        except BaseException:
            group.remove()
            raise
        group.path = controllers.get("memory", controllers.get("io"))[1]
        group.procs_file = procs_files[0]
        if self.announce:
            log("cgroup: created %s" % group.describe())
        self.groups[key] = group
        return group

    def remove_stale(self):
        """Removes empty groups named PREFIX-<pid>-... whose process is gone (a killed run's)."""
        pattern = re.compile(r"^%s-(\d+)(-|$)" % re.escape(self.prefix))
        for _, root in set(self.found.values()):
            try:
                names = os.listdir(root)
            except OSError:
                continue
            for name in names:
                m = pattern.match(name)
                if not m or _alive(int(m.group(1))):
                    continue
                try:
                    os.rmdir(os.path.join(root, name))
                except OSError:
                    pass  # still holds a process, or not ours to remove

    def cleanup(self):
        for group in self.groups.values():
            for error in group.remove():
                log("cgroup: could not remove %s" % error)
        self.groups = {}


def _write(path, text):
    """Writes a cgroup file; the kernel's refusal becomes an OSError naming the file."""
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise OSError(e.errno, "cannot write %r to %s: %s" % (text, path, e.strerror)) from None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
