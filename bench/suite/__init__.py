"""bitsift's benchmark suite: small modules driven by bench/run.py.

- `util`: progress lines, checked subprocesses with resource usage, cold caches, disk space,
  statistics, cached artifacts.
- `machine`: what the run ran on.   `cgroup`: memory cgroups (and read throttles) for the
  measured processes.   `frugal`: the frugal disk profiles (bench/frugal.sh).
- `device`: fio and `bitsift iobench`; the fio limit of a query.
- `data`: gene sets, the bundled, simulated and synthetic collections.
- `build`: bitsift and COBS builds.   `query`: cold/warm per-gene sweeps, the COBS worker.
- `issue5`: pruning and merging, batches, the page cache, warm-up.
- `report`: BENCHMARKS.md sections between markers, CSV/JSON results, plots.
"""
