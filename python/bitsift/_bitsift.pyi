"""Type stubs of the native module (the docstrings are in the module itself)."""

import os
import pathlib
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from ._types import Hit, Results

_Path = Union[str, "os.PathLike[str]"]
_Sequence = Union[str, bytes, bytearray]
_Query = Union[
    _Sequence,
    "os.PathLike[str]",
    Mapping[Union[str, int], _Sequence],
    Iterable[Tuple[Union[str, int], _Sequence]],
]
_Size = Union[int, str, None]

__version__: str
QUEUE_DEPTH_DEFAULT: int
REMOTE: bool

class IndexError(Exception): ...

class QueryResult:
    @property
    def name(self) -> str: ...
    @property
    def kmers_total(self) -> int: ...
    @property
    def total_hits(self) -> int: ...
    @property
    def documents_searched(self) -> int: ...
    @property
    def groups(self) -> Optional[List[Dict[str, Any]]]: ...
    @property
    def hits(self) -> List[Hit]: ...
    @property
    def stats(self) -> Optional[Dict[str, Any]]: ...
    @property
    def batch_stats(self) -> Optional[Dict[str, Any]]: ...
    @property
    def skipped(self) -> Optional[str]: ...
    def _columns(self) -> Dict[str, list]: ...
    def _matrix_column(self) -> Tuple[List[Tuple[int, int, str]], List[float]]: ...
    def to_pandas(self) -> Any: ...

class Index:
    def __init__(
        self,
        path: Union[_Path, Iterable[_Path]],
        engine: str = "auto",
        cache_size: _Size = None,
        threads: Optional[int] = None,
        queue_depth: int = 64,
        direct_io: str = "auto",
        *,
        merge_gap: _Size = None,
        read_max: _Size = None,
        warm: bool = False,
        max_sessions: Optional[int] = None,
        legacy_k: Optional[int] = None,
        legacy_canonical: Optional[bool] = None,
        side_memory: _Size = None,
        metadata: Optional[_Path] = None,
    ) -> None: ...
    def search(
        self,
        query: _Query,
        threshold: float = 0.8,
        limit: int = 0,
        prune: bool = True,
        *,
        coverage: bool = False,
        on_invalid: str = "raise",
        batch: int = 0,
        summaries: bool = True,
        min_identity: Optional[float] = None,
        group_by: Optional[str] = None,
        raw_threshold: bool = False,
    ) -> Results: ...
    def _search_cobs(
        self, query: bytes, threshold: float, num_results: int
    ) -> List[Tuple[str, int]]: ...
    def info(self) -> Dict[str, Any]: ...
    @property
    def documents(self) -> List[str]: ...
    @property
    def paths(self) -> List[Union[pathlib.Path, str]]: ...
    @property
    def engine(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Index": ...
    def __exit__(self, *exc: object) -> bool: ...

def build(
    output: _Path,
    inputs: Union[_Path, Iterable[_Path]],
    k: int = 31,
    fpr: float = 0.3,
    hashes: int = 1,
    page_size: Optional[int] = None,
    per_record: bool = False,
    threads: Optional[int] = None,
    memory: _Size = None,
    force: bool = False,
    progress: Optional[Callable[[int, int, int], object]] = None,
    *,
    canonical: bool = True,
    lists: Union[_Path, Iterable[_Path], None] = None,
    order: str = "size",
    metadata: Optional[_Path] = None,
    summaries: bool = True,
) -> Dict[str, Any]: ...

def configure_remote(
    *,
    depth: Optional[int] = None,
    timeout: Optional[float] = None,
    retries: Optional[int] = None,
    deadline: Optional[float] = None,
    cache_dir: Union[_Path, bool, None] = None,
    cache_dir_size: _Size = None,
) -> None: ...
def remote_options() -> Dict[str, Any]: ...

# The native half of bitsift.cobs (see python/src/cobs.rs); entries are
# (path, type, name, size, subdoc_index, term_size, term_count, offset).
_Entry = Tuple[str, int, str, int, int, int, int, int]

def cobs_load(path: _Path) -> List[_Entry]: ...
def cobs_scan(root: _Path, filter: int) -> List[_Entry]: ...
def cobs_file_type(name: str) -> int: ...
def cobs_num_terms(entry: _Entry, k: int) -> int: ...
def cobs_construct(entries: List[_Entry], out_file: _Path, compact: bool, params: Any) -> None: ...
def cobs_signature_size(num_elements: int, num_hashes: int, false_positive_rate: float) -> int: ...
