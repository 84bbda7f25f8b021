#!/usr/bin/env python3
"""Writes the workflow's sample sheet for a directory of genomes described by a metadata
table, such as the output of `bitsift-simulate --species N` (genome_NNNNNN.fa[.gz] files and
metadata.tsv with the columns `document species clade`).

    sheet_from_metadata.py DIR [-o SHEET] [--metadata TSV] [--group COLUMN] [--no-sizes]

The sheet (default DIR/samples.tsv; `-` for standard output) has the columns `path`
(relative to the sheet; absolute on standard output), `group` (the metadata column COLUMN,
default `species`), `size` (file bytes, read once here so that planning stats no file; left
out with --no-sizes) and then the columns of the metadata table (but any named path, group
or size), so that the workflow's `order: group:COLUMN` can read them without a `metadata`
file. Rows follow the metadata table. A document is found as the file of DIR (not its
subdirectories) that `bitsift build` names so: the file name without its sequence and
compression extensions.

Refuses documents of the table without a file, files of one document under two names
(genome_1.fa and genome_1.fa.gz) and documents listed twice; warns about genome_* files
the table does not list (left out). One directory scan: a few seconds for 661,405 genomes.
"""

import argparse
import gc
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the workflow's scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plan import file_sizes, sequence_document  # noqa: E402


def fail(message):
    sys.stderr.write("sheet_from_metadata.py: %s\n" % message)
    sys.exit(1)


def read_metadata(path):
    """(columns after the document name, rows: [document, cells...]) as `bitsift build`
    reads it (no quoting; short rows padded with empty cells)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError as error:
        fail("%s: cannot read the metadata table: %s" % (path, error.strerror))
    lines = [line.rstrip("\r") for line in text.split("\n") if line.strip()]
    if not lines:
        fail("%s: the metadata table is empty; expected a header line" % path)
    columns = [c.strip() for c in lines[0].split("\t")[1:]]
    if not columns:
        fail("%s: the header has one column; expected the document name, then metadata "
             "columns, separated by tabs" % path)
    width = len(columns) + 1
    rows = [line.split("\t") for line in lines[1:]]
    for cells in rows:
        if len(cells) != width:
            cells[width:] = []
            cells.extend([""] * (width - len(cells)))
    return columns, rows


def main(argv):
    parser = argparse.ArgumentParser(
        prog="sheet_from_metadata.py",
        description="Sample sheet (path, group, size, metadata columns) for the bitsift "
                    "workflow from a directory of genomes and its metadata table.")
    parser.add_argument("directory", help="the genomes (e.g. bitsift-simulate's output)")
    parser.add_argument("-o", "--output", help="the sheet [DIR/samples.tsv]; - for standard "
                        "output (absolute paths)")
    parser.add_argument("--metadata", help="metadata table [DIR/metadata.tsv]")
    parser.add_argument("--group", default="species", help="column for `group` [species]")
    parser.add_argument("--no-sizes", action="store_true",
                        help="no `size` column (planning then stats every file)")
    args = parser.parse_args(argv[1:])

    directory = args.directory
    metadata = args.metadata or os.path.join(directory, "metadata.tsv")
    columns, rows = read_metadata(metadata)
    if args.group not in columns:
        fail("%s: no column %r; the columns after the document name are %r"
             % (metadata, args.group, columns))
    group_at = columns.index(args.group)
    # Metadata columns copied into the sheet: all but those named like the sheet's own.
    copied = [i for i, c in enumerate(columns) if c.lower() not in ("path", "group", "size")]

    # One scan of the directory: document name -> file name.
    files, clashes = {}, {}
    try:
        entries = os.scandir(directory)
    except OSError as error:
        fail("%s: %s" % (directory, error.strerror))
    with entries:
        for entry in entries:
            name = entry.name
            document = sequence_document(name)
            if document is None or name.startswith("."):
                continue
            if document in files:
                clashes.setdefault(document, [files[document]]).append(name)
            elif entry.is_file():
                files[document] = name

    output = args.output or os.path.join(directory, "samples.tsv")
    if output == "-":
        prefix = os.path.abspath(directory) + os.sep
    else:
        relative = os.path.relpath(os.path.abspath(directory),
                                   os.path.dirname(os.path.abspath(output)))
        prefix = "" if relative == "." else relative + os.sep

    listed = []
    missing = []
    seen = set()
    for cells in rows:
        document = cells[0]
        if document in seen:
            fail("%s: document %r is listed twice" % (metadata, document))
        seen.add(document)
        if document in clashes:
            fail("%s: document %r has several files: %s"
                 % (directory, document, ", ".join(sorted(clashes[document]))))
        name = files.get(document)
        if name is None:
            missing.append(document)
        else:
            listed.append(name)
    if missing:
        fail("%s: %d of %d documents have no file in %s, e.g. %r"
             % (metadata, len(missing), len(rows), directory, missing[0]))
    if args.no_sizes:
        sizes = None
    else:
        sizes, problems = file_sizes([os.path.join(directory, name) for name in listed])
        if problems:
            at, why = problems[0]
            fail("%s: %s" % (os.path.join(directory, listed[at]), why))
    header = ["path", "group"] + ([] if sizes is None else ["size"]) + [columns[i] for i in copied]
    group_at += 1
    copied = [i + 1 for i in copied]
    out_rows = []
    for number, (name, cells) in enumerate(zip(listed, rows)):
        fields = [prefix + name, cells[group_at]]
        if sizes is not None:
            fields.append(str(sizes[number]))
        fields.extend([cells[i] for i in copied])
        out_rows.append("\t".join(fields))
    unlisted = sorted(d for d in files if d.startswith("genome_") and d not in seen)
    if unlisted:
        sys.stderr.write("sheet_from_metadata.py: %d genome files of %s are not in %s, left "
                         "out (e.g. %s)\n" % (len(unlisted), directory, metadata, unlisted[0]))

    text = "".join(row + "\n" for row in ["\t".join(header)] + out_rows)
    if output == "-":
        sys.stdout.write(text)
        return
    temporary = output + ".tmp.%d" % os.getpid()
    with open(temporary, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(text)
    os.replace(temporary, output)
    sys.stderr.write("sheet_from_metadata.py: %s: %d samples\n" % (output, len(out_rows)))


if __name__ == "__main__":
    gc.disable()  # millions of small objects, no cycles: collections would only cost time
    main(sys.argv)
