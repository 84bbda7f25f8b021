"""`bitsift.cobs.Search`: a drop-in for `cobs_index.Search`, the Python module of COBS.

Change one import and a script written for COBS runs on bitsift, with identical results::

    # import cobs_index as cobs
    from bitsift import cobs

    index = cobs.Search("genomes.cobs_compact")
    for result in index.search("ACGT...", threshold=0.8):
        print(result.doc_name, result.score)

Everything COBS's `Search` does is kept, including its defaults and quirks:

- `search(query, threshold=0.0, num_results=0, step=1)` returns a list of
  `SearchResult` objects with `doc_name` (str) and `score` (k-mers found, an int), ordered
  by score, then document order; a query with a single k-mer lookup keeps document order, and
  `num_results` then takes the first documents, as COBS does.
- A document is reported if its score is at least `ceil(threshold * n)` for a query of n
  k-mers, computed in double precision; `threshold=0` reports every document, zero scores
  included. COBS converts `ceil(threshold * n)` to an unsigned count, so a threshold above
  1, NaN, or one below 0 with `threshold * n <= -1` reports nothing, while one in
  `(-1/n, 0)` reports every document; so does bitsift.
- Query bytes are read by COBS v0.3.x's rule: every byte other than `A C G T` (lowercase
  letters, `N`, IUPAC codes, spaces) counts as `A`, so `acgt` matches as poly-A. Use
  `bitsift.Index` to have case folded and non-DNA refused.
- `load_complete_index=True` reads the whole index into memory (bitsift's `ram` engine).

Where COBS would end the interpreter, bitsift raises instead: a missing index file raises
`FileNotFoundError`, a file that is not a COBS index `bitsift.IndexError` (COBS aborts the
process), and a query shorter than k `ValueError` (COBS calls `exit(1)`). `step` (an
undocumented k-mer stride of COBS) is supported only at its default, 1.
"""

import math
import os

from ._bitsift import Index as _Index

__all__ = ["Search", "SearchResult"]


class SearchResult:
    """One reported document: `doc_name` and `score` (k-mers of the query found)."""

    __slots__ = ("doc_name", "score")

    def __init__(self, doc_name=None, score=0):
        self.doc_name = doc_name
        self.score = score

    def __repr__(self):
        return "SearchResult(doc_name=%r, score=%r)" % (self.doc_name, self.score)


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
