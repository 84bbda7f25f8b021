"""bitsift: search COBS bit-sliced genome indexes from Python, at the speed of the storage.

Open an index (or several, or a directory of them) once, and search one sequence, many, or a
FASTA/FASTQ file::

    import bitsift

    index = bitsift.Index("genomes.cobs_compact")
    results = index.search("genes.fa", threshold=0.8)          # or a str, bytes, dict, pairs
    for result in results:
        for hit in result.hits:
            print(result.name, hit.document, hit.kmers_found, hit.fraction)
    frame = results.to_pandas()                                 # needs pandas

    bitsift.build("genomes.cobs_compact", ["assemblies/"], progress=print)

The same Rust library as the `bitsift` command does the work, so results are identical to
`bitsift query` (and its `stats` are the same dicts). Searches release the GIL, and one
`Index` may be searched from many threads at once: it lends each search one of a pool of
sessions (an I/O engine with its buffers), all sharing the parsed index and the page cache.

Queries follow the command line's base rule: case does not matter, whitespace is dropped,
`U` reads as `T`, and anything that is not a nucleotide (`A C G T U N` and the IUPAC codes)
is refused with `ValueError`, as is a query shorter than k. With `on_invalid="skip"` such
queries are answered with an empty `QueryResult` whose `skipped` says why, as the command
line skips them with a warning.

Errors are exceptions with the command line's messages: `FileNotFoundError` for a missing
file, `bitsift.IndexError` for a file that is not a valid COBS index or is damaged,
`ValueError` for bad input or options. `bitsift.IndexError` derives from `Exception`; it is
not the builtin `IndexError`, which it shadows inside this package's namespace only: write
`bitsift.IndexError` (`from bitsift import *` leaves it out, so the builtin stays in view).

Indexes may lie on a server: `bitsift.Index("https://host/dir/x.cobs_compact")`,
`bitsift.Index("s3://bucket/dir/x.cobs_compact")` (S3 settings from the AWS environment), or
a collection's URL; only the ranges a search needs are fetched. `bitsift.configure_remote`
sets requests in flight, timeouts, retries and a local cache for the process.

`bitsift.cobs.Search` is a drop-in for `cobs_index.Search` (COBS's Python module).

Messages of the library (an I/O engine fallback, a document shorter than k in a build) go
to the `logging` logger `bitsift`.
"""

from ._bitsift import (  # noqa: A004
    REMOTE,
    Index,
    IndexError,
    QueryResult,
    __version__,
    build,
    configure_remote,
    remote_options,
)
from ._types import Hit, Results
from . import cobs

__all__ = [
    "Index",
    "QueryResult",
    "Hit",
    "Results",
    "build",
    "configure_remote",
    "remote_options",
    "REMOTE",
    "cobs",
    "__version__",
]
