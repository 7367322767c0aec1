"""benchmarks/bench_census.py --smoke: runs in seconds and prints every figure it promises."""

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_bench_census_smoke():
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_census.py"), "--smoke"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert re.search(r"^cheap\s+10\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+$", out, re.M), out
    assert re.search(r"^expensive\s+\d+\s", out, re.M), out
    for line in ("idle-core estimate", "overhead per task", "time-limit guard", "load average"):
        assert line in out, out


def test_bench_census_help():
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_census.py"), "--help"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "--smoke" in res.stdout
