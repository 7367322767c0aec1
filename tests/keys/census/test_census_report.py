"""Census figures as matplotlib objects: no titles in paper style, integer count ticks, n on
every bar, legends only for series present, scope on every 'optimal', notes instead of empty axes."""

import csv

import pytest

from itsa.keys.bounds.corrected import EVERY_SCHEME
from itsa.keys.census import census_report, census_summary, census_tables, load_spec, run_census, scope_of
from itsa.keys.census.figures import SERIES_COLOURS, census_figures
from tests.conftest import ROOT


def row(K=3, regime="theorem-2", verdict="optimal", lower="2", upper="2", printed="3", cls="corrected",
        status="ok", V=None, t=None, U=3, key=None):
    return {"key": key or f"{K}-{regime}-{lower}-{upper}-{V}-{t}-{status}", "name": None, "status": status,
            "K": K, "U": U, "regime": regime, "verdict": verdict, "lower": lower, "upper": upper,
            "lower_printed": printed, "lower_corrected": lower, "lower_class": cls, "error": None,
            "printed_beaten": upper is not None and int(upper) < int(printed), "homogeneous_V": V,
            "homogeneous_t": t, "gap": None if upper is None else str(int(upper) - int(lower))}


@pytest.fixture(scope="module")
def rows():
    out = [row(K=3, regime="theorem-2") for _ in range(3)]
    out += [row(K=4, regime="condition-1", printed="2") for _ in range(400)]          # counts 3 vs 400
    out += [row(K=4, regime="theorem-2", verdict="open", lower="1", upper="2")]
    out += [row(K=5, regime="theorem-2", verdict="open", lower="1", upper=None, status="timeout")]
    out += [row(K=2 * V, U=2, V=V, t=1, lower=str(V), upper=str(V), printed=str(V + 1)) for V in (1, 2, 3)]
    return [dict(r, key=f"k{i}") for i, r in enumerate(out)]


def texts(labels):
    return [t.get_text() for t in labels]


def test_paper_figures_have_no_title_integer_ticks_and_n_on_bars(rows):
    figs, notes = census_figures(census_tables(rows), "paper")
    assert set(figs) == {"converse-by-regime", "certified-by-K", "printed-gap", "gaps", "grid-rate", "open"}
    assert notes == []
    for name, fig in figs.items():
        ax = fig.axes[0]
        assert ax.get_title() == "" and fig.get_suptitle() == "", name
    # open: K = 4 (open) and K = 5 (timeout): a legend of exactly the two statuses present
    ax = figs["open"].axes[0]
    assert texts(figs["open"].legends[0].get_texts()) == ["open", "timeout"]
    assert all(float(t).is_integer() for t in ax.get_yticks())
    # printed-gap: 400 (condition-1, gap 0) against 6 (theorem-2, gap 1): a log axis; n on every bar
    ax = figs["printed-gap"].axes[0]
    assert ax.get_yscale() == "log"
    bar_texts = [t.get_text() for t in ax.texts]
    assert sorted(t for t in bar_texts if t) == ["400", "6"]
    assert " ".join(ax.get_ylabel().split()) == "optimal instances, for every scheme"
    # certified-by-K: the scope of the lower bounds is on the axis; bars by regime, colour-blind-safe
    ax = figs["certified-by-K"].axes[0]
    assert " ".join(ax.get_ylabel().split()) == "share certified optimal, for every scheme"
    assert ax.get_ylabel().count("\n") <= 1                      # the scope's short name: two lines at most
    assert texts(figs["certified-by-K"].legends[0].get_texts()) == ["condition-1", "theorem-2"]
    assert {p.get_facecolor()[:3] for p in ax.patches} <= {
        tuple(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)) for c in SERIES_COLOURS}
    assert "400" in [t.get_text() for t in ax.texts]                                 # n of the K = 4 bar
    # grid-rate: optimum against the closed form, integer ticks, no legend for one series
    ax = figs["grid-rate"].axes[0]
    assert "min{U+V+t−2, UV−1}" in ax.get_xlabel() and ax.get_legend() is None and not figs["grid-rate"].legends
    assert all(float(t).is_integer() for t in ax.get_xticks())
    assert " ".join(ax.get_ylabel().split()) == "key rate; certified optimum, for every scheme"


def test_annotated_style_titles_each_figure(rows):
    figs, _ = census_figures(census_tables(rows), "annotated")
    assert "by K and regime" in figs["certified-by-K"].get_suptitle()


def test_empty_and_one_value_tables_give_notes_not_axes():
    rows = [row(K=3, regime="theorem-2", key=f"k{i}") for i in range(4)]
    figs, notes = census_figures(census_tables(rows), "paper")
    assert figs == {}
    joined = "\n".join(notes)
    assert "open: no open instance (no figure)" in joined
    assert "grid-rate: no homogeneous instance (no figure)" in joined
    assert "gaps: every one of the 4 instances with both bounds has gap 0 (no figure)" in joined
    assert f"4 of 4 instances (K = 3, theorem-2) certified optimal, for {EVERY_SCHEME}" in joined


def test_scope_of_follows_the_solve_scopes():
    from itsa import examples, solve
    sol = solve(examples.load("example-1"))
    assert scope_of(sol.lower.scheme_class) == sol.lower.scope == EVERY_SCHEME
    assert scope_of("corrected") == scope_of("additive") == EVERY_SCHEME   # older tables
    assert scope_of("linear-something") == "lower-bound class linear-something"
    s = census_summary([row(cls="general", key="a"), row(cls="general", key="b")])
    assert (s["optimal"], s["optimal_scope"]) == (2, EVERY_SCHEME)


def test_report_of_a_grid_census_pdf_and_notes(tmp_path):
    out = tmp_path / "r.parquet"
    run_census(load_spec(ROOT / "specs" / "grid-small.yaml"), out, workers=0)
    files = census_report(out, tmp_path / "rep")            # default: PDF, paper style
    assert (tmp_path / "rep" / "grid-rate.pdf").read_bytes().startswith(b"%PDF")
    assert len(files["open"]) == 1 and not (tmp_path / "rep" / "open.pdf").exists()   # no open instance
    with open(tmp_path / "rep" / "summary.csv") as fh:
        summary = {r[0]: r[1] for r in csv.reader(fh) if r[0] != "note"}
    assert summary["optimal"] == "8" and summary["optimal_scope"] == EVERY_SCHEME


def test_report_of_a_partial_census_says_how_much_is_done_and_never_all(cli, tmp_path):
    """An interrupted census (3 of the 8 instances of grid-small done) is reported as partial."""
    import json
    import re

    from itsa.keys.census import ResultStore, read_rows

    spec = load_spec(ROOT / "specs" / "grid-small.yaml")
    full = tmp_path / "full.parquet"
    run_census(spec, full, workers=0)
    part = tmp_path / "part.parquet"
    with ResultStore(part, spec.text, universe=len(spec.items())) as store:
        for r in read_rows(full)[:3]:
            store.add(r)
    res = cli("census", "report", part, "-o", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].startswith("instances done: 3 of the 8 in the universe (partial")
    assert re.search(r"\ball\b", res.stdout) is None, res.stdout
    d = json.loads(cli("census", "report", part, "-o", tmp_path / "rep2", "--json").stdout)
    assert (d["summary"]["instances"], d["summary"]["universe"], d["summary"]["partial"]) == (3, 8, True)
    assert all(n.split(": ", 1)[1].startswith("so far (partial census)") for n in d["notes"])
    done = json.loads(cli("census", "report", full, "-o", tmp_path / "rep3", "--json").stdout)["summary"]
    assert (done["instances"], done["universe"], done["partial"]) == (8, 8, False)
