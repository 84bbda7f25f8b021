"""The pure-Python result types of bitsift: `Hit` and `Results`."""

from typing import List, NamedTuple


class Hit(NamedTuple):
    """A document that holds enough of a query's k-mers.

    `index` is the path of the index file the document is in; `fraction` is
    `kmers_found / kmers_total` (the command line prints it with 4 decimals).
    """

    document: str
    index: str
    kmers_found: int
    kmers_total: int
    fraction: float


_COLUMNS = ("query", "index", "document", "kmers_found", "kmers_total", "fraction")


def _frame(columns):
    """A pandas DataFrame of `columns` (a dict of equal-length lists)."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            "to_pandas() needs pandas, which is not installed: pip install pandas"
        ) from error
    return pandas.DataFrame({name: columns[name] for name in _COLUMNS})


class Results(list):
    """The answers of `Index.search`: a list of `QueryResult`, one per query, in input order."""

    __slots__ = ()

    def to_pandas(self):
        """All hits of all queries as one pandas DataFrame, one row per hit, with the
        columns query, index, document, kmers_found, kmers_total, fraction."""
        merged = {name: [] for name in _COLUMNS}
        for result in self:
            for name, values in result._columns().items():
                merged[name].extend(values)
        return _frame(merged)

    def __repr__(self):
        return "Results(%s)" % list.__repr__(self)


__all__: List[str] = ["Hit", "Results"]
