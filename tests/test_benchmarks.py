"""Every script in benchmarks/ still runs: ``--help``, and ``--smoke`` on a tiny input.

A benchmark that nobody runs rots (an import that moved, an option renamed);
this runs each one for a few seconds so that the suite notices. Speeds are
not asserted here: the scripts print them as ratios against a baseline of
the same run.
"""

import subprocess
import sys

import pytest

from .conftest import ROOT

BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py"))
#: Seconds one smoke run may take on a loaded 2-core machine.
SMOKE_SECONDS = 120


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=SMOKE_SECONDS)


def _case(script: str):
    if "--smoke" not in (BENCHMARKS / script).read_text(encoding="utf-8"):
        return pytest.param(script, marks=pytest.mark.xfail(
            reason=f"{script} has no --smoke mode yet", strict=True))
    return script


def test_every_script_is_covered():
    assert len(SCRIPTS) >= 12 and "bench_verify.py" in SCRIPTS


@pytest.mark.parametrize("script", [_case(s) for s in SCRIPTS])
def test_smoke(script):
    res = _run(script, "--smoke")
    assert res.returncode == 0, f"{script} --smoke exited {res.returncode}:\n{res.stderr[-2000:]}"
    assert res.stdout.strip(), f"{script} --smoke printed nothing"
    if res.stdout.startswith("skipped:"):
        pytest.skip(f"{script}: {res.stdout.strip()}")


@pytest.mark.parametrize("script", SCRIPTS)
def test_help(script):
    res = _run(script, "--help")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "--smoke" in res.stdout or "--smoke" not in (BENCHMARKS / script).read_text(encoding="utf-8")
