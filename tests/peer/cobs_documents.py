#!/usr/bin/env python3
"""cobs_documents: COBS's document lists and constructions of every input type, for bitsift's tests.

    cobs_documents.py list [--file-type T] [-k K] PATH
        one line per document of COBS's DocumentList(PATH, T):
        path<TAB>type<TAB>name<TAB>size<TAB>subdoc_index<TAB>term_size<TAB>term_count<TAB>num_terms(K)
    cobs_documents.py build --kind compact|classic [--file-type T] [-k K] INPUT OUT_FILE
        cobs_index.compact_construct / classic_construct(INPUT, OUT_FILE) with COBS's defaults
        (clobber on)

It drives PyPI `cobs-reloaded` (module `cobs_index`), like `cobs_peer.py` beside it, which queries the
indexes. COBS's calls run in a forked child, because COBS aborts the process on bad input; its log goes to
stderr. Every failure: one line `cobs_documents: error: ...` on stderr, exit status 1. No `.cobs_cache` files
are written (`disable_cache()`).
"""

import argparse
import os
import sys


def fail(message):
    sys.stderr.write("cobs_documents: error: %s\n" % " ".join(str(message).split()))
    sys.exit(1)


def file_type(cobs, name):
    types = {"any": cobs.FileType.Any, "text": cobs.FileType.Text, "cortex": cobs.FileType.Cortex,
             "cobs_doc": cobs.FileType.KMerBuffer, "fasta": cobs.FileType.Fasta,
             "fastq": cobs.FileType.Fastq}
    if name not in types:
        fail("file type %r is not one this script maps" % name)
    return types[name]


def run(args):
    os.dup2(2, 1)  # COBS logs to C stdout
    import cobs_index as cobs

    cobs.disable_cache()
    if args.cmd == "list":
        documents = cobs.DocumentList()
        if args.file_type == "list":
            documents.add_recursive(args.path)  # a .list path is read as a list
        else:
            documents.add_recursive(args.path, file_type(cobs, args.file_type))
        lines = []
        for d in documents:
            lines.append("\t".join(str(v) for v in (
                d.path, int(d.type), d.name, d.size, d.subdoc_index, d.term_size, d.term_count,
                d.num_terms(args.k))))
        return "".join(line + "\n" for line in lines)
    if args.kind == "compact":
        params = cobs.CompactIndexParameters()
        construct = cobs.compact_construct
    else:
        params = cobs.ClassicIndexParameters()
        construct = cobs.classic_construct
    params.clobber = True
    params.term_size = args.k
    construct(input=args.input, out_file=args.out_file, index_params=params,
              file_type=args.file_type)
    return ""


def main():
    parser = argparse.ArgumentParser(prog="cobs_documents.py")
    sub = parser.add_subparsers(dest="cmd", required=True)
    listing = sub.add_parser("list")
    listing.add_argument("--file-type", default="any")
    listing.add_argument("-k", type=int, default=31)
    listing.add_argument("path")
    build = sub.add_parser("build")
    build.add_argument("--kind", required=True, choices=("compact", "classic"))
    build.add_argument("--file-type", default="any")
    build.add_argument("-k", type=int, default=31)
    build.add_argument("input")
    build.add_argument("out_file")
    args = parser.parse_args()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            text = run(args)
            os.write(write, text.encode())
            os._exit(0)
        except BaseException as error:  # noqa: BLE001 (reported by the parent)
            sys.stderr.write("cobs_documents: error: %s\n" % error)
            os._exit(1)
    os.close(write)
    chunks = []
    while True:
        chunk = os.read(read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        fail("COBS failed (exit status %d)" % os.waitstatus_to_exitcode(status))
    sys.stdout.write(b"".join(chunks).decode())


if __name__ == "__main__":
    main()
