"""The pure-Python result types of bitsift: `Hit` and `Results`."""

from typing import Any, Dict, List, NamedTuple, Optional


class Hit(NamedTuple):
    """A document that holds enough of a query's k-mers.

    `index` names the index the document is in: a collection's directory, or the path of
    an index file; `fraction` is `kmers_found / kmers_total`, Bloom false positives
    included (the command line prints it with 4 decimals); `containment` is the fraction
    corrected for the false positives expected of that document, with its 95 % interval
    `containment_low`..`containment_high`; `borderline` is True when that interval reaches
    under the search's threshold; `fpr` is the document's false-positive rate per k-mer,
    `fp_expected` the false-positive k-mers expected among those found, `p_false` the
    probability that false positives alone find as many (see the README, Corrected
    scores). `identity` estimates the identity of the document's copy from the corrected
    containment (containment ** (1/k): the identity of a full-length copy with random point
    substitutions; too low for a partial copy). `coverage`,
    with `search(..., coverage=True)`, says where the hit matches, as the `coverage` of
    `bitsift query --coverage --format json`: `intervals` (1-based, inclusive stretches of
    the query covered by matching k-mers), `covered_bases` and `longest_gap` (the longest
    run of k-mer positions the document lacks); else None.
    """

    document: str
    index: str
    kmers_found: int
    kmers_total: int
    fraction: float
    identity: float
    coverage: Optional[Dict[str, Any]] = None
    containment: Optional[float] = None
    containment_low: Optional[float] = None
    containment_high: Optional[float] = None
    borderline: Optional[bool] = None
    fpr: Optional[float] = None
    fp_expected: Optional[float] = None
    p_false: Optional[float] = None


_CORRECTED_COLUMNS = (
    "containment",
    "containment_low",
    "containment_high",
    "borderline",
    "fpr",
    "fp_expected",
    "p_false",
)
_COLUMNS = (
    "query",
    "index",
    "document",
    "kmers_found",
    "kmers_total",
    "fraction",
    "identity",
) + _CORRECTED_COLUMNS
_COVERAGE_COLUMNS = ("intervals", "longest_gap")


def _frame(columns):
    """A pandas DataFrame of `columns` (a dict of equal-length lists), in the command
    line's column order."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            "to_pandas() needs pandas, which is not installed: pip install pandas"
        ) from error
    names = [name for name in _COLUMNS + _COVERAGE_COLUMNS if name in columns]
    return pandas.DataFrame({name: columns[name] for name in names})


class Results(list):
    """The answers of `Index.search`: a list of `QueryResult`, one per query, in input order."""

    __slots__ = ()

    def to_pandas(self):
        """All hits of all queries as one pandas DataFrame, one row per hit, with the
        columns query, index, document, kmers_found, kmers_total, fraction, identity,
        containment, containment_low, containment_high, borderline, fpr, fp_expected,
        p_false, and with coverage intervals and longest_gap (as the command line's TSV)."""
        parts = [result._columns() for result in self]
        names = [n for n in _COLUMNS + _COVERAGE_COLUMNS if any(n in p for p in parts)]
        merged = {name: [] for name in names}
        for part in parts:
            rows = len(part["query"])
            for name in names:
                merged[name].extend(part.get(name, [None] * rows))
        return _frame(merged)

    def matrix(self, presence=False, sparse=False):
        """A presence matrix as a pandas DataFrame, as `bitsift query --format matrix`: one
        row per document that is a hit of at least one query (index order), one column per
        query (input order). A cell is the hit's fraction of k-mers, 0.0 where the document
        is not a hit; with `presence=True` 1 and 0 (int8). `sparse=True` stores each column
        as a pandas SparseArray (for hundreds of thousands of genomes by a thousand genes)."""
        try:
            import numpy
            import pandas
        except ImportError as error:
            raise ImportError(
                "matrix() needs pandas, which is not installed: pip install pandas"
            ) from error
        parts = [result._matrix_column() for result in self]
        row_of = {}
        for keys, _ in parts:
            for key in keys:
                row_of.setdefault(key, None)
        ordered = sorted(row_of)
        for row, key in enumerate(ordered):
            row_of[key] = row
        columns = {}
        for number, (keys, values) in enumerate(parts):
            dtype = numpy.int8 if presence else numpy.float64
            column = numpy.zeros(len(ordered), dtype=dtype)
            rows = numpy.fromiter((row_of[key] for key in keys), dtype=numpy.int64, count=len(keys))
            column[rows] = 1 if presence else numpy.asarray(values, dtype=numpy.float64)
            if sparse:
                column = pandas.arrays.SparseArray(column, fill_value=dtype(0))
            columns[number] = column
        documents = [document for (_, _, document) in ordered]
        frame = pandas.DataFrame(columns, index=pandas.Index(documents, name="document"))
        frame.columns = [result.name for result in self]
        return frame

    def __repr__(self):
        return "Results(%s)" % list.__repr__(self)


__all__: List[str] = ["Hit", "Results"]
