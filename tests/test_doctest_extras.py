"""The library's doctests run after a plain ``pip install .``: without an extra, its modules
are not collected and a doctest using one of its packages is skipped (itsa/conftest.py)."""

import subprocess
import sys

from .conftest import ROOT

HIDE = "import sys\nfor p in ('galois', 'pyarrow'): sys.modules[p] = None   # as if not installed\n"


def test_doctests_skip_what_a_missing_extra_needs(tmp_path):
    code = HIDE + ("import pytest\nsys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-rs', '--doctest-modules',"
                   f" '--rootdir', {str(ROOT / 'itsa')!r}, '--pyargs', 'itsa.keys.schemes.linalg', 'itsa.keys.census']))")
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout[-3000:]
    assert "needs galois (an optional extra)" in res.stdout            # rank_flat's galois example
    assert "error" not in res.stdout.lower()                            # itsa.keys.census: not collected
    assert "passed" in res.stdout
