"""Builds every collection with bitsift (`bitsift build`) and with COBS
(`tests/peer/cobs_peer.py build --kind compact`, PyPI cobs-reloaded): wall time, peak RSS,
faults and CPU of the builder (wait4 of the child, which includes its waited-for children),
and the index size. Inputs are cold (page cache dropped) at the start of each build. Builds
are cached with their measurements and reused while the inputs and parameters match
(--rebuild forces new ones)."""

import hashlib
import os
import sys

from .util import BenchError, cached_meta, fits, human, log, run, store_meta


def inputs_key(files):
    h = hashlib.sha256()
    for f in files:
        h.update(("%s\t%d\n" % (os.path.basename(f), os.path.getsize(f))).encode())
    return h.hexdigest()[:32]


def estimate_index_bytes(collection):
    files = collection["files"]
    sizes = [os.path.getsize(f) * (4 if f.endswith(".gz") else 1) for f in files]
    # one Bloom filter column per document, sized for the largest: bits = n / -ln(1 - 0.3)
    return int(1.15 * len(files) * max(sizes) / 0.3567 / 8) + (1 << 20)


def build_one(ctx, collection, tool):
    name = "%s.%s" % (collection["name"], tool)
    out = os.path.join(ctx.work, "indexes", name + ".cobs_compact")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    params = {"collection": collection["name"], "inputs": inputs_key(collection["files"]),
              "tool": tool, "k": 31, "fpr": 0.3, "hashes": 1, "layout": "cobs"}
    meta = None if ctx.args.rebuild else cached_meta(out, params)
    if meta is not None:
        log("build: reusing %s (built %s in %.1f s)" % (out, meta["made"], meta["wall_s"]))
        meta["cached"] = True
        return out, meta
    if tool == "bitsift":
        # COBS's row layout: COBS searches this index too, side by side with bitsift.
        cmd = [ctx.bitsift, "build", "-o", out, "--force", "--layout", "cobs"]
        cmd += ["--list", collection["list"]] if "list" in collection else [os.path.dirname(collection["files"][0])]
    else:
        cmd = [sys.executable, os.path.join(ctx.root, "tests/peer/cobs_peer.py"), "build", "--kind",
               "compact", "-o", out]
        cmd += collection["files"] if "list" in collection else [os.path.dirname(collection["files"][0])]
    est = estimate_index_bytes(collection) * (2 if tool == "cobs" else 1)
    if not fits(ctx.work, est, "building %s with %s" % (collection["name"], tool), ctx.notes):
        return None, None
    if os.path.exists(out):
        os.unlink(out)
    tmp = os.path.join(ctx.work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    ctx.cache.drop(collection["files"])
    log("build: %s with %s (%d documents)" % (collection["name"], tool, collection["documents"]))
    done = run(cmd, env={"TMPDIR": tmp}, what="%s build of %s" % (tool, collection["name"]))
    if not os.path.exists(out):
        raise BenchError("%s build of %s wrote no %s" % (tool, collection["name"], out))
    meta = store_meta(out, params, command=[os.path.relpath(c, ctx.root) if c.startswith(ctx.root) else c
                                            for c in done.cmd[:8]] + (["..."] if len(done.cmd) > 8 else []),
                      wall_s=done.wall_s, rusage=done.rusage, index_bytes=os.path.getsize(out),
                      stderr_tail=done.stderr.strip().splitlines()[-3:])
    meta["cached"] = False
    log("build: %s: %.1f s, peak RSS %s, index %s" % (name, done.wall_s, human(done.rusage["max_rss_bytes"]),
                                                    human(os.path.getsize(out))))
    return out, meta


def build_all(ctx, data):
    """Builds (or reuses) the indexes; returns the index list and the build rows."""
    indexes, rows = [], []
    for cname, coll in data["collections"].items():
        for tool in ("bitsift", "cobs"):
            if tool == "cobs" and not ctx.have_cobs:
                continue
            path, meta = build_one(ctx, coll, tool)
            if path is None:
                continue
            inf = run([ctx.bitsift, "info", "--json", path], what="bitsift info").json()
            indexes.append({"name": "%s/%s" % (cname, tool), "collection": cname, "builder": tool,
                            "path": path, "size_bytes": os.path.getsize(path), "info": inf})
            ru = meta["rusage"]
            rows.append({"collection": cname, "tool": tool, "documents": coll["documents"],
                         "input_bytes": coll["input_bytes"], "wall_s": meta["wall_s"],
                         "max_rss_bytes": ru["max_rss_bytes"], "minor_faults": ru["minor_faults"],
                         "major_faults": ru["major_faults"], "user_s": ru["user_s"], "system_s": ru["system_s"],
                         "index_bytes": meta["index_bytes"], "blocks": inf["blocks"],
                         "page_size": inf["page_size"], "cached": meta["cached"], "built": meta["made"],
                         "command": " ".join(meta["command"])})
    for spec in ctx.args.index:
        name, _, path = spec.partition("=")
        if not path or not os.path.isfile(path):
            raise BenchError("--index %r: expected NAME=PATH of an existing index" % spec)
        inf = run([ctx.bitsift, "info", "--json", path], what="bitsift info").json()
        indexes.append({"name": name, "collection": name, "builder": "given", "path": os.path.abspath(path),
                        "size_bytes": os.path.getsize(path), "info": inf})
    s = data.get("synth")
    if s:
        indexes.append({"name": "synth661k/synth", "collection": "synth661k", "builder": "synth",
                        "path": s["path"], "size_bytes": s["info"]["file_size"], "info": s["info"]})
    return indexes, rows
