#!/usr/bin/env bash
# The Python package's tests: build its wheel, install that wheel, then run the pytest suite
# and the example against it.
#
#   python/run-tests.sh [PYTHON]
#
# PYTHON is the interpreter to install into and test with (default: $PYTHON, else python3);
# give a virtual environment's, e.g. .venv/bin/python. The script builds one abi3 wheel with
# `pip wheel ./python` (maturin, pinned in python/pyproject.toml, comes from PyPI as the build
# requirement; the Rust build takes a few minutes the first time), checks its tag says abi3,
# installs it into a fresh virtual environment with no cargo or rustc on PATH and imports it
# there (what a user without Rust does), then installs the same wheel into PYTHON with pytest,
# pandas and matplotlib, and COBS's Python module (pip cobs-reloaded) unless it is there or
# BITSIFT_SKIP_COBS=1. The wheel is left in BITSIFT_WHEEL_DIR (default: target/wheels, or
# $CARGO_TARGET_DIR/wheels). It builds the bitsift command the tests compare with (cargo
# build), unless BITSIFT_BIN names one. Extra pytest arguments go in PYTEST_ARGS. Exit
# status: that of the first step that fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
python=${1:-${PYTHON:-python3}}

say() { printf 'python/run-tests.sh: %s\n' "$*" >&2; }

pip_quiet=(--quiet --disable-pip-version-check)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
wheel_dir=${BITSIFT_WHEEL_DIR:-${CARGO_TARGET_DIR:-$root/target}/wheels}

say "building the wheel with $python (pip wheel ./python)"
"$python" -m pip wheel "${pip_quiet[@]}" --no-deps --wheel-dir "$scratch/wheels" "$here"
wheels=("$scratch"/wheels/bitsift-*.whl)
[ "${#wheels[@]}" = 1 ] && [ -f "${wheels[0]}" ] || { say "expected one bitsift wheel, got: ${wheels[*]}"; exit 1; }
wheel=${wheels[0]}
# One wheel for every CPython from 3.9 (pyo3's abi3-py39): the tag must say cp39-abi3.
case "$(basename "$wheel")" in
    bitsift-*-cp39-abi3-*.whl) say "built $(basename "$wheel")" ;;
    *) say "$(basename "$wheel") is not an abi3 wheel for CPython 3.9+ (cp39-abi3)"; exit 1 ;;
esac
mkdir -p "$wheel_dir"
cp "$wheel" "$wheel_dir/"

say "installing the wheel into a fresh environment without cargo or rustc on PATH"
"$python" -m venv "$scratch/user"
user_path=$scratch/user/bin
if PATH=$user_path command -v cargo >/dev/null || PATH=$user_path command -v rustc >/dev/null; then
    say "cargo or rustc is reachable from $user_path"; exit 1
fi
PATH=$user_path "$scratch/user/bin/python" -m pip install "${pip_quiet[@]}" --no-index "$wheel"
(cd "$scratch" && PATH=$user_path "$scratch/user/bin/python" -c \
    'import bitsift, bitsift.cobs; print("python/run-tests.sh: imported bitsift", bitsift.__version__, "from the wheel")')

say "installing the wheel and the test requirements into $python"
"$python" -m pip install "${pip_quiet[@]}" --force-reinstall --no-deps "$wheel"
"$python" -m pip install "${pip_quiet[@]}" pytest pandas matplotlib
if [ "${BITSIFT_SKIP_COBS:-}" != 1 ] && ! "$python" -c 'import cobs_index' 2>/dev/null; then
    say "installing COBS's Python module (cobs-reloaded) for the comparisons"
    "$python" -m pip install --quiet --disable-pip-version-check cobs-reloaded
fi
if [ -z "${BITSIFT_BIN:-}" ]; then
    (cd "$root" && cargo build --quiet --bin bitsift)
    export BITSIFT_BIN="$root/target/debug/bitsift"
fi

# From the repository root, so that `import bitsift` finds the installed package and not the
# sources in python/bitsift (which lack the compiled extension).
cd "$root"
say "pytest"
# shellcheck disable=SC2086
"$python" -m pytest -p no:cacheprovider ${PYTEST_ARGS:-} python/tests
say "example: python/examples/gene_hits.py"
"$python" python/examples/gene_hits.py --out "$scratch/gene_hits.png" >/dev/null
test -s "$scratch/gene_hits.png"
say "all passed"
