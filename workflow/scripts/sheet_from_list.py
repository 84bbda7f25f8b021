#!/usr/bin/env python3
"""A sample sheet for the workflow from a public file list (a TSV with a header line, plain or
.gz), such as AllTheBacteria's file_list.all.latest.tsv.gz or the 661k collection's summary
table:

    sheet_from_list.py LIST.tsv[.gz] --path TEMPLATE --group COLUMN [-o SHEET] [--where COL=VAL]

TEMPLATE names each sample's assembly where it was downloaded (or extracted) to, with
{COLUMN} standing for that row's value, e.g. `atb/{sample}.fa.gz` or
`atb/{tar_xz}/{filename_in_tar_xz}`; relative paths are relative to the sheet. The sheet has
`path`, `group` (the value of --group: the species call) and every column of the list, in the
list's order; --where keeps only the rows whose COL is VAL (e.g. a high-quality flag). Python
standard library only; a million rows take a few seconds.
"""

import argparse
import csv
import gzip
import string
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("list", help="TSV with a header line (.gz ok)")
    p.add_argument("--path", required=True, help="path of a sample's assembly: {COLUMN}...")
    p.add_argument("--group", required=True, help="column that groups samples (species)")
    p.add_argument("--where", action="append", default=[], help="COL=VAL: rows to keep")
    p.add_argument("-o", "--output", default="-", help="sheet (default: standard output)")
    args = p.parse_args()

    opener = gzip.open if args.list.endswith(".gz") else open
    with opener(args.list, "rt", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t")
        header = next(rows)
        fields = [name for _, name, _, _ in string.Formatter().parse(args.path) if name]
        for name in fields + [args.group] + [w.partition("=")[0] for w in args.where]:
            if name not in header:
                sys.exit("sheet_from_list.py: %s: no column %r; the columns are %s"
                         % (args.list, name, ", ".join(header)))
        at = {name: header.index(name) for name in header}
        keep = [(at[c], v) for c, _, v in (w.partition("=") for w in args.where)]
        out = sys.stdout if args.output == "-" else open(args.output, "w")
        out.write("\t".join(["path", "group"] + [h for h in header if h not in
                                                ("path", "group")]) + "\n")
        rest = [i for i, h in enumerate(header) if h not in ("path", "group")]
        written = 0
        for row in rows:
            if not row or any(row[i] != value for i, value in keep):
                continue
            values = {name: row[at[name]] for name in fields}
            out.write("\t".join([args.path.format(**values), row[at[args.group]]]
                                + [row[i] for i in rest]) + "\n")
            written += 1
        if out is not sys.stdout:
            out.close()
    sys.stderr.write("sheet_from_list.py: %d samples\n" % written)


if __name__ == "__main__":
    main()
