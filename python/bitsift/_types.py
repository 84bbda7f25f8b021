"""The pure-Python result types of bitsift: `Hit` and `Results`."""

from typing import Any, Dict, List, NamedTuple, Optional


class Hit(NamedTuple):
    """A document that holds enough of a query's k-mers.

    `index` is the path of the index file the document is in; `fraction` is
    `kmers_found / kmers_total` (the command line prints it with 4 decimals). `coverage`,
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
    coverage: Optional[Dict[str, Any]] = None


_COLUMNS = ("query", "index", "document", "kmers_found", "kmers_total", "fraction")
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
        columns query, index, document, kmers_found, kmers_total, fraction, and with
        coverage intervals and longest_gap (as the command line's TSV)."""
        parts = [result._columns() for result in self]
        names = [n for n in _COLUMNS + _COVERAGE_COLUMNS if any(n in p for p in parts)]
        merged = {name: [] for name in names}
        for part in parts:
            rows = len(part["query"])
            for name in names:
                merged[name].extend(part.get(name, [None] * rows))
        return _frame(merged)

    def __repr__(self):
        return "Results(%s)" % list.__repr__(self)


__all__: List[str] = ["Hit", "Results"]
