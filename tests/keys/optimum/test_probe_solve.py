"""benchmarks/probe_solve.py: --help and the --smoke run work (the probe itself is a benchmark)."""

import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "probe_solve.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_help():
    r = _run("--help")
    assert r.returncode == 0 and "--smoke" in r.stdout and "--only" in r.stdout


def test_smoke_run_settles_its_instances():
    r = _run("--smoke")
    assert r.returncode == 0, r.stderr
    assert "3 per ensemble" in r.stdout
    assert r.stdout.count("optimal, total                    3  100.0%") == 2
    assert "ERROR" not in r.stdout


def test_only_reruns_chosen_instances():
    r = _run("--smoke", "--only", "1", "--ensemble", "theorem2")
    assert r.returncode == 0, r.stderr
    assert "only #1" in r.stdout and "== ensemble theorem2: 1 instances" in r.stdout
