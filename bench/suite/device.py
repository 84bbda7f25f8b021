"""The device: fio random 4 KiB O_DIRECT reads through io_uring at several queue depths, and
`bitsift iobench --format json`. The fio limit of a query needing R distinct 4 KiB pages is
R / (fio IOPS at the best depth)."""

import os
import shutil
import subprocess

from .util import BenchError, fits, human, log, run


def ensure_fio(ctx):
    if shutil.which("fio"):
        return True
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("device: fio missing; apt-get install -y fio")
        p = subprocess.run(["apt-get", "install", "-y", "fio"], capture_output=True, text=True)
        if p.returncode != 0:
            subprocess.run(["apt-get", "update"], capture_output=True)
            p = subprocess.run(["apt-get", "install", "-y", "fio"], capture_output=True, text=True)
        if p.returncode == 0 and shutil.which("fio"):
            return True
        ctx.notes.append("fio could not be installed (apt-get install -y fio: %s); the device "
                         "is measured with bitsift iobench alone" % (p.stderr.strip().splitlines() or ["?"])[-1])
        return False
    ctx.notes.append("fio is not installed and cannot be installed here (not root or no apt-get); "
                     "the device is measured with bitsift iobench alone")
    return False


def iobench_supported(ctx):
    p = subprocess.run([ctx.bitsift, "iobench", "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        return False, "`bitsift iobench --help` failed"
    if "--format" not in p.stdout:
        return False, "this bitsift build's iobench has no --format option"
    return True, ""


def allocated_bytes(path):
    return os.stat(path).st_blocks * 512


def real_file(path, size):
    """True when path exists with this size and all its blocks allocated (not sparse)."""
    return os.path.exists(path) and os.path.getsize(path) == size and allocated_bytes(path) >= size


def run_iobench(ctx, path, size):
    quick = ctx.quick
    cmd = [ctx.bitsift, "iobench", path, "--size", str(size), "--format", "json", "--cold", "--remove"]
    if quick:
        cmd += ["--variants", "uring,direct,mmap-random", "--depths", "1,32", "--threads", "1,4",
                "--duration", "250ms"]
    else:
        cmd += ["--duration", ctx.args.iobench_duration]
    log("device: bitsift iobench (%s file)" % human(size))
    done = run(cmd, what="bitsift iobench")
    report = done.json()
    rows = []
    for r in report.get("runs", []):
        rows.append({"variant": r["variant"], "depth": r["depth"], "depth_unit": r["depth_unit"],
                     "iops": r["iops"], "mb_per_s": r["mb_per_s"], "p50_us": r["latency_us"]["p50"],
                     "p99_us": r["latency_us"]["p99"], "major_faults": r["major_faults"],
                     "device_read_bytes": r["device_read_bytes"], "bytes_read": r["bytes_read"]})
    rec = report.get("recommendation") or {}
    return {"command": cmd, "wall_s": done.wall_s, "rows": rows, "recommendation": rec.get("text"),
            "recommendation_engine": rec.get("engine"), "recommendation_depth": rec.get("queue_depth"),
            "filesystem": report.get("filesystem"), "notices": report.get("notices"), "raw": report}


def fio_prepare(ctx, path, size):
    """Writes path with fio (real bytes, O_DIRECT sequential writes, fsync), unless a real,
    fully allocated file of that size is already there."""
    if real_file(path, size):
        log("device: reusing %s (%s, fully allocated)" % (path, human(size)))
        return
    if os.path.exists(path):
        os.unlink(path)
    if not fits(os.path.dirname(path), size, "the fio file (%s)" % human(size), ctx.notes, reserve_bytes=1 << 30):
        raise BenchError("no room for the fio file %s" % path)
    log("device: fio writes %s (%s)" % (path, human(size)))
    run(["fio", "--name=layout", "--filename=" + path, "--size=%d" % size, "--rw=write", "--bs=1M",
         "--direct=1", "--ioengine=psync", "--end_fsync=1", "--refill_buffers=1",
         "--output-format=json"], what="fio (layout)")
    if not real_file(path, size):
        raise BenchError("fio file %s is sparse or short (%d of %d bytes allocated)"
                         % (path, allocated_bytes(path), size))


def fio_randread(ctx, path, size, depth, runtime_s, ramp_s):
    cmd = ["fio", "--name=randread-qd%d" % depth, "--filename=" + path, "--size=%d" % size,
           "--rw=randread", "--bs=4k", "--direct=1", "--ioengine=io_uring", "--iodepth=%d" % depth,
           "--time_based", "--runtime=%gs" % runtime_s, "--ramp_time=%gs" % ramp_s,
           "--norandommap", "--randrepeat=0", "--invalidate=1", "--output-format=json"]
    ctx.cache.drop([path])
    done = run(cmd, what="fio randread QD %d" % depth)
    job = done.json()["jobs"][0]
    read = job["read"]
    pct = read.get("clat_ns", {}).get("percentile", {})
    return {"depth": depth, "iops": read["iops"], "mb_per_s": read["bw_bytes"] / 1e6,
            "p50_us": pct.get("50.000000", 0) / 1e3, "p99_us": pct.get("99.000000", 0) / 1e3,
            "mean_us": read.get("clat_ns", {}).get("mean", 0) / 1e3, "reads": read["total_ios"],
            "command": cmd}


def measure(ctx):
    args = ctx.args
    ddir = os.path.join(ctx.work, "device")
    os.makedirs(ddir, exist_ok=True)
    size = args.fio_size
    result = {"fio": None, "iobench": None}
    ok, why = iobench_supported(ctx)
    iobench_path = os.path.join(ddir, "iobench.dat")
    if ok:
        if os.path.exists(iobench_path):
            os.unlink(iobench_path)  # left by an interrupted run; iobench writes its own
        if fits(ddir, size, "the iobench file (removed after its runs)", ctx.notes):
            result["iobench"] = run_iobench(ctx, iobench_path, size)
            log("device: iobench recommends: %s" % result["iobench"]["recommendation"])
    else:
        ctx.notes.append("bitsift iobench not used: " + why)
        log("device: " + ctx.notes[-1])
    if ensure_fio(ctx):
        path = os.path.join(ddir, "fio.dat")  # written by fio, real bytes, kept for reruns
        fio_prepare(ctx, path, size)
        depths = [int(d) for d in args.fio_depths.split(",")]
        rows = []
        for depth in depths:
            r = fio_randread(ctx, path, size, depth, args.fio_runtime, args.fio_ramp)
            log("device: fio QD %3d: %8.0f IOPS, p50 %6.0f us, p99 %6.0f us, %6.1f MB/s"
                % (depth, r["iops"], r["p50_us"], r["p99_us"], r["mb_per_s"]))
            rows.append(r)
        best = max(rows, key=lambda r: r["iops"])
        result["fio"] = {"file": path, "file_bytes": size, "rows": rows, "best_iops": best["iops"],
                         "best_depth": best["depth"], "version": subprocess.run(
                             ["fio", "--version"], capture_output=True, text=True).stdout.strip()}
    if result["fio"]:
        result["limit_iops"] = result["fio"]["best_iops"]
        result["limit_source"] = "fio io_uring QD %d" % result["fio"]["best_depth"]
    elif result["iobench"]:
        uring = [r for r in result["iobench"]["rows"] if r["variant"] in ("uring", "direct")]
        if uring:
            best = max(uring, key=lambda r: r["iops"])
            result["limit_iops"] = best["iops"]
            result["limit_source"] = "bitsift iobench %s depth %d (fio unavailable)" % (best["variant"], best["depth"])
    if not result.get("limit_iops"):
        raise BenchError("neither fio nor bitsift iobench measured the device")
    return result


def fio_limit_ms(device, pages_4k):
    """Best possible cold time of a query needing pages_4k distinct pages, in ms."""
    if device is None or not device.get("limit_iops") or pages_4k is None:
        return None
    return pages_4k / device["limit_iops"] * 1e3
