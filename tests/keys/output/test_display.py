"""Readable results: short reprs with (u,v) users, summary() text and _repr_html_ (itsa/_util/display.py)."""

import re

import pytest

import itsa
from itsa._util import display


@pytest.fixture(scope="module")
def ex2_analysis():
    return itsa.analyze(itsa.keys.examples.example2())


def test_formatter_is_the_one_for_instances():
    inst = itsa.keys.examples.example1()
    assert inst.describe(inst.collusion_sets[15]) == display.users([(1, 2), (2, 2), (3, 1), (3, 2)])
    assert display.users([]) == "∅" and display.config((1, 8, 21)) == "(1,8,21)"
    assert display.users([(1, 1), (2, 1)], sep=",") == "{(1,1),(2,1)}"


def test_instance_repr_is_short_even_for_large_families():
    inst = itsa.keys.examples.homogeneous(4, 3, 3)          # 299 collusion sets
    assert len(repr(inst)) < 100 and "N = 299" in repr(inst)
    text = inst.summary()
    assert "… (299 in all)" in text and "T_2 = {(1,1)}" in text


def test_set_quantities_print_users(example1):
    sets = itsa.set_quantities(itsa.configurations(example1))
    assert "S_I = {(1,3)}" in repr(sets) and "S̄ = {(1,1), (1,3), (2,1)}" in repr(sets)
    assert "Q_2" in sets.summary() and "{(1,1), (1,2), (2,1), (2,2), (3,1), (3,2)}" in sets.summary()
    assert sets == itsa.set_quantities(itsa.configurations(itsa.keys.examples.example1()))


def test_analysis_repr_summary_html(ex2_analysis):
    a = ex2_analysis
    assert repr(a) == "<Analysis example-2: theorem-2, e* = 2 at (1,2,5), a* = 3, 3 <= R_ZΣ <= 7/2>"
    text = a.summary()
    for part in ("S̄", "{(1,1), (2,1), (2,2)}", "b* = 3/2", "b(1,3) = 1/2", "theorem-2"):
        assert part in text
    assert not re.search(r"\b\d{3,}\b", text.split("key rate lower (itsa)")[0])   # no bitmasks
    html = a._repr_html_()
    assert html.startswith("<table>") and "&lt;= R_ZΣ &lt;= 7/2" in html


def test_analysis_names_the_configuration_attaining_e_star(ex2_analysis):
    u, m, n = ex2_analysis.e_star_configuration
    assert ex2_analysis.configurations.c[u - 1, m - 1, n - 1] == ex2_analysis.e_star


def test_verdict_lists_leaks(example1):
    v = itsa.verify(example1, itsa.Scheme(7, 1, 1, {0: [[1]]}), engine="rank")
    assert repr(v).startswith("<Verdict FAIL example-1: rate 1 over F_7, rank engine")
    assert "leak (1,2,1)" in v.summary() and "not decodable at server(s) 1, 2, 3" in v.summary()
    ok = itsa.verify(example1, itsa.keys.examples.scheme("example-1"), engine="rank")
    assert "0 leaking" in repr(ok) and "every server decodes ΣW" in ok.summary()


def test_audit_summary_states_the_claims():
    a = itsa.audit(itsa.keys.examples.load("audit/condition3-intersection-fails"))
    text = a.summary()
    assert "upper bound R*_ZΣ <= 7/2" in text and "claimed optimum R*_ZΣ = 2" in text
    assert "x = (4,1)" in text and "[(" not in text          # users as (u,v), no Python lists
    assert "<table>" in a._repr_html_()


def test_no_finding_with_an_open_gap_says_so():
    import dataclasses

    a = itsa.audit(itsa.keys.examples.load("audit/fractional-optimum"))
    assert not a.findings
    assert "gap is open" not in a.summary()      # the certified additive converse closes it at 3/2
    only_corrected = dataclasses.replace(a, converse=None)
    assert "gap is open" in only_corrected.summary() and "[1, 3/2]" in only_corrected.summary()


def test_search_result_repr_is_short():
    r = itsa.search_min_rate(itsa.keys.examples.load("audit/fractional-optimum"), field=31)
    assert repr(r).startswith("<SearchResult rate 3/2 (shape ") and len(repr(r)) < 160
    assert "L = 1: d = 0, 1, 2; L = 2: d = 1, 2, 3" in r.summary()
