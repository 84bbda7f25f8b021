#!/usr/bin/env bash
# The test command of README.md: installs what the tests need, then runs every test suite.
#
#   ./scripts/test.sh                     set up, then run every suite
#   ./scripts/test.sh --only cargo,web    set up, then run the named suites only
#   ./scripts/test.sh --setup-only        set up only (the COBS peer's virtual environment)
#   ./scripts/test.sh -- --test cli       extra arguments after -- go to `cargo test`
#
# Suites, in order: cargo (cargo test --workspace: unit, CLI, model, COBS interop, server),
# python (the Python package: python/run-tests.sh), workflow (workflow/test.sh: the Snakemake
# workflow on the bundled genomes), slurm (workflow/test-slurm.sh: the same workflow as jobs of
# a one-node SLURM cluster; root only, else skipped), web (the web page in headless Chromium),
# remote (tests/remote.rs: indexes searched over HTTP and S3 against nginx and moto started by
# tests/remote/servers.py, with a round trip injected, and two replicas behind nginx following
# a collection changed on S3; root installs nginx, else it must be installed), bench
# (bench/run.py --quick), mission (bench/mission_scale.sh, small: 2,048 simulated genomes
# through the workflow, add, remove, merge, then every measurement, checked against the
# simulator's truth and COBS, with no throttle and under the cloud disk profile; and, as root,
# bench/frugal.sh --check cloud: the kernel's read throttle holds for every way of reading).
#
# Setup: a virtual environment (default .venv/ in the checkout, gitignored) holding the COBS
# peer, PyPI cobs-reloaded (module cobs_index), which the interoperability tests drive through
# tests/peer/cobs_peer.py; the tests find it through BITSIFT_PYTHON, which this script sets.
# The web suite needs Chromium and Node.js: installed with apt-get when running as root,
# otherwise the script stops and says how.
#
# Environment:
#   BITSIFT_VENV=DIR          the virtual environment (default: .venv in the checkout)
#   BITSIFT_PYTHON_BASE=PY    the interpreter that creates it (default: python3; the
#                             cobs-reloaded wheel is built for CPython 3.11)
#   BITSIFT_SKIP_COBS=1       install no COBS; the interoperability tests are skipped
#   BITSIFT_SKIP_WEB=1        skip the web-page suite (no Chromium needed)
#   BITSIFT_SKIP_WORKFLOW=1   skip the Snakemake workflow suite (no Snakemake installed)
#   BITSIFT_SKIP_SLURM=1      skip the SLURM suite (it installs SLURM, MUNGE and MariaDB with
#                             apt-get and runs their daemons for a minute or two)
#   BITSIFT_SKIP_REMOTE=1     skip the remote-index suite and the Python package's remote tests
#                             (python/tests/test_remote.py) (no nginx or moto needed)
#   BITSIFT_SKIP_BENCH=1      skip the benchmark suite's quick run
#   BITSIFT_SKIP_MISSION=1    skip the small mission-scale rehearsal
#   CHROMIUM=PATH             the Chromium binary (default /usr/bin/chromium)
#   CARGO_TARGET_DIR          honoured by every cargo command and by the web suite
#
# Adding a suite: write a function suite_NAME (and, if it needs installing, setup_NAME, run
# by the setup step), then add NAME to SUITES below. Python packages the suites need go in
# PYTHON_REQUIREMENTS.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

SUITES=(cargo python workflow slurm web remote bench mission)
# Installed into the virtual environment by setup_python_env.
PYTHON_REQUIREMENTS=("cobs-reloaded==0.1.1")
COBS_VERSION="0.1.1"

venv="${BITSIFT_VENV:-$root/.venv}"
python_base="${BITSIFT_PYTHON_BASE:-python3}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"

step() { printf '\n==> %s\n' "$*"; }
say() { printf '    %s\n' "$*"; }
fail() { printf 'scripts/test.sh: error: %s\n' "$*" >&2; exit 1; }
skipping() { [[ "${1:-}" == "1" ]]; }
is_root() { [[ "$(id -u)" == "0" ]]; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# ------------------------------------------------------------------------------------------
# Setup
# ------------------------------------------------------------------------------------------

# The virtual environment with the COBS peer. Reused when it already has the right version.
setup_python_env() {
    if skipping "${BITSIFT_SKIP_COBS:-}"; then
        say "BITSIFT_SKIP_COBS=1: no COBS peer; the interoperability tests will be skipped"
        return
    fi
    local python="$venv/bin/python"
    if [[ -x "$python" ]] && "$python" -c \
        "import cobs_index, sys; sys.exit(cobs_index.__version__ != '$COBS_VERSION')" 2>/dev/null; then
        say "COBS peer: cobs_index $COBS_VERSION in ${venv#"$root"/}"
    else
        command -v "$python_base" >/dev/null 2>&1 \
            || fail "$python_base not found: install Python 3.11 (the cobs-reloaded wheel needs CPython 3.11) or set BITSIFT_PYTHON_BASE"
        if [[ ! -x "$python" ]]; then
            say "creating the virtual environment ${venv#"$root"/} with $("$python_base" --version 2>&1)"
            "$python_base" -m venv "$venv" \
                || fail "$python_base -m venv $venv failed: on Debian or Ubuntu, install python3-venv (apt-get install python3-venv)"
        fi
        say "installing ${PYTHON_REQUIREMENTS[*]} from PyPI"
        "$python" -m pip install --quiet --disable-pip-version-check "${PYTHON_REQUIREMENTS[@]}" \
            || fail "pip could not install ${PYTHON_REQUIREMENTS[*]} into $venv (the cobs-reloaded wheel needs CPython 3.11 on x86-64 Linux; set BITSIFT_PYTHON_BASE to a python3.11, or BITSIFT_SKIP_COBS=1 to skip the COBS tests)"
        "$python" -c "import cobs_index; print('    COBS peer: cobs_index', cobs_index.__version__, 'in', '${venv#"$root"/}')"
    fi
    export BITSIFT_PYTHON="$python"
}

# Chromium and Node.js for the web suite; the npm packages come from tests/web's lock file.
setup_web() {
    if skipping "${BITSIFT_SKIP_WEB:-}"; then
        return
    fi
    local missing=()
    [[ -x "$chromium" ]] || missing+=(chromium)
    command -v node >/dev/null 2>&1 || missing+=(nodejs)
    command -v npm >/dev/null 2>&1 || missing+=(npm)
    if ((${#missing[@]} > 0)); then
        if ! is_root || ! command -v apt-get >/dev/null 2>&1; then
            fail "the web-page test needs ${missing[*]}: run 'sudo apt-get install ${missing[*]}' (Debian, Ubuntu), set CHROMIUM=/path/to/chromium, or set BITSIFT_SKIP_WEB=1 to skip it"
        fi
        say "installing ${missing[*]} (apt-get)"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    fi
    say "web: $("$chromium" --version 2>/dev/null | head -n 1), node $(node --version)"
    (cd tests/web && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
}

# Sets up what the wanted suites need: the COBS peer for cargo, python and bench; Chromium
# and Node.js for web.
setup() {
    step "setup"
    if wanted cargo || wanted python || wanted bench || wanted mission; then
        setup_python_env
    fi
    if wanted web; then
        setup_web
    fi
}

# ------------------------------------------------------------------------------------------
# Suites
# ------------------------------------------------------------------------------------------

suite_cargo() {
    step "cargo test --workspace"
    # tests/remote.rs starts servers: the remote suite runs it.
    BITSIFT_SKIP_REMOTE=1 cargo test --workspace --locked "${cargo_args[@]}"
}

# The Python package (python/): python/run-tests.sh builds its abi3 wheel (pip wheel ./python,
# left in target/wheels), installs that wheel in a fresh environment without Rust on PATH and
# into the virtual environment, then runs its pytest suite and its example, comparing with
# the bitsift command and, unless BITSIFT_SKIP_COBS=1, with COBS's cobs_index.
suite_python() {
    step "python package (abi3 wheel built, installed without Rust; pytest, example)"
    local python="$venv/bin/python"
    if [[ ! -x "$python" ]]; then
        # BITSIFT_SKIP_COBS=1 made no environment for the peer; the package needs one.
        "$python_base" -m venv "$venv" \
            || fail "$python_base -m venv $venv failed: on Debian or Ubuntu, install python3-venv (apt-get install python3-venv)"
    fi
    cargo build --locked --bin bitsift
    BITSIFT_BIN="$target_dir/debug/bitsift" python/run-tests.sh "$python"
}

# The Snakemake workflow on the bundled genomes: a sharded build and a split search, checked
# against one search of the collection (workflow/test.sh installs Snakemake from PyPI).
suite_workflow() {
    step "workflow (Snakemake sharded build and split search)"
    if skipping "${BITSIFT_SKIP_WORKFLOW:-}"; then
        say "skipped (BITSIFT_SKIP_WORKFLOW=1)"
        return
    fi
    cargo build --release --locked -p bitsift
    BITSIFT="$target_dir/release/bitsift" BITSIFT_WORKFLOW_VENV="$target_dir/workflow-venv" \
        bash workflow/test.sh
}

# The workflow as SLURM jobs (workflow/test-slurm.sh): a private one-node cluster (slurmctld,
# slurmd, slurmdbd with MariaDB, munged: Debian's packages, installed with apt-get), a sharded
# build and a split search through snakemake-executor-plugin-slurm, a shard job cancelled and
# retried, checked with sacct; every daemon stopped at the end. Needs root: skipped otherwise,
# or when apt-get cannot install the packages (the script exits 77).
suite_slurm() {
    step "slurm (the workflow as jobs of a one-node SLURM cluster)"
    if skipping "${BITSIFT_SKIP_SLURM:-}"; then
        say "skipped (BITSIFT_SKIP_SLURM=1)"
        return
    fi
    if ! is_root; then
        say "skipped: needs root (installs SLURM, MUNGE and MariaDB, runs their daemons); run as root, or BITSIFT_SKIP_SLURM=1 to silence this"
        return
    fi
    cargo build --release --locked -p bitsift
    local status=0
    BITSIFT="$target_dir/release/bitsift" BITSIFT_SLURM_VENV="$target_dir/slurm-venv" \
        bash workflow/test-slurm.sh || status=$?
    if ((status == 77)); then
        say "skipped (workflow/test-slurm.sh could not run here: see its message above)"
    elif ((status != 0)); then
        fail "workflow/test-slurm.sh failed (exit status $status)"
    fi
}

suite_web() {
    step "web page in headless Chromium"
    if skipping "${BITSIFT_SKIP_WEB:-}"; then
        say "skipped (BITSIFT_SKIP_WEB=1)"
        return
    fi
    cargo build --release --locked -p bitsift
    local shots
    shots="$(mktemp -d "${TMPDIR:-/tmp}/bitsift-web-shot.XXXXXX")"
    CHROMIUM="$chromium" SCREENSHOT="$shots/screenshot.png" bash tests/web/run.sh
    rm -rf "$shots"
}

# Remote indexes (tests/remote.rs): nginx and moto started by tests/remote/servers.py (as root
# in a private network namespace with tc netem latency), answers over HTTP and S3 compared
# with the local files, errors (404, 403, 500, timeouts, a changed file), the local cache; and
# replicas on one index (tests/remote/replicas.rs, issue 34): two `bitsift serve -i s3://…`
# behind nginx as a load balancer while the collection on the store is changed (add, remove,
# merge), every answer checked against a local search of the generation it names.
suite_remote() {
    step "remote indexes over HTTP and S3 (nginx, moto)"
    if skipping "${BITSIFT_SKIP_REMOTE:-}"; then
        say "skipped (BITSIFT_SKIP_REMOTE=1)"
        return
    fi
    if [[ $EUID -ne 0 ]] && ! command -v nginx >/dev/null; then
        say "skipped: needs root (installs nginx, makes a network namespace) or nginx installed; BITSIFT_SKIP_REMOTE=1 silences this"
        return
    fi
    cargo test --locked --test remote "${cargo_args[@]}" -- --nocapture
}

suite_bench() {
    step "benchmark suite, quick mode (bundled data; keeps bench/run.py from rotting)"
    if skipping "${BITSIFT_SKIP_BENCH:-}"; then
        say "skipped (BITSIFT_SKIP_BENCH=1)"
        return
    fi
    cargo build --release --workspace --locked
    "${BITSIFT_PYTHON:-python3}" bench/run.py --quick --no-cargo-build
}

# The mission-scale rehearsal, small (bench/mission_scale.sh; its full run is in
# BENCHMARKS.md): keeps the pipeline from rotting. It fails on a false negative against the
# simulator's truth, a hit count that differs from COBS, or a command that fails. As root it
# measures a second time under the cloud disk profile (reads throttled by the kernel; about a
# minute more), after bench/frugal.sh --check cloud has checked that the throttle holds for
# O_DIRECT, io_uring, buffered reads and mmap faults (exit 1 if a rate exceeds its limit by
# more than 10 %: the throttle would not be working; rates below it only are reported).
suite_mission() {
    step "mission-scale rehearsal, small (bench/mission_scale.sh --genomes 2048)"
    if skipping "${BITSIFT_SKIP_MISSION:-}"; then
        say "skipped (BITSIFT_SKIP_MISSION=1)"
        return
    fi
    local profiles=none
    if is_root; then
        cargo build --release --locked -p bitsift
        step "frugal disk profile: bench/frugal.sh --check cloud (the kernel's read throttle)"
        local rc=0
        bench/frugal.sh --check cloud --device-of "$target_dir" --bitsift "$target_dir/release/bitsift" || rc=$?
        if ((rc == 0)); then
            profiles=none,cloud
        elif ((rc == 125)); then
            # frugal.sh could not make the throttle here (no block device under the target
            # directory, no cgroup I/O controller): said on the line above; not a failure of
            # bitsift, so the rehearsal runs unthrottled.
            say "no frugal disk profile on this machine (see above); measuring without a throttle"
        else
            fail "bench/frugal.sh --check cloud: the kernel's read throttle did not hold (status $rc)"
        fi
    else
        say "not root: no frugal disk profile (bench/frugal.sh --check and --profiles cloud make cgroups, which needs root); measuring without a throttle"
    fi
    local out
    # Under the target directory: on the disk whose throttle was checked (TMPDIR may be a
    # tmpfs, which no throttle reaches).
    out="$(mktemp -d "$target_dir/bitsift-mission.XXXXXX")"
    BITSIFT_WORKFLOW_VENV="$target_dir/workflow-venv" \
        bench/mission_scale.sh --genomes 2048 --genome-size 5000 --cap 1G --out "$out" \
        --server-seconds 3 --profiles "$profiles"
    rm -rf "$out"
}

# ------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------

only=""
setup_only=0
cargo_args=()
while (($# > 0)); do
    case "$1" in
        --setup-only) setup_only=1 ;;
        --only) only="${2:?--only needs a list of suites, e.g. cargo,web}"; shift ;;
        --only=*) only="${1#--only=}" ;;
        -h | --help) usage; exit 0 ;;
        --) shift; cargo_args=("$@"); break ;;
        *) fail "unknown argument $1 (see --help)" ;;
    esac
    shift
done

wanted() {
    [[ -z "$only" ]] || [[ ",$only," == *",$1,"* ]]
}

if [[ -n "$only" ]]; then
    for name in ${only//,/ }; do
        [[ " ${SUITES[*]} " == *" $name "* ]] || fail "unknown suite $name (suites: ${SUITES[*]})"
    done
fi
command -v cargo >/dev/null 2>&1 || fail "cargo not found: bitsift needs a stable Rust toolchain (rustup, Rust >= 1.85)"

setup
if ((setup_only)); then
    exit 0
fi
for suite in "${SUITES[@]}"; do
    if wanted "$suite"; then
        "suite_$suite"
    fi
done
step "all suites passed"
