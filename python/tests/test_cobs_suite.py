"""COBS's own Python test suite, run against `bitsift.cobs` with only its import line changed.

`tests/data/cobs` holds COBS's `python/tests/test_cobs_index.py` and the test data it reads,
verbatim, in COBS's layout (with COBS's LICENSE). The suite writes its indexes into its data
directory, so the tree is copied to a temporary directory; there the one line
`import cobs_index as cobs` becomes `from bitsift import cobs` (and nothing else changes,
which is checked), and the suite runs with `unittest` in a fresh interpreter.
"""

import shutil
import subprocess
import sys

from conftest import REPO

VENDORED = REPO / "tests" / "data" / "cobs"
ORIGINAL_IMPORT = "import cobs_index as cobs"
OUR_IMPORT = "from bitsift import cobs"


def test_cobs_python_suite_passes_with_only_the_import_changed(tmp_path):
    tree = tmp_path / "cobs"
    shutil.copytree(VENDORED, tree)
    suite = tree / "python" / "tests" / "test_cobs_index.py"
    original = suite.read_text().splitlines(keepends=True)
    changed = [OUR_IMPORT + "\n" if line.rstrip("\n") == ORIGINAL_IMPORT else line for line in original]
    differing = [i for i, (a, b) in enumerate(zip(original, changed)) if a != b]
    assert len(changed) == len(original)
    assert len(differing) == 1, differing
    suite.write_text("".join(changed))

    done = subprocess.run(
        [sys.executable, "-m", "unittest", "-v", "test_cobs_index"],
        cwd=suite.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "Ran 3 tests" in report, report
    assert "OK" in report.splitlines()[-1], report
    # The suite's indexes were written where COBS's suite writes them.
    data = tree / "tests" / "data"
    assert (data / "python_test.cobs_classic").is_file()
    assert (data / "python_test.cobs_compact").is_file()
