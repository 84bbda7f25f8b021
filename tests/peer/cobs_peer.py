#!/usr/bin/env python3
"""cobs_peer: drive the reference COBS (PyPI `cobs-reloaded`, module `cobs_index`) for bitsift's tests.

    cobs_peer.py build --kind compact|classic -o OUT_FILE [-k 31] [--hashes 1] [--fpr 0.3]
                       [--page-size P] [--no-canonicalize] [--threads N] INPUT...
    cobs_peer.py query -i INDEX [-i INDEX2 ...] [-t THRESHOLD] [-l LIMIT] (-f QUERIES | SEQUENCE)

`query` prints TSV `query<TAB>document<TAB>score`, one line per hit, in COBS's result order.
Every failure: one line `cobs_peer: error: ...` on stderr, exit status 1.
See README.md next to this file for the verified behaviour of COBS.

COBS aborts the whole process on many errors (tlx `die` -> SIGABRT, SIGFPE on empty input, exit(1) on a
short query), so all calls into `cobs_index` run in a forked child; the parent turns a crash into one
error line. COBS's own log (it writes to C stdout) never reaches our stdout.
"""

import os
import struct
import sys

PROG = "cobs_peer"
FASTA_EXTS = (".fa", ".fasta", ".fna", ".ffn", ".faa", ".frn")
FASTQ_EXTS = (".fq", ".fastq")
VERBOSE = os.environ.get("COBS_PEER_VERBOSE", "") not in ("", "0")


class PeerError(Exception):
    pass


class Fail(Exception):
    """Abort with exit status 1; message None = already reported."""


def one_line(msg):
    return " ".join(str(msg).split())


def die(msg):
    raise Fail(one_line(msg))


# --------------------------------------------------------------------------------------------------
# command line

def parse_args(argv):
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):  # one line, exit 1 (argparse would print usage and exit 2)
            sys.stderr.write("%s: error: %s\n" % (PROG, one_line(message)))
            sys.exit(1)

    p = Parser(prog="cobs_peer.py", description="Drive COBS (cobs_index) for bitsift tests.")
    sub = p.add_subparsers(dest="cmd", metavar="build|query")
    sub.required = True

    b = sub.add_parser("build", help="build a COBS index")
    b.add_argument("--kind", required=True, choices=("compact", "classic"))
    b.add_argument("-o", "--out", required=True, metavar="OUT_FILE")
    b.add_argument("-k", "--term-size", type=int, default=31, dest="k")
    b.add_argument("--hashes", type=int, default=1)
    b.add_argument("--fpr", type=float, default=0.3)
    b.add_argument("--page-size", type=int, default=0, dest="page_size")
    b.add_argument("--no-canonicalize", action="store_true", dest="no_canonicalize")
    b.add_argument("--threads", type=int, default=0)
    b.add_argument("inputs", nargs="+", metavar="INPUT")

    q = sub.add_parser("query", help="query COBS index(es)")
    q.add_argument("-i", "--index", action="append", required=True, dest="indexes", metavar="INDEX")
    q.add_argument("-t", "--threshold", type=float, default=0.0)
    q.add_argument("-l", "--limit", type=int, default=0)
    q.add_argument("-f", "--file", dest="file", metavar="QUERIES")
    q.add_argument("sequence", nargs="?", metavar="SEQUENCE")

    a = p.parse_args(argv)
    if a.cmd == "query":
        if (a.file is None) == (a.sequence is None):
            die("query: give exactly one of -f QUERIES or SEQUENCE")
        if a.limit < 0:
            die("query: --limit must be >= 0")
    return a


# --------------------------------------------------------------------------------------------------
# forked execution of COBS calls

def run_in_child(work, log_path, keep_stderr):
    """Run work(out, err) in a forked child. out/err are text streams on the caller's real
    stdout/stderr. In the child, fd 1 and (unless keep_stderr) fd 2 are redirected to log_path so
    COBS's chatter can neither pollute the TSV nor break the one-line error rule.
    Returns on success; otherwise raises Fail (the caller prints one line and exits 1)."""
    import signal

    def on_signal(signum, frame):
        raise Fail("terminated by signal %d" % signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # child
        code = 1
        try:
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                signal.signal(sig, signal.SIG_DFL)
            if sys.platform.startswith("linux"):
                try:  # die with the parent (e.g. a test harness SIGKILLs it on timeout)
                    import ctypes
                    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
                except Exception:
                    pass
                if os.getppid() != parent:
                    os._exit(1)
            out = os.fdopen(os.dup(1), "w", buffering=1 << 16)
            err = os.fdopen(os.dup(2), "w", buffering=1)
            if VERBOSE:
                logfd = os.dup(2)
            else:
                logfd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(logfd, 1)
            if not keep_stderr:
                os.dup2(logfd, 2)
            os.close(logfd)
            try:
                work(out, err)
                out.flush()
                err.flush()
                code = 0
            except PeerError as e:
                out.flush()
                err.write("%s: error: %s\n" % (PROG, one_line(e)))
                err.flush()
                code = 3
            except BaseException as e:  # noqa: BLE001 - report anything as one line
                try:
                    out.flush()
                except Exception:
                    pass
                err.write("%s: error: %s: %s\n" % (PROG, type(e).__name__, one_line(e)))
                err.flush()
                code = 3
        finally:
            os._exit(code)
    # parent
    try:
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
    except BaseException:  # our own SIGTERM/SIGHUP/SIGINT: take the child down too
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        raise
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        raise Fail(None)  # child already printed its one-line error
    cobs_msg = last_cobs_message(log_path)
    if os.WIFSIGNALED(status):
        try:
            sname = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            sname = "signal %d" % os.WTERMSIG(status)
        die("COBS crashed (%s)%s" % (sname, (": " + cobs_msg) if cobs_msg else ""))
    die("COBS exited with status %d%s" % (os.WEXITSTATUS(status), (": " + cobs_msg) if cobs_msg else ""))


def last_cobs_message(log_path):
    try:
        with open(log_path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 65536))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    for pref in ("DIE:", "query too short", "Error", "terminate called after"):
        for line in reversed(lines):
            if line.startswith(pref) or (pref == "Error" and "Error" in line):
                return line.strip()
    for line in reversed(lines):
        if line.strip() and not line.startswith("terminate called without"):
            return line.strip()
    return ""


# --------------------------------------------------------------------------------------------------
# index header (own parser: validates before COBS mmaps it, gives k for the short-query guard)

def read_index_header(path):
    try:
        size = os.path.getsize(path)
        f = open(path, "rb")
    except OSError as e:
        raise PeerError("cannot open index %r: %s" % (path, e.strerror or e))
    with f:
        head = f.read(47)
        if len(head) < 43 or head[:5] != b"COBS:":
            raise PeerError("%r is not a COBS index (bad magic)" % path)
        magic = head[5:18]
        version, k = struct.unpack_from("<II", head, 18)
        canon = head[26]
        if version != 1:
            raise PeerError("%r: unsupported COBS index version %d" % (path, version))
        if magic == b"CLASSIC_INDEX":
            if len(head) < 47:
                raise PeerError("%r: truncated COBS header" % path)
            ndocs, sig, nh = struct.unpack_from("<IQQ", head, 27)
            pos, blocks, psize = 47, [(sig, nh)], None
        elif magic == b"COMPACT_INDEX":
            nblocks, ndocs, psize = struct.unpack_from("<IIQ", head, 27)
            if psize == 0 or nblocks > (1 << 24):
                raise PeerError("%r: implausible compact header" % path)
            f.seek(43)
            raw = f.read(16 * nblocks)
            if len(raw) != 16 * nblocks:
                raise PeerError("%r: truncated COBS header" % path)
            blocks = [struct.unpack_from("<QQ", raw, 16 * i) for i in range(nblocks)]
            pos = 43 + 16 * nblocks
        else:
            raise PeerError("%r is not a COBS index (unknown type %r)" % (path, magic))
        if k < 1 or canon > 1:
            raise PeerError("%r: implausible header (k=%d, canonicalize=%d)" % (path, k, canon))
        # names: ndocs lines
        f.seek(pos)
        names = []
        buf = b""
        while len(names) < ndocs:
            chunk = f.read(1 << 20)
            if not chunk:
                raise PeerError("%r: truncated document name list" % path)
            buf += chunk
            parts = buf.split(b"\n")
            buf = parts.pop()
            need = ndocs - len(names)
            if len(parts) > need:
                rest = b"\n".join(parts[need:]) + b"\n" + buf
                parts = parts[:need]
                buf = rest
            names.extend(parts)
        pos += sum(len(n) + 1 for n in names)
        if magic == b"CLASSIC_INDEX":
            data_off = pos + 13
            expect = data_off + blocks[0][0] * ((ndocs + 7) // 8)
        else:
            pos += (psize - ((pos + 13) % psize)) % psize
            data_off = pos + 13
            expect = data_off + psize * sum(s for s, _ in blocks)
            if ndocs > 8 * psize * len(blocks):
                raise PeerError("%r: more documents than blocks can hold" % path)
        f.seek(data_off - 13)
        if f.read(13) != magic:
            raise PeerError("%r: header end marker missing" % path)
        if size != expect:
            raise PeerError("%r: file size %d != %d expected from header" % (path, size, expect))
    return {"kind": "classic" if magic == b"CLASSIC_INDEX" else "compact", "k": k,
            "canonicalize": canon, "num_documents": ndocs, "page_size": psize, "blocks": blocks,
            "names": [n.decode("utf-8", "replace") for n in names]}


# --------------------------------------------------------------------------------------------------
# query files (FASTA / FASTQ, plain or gzip; detected by content, not by extension)

def open_query_file(path):
    if path == "-":
        raw = sys.stdin.buffer
    else:
        try:
            raw = open(path, "rb")
        except OSError as e:
            raise PeerError("cannot open query file %r: %s" % (path, e.strerror or e))
    head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
    if head == b"\x1f\x8b":
        import gzip
        raw = gzip.GzipFile(fileobj=raw, mode="rb")
    import io
    return io.TextIOWrapper(raw, encoding="latin-1", newline=None)


def read_records(path):
    """Yield (name, sequence). name = first whitespace-separated word of the header."""
    f = open_query_file(path)
    lines = iter(f)
    line = ""
    for line in lines:
        if line.strip():
            break
    else:
        return
    first = line.lstrip()[:1]
    if first == ">":
        name, seq = None, []
        while True:
            s = line.strip()
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(seq)
                w = line[1:].split(None, 1)
                name, seq = (w[0] if w else ""), []
            elif s and not s.startswith(";"):
                if name is None:
                    raise PeerError("query file %r: sequence before first '>' header" % path)
                seq.append("".join(s.split()))
            line = next(lines, None)
            if line is None:
                break
        if name is not None:
            yield name, "".join(seq)
    elif first == "@":
        while line is not None:
            if not line.strip():
                line = next(lines, None)
                continue
            if not line.startswith("@"):
                raise PeerError("query file %r: malformed FASTQ (expected '@', got %r)"
                                % (path, line[:40]))
            w = line[1:].split(None, 1)
            name = w[0] if w else ""
            seq = []
            line = next(lines, None)
            while line is not None and not line.startswith("+"):
                seq.append("".join(line.split()))
                line = next(lines, None)
            if line is None:
                raise PeerError("query file %r: truncated FASTQ record %r" % (path, name))
            seq = "".join(seq)
            qlen = 0
            while qlen < len(seq):
                line = next(lines, None)
                if line is None:
                    raise PeerError("query file %r: truncated FASTQ quality of %r" % (path, name))
                qlen += len(line.strip())
            yield name, seq
            line = next(lines, None)
    else:
        raise PeerError("query file %r: not FASTA ('>') or FASTQ ('@')" % path)


# --------------------------------------------------------------------------------------------------
# query

def cmd_query(a):
    headers = []
    for path in a.indexes:
        try:
            headers.append(read_index_header(path))
        except PeerError as e:
            die(e)
    kmax = max(h["k"] for h in headers)
    if a.file is not None and a.file != "-" and not os.path.isfile(a.file):
        die("query file %r not found" % a.file)

    def work(out, err):
        import cobs_index
        searches = [cobs_index.Search(p) for p in a.indexes]
        multi = len(searches) > 1
        thr, lim = float(a.threshold), int(a.limit)
        if a.sequence is not None:
            records = [("query", "".join(a.sequence.split()))]
        else:
            records = read_records(a.file)
        for name, seq in records:
            if len(seq) < kmax:
                err.write("short\t%s\n" % name)
                continue
            if not multi:
                res = [(r.doc_name, r.score) for r in searches[0].search(seq, thr, lim)]
            else:
                res = []
                for s in searches:
                    # no per-index limit: with a single k-mer (and 1 hash) COBS returns an
                    # unsorted list, which a per-index limit would cut in document order
                    res.extend((r.doc_name, r.score) for r in s.search(seq, thr, 0))
                # emulate the COBS CLI merge: score desc, ties by (index order, document order);
                # Python's sort is stable, so sorting by -score alone gives exactly that.
                res.sort(key=lambda x: -x[1])
                if lim:
                    del res[lim:]
            out.write("".join("%s\t%s\t%d\n" % (name, d, sc) for d, sc in res))
            out.flush()  # a later COBS abort must not swallow finished records

    import tempfile
    logdir = tempfile.mkdtemp(prefix="cobs_peer.")
    try:
        run_in_child(work, os.path.join(logdir, "cobs.log"), keep_stderr=False)
    finally:
        import shutil
        shutil.rmtree(logdir, ignore_errors=True)


# --------------------------------------------------------------------------------------------------
# build

def classify_input(path):
    # COBS matches extensions case-sensitively ("x.FA" is an unknown type and aborts COBS)
    base = path[:-3] if path.endswith(".gz") else path
    return base.endswith(FASTA_EXTS) or base.endswith(FASTQ_EXTS)


def cmd_build(a):
    suffix = ".cobs_" + a.kind
    if not a.out.endswith(suffix):
        die("output file must end in %s for --kind %s (COBS insists)" % (suffix, a.kind))
    if a.k < 1:
        die("-k must be >= 1")
    if a.hashes < 1:
        die("--hashes must be >= 1")
    if not (0.0 < a.fpr < 1.0):
        die("--fpr must be in (0, 1)")
    if a.page_size < 0:
        die("--page-size must be >= 0")
    if a.kind == "classic" and a.page_size:
        die("--page-size applies to --kind compact only")
    if a.threads < 0:
        die("--threads must be >= 1")
    inputs = []
    for p in a.inputs:
        q = p.rstrip("/") or "/"
        if os.path.isdir(q):
            inputs.append((q, True))
        elif os.path.isfile(q):
            if not classify_input(q):
                die("input %r: not a FASTA/FASTQ file name (%s, %s, optionally .gz)"
                    % (p, "/".join(FASTA_EXTS), "/".join(FASTQ_EXTS)))
            if not os.access(q, os.R_OK):
                die("input %r is not readable" % p)
            inputs.append((q, False))
        else:
            die("input %r does not exist" % p)
    out_abs = os.path.abspath(a.out)
    out_dir = os.path.dirname(out_abs)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        die("cannot create output directory %r: %s" % (out_dir, e.strerror or e))
    if os.path.isdir(out_abs):
        die("output %r is a directory" % a.out)

    import shutil
    import tempfile
    work_dir = tempfile.mkdtemp(prefix="cobs_peer.")
    tmp_index = os.path.join(work_dir, "index" + suffix)

    def work(out, err):
        import cobs_index
        cobs_index.disable_cache()  # no <input>.cobs_cache files next to the inputs
        dl = cobs_index.DocumentList()
        for path, is_dir in inputs:
            if is_dir:
                dl.add_recursive(path, cobs_index.FileType.Fasta)
            else:
                dl.add_recursive(path, cobs_index.FileType.Any)
        dl.sort_by_path()  # what `cobs *-construct DIR` does (add_recursive sorts too)
        n = len(dl)
        if n == 0:
            raise PeerError("no FASTA documents found in the inputs")
        docs = [(d.name, d.num_terms(a.k)) for d in dl]
        if sum(t for _, t in docs) == 0:
            raise PeerError("no input document has a k-mer (all shorter than k=%d)" % a.k)
        if a.kind == "classic":
            p = cobs_index.ClassicIndexParameters()
        else:
            p = cobs_index.CompactIndexParameters()
            p.page_size = a.page_size
        p.term_size = a.k
        p.num_hashes = a.hashes
        p.false_positive_rate = a.fpr
        p.canonicalize = 0 if a.no_canonicalize else 1
        if a.threads:
            p.num_threads = a.threads
        p.clobber = True
        tmp_path = os.path.join(work_dir, "tmp")
        if a.kind == "classic":
            cobs_index.classic_construct_list(dl, tmp_index, p, tmp_path)
        else:
            cobs_index.compact_construct_list(dl, tmp_index, p, tmp_path)
        if not os.path.isfile(tmp_index):
            raise PeerError("COBS did not write an index")
        hdr = read_index_header(tmp_index)
        if hdr["num_documents"] != n:
            kept = set(hdr["names"])
            lost = [nm for nm, t in docs if nm not in kept]
            err.write("%s: warning: COBS dropped %d document(s) without k-mers: %s\n"
                      % (PROG, n - hdr["num_documents"], ",".join(lost)))

    try:
        run_in_child(work, os.path.join(work_dir, "cobs.log"), keep_stderr=False)
        try:
            os.replace(tmp_index, out_abs)
        except OSError:  # e.g. EXDEV: copy next to the target, then rename atomically
            part = out_abs + ".cobs_peer_part"
            try:
                shutil.copyfile(tmp_index, part)
                os.replace(part, out_abs)
            except OSError as e:
                try:
                    os.unlink(part)
                except OSError:
                    pass
                die("cannot write %r: %s" % (a.out, e.strerror or e))
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


def main(argv):
    try:
        a = parse_args(argv)
        if a.cmd == "build":
            cmd_build(a)
        else:
            cmd_query(a)
    except Fail as e:
        if e.args and e.args[0]:
            sys.stderr.write("%s: error: %s\n" % (PROG, e.args[0]))
        return 1
    except PeerError as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, one_line(e)))
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("%s: error: interrupted\n" % PROG)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
