#!/usr/bin/env bash
# Runs a command as if its disk were a frugal machine's (issue 29): reads throttled by the
# kernel and memory (page cache included) capped, in a cgroup of its own.
#
#   bench/frugal.sh PROFILE [--iops N] [--bps SIZE] [--memory SIZE] [--device-of PATH]
#                   [--stats] [--quiet] [--] CMD [ARGS...]
#   bench/frugal.sh --check PROFILE [--device-of PATH] [--seconds S] [--bitsift PATH]
#   bench/frugal.sh --list
#
#   cloud: 3,000 read IOPS, 125 MiB/s, 2 GiB    hdd: 200 read IOPS, 150 MiB/s, 2 GiB
#   none: no throttle, 2 GiB (--memory none: nothing)
#
# e.g. sudo bench/frugal.sh cloud --device-of idx/ bitsift query -i idx/genomes.cobs_compact -f gene.fa
#      sudo bench/frugal.sh --check cloud     (a few seconds: is every way of reading throttled?)
#
# Root is required. The logic is in bench/suite/frugal.py (Python benchmarks import it); this
# wrapper only runs it: `bench/frugal.sh --help` prints the details. Exit status: the
# command's; 125 when frugal.sh itself fails; --check: 0 when the throttle held.
set -euo pipefail
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHONPATH="$bench${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
    exec python3 -m suite.frugal "$@"
