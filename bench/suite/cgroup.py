"""Memory cgroups for the measured processes, so the page cache cannot hold an index that is
larger than the limit (benchmarking.md: "Index larger than RAM").

cgroup v1 (these machines): /sys/fs/cgroup/memory/<name>/memory.limit_in_bytes, and the child
writes its own PID to `tasks` before it executes the measured program (`Group.attach`, a
preexec function: the same as `sh -c 'echo $$ > tasks; exec "$@"'` without the shell).
cgroup v2: <root>/<name>/memory.max and cgroup.procs. Without either, or without root, the
suite says so and measures without a cap."""

import os

from .util import human, log

V1_ROOT = "/sys/fs/cgroup/memory"
V2_ROOT = "/sys/fs/cgroup"


class Group:
    def __init__(self, path, limit_bytes, procs_file):
        self.path = path
        self.limit_bytes = limit_bytes
        self.procs_file = procs_file

    def attach(self):
        """Runs in the child between fork and exec."""
        with open(self.procs_file, "w") as f:
            f.write(str(os.getpid()))

    def describe(self):
        return "%s (limit %s)" % (self.path, human(self.limit_bytes))


class Cgroups:
    """Creates one cgroup per memory limit, named bitsift-bench-<pid>-<MiB>, and removes them
    at the end."""

    def __init__(self, enabled=True):
        self.groups = {}
        self.mode = None
        self.reason = ""
        if not enabled:
            self.reason = "disabled (--no-cgroup)"
            return
        if os.geteuid() != 0:
            self.reason = "not root: measured processes run without a memory cap"
            return
        if os.path.isfile(os.path.join(V1_ROOT, "memory.limit_in_bytes")) and os.access(V1_ROOT, os.W_OK):
            self.mode = "v1"
            return
        controllers = os.path.join(V2_ROOT, "cgroup.controllers")
        if os.path.isfile(controllers):
            with open(controllers) as f:
                available = f.read().split()
            if "memory" in available:
                self.mode = "v2"
                return
            self.reason = "cgroup v2 without the memory controller (%s): no memory cap" % controllers
            return
        self.reason = "no memory cgroup controller found (neither %s nor %s): no memory cap" % (
            V1_ROOT, controllers)

    @property
    def available(self):
        return self.mode is not None

    def describe(self):
        if self.mode == "v1":
            return "cgroup v1 memory controller (%s/<group>/memory.limit_in_bytes, PID written to " \
                   "`tasks` before exec)" % V1_ROOT
        if self.mode == "v2":
            return "cgroup v2 (%s/<group>/memory.max, PID written to cgroup.procs before exec)" % V2_ROOT
        return "none: " + self.reason

    def group(self, limit_bytes):
        """The cgroup with this memory limit (created on first use), or None without cgroups."""
        if self.mode is None:
            return None
        limit_bytes = int(limit_bytes)
        if limit_bytes in self.groups:
            return self.groups[limit_bytes]
        name = "bitsift-bench-%d-%dM" % (os.getpid(), limit_bytes >> 20)
        if self.mode == "v1":
            path = os.path.join(V1_ROOT, name)
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, "memory.limit_in_bytes"), "w") as f:
                f.write(str(limit_bytes))
            group = Group(path, limit_bytes, os.path.join(path, "tasks"))
        else:
            with open(os.path.join(V2_ROOT, "cgroup.subtree_control"), "w") as f:
                f.write("+memory")
            path = os.path.join(V2_ROOT, name)
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, "memory.max"), "w") as f:
                f.write(str(limit_bytes))
            group = Group(path, limit_bytes, os.path.join(path, "cgroup.procs"))
        log("cgroup: created %s" % group.describe())
        self.groups[limit_bytes] = group
        return group

    def cleanup(self):
        for group in self.groups.values():
            try:
                os.rmdir(group.path)
            except OSError as e:
                log("cgroup: could not remove %s: %s" % (group.path, e))
        self.groups = {}
