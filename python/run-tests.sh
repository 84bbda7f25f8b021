#!/usr/bin/env bash
# The Python package's tests: install it from source, then run its pytest suite and example.
#
#   python/run-tests.sh [PYTHON]
#
# PYTHON is the interpreter to install into and test with (default: $PYTHON, else python3);
# give a virtual environment's, e.g. .venv/bin/python. The script installs the package with
# `pip install ./python` (maturin comes from PyPI as its build requirement; the Rust build
# takes a few minutes the first time), plus pytest, pandas and matplotlib, and COBS's Python
# module (pip cobs-reloaded) unless it is there or BITSIFT_SKIP_COBS=1. It builds the bitsift
# command the tests compare with (cargo build), unless BITSIFT_BIN names one. Extra pytest
# arguments go in PYTEST_ARGS. Exit status: that of the first step that fails.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
python=${1:-${PYTHON:-python3}}

say() { printf 'python/run-tests.sh: %s\n' "$*" >&2; }

say "installing the package from source with $python"
"$python" -m pip install --quiet --disable-pip-version-check "$here" pytest pandas matplotlib
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
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" python/examples/gene_hits.py --out "$scratch/gene_hits.png" >/dev/null
test -s "$scratch/gene_hits.png"
say "all passed"
