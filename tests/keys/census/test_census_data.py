"""The committed census: its table is consistent, and the README's summary is read from it."""

import re
from fractions import Fraction

from itsa.keys.census import census_summary, census_tables, read_results, read_rows
from tests.conftest import ROOT

DATA = ROOT / "data" / "census-U3-K4.parquet"


def test_committed_census_is_complete_and_consistent():
    rows = read_rows(DATA)
    assert len(rows) == len({r["key"] for r in rows}) == read_results(DATA).num_rows
    for r in rows:
        if r["status"] == "ok" and r["upper"] is not None:
            assert Fraction(r["upper"]) >= Fraction(r["lower_corrected"])      # a proved bound
            assert r["verdict"] == ("optimal" if r["upper"] == r["lower"] else "open")


def test_readme_summary_comes_from_the_table():
    rows = read_rows(DATA)
    readme = (ROOT / "README.md").read_text()
    header, by_regime = census_tables(rows)["converse-by-regime"]
    for regime, n, beaten, share, _ in by_regime:
        line = f"| {regime} | {n:,} | {beaten:,} | {float(share):.1%} |"
        assert line in readme, line
    s = census_summary(rows)
    assert f"| all | {s['instances']:,} | {s['printed_beaten']:,} | {s['printed_beaten'] / s['instances']:.1%} |" in readme
    assert f"All {s['instances']:,} classes" in readme
    if s["optimal"] == s["instances"]:
        assert re.search(r"every one\s+is \*\*optimal for every scheme of the model\*\*", readme)
        assert {r["lower_class"] for r in rows} == {"corrected"}    # proved for every encoder


def test_committed_solve_census_is_general_and_optimal():
    """data/census-U3-K3-solve.parquet: the README's claim (all 291 optimal, class general)."""
    rows = read_rows(ROOT / "data" / "census-U3-K3-solve.parquet")
    assert len(rows) == len({r["key"] for r in rows}) == 291
    assert all((r["status"], r["verdict"], r["lower_class"], r["lower_certified"])
               == ("ok", "optimal", "general", True) for r in rows)
    assert all(r["lower"] == r["upper"] for r in rows)
    assert re.search(r"all 291\s+non-isomorphic instances with `U = 3`, `K = 3`",
                     (ROOT / "README.md").read_text())
