#!/usr/bin/env python3
"""Planning steps of the bitsift workflow (called by the Snakefile's checkpoints).

    plan.py shards SAMPLES.tsv OUT_DIR MAX_DOCUMENTS
        Reads the sample sheet (a header line with `path` and optionally `group`; relative
        paths are relative to the sheet), groups the samples by `group` (in order of first
        appearance), sorts each group by file size (then path) and cuts it into shards of at
        most MAX_DOCUMENTS samples. Writes OUT_DIR/shard-NNNN.list (one path per line) and
        OUT_DIR/plan.tsv (shard, group, documents, input_bytes).

    plan.py search COLLECTION_DIR OUT_DIR SUBINDEXES_PER_JOB
        Cuts the collection's sub-indexes (manifest order) into consecutive groups of at most
        SUBINDEXES_PER_JOB and writes OUT_DIR/group-NNNN.txt (comma-separated file names).
        Consecutive groups in order keep `bitsift merge-results` equal to one search.
"""

import csv
import json
import os
import sys


def fail(message):
    sys.stderr.write("plan.py: %s\n" % message)
    sys.exit(1)


def read_samples(sheet):
    base = os.path.dirname(os.path.abspath(sheet))
    with open(sheet, newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    rows = [r for r in rows if r and not r[0].startswith("#")]
    if not rows:
        fail("%s: empty sample sheet" % sheet)
    header = [h.strip().lower() for h in rows[0]]
    if "path" not in header:
        fail("%s: the first line must name the columns, with `path` (and optionally `group`)" % sheet)
    path_at = header.index("path")
    group_at = header.index("group") if "group" in header else None
    samples = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) <= path_at or not row[path_at].strip():
            fail("%s: line %d has no path" % (sheet, number))
        path = row[path_at].strip()
        if not os.path.isabs(path):
            path = os.path.join(base, path)
        if not os.path.isfile(path):
            fail("%s: line %d: %s does not exist" % (sheet, number, path))
        group = row[group_at].strip() if group_at is not None and len(row) > group_at else ""
        samples.append((group, path, os.path.getsize(path)))
    return samples


def plan_shards(sheet, out_dir, max_documents):
    if max_documents < 1:
        fail("max_documents_per_shard must be at least 1")
    samples = read_samples(sheet)
    groups = {}
    for group, path, size in samples:
        groups.setdefault(group, []).append((size, path))
    os.makedirs(out_dir, exist_ok=True)
    plan = []
    for group, members in groups.items():
        members.sort()
        for start in range(0, len(members), max_documents):
            chunk = members[start:start + max_documents]
            shard = "shard-%04d" % (len(plan) + 1)
            with open(os.path.join(out_dir, shard + ".list"), "w") as handle:
                for _, path in chunk:
                    handle.write(path + "\n")
            plan.append((shard, group, len(chunk), sum(size for size, _ in chunk)))
    with open(os.path.join(out_dir, "plan.tsv"), "w") as handle:
        handle.write("shard\tgroup\tdocuments\tinput_bytes\n")
        for row in plan:
            handle.write("%s\t%s\t%d\t%d\n" % row)


def plan_search(collection, out_dir, per_job):
    if per_job < 1:
        fail("subindexes_per_job must be at least 1")
    with open(os.path.join(collection, "collection.json")) as handle:
        manifest = json.load(handle)
    files = [sub["file"] for sub in manifest["subindexes"]]
    if not files:
        fail("%s: the collection has no sub-index" % collection)
    os.makedirs(out_dir, exist_ok=True)
    for number, start in enumerate(range(0, len(files), per_job), start=1):
        with open(os.path.join(out_dir, "group-%04d.txt" % number), "w") as handle:
            handle.write(",".join(files[start:start + per_job]) + "\n")


def main(argv):
    if len(argv) != 5 or argv[1] not in ("shards", "search"):
        fail("usage: plan.py shards SAMPLES.tsv OUT_DIR MAX_DOCUMENTS | search COLLECTION OUT_DIR PER_JOB")
    try:
        count = int(argv[4])
    except ValueError:
        fail("%r is not a number" % argv[4])
    if argv[1] == "shards":
        plan_shards(argv[2], argv[3], count)
    else:
        plan_search(argv[2], argv[3], count)


if __name__ == "__main__":
    main(sys.argv)
