"""Smoke test of benchmarks/bench_converse.py: its tiny mode runs and reports every part."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_bench_converse_smoke(capsys):
    spec = importlib.util.spec_from_file_location("bench_converse", ROOT / "benchmarks" / "bench_converse.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--smoke", "--json"]) == 0
    out = capsys.readouterr().out
    assert "== keys LP" in out and "== model LP" in out and "heterogeneous" in out
    import json
    rows = json.loads(out.strip().splitlines()[-1])
    keys = [r for r in rows if r["method"] == "keys" and r["symmetry"] and r["K"] == 6]
    assert keys and all(r["value"] == "4" and r["columns"] == 9 for r in keys)
    plain = [r for r in rows if not r["symmetry"]]
    assert plain and all(r["columns"] == 63 and r["value"] == "4" for r in plain)
