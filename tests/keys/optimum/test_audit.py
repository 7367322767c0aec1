"""``itsa audit``: findings on instances where the printed claims fail, and where they hold."""

import json
from fractions import Fraction

import itsa
from tests.conftest import INSTANCES


def test_homogeneous_u3_v2_t1_beats_the_printed_converse(tmp_path):
    inst = itsa.load_instance(INSTANCES / "homogeneous-U3-V2-t1.yaml")
    a = itsa.audit(inst, field=31, out_dir=tmp_path)
    assert a.printed_lower == 5                       # e* = 5 = K - 1
    assert a.external.value == 4 and a.external.parameters == {"U": 3, "V": 2, "t": 1}
    assert a.search.rate == 4 and a.search.verdict.ok
    assert a.corrected.value == 4
    kinds = [f.kind for f in a.findings]
    assert kinds.count("converse-beaten") == 2        # by the search and by the published optimum
    beaten = next(f for f in a.findings if f.scheme_file)
    assert (beaten.printed, beaten.verified) == ("5", "4")
    # the saved scheme re-verifies from its file
    scheme = itsa.load_scheme(inst, beaten.scheme_file)
    assert scheme.rate == 4 and itsa.verify(inst, scheme, engine="rank").ok


def test_paper_examples_have_no_finding(tmp_path):
    for name, lower, best in (("example-1", 2, Fraction(2)), ("example-2", 2, Fraction(7, 2))):
        a = itsa.audit(itsa.load_instance(INSTANCES / f"{name}.yaml"), out_dir=tmp_path)
        assert a.findings == ()
        assert a.printed_lower == lower and a.best_verified_rate == best
        assert all(c.verified for c in a.checks)


def test_homogeneous_family_recognised_from_sets_not_name():
    inst = itsa.parse_instance({"name": "anything", "servers": [2, 2, 2],
                                "security_sets": [[[1, 1]], "all"],
                                "collusion_sets": {"subsets_of": [[1, 1], [1, 2], [2, 1], [2, 2], [3, 1], [3, 2]],
                                                   "max_size": 1}})
    assert itsa.homogeneous_parameters(inst) == (3, 2, 1)
    not_homog = itsa.parse_instance({"servers": [2, 2, 2], "security_sets": ["all"],
                                     "collusion_sets": [[], [[1, 1]]]})
    assert itsa.homogeneous_parameters(not_homog) is None


def test_cli_audit_json_and_exit_code(cli, tmp_path):
    res = cli("audit", INSTANCES / "homogeneous-U3-V2-t1.yaml", "--json", "-o", tmp_path)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["key_rate_lower_printed"] == "5" and d["key_rate_lower"] == "4"
    assert d["external"]["value"] == "4" and d["search"]["rate"] == "4"
    f = d["findings"][0]
    assert set(f) >= {"kind", "configuration", "printed", "verified", "scheme_file"}
    assert f["kind"] == "converse-beaten" and f["scheme_file"]
    assert cli("verify", INSTANCES / "homogeneous-U3-V2-t1.yaml", "--scheme", f["scheme_file"]).exit_code == 0


def test_cli_audit_bad_input_exit_2(cli, tmp_path):
    res = cli("audit", tmp_path / "missing.yaml")
    assert res.exit_code == 2 and "no such file" in res.stderr


def test_audit_reports_even_when_the_search_is_too_large(tmp_path):
    inst = itsa.parse_instance({"name": "../evil", "servers": [10, 10, 10],
                                "security_sets": [[[1, 1]]], "collusion_sets": [[]]})
    a = itsa.audit(inst, out_dir=tmp_path)
    assert not a.search.found and "too large" in a.search.limit
    assert any("search stopped" in n for n in a.notes)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files and all(name.startswith("_evil.") for name in files)   # no path escape


def test_audit_rejects_a_bad_field(cli):
    res = cli("audit", INSTANCES / "example-1.yaml", "--field", 4)
    assert res.exit_code == 2 and "prime power" in res.stderr


def test_max_symbols_above_the_search_limit_is_capped_not_skipped(example1):
    from itsa.keys.search.scalar import MAX_SOURCE_DIM

    a = itsa.audit(example1, field=31, max_symbols=1000)
    top = MAX_SOURCE_DIM // 2 - example1.K - 1
    assert a.search.found and a.search.rate == 2 and a.search.complete
    assert max(a.search.d_values[1]) <= top
    assert any(n.startswith(f"search capped at max_symbols = {top} (requested 1000)") for n in a.notes)
    assert not any("search too large" in n for n in a.notes)


def test_theorem2_construction_on_the_symbols_it_uses_is_a_finding(cli, tmp_path):
    inst = itsa.keys.examples.load("audit/vector-optimum-8-3")
    res = itsa.keys.auditor.save_audit_schemes(itsa.audit(inst, field=31), tmp_path)
    loose = [f for f in res.findings if f.kind == "upper-bound-loose"]
    assert [(f.printed, f.verified) for f in loose] == [("11/3", "8/3")] * 2       # both readings of Q
    assert "draws 11 key symbols but its keys use 8" in loose[0].message
    assert res.best_verified_rate == Fraction(8, 3)
    saved = itsa.load_scheme(inst, loose[0].scheme_file)
    assert saved.rate == Fraction(8, 3) and itsa.verify(inst, saved).ok
    out = json.loads(cli("audit", "audit/vector-optimum-8-3", "--json", "-o", tmp_path / "cli").stdout)
    assert [c["rate_on_symbols_used"] for c in out["constructions"]] == ["8/3", "8/3"]


def test_upper_bound_loose_is_only_about_theorem_2():
    # condition-3 keys over S̄ ∪ {x} can span fewer than e* symbols: that is not Theorem 2's bound
    for name in ("audit/overlap-S-inside-T", "example-1"):
        res = itsa.audit(itsa.keys.examples.load(name))
        assert not [f for f in res.findings if f.kind == "upper-bound-loose"]
