#!/usr/bin/env python3
"""Planning steps of the bitsift workflow (called by the Snakefile's checkpoints).

    plan.py shards SAMPLES.tsv OUT_DIR SHARD_DOCUMENTS [--block-documents N] [--order ORDER]
                   [--metadata TSV]
        Reads the sample sheet: a header line naming the columns, `path` (relative paths are
        relative to the sheet) and optionally `group` and `size` (bytes; without it every
        file is stat'ed once, in parallel), then one sample per line, and cuts the N samples
        into shards of at most SHARD_DOCUMENTS.

        Whole blocks: a block of the index holds 8 x page size documents (--block-documents,
        default 32768: 4096-byte rows), and a query reads one row per k-mer in every block,
        so the shards hold whole blocks. With SHARD_DOCUMENTS >= N_BLOCK, the samples make
        ceil(N / N_BLOCK) blocks (the fewest possible), dealt out to ceil(blocks /
        (SHARD_DOCUMENTS // N_BLOCK)) shards as evenly as whole blocks allow; only the last
        shard ends with a partial block. A smaller SHARD_DOCUMENTS (a test, or parallel jobs
        on a small collection) cuts ceil(N / SHARD_DOCUMENTS) shards of equal size instead.

        Pooling: the samples of a group stay together (a group larger than a block fills
        whole blocks first), and the rest of every group, and every small group (a species of
        one genome), is pooled with others, best fit, into the room left in a block, groups
        of equal size in order of their names (species of a genus are neighbours); each
        group's samples are sorted by size, then path. Related genomes thus share blocks, few
        groups are split, and many small groups make no near-empty shards. Which of a shard's
        documents share a block is then the builder's `--order` (group:COLUMN keeps each
        group in as few blocks as fit; similarity clusters by k-mer content).

        Writes OUT_DIR/shard-NNNN.list (one path per line) and OUT_DIR/plan.tsv (shard,
        documents, input_bytes, groups).

        Document names (the file name without its sequence and compression extensions, as
        `bitsift build` names them) must be unique: two samples of one name are refused here,
        before any build (the assembly would refuse them after every shard is built).

        With --order group:COLUMN, OUT_DIR/shard-NNNN.metadata.tsv holds `document COLUMN`
        for the shard's documents only (for `bitsift build --metadata`), taken from the
        --metadata table (a header line; document names in the first column; other rows are
        ignored) or, without one, from column COLUMN of the sample sheet. Every document must
        have a value: a missing one is refused here, not after a shard's first pass. Without a
        `group` column, the samples are grouped into shards by COLUMN as well.

    plan.py search COLLECTION_DIR OUT_DIR SUBINDEXES_PER_JOB
        Cuts the collection's sub-indexes (manifest order) into consecutive groups of at most
        SUBINDEXES_PER_JOB and writes OUT_DIR/group-NNNN.txt (comma-separated file names).
        Consecutive groups in order keep `bitsift merge-results` equal to one search.
"""

import argparse
import bisect
import collections
import csv
import gc
import json
import os
import stat
import sys
import threading

# As bitsift names documents (src/seqfile.rs): file name minus one compression extension,
# then minus one sequence extension, case-insensitively.
SEQUENCE_EXTENSIONS = frozenset(
    "fa fasta fna ffn frn fas fsa mfa mfasta seq fq fastq".split()
)
COMPRESSION_EXTENSIONS = frozenset("gz bgz xz zst zstd bz2".split())
ORDERS = ("size", "input", "similarity")
# Files stat'ed at once when the sheet has no `size` column (helps on network file systems).
STAT_THREADS = 16


def fail(message):
    sys.stderr.write("plan.py: %s\n" % message)
    sys.exit(1)


def document_name(path):
    """The name `bitsift build` gives the document read from `path`."""
    return document_names([path])[0]


def document_names(paths):
    """document_name of every path (one loop: a million paths in half a second)."""
    names = []
    append = names.append
    compressions, sequences = COMPRESSION_EXTENSIONS, SEQUENCE_EXTENSIONS
    for path in paths:
        name = path[path.rfind("/") + 1:]
        stem, dot, extension = name.rpartition(".")
        if stem and extension.lower() in compressions:
            name = stem
            stem, dot, extension = name.rpartition(".")
        if stem and extension.lower() in sequences:
            name = stem
        append(name)
    return names


def sequence_document(name):
    """The document name of file `name` if it has a sequence extension (optionally followed
    by a compression extension) as `bitsift build` finds files in a directory, else None."""
    stem, dot, extension = name.rpartition(".")
    if not dot:
        return None
    extension = extension.lower()
    if extension in SEQUENCE_EXTENSIONS:
        return stem or name
    if extension in COMPRESSION_EXTENSIONS and stem:
        inner, dot, extension = stem.rpartition(".")
        if dot and extension.lower() in SEQUENCE_EXTENSIONS:
            return inner or stem
    return None


def file_sizes(paths):
    """Sizes of the files at `paths` (one stat each, in threads: a stat waits on the file
    system, which serves several at once) and the problems, as (position, why)."""
    sizes = [0] * len(paths)
    problems = []

    def work(start, step):
        for i in range(start, len(paths), step):
            try:
                status = os.stat(paths[i])
            except OSError as error:
                problems.append((i, error.strerror or "cannot stat"))
                continue
            if not stat.S_ISREG(status.st_mode):
                problems.append((i, "not a file"))
            sizes[i] = status.st_size

    threads = min(STAT_THREADS, max(1, len(paths) // 1000))
    if threads == 1:
        work(0, 1)
    else:
        workers = [threading.Thread(target=work, args=(t, threads)) for t in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    problems.sort()
    return sizes, problems


def group_column(order):
    """COLUMN of `group:COLUMN`, None for the other orders; refuses unknown orders."""
    if order in ORDERS:
        return None
    if order.startswith("group:") and order[len("group:"):].strip():
        return order[len("group:"):].strip()
    fail("unknown order %r: expected size, input, similarity or group:COLUMN" % order)


class Samples:
    """The sample sheet, column by column (one list per column: cheap at a million rows)."""

    def __init__(self, sheet, extra_column=None):
        self.sheet = sheet
        base = os.path.dirname(os.path.abspath(sheet))
        try:
            handle = open(sheet, newline="")
        except OSError as error:
            fail("%s: cannot read the sample sheet: %s" % (sheet, error.strerror))
        with handle:
            rows = csv.reader(handle, delimiter="\t")
            header = None
            for row in rows:
                if row and not row[0].startswith("#"):
                    header = [h.strip().lower() for h in row]
                    break
            if header is None:
                fail("%s: empty sample sheet" % sheet)
            if "path" not in header:
                fail("%s: the first line must name the columns, with `path` (and optionally "
                     "`group` and `size`)" % sheet)
            path_at = header.index("path")
            group_at = header.index("group") if "group" in header else None
            size_at = header.index("size") if "size" in header else None
            extra_at = None
            if extra_column is not None and extra_column.lower() in header:
                extra_at = header.index(extra_column.lower())
            width = len(header)
            numbered = [(rows.line_num, row) for row in rows
                        if row and not row[0].startswith("#")]
        if not numbered:
            fail("%s: the sample sheet lists no samples" % sheet)
        self.lines = [line for line, _ in numbered]
        table = [row for _, row in numbered]
        del numbered
        for row in table:
            if len(row) < width:
                row.extend([""] * (width - len(row)))
        paths = [row[path_at].strip() for row in table]
        for i, path in enumerate(paths):
            if not path:
                fail("%s: line %d has no path" % (sheet, self.lines[i]))
            if path[0] != "/":
                paths[i] = base + "/" + path
        self.paths = paths
        column = lambda at: None if at is None else [row[at].strip() for row in table]
        self.groups = column(group_at)
        self.extras = column(extra_at)
        self.sizes = self._sizes(column(size_at))

    def _sizes(self, given):
        """File sizes: the `size` column where filled in, else one stat of the file."""
        sizes, unknown = None, []
        if given is None:
            sizes, unknown = [0] * len(self.paths), list(range(len(self.paths)))
        else:
            try:
                sizes = [int(text) for text in given]
            except ValueError:
                pass
        if sizes is None or min(sizes) < 0:
            sizes = [0] * len(self.paths)
            for i, text in enumerate(given):
                if not text:
                    unknown.append(i)
                    continue
                try:
                    sizes[i] = int(text)
                except ValueError:
                    sizes[i] = -1
                if sizes[i] < 0:
                    fail("%s: line %d: size %r is not a number of bytes"
                         % (self.sheet, self.lines[i], text))
        if unknown:
            found, problems = file_sizes([self.paths[i] for i in unknown])
            if problems:
                at, why = problems[0]
                i = unknown[at]
                fail("%s: line %d: %s: %s%s" % (
                    self.sheet, self.lines[i], self.paths[i], why,
                    " (and %d more samples)" % (len(problems) - 1) if len(problems) > 1 else ""))
            for i, size in zip(unknown, found):
                sizes[i] = size
        return sizes


def read_group_values(table, column):
    """Column `column` of a metadata TSV, by document name (read as `bitsift build` reads it)."""
    try:
        with open(table, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError as error:
        fail("%s: cannot read the metadata table: %s" % (table, error.strerror))
    lines = (line.rstrip("\r") for line in text.split("\n"))
    lines = (line for line in lines if line.strip())
    header = next(lines, None)
    if header is None:
        fail("%s: the metadata table is empty; expected a header line" % table)
    columns = [c.strip() for c in header.split("\t")[1:]]
    if column not in columns:
        fail("%s: no column %r; the columns after the document name are %r"
             % (table, column, columns))
    at = columns.index(column) + 1
    values = {}
    for line in lines:
        cells = line.split("\t")
        value = cells[at] if len(cells) > at else ""
        before = values.setdefault(cells[0], value)
        if before != value:
            fail("%s: document %r is listed again with another %s (%r, before: %r)"
                 % (table, cells[0], column, value, before))
    return values


def shard_sizes(count, shard_documents, block_documents):
    """Documents of each shard, and the unit the samples are packed into (a block, or an
    equal share when shards are smaller than a block). Shards hold whole blocks, except the
    last one's last block: ceil(count / block) blocks in all, the fewest there can be."""
    if shard_documents < block_documents:
        shards = -(-count // shard_documents)
        unit = -(-count // shards)
        return [min(unit, count - start) for start in range(0, count, unit)], unit
    blocks = -(-count // block_documents)
    per_shard = shard_documents // block_documents
    shards = -(-blocks // per_shard)
    # Blocks dealt out evenly (the first shards get one more), the partial block last.
    counts = [blocks // shards + (1 if i < blocks % shards else 0) for i in range(shards)]
    sizes = [n * block_documents for n in counts]
    sizes[-1] = count - sum(sizes[:-1])
    assert 0 < sizes[-1] <= counts[-1] * block_documents
    assert sum(sizes) == count
    return sizes, block_documents


def pack(groups, capacity):
    """Group numbers in block order: a group that does not fit where the current block's
    room ends runs on into the next block. Groups of at least `capacity` go first, so their
    whole blocks start at block boundaries; then each block takes the largest group that
    fits in what is left of it (the earliest of equal size), and when none fits the largest
    group left starts there (best fit decreasing, as `bitsift build --order group` packs
    blocks). Returns (group, first member, members) pieces."""
    assert capacity >= 1
    pieces = []
    left = {}  # size -> group numbers of that size, earliest first
    for number, members in enumerate(groups):
        whole = len(members) - len(members) % capacity
        if whole:
            pieces.append((number, 0, whole))
        if len(members) > whole:
            left.setdefault(len(members) - whole, collections.deque()).append(number)
    sizes = sorted(left)
    free = capacity
    while sizes:
        at = bisect.bisect_right(sizes, free) - 1
        if at < 0:
            at = len(sizes) - 1
        size = sizes[at]
        waiting = left[size]
        number = waiting.popleft()
        if not waiting:
            del left[size]
            del sizes[at]
        members = len(groups[number])
        pieces.append((number, members - size, size))
        free = free - size if size < free else capacity - (size - free) % capacity
    return pieces


def plan_shards(sheet, out_dir, shard_documents, order="size", metadata=None,
                block_documents=32768):
    if shard_documents < 1:
        fail("documents per shard must be at least 1")
    if block_documents < 64 or block_documents % 64:
        fail("documents per block must be a multiple of 64 (8 x a page size of 8 or more)")
    column = group_column(order)
    if metadata is not None and column is None:
        fail("a metadata table is read only by the order group:COLUMN (the order is %s)" % order)
    samples = Samples(sheet, extra_column=column if metadata is None else None)
    paths, sizes = samples.paths, samples.sizes
    names = document_names(paths)
    if len(set(names)) != len(names):
        seen = {}
        for i, name in enumerate(names):
            if name in seen:
                fail("%s: lines %d and %d are both document %r (%s, %s): bitsift names a "
                     "document after its file, so names must be unique"
                     % (sheet, samples.lines[seen[name]], samples.lines[i], name,
                        paths[seen[name]], paths[i]))
            seen[name] = i

    values = None
    if column is not None:
        if metadata is not None:
            table = read_group_values(metadata, column)
            missing = [i for i, name in enumerate(names) if name not in table]
            if missing:
                fail("%s: %d of %d documents have no row, e.g. %r (from %s); the first column "
                     "must hold every document's name as the index stores it"
                     % (metadata, len(missing), len(names), names[missing[0]],
                        paths[missing[0]]))
            values = [table[name] for name in names]
            del table
        elif samples.extras is not None:
            values = samples.extras
        else:
            fail("the order group:%s needs a metadata table (`metadata`) or a column %r in "
                 "the sample sheet %s" % (column, column, sheet))

    # Groups in order of their names, each sorted by size, then path. Best fit takes groups
    # of equal size in this order, so pooled species of one genus ("Escherichia albertii",
    # "Escherichia coli") tend to share a block: similar names, similar genomes.
    keys = samples.groups if samples.groups is not None else values
    if keys is None:
        members = [list(range(len(paths)))]
    else:
        by_key = {}
        for i, key in enumerate(keys):
            by_key.setdefault(key, []).append(i)
        members = [by_key[key] for key in sorted(by_key)]
    by_size = list(zip(sizes, paths)).__getitem__
    for group in members:
        group.sort(key=by_size)

    count = len(paths)
    sizes_of_shards, unit = shard_sizes(count, shard_documents, block_documents)
    order_of_samples = []
    for number, first, length in pack(members, unit):
        order_of_samples.extend(members[number][first:first + length])
    group_number = [0] * count
    for number, group in enumerate(members):
        for i in group:
            group_number[i] = number

    os.makedirs(out_dir, exist_ok=True)
    plan = []
    start = 0
    for documents in sizes_of_shards:
        chunk = order_of_samples[start:start + documents]
        start += documents
        shard = "shard-%04d" % (len(plan) + 1)
        with open(os.path.join(out_dir, shard + ".list"), "w") as handle:
            handle.write("\n".join([paths[i] for i in chunk]) + "\n")
        if values is not None:
            with open(os.path.join(out_dir, shard + ".metadata.tsv"), "w") as handle:
                handle.write("document\t%s\n" % column)
                handle.write("\n".join([names[i] + "\t" + values[i] for i in chunk]) + "\n")
        plan.append((shard, len(chunk), sum([sizes[i] for i in chunk]),
                     len({group_number[i] for i in chunk})))
    # Last: the plan is complete once plan.tsv exists.
    with open(os.path.join(out_dir, "plan.tsv"), "w") as handle:
        handle.write("shard\tdocuments\tinput_bytes\tgroups\n")
        handle.write("".join("%s\t%d\t%d\t%d\n" % row for row in plan))


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
    parser = argparse.ArgumentParser(
        prog="plan.py",
        usage="plan.py shards SAMPLES.tsv OUT_DIR SHARD_DOCUMENTS [--block-documents N]"
              " [--order ORDER] [--metadata TSV]"
              " | search COLLECTION OUT_DIR PER_JOB",
    )
    parser.add_argument("step", choices=("shards", "search"))
    parser.add_argument("source")
    parser.add_argument("out_dir")
    parser.add_argument("count")
    parser.add_argument("--order", default="size")
    parser.add_argument("--metadata")
    parser.add_argument("--block-documents", type=int, default=32768)
    args = parser.parse_args(argv[1:])
    try:
        count = int(args.count)
    except ValueError:
        fail("%r is not a number" % args.count)
    if args.step == "shards":
        plan_shards(args.source, args.out_dir, count, args.order, args.metadata or None,
                    args.block_documents)
    else:
        if args.metadata or args.order != "size" or args.block_documents != 32768:
            fail("--order, --metadata and --block-documents belong to `plan.py shards`")
        plan_search(args.source, args.out_dir, count)


if __name__ == "__main__":
    gc.disable()  # millions of small objects, no cycles: collections would only cost time
    main(sys.argv)
