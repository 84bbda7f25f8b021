"""`bitsift.cobs`: a drop-in for `cobs_index`, the Python module of COBS.

Change one import and a script written for COBS runs on bitsift, with identical results::

    # import cobs_index as cobs
    from bitsift import cobs

    params = cobs.CompactIndexParameters()
    params.clobber = True
    cobs.compact_construct("genomes/", "genomes.cobs_compact", index_params=params)
    index = cobs.Search("genomes.cobs_compact")
    for score, doc_name in index.search("ACGT...", threshold=0.8):
        print(doc_name, score)

Every name of COBS's module is here with COBS's signatures and defaults: `FileType` (and its
values at module level, `cobs.Fasta`, as COBS exports them), `DocumentEntry`,
`DocumentList`, `ClassicIndexParameters`, `CompactIndexParameters`, `classic_construct`,
`classic_construct_list`, `compact_construct`, `compact_construct_list`, `Search`,
`SearchResult`, `disable_cache`, `calc_signature_size` (of the PyPI build of COBS) and
`__version__` (bitsift's).

Documents are COBS's: the same file types by extension (text, McCortex, k-mer buffers,
FASTA/FASTQ plain or `.gz`, multi-FASTA one document per record), the same names (the file
name up to its first dot; `<name>_000000`... for the records of a `.mfasta`; a McCortex
graph's or k-mer buffer's own sample name), sizes and term counts, and the same terms: the
bytes of the file as COBS reads them, so an index built here has COBS's bits, and COBS reads
it with identical results (and vice versa). The compact layout is COBS's too (documents by
size, blocks of 8 x page_size documents each in path order, COBS's automatic page size).

Search, as COBS's `Search`, keeps its defaults and quirks:

- `search(query, threshold=0.0, num_results=0, step=1)` returns a list of
  `SearchResult` objects with `doc_name` (str) and `score` (k-mers found, an int), ordered
  by score, then document order; a query with a single k-mer lookup keeps document order, and
  `num_results` then takes the first documents, as COBS does. A `SearchResult` also unpacks
  and indexes as the `(score, doc_name)` tuple older COBS releases returned.
- A document is reported if its score is at least `ceil(threshold * n)` for a query of n
  k-mers, computed in double precision; `threshold=0` reports every document, zero scores
  included. COBS converts `ceil(threshold * n)` to an unsigned count, so a threshold above
  1, NaN, or one below 0 with `threshold * n <= -1` reports nothing, while one in
  `(-1/n, 0)` reports every document; so does bitsift.
- Query bytes are read by COBS v0.3.x's rule: every byte other than `A C G T` (lowercase
  letters, `N`, IUPAC codes, spaces) counts as `A`, so `acgt` matches as poly-A; the first
  query with lowercase letters gives a `UserWarning` saying so. Use `bitsift.Index` to have
  case folded and non-DNA refused.
- `load_complete_index=True` reads the whole index into memory (bitsift's `ram` engine).

Where COBS would end the interpreter, bitsift raises instead: a missing file raises
`FileNotFoundError`, a file that is not a COBS index `bitsift.IndexError`, an unknown file
type, a bad parameter or an output name without COBS's extension `ValueError`, an existing
output without `clobber` `FileExistsError`, and a query shorter than k `ValueError` (COBS
calls `exit(1)`). `step` (an undocumented k-mer stride of COBS) is supported only at its
default, 1. Parameters that steer COBS's temporary files (`tmp_path`, `keep_temporary`,
`log_prefix`) are accepted and have no effect: bitsift builds without temporary index
files. No `.cobs_cache` files are written, with or without `disable_cache()`.
"""

import enum
import math
import os
import warnings

from . import _bitsift
from ._bitsift import Index as _Index, __version__

__all__ = [
    "FileType",
    "DocumentEntry",
    "DocumentList",
    "ClassicIndexParameters",
    "CompactIndexParameters",
    "classic_construct",
    "classic_construct_list",
    "compact_construct",
    "compact_construct_list",
    "calc_signature_size",
    "disable_cache",
    "Search",
    "SearchResult",
    "__version__",
]

# COBS's `FileType::List`, which its Python enum leaves out.
_LIST = 8


class FileType(enum.IntEnum):
    """Enum of indexable file types (COBS's numbering)."""

    Any = 0
    Text = 1
    Cortex = 2
    KMerBuffer = 3
    Fasta = 4
    Fastq = 5
    FastaMulti = 6
    FastqMulti = 7

    def __str__(self):
        return "FileType.%s" % self.name


# COBS exports the values into the module (`cobs_index.Fasta`).
Any = FileType.Any
Text = FileType.Text
Cortex = FileType.Cortex
KMerBuffer = FileType.KMerBuffer
Fasta = FileType.Fasta
Fastq = FileType.Fastq
FastaMulti = FileType.FastaMulti
FastqMulti = FileType.FastqMulti


class DocumentEntry:
    """DocumentEntry object specifying a document to be indexed.

    `path`, `type` (a `FileType`), `name` (its name in an index), `size` (COBS's size: bytes
    of the file, of its uncompressed lines for FASTA/FASTQ, or bases of a multi-FASTA
    record), `subdoc_index` (record of a multi-FASTA file), `term_size` and `term_count`
    (the fixed-length k-mers of a McCortex graph or k-mer buffer, else 0). Entries come from
    a `DocumentList`; as in COBS they cannot be constructed directly.
    """

    __slots__ = ("path", "type", "name", "size", "subdoc_index", "term_size", "term_count", "_offset")

    def __init__(self, *args, **kwargs):
        raise TypeError("bitsift.cobs.DocumentEntry: No constructor defined!")

    @classmethod
    def _from_tuple(cls, values):
        entry = object.__new__(cls)
        path, code, name, size, subdoc, term_size, term_count, offset = values
        entry.path = os.fspath(path)
        entry.type = FileType(code)
        entry.name = name
        entry.size = size
        entry.subdoc_index = subdoc
        entry.term_size = term_size
        entry.term_count = term_count
        entry._offset = offset
        return entry

    def _tuple(self):
        return (
            os.fspath(self.path),
            int(self.type),
            str(self.name),
            int(self.size),
            int(self.subdoc_index),
            int(self.term_size),
            int(self.term_count),
            int(self._offset),
        )

    def _copy(self):
        return DocumentEntry._from_tuple(self._tuple())

    def num_terms(self, k):
        """number of terms (k-mers) of length k in the document, as COBS counts them"""
        return _bitsift.cobs_num_terms(self._tuple(), int(k))

    def __repr__(self):
        return "DocumentEntry(path=%r, type=%s, name=%r, size=%r, subdoc_index=%r)" % (
            self.path,
            self.type,
            self.name,
            self.size,
            self.subdoc_index,
        )


def _path_key(entry):
    return (os.fsencode(entry.path), entry.subdoc_index)


class DocumentList:
    """List of DocumentEntry objects for indexing.

    `DocumentList()` is empty; `DocumentList(root, filter=FileType.Any)` adds `root` as
    `add_recursive` does.
    """

    def __init__(self, root=None, filter=FileType.Any):  # noqa: A002 (COBS's name)
        self._entries = []
        if root is not None:
            self.add_recursive(root, filter)

    def size(self):
        """return number of DocumentEntry in list"""
        return len(self._entries)

    def add(self, path):
        """identify and add new file to DocumentList"""
        self._entries.extend(DocumentEntry._from_tuple(t) for t in _bitsift.cobs_load(os.fspath(path)))

    def add_recursive(self, path, filter=FileType.Any):  # noqa: A002 (COBS's name)
        """identify and add new file to DocumentList: a directory's files of type `filter`,
        the files a `.list` file names, or a file; the list is then sorted by path"""
        self._add_scan(path, int(FileType(filter)))

    def _add_scan(self, path, code):
        found = _bitsift.cobs_scan(os.fspath(path), code)
        self._entries.extend(DocumentEntry._from_tuple(t) for t in found)
        self._entries.sort(key=_path_key)

    def sort_by_path(self):
        """sort entries by path"""
        self._entries.sort(key=lambda e: os.fsencode(e.path))

    def sort_by_size(self):
        """sort entries by size"""
        self._entries.sort(key=lambda e: (e.size, os.fsencode(e.path)))

    def __len__(self):
        return len(self._entries)

    def __getitem__(self, i):
        # COBS returns a copy of the entry.
        return self._entries[i]._copy()

    def __iter__(self):
        return iter(self._entries)

    def _tuples(self):
        return [e._tuple() for e in self._entries]

    def __repr__(self):
        return "DocumentList(%d entries)" % len(self._entries)


def _memory_bytes_80():
    """COBS's default `mem_bytes`: 80 % of the physical memory."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 0.8)
    except (ValueError, OSError, AttributeError):
        return 1 << 30


class _Parameters:
    # Fixed fields, as COBS's: assigning a misspelt one raises AttributeError.
    __slots__ = (
        "term_size", "canonicalize", "num_hashes", "false_positive_rate", "mem_bytes",
        "num_threads", "clobber", "continue_", "keep_temporary",
    )

    def __init__(self):
        self.term_size = 31
        self.canonicalize = 1
        self.num_hashes = 1
        self.false_positive_rate = 0.3
        self.mem_bytes = _memory_bytes_80()
        self.num_threads = os.cpu_count() or 1
        self.clobber = False
        self.continue_ = False
        self.keep_temporary = False

    def _native(self, page_size):
        class Native:
            pass

        native = Native()
        native.term_size = int(self.term_size)
        native.canonicalize = bool(self.canonicalize)
        native.num_hashes = int(self.num_hashes)
        native.false_positive_rate = float(self.false_positive_rate)
        native.page_size = int(page_size)
        native.mem_bytes = int(self.mem_bytes)
        native.num_threads = int(self.num_threads)
        native.clobber = bool(self.clobber)
        native.continue_ = bool(self.continue_)
        for name in ("term_size", "num_hashes", "page_size", "mem_bytes", "num_threads"):
            if getattr(native, name) < 0:
                raise ValueError("%s must not be negative" % name)
        return native

    def _fields(self):
        names = [n for cls in type(self).__mro__ for n in getattr(cls, "__slots__", ())]
        return sorted(set(names))

    def __repr__(self):
        fields = ", ".join("%s=%r" % (n, getattr(self, n)) for n in self._fields())
        return "%s(%s)" % (type(self).__name__, fields)


def _continue_property():
    # `continue` is a Python keyword: COBS's attribute is read with getattr(p, "continue").
    return property(
        lambda self: self.continue_,
        lambda self, value: setattr(self, "continue_", value),
        doc="continue in existing output directory, default false",
    )


class ClassicIndexParameters(_Parameters):
    """Parameter object for classic_construct(): term_size 31, canonicalize 1, num_hashes 1,
    false_positive_rate 0.3, signature_size 0 (from the rate), mem_bytes (80 % of RAM),
    num_threads (all cores), log_prefix "", clobber, continue (also continue_),
    keep_temporary, all False."""

    __slots__ = ("signature_size", "log_prefix")

    def __init__(self):
        super().__init__()
        self.signature_size = 0
        self.log_prefix = ""


class CompactIndexParameters(_Parameters):
    """Parameter object for compact_construct(): as ClassicIndexParameters without
    signature_size and log_prefix, with page_size 0 (COBS's automatic choice)."""

    __slots__ = ("page_size",)

    def __init__(self):
        super().__init__()
        self.page_size = 0


setattr(ClassicIndexParameters, "continue", _continue_property())
setattr(CompactIndexParameters, "continue", _continue_property())


def _scan_input(input, file_type):
    code = _bitsift.cobs_file_type(str(file_type))
    documents = DocumentList()
    documents._add_scan(input, code)
    return documents


def _check(value, kind, what):
    if not isinstance(value, kind):
        raise TypeError("%s must be a %s, not %s" % (what, kind.__name__, type(value).__name__))


def _construct(documents, out_file, params, compact):
    out_file = os.fspath(out_file)
    parent = os.path.dirname(out_file)
    if parent:
        os.makedirs(parent, exist_ok=True)  # as COBS does
    page_size = params.page_size if compact else 0
    _bitsift.cobs_construct(documents._tuples(), out_file, compact, params._native(page_size))


def _classic(documents, out_file, index_params):
    params = ClassicIndexParameters() if index_params is None else index_params
    _check(params, ClassicIndexParameters, "index_params")
    if params.signature_size != 0:
        raise ValueError(
            "signature_size must be 0: classic_construct computes it from false_positive_rate "
            "(COBS aborts otherwise)"
        )
    _construct(documents, out_file, params, compact=False)


def _compact(documents, out_file, index_params):
    params = CompactIndexParameters() if index_params is None else index_params
    _check(params, CompactIndexParameters, "index_params")
    _construct(documents, out_file, params, compact=True)


def classic_construct(input, out_file, index_params=None, file_type="any", tmp_path=""):  # noqa: A002
    """Construct a COBS Classic Index from a path of input files.

    input: path to the input directory or file (or a `.list` file, or any file with
    file_type "list"); out_file: the output `.cobs_classic` index file; index_params: a
    ClassicIndexParameters; file_type: filter input documents by file type (any, text,
    cortex, cobs_doc, fasta, fastq, list), default any; tmp_path: accepted, not used.
    Documents are indexed in path order."""
    _classic(_scan_input(input, file_type), out_file, index_params)


def classic_construct_list(list, out_file, index_params=None, tmp_path=""):  # noqa: A002
    """Construct a COBS Classic Index from a pre-populated DocumentList object, its
    documents in the list's order."""
    _check(list, DocumentList, "list")
    _classic(list, out_file, index_params)


def compact_construct(input, out_file, index_params=None, file_type="any", tmp_path=""):  # noqa: A002
    """Construct a COBS Compact Index from a path of input files (see classic_construct);
    documents are laid out as COBS lays them out."""
    _compact(_scan_input(input, file_type), out_file, index_params)


def compact_construct_list(list, out_file, index_params=None, tmp_path=""):  # noqa: A002
    """Construct a COBS Compact Index from a pre-populated DocumentList object."""
    _check(list, DocumentList, "list")
    _compact(list, out_file, index_params)


def calc_signature_size(num_elements, num_hashes, false_positive_rate):
    """signature size (Bloom filter bits) for num_elements elements, as COBS computes it"""
    return _bitsift.cobs_signature_size(int(num_elements), int(num_hashes), float(false_positive_rate))


_cache_disabled = False


def disable_cache(disable=True):
    """disable FastA/FastQ cache files globally (bitsift writes none either way)"""
    global _cache_disabled
    _cache_disabled = bool(disable)


class SearchResult:
    """One reported document: `doc_name` and `score` (k-mers of the query found).

    It is also the `(score, doc_name)` tuple of older COBS releases: it unpacks
    (`for score, doc_name in results`), indexes (`result[0]` is the score) and compares
    equal to that tuple."""

    __slots__ = ("doc_name", "score")

    def __init__(self, doc_name=None, score=0):
        self.doc_name = doc_name
        self.score = score

    def _pair(self):
        return (self.score, self.doc_name)

    def __iter__(self):
        return iter(self._pair())

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return self._pair()[i]

    def __eq__(self, other):
        if isinstance(other, SearchResult):
            return self._pair() == other._pair()
        if isinstance(other, tuple):
            return self._pair() == other
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "SearchResult(doc_name=%r, score=%r)" % (self.doc_name, self.score)


_warned_lowercase = False


def _warn_lowercase(query):
    global _warned_lowercase
    if _warned_lowercase or query == query.upper():
        return
    _warned_lowercase = True
    warnings.warn(
        "bitsift.cobs: the query has lowercase letters; under COBS's rule every byte other "
        "than A, C, G, T counts as A, so they match as A (pass query.upper() to search their "
        "bases); this is said once",
        UserWarning,
        stacklevel=3,
    )


class Search:
    """Search object to run queries on COBS indices (the `cobs_index.Search` interface).

    `Search(path, load_complete_index=False)` opens one classic or compact index file.
    """

    def __init__(self, path, load_complete_index=False):
        engine = "ram" if load_complete_index else "auto"
        self._index = _Index(os.fspath(path), engine=engine, max_sessions=1)
        self._k = self._index.info()["indexes"][0]["k"]

    def search(self, query, threshold=0.0, num_results=0, step=1):
        """search index for query returning vector of matches"""
        if isinstance(query, str):
            query = query.encode("utf-8")
        elif not isinstance(query, (bytes, bytearray)):
            raise TypeError("search(): query must be a str, not %s" % type(query).__name__)
        if isinstance(num_results, bool) or not isinstance(num_results, int) or num_results < 0:
            raise TypeError("search(): num_results must be an int >= 0, not %r" % (num_results,))
        if isinstance(step, bool) or not isinstance(step, int) or step < 1:
            raise TypeError("search(): step must be an int >= 1, not %r" % (step,))
        if step != 1:
            raise ValueError("search(): step %d is not supported by bitsift; only 1" % step)
        query = bytes(query)
        _warn_lowercase(query)
        threshold = float(threshold)
        if math.isnan(threshold):
            return []
        if threshold < 0.0 and len(query) >= self._k:
            # COBS: a negative ceil(t * n) wraps to a huge unsigned count; -0 is 0.
            if math.ceil(threshold * (len(query) - self._k + 1)) < 0:
                return []
            threshold = 0.0
        pairs = self._index._search_cobs(query, threshold, num_results)
        return [SearchResult(name, score) for name, score in pairs]

    def close(self):
        """Closes the index file (not in COBS's interface; the object closes it when collected)."""
        self._index.close()

    def __repr__(self):
        return "Search(%r)" % (os.fspath(self._index.paths[0]),)
