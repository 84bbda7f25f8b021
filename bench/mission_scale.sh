#!/usr/bin/env bash
# A rehearsal at the mission's scale (see bench/mission_scale.py for what it measures):
#
#   bench/mission_scale.sh [--genomes 661405] [--genome-size 20000] [--cap 2G]
#                          [--out bench/artifacts/mission] [--sim DIR] [--bitsift PATH]
#                          [--simulate PATH] [--genes-per-class 20] [--skip-cobs] ...
#
#   bench/mission_scale.sh --genomes 2048 --genome-size 5000 --cap 1G --out /tmp/ms-small
#                                                   # the small run: a few minutes end to end
#   bench/mission_scale.sh ... --profiles none,cloud,hdd   # also under the frugal disk
#                                                   # profiles (bench/frugal.sh; root)
#
# This wrapper checks the tools, builds bitsift and bitsift-simulate (`cargo build --release
# --locked`, in $CARGO_TARGET_DIR or target/) unless --bitsift and --simulate name them, sets
# up Snakemake as workflow/test.sh does (target/workflow-venv, or $BITSIFT_WORKFLOW_VENV), then
# runs `python3 bench/mission_scale.py "$@"`. Run it as root: it drops the page cache before
# every cold measurement and caps the measured processes with a memory cgroup (without root it
# says so and measures without). Exit status: that of mission_scale.py (0: everything ran and
# checked out; 1: a command failed, a false negative, a missing result).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SNAKEMAKE_VERSION=9.27.1
VENV=${BITSIFT_WORKFLOW_VENV:-$ROOT/target/workflow-venv}

say() { printf 'mission_scale.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

have_bitsift=
have_simulate=
have_snakemake=
for arg in "$@"; do
    case $arg in
        --bitsift | --bitsift=*) have_bitsift=1 ;;
        --simulate | --simulate=*) have_simulate=1 ;;
        --snakemake | --snakemake=*) have_snakemake=1 ;;
        -h | --help) exec python3 bench/mission_scale.py --help ;;
    esac
done

command -v python3 > /dev/null || die "python3 is needed"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die "python3 3.9 or newer is needed"
python3 -c 'import venv, ensurepip' 2> /dev/null \
    || die "python3's venv module (with ensurepip) is needed: apt-get install python3-venv"
[ "$(id -u)" -eq 0 ] || say "not root: the page cache cannot be dropped and no memory cgroup is made (measuring without; see summary.json notes)"
[ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] || [ -f /sys/fs/cgroup/cgroup.controllers ] \
    || say "no memory cgroup controller: measuring without a cap"

extra=()
if [ -z "$have_bitsift" ] || [ -z "$have_simulate" ]; then
    command -v cargo > /dev/null || die "cargo is needed to build bitsift (or give --bitsift and --simulate)"
    say "building: cargo build --release --locked -p bitsift -p bitsift-simulate"
    cargo build --release --locked -p bitsift -p bitsift-simulate >&2
    target=${CARGO_TARGET_DIR:-$ROOT/target}
    [ -n "$have_bitsift" ] || extra+=(--bitsift "$target/release/bitsift")
    [ -n "$have_simulate" ] || extra+=(--simulate "$target/release/bitsift-simulate")
fi
if [ -z "$have_snakemake" ]; then
    if [ ! -x "$VENV/bin/snakemake" ] || [ "$("$VENV/bin/snakemake" --version)" != "$SNAKEMAKE_VERSION" ]; then
        say "installing snakemake==$SNAKEMAKE_VERSION into $VENV"
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "snakemake==$SNAKEMAKE_VERSION"
    fi
    extra+=(--snakemake "$VENV/bin/snakemake")
fi

exec python3 bench/mission_scale.py "${extra[@]}" "$@"
