"""``itsa.solve`` and the ``converse`` / ``solve`` commands."""

import json
from fractions import Fraction

import pytest

from itsa import examples, verify
from itsa.keys.optimum import solve
from itsa.keys.schemes.scheme import load_scheme


def test_solve_fractional_optimum(tmp_path):
    s = solve(examples.load("audit/fractional-optimum"))
    assert s.verdict == "optimal"
    assert s.lower.value == s.upper.value == Fraction(3, 2)
    assert s.lower.certified and (s.lower.scheme_class, s.lower.method) == ("general", "keys")
    assert s.summary().splitlines()[0].endswith("optimal for every scheme of the model "
                                                "(any encoders, relays and keys)")
    assert s.upper.L == 2 and verify(s.instance, s.upper.scheme, engine="rank").ok


def test_solve_example2_settles_the_gap():
    # the paper leaves 2 <= R* <= 7/2; the keys converse proves 7/2 for every encoder
    s = solve(examples.load("example-2"))
    assert (s.verdict, s.lower.value, s.upper.value) == ("optimal", Fraction(7, 2), Fraction(7, 2))
    assert (s.lower.scheme_class, s.lower.certified) == ("general", True)


def test_solve_vector_optimum_for_every_scheme():
    s = solve(examples.load("audit/vector-optimum-8-3"))
    assert (s.verdict, s.lower.value, s.lower.scheme_class, s.upper.L) == \
        ("optimal", Fraction(8, 3), "general", 3)
    assert verify(s.instance, s.upper.scheme, engine="rank").ok


def test_equal_bounds_keep_the_certified_class():
    # corrected, keys LP and the paper all give 2 on Example 1: the certified method is reported
    s = solve(examples.load("example-1"))
    assert (s.verdict, s.lower.value, s.lower.method, s.lower.certified) == \
        ("optimal", 2, "keys", True)


def test_cli_solve_json_and_files(cli, tmp_path):
    r = cli("solve", "audit/fractional-optimum", "--json", "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["verdict"] == "optimal" and d["lower"]["value"] == d["upper"]["value"] == "3/2"
    assert (d["lower"]["class"], d["lower"]["method"], d["lower"]["certified"]) == ("general", "keys", True)
    inst = examples.load("audit/fractional-optimum")
    scheme = load_scheme(inst, d["upper"]["scheme_file"])
    assert scheme.L == 2 and verify(inst, scheme, engine="rank").ok
    assert "General group lemma" in open(d["lower"]["certificate_file"], encoding="utf-8").read()
    assert set(d["timings"]) >= {"analyze", "corrected", "search", "converse-keys"}


def test_cli_converse(cli, tmp_path):
    proof = tmp_path / "p.tex"
    r = cli("converse", "example-2", "--proof", str(proof))
    assert r.exit_code == 0 and "7/2" in r.stdout
    assert proof.read_text(encoding="utf-8").startswith("\\documentclass")
    r = cli("converse", "example-2", "--json")
    d = json.loads(r.stdout)
    assert d["lower"]["value"] == "7/2" and d["lower"]["lp"]["columns"] > 0


def test_cli_converse_bad_input(cli):
    for opts in (["--lp", "model"], ["--class", "general"]):
        r = cli("converse", "example-2", *opts)
        assert r.exit_code == 2 and "at most 4 users" in r.stderr
    r = cli("converse", "example-2", "--lp", "keys", "--class", "general")
    assert r.exit_code == 2 and "the old name general is the model LP, not the keys LP" in r.stderr
    r = cli("converse", "example-2", "--proof", "x.pdf")
    assert r.exit_code == 2


def test_cli_lp_choices_come_from_the_library():
    from itsa.keys.converse.registry import ALIASES, CLASSES
    from itsa_cli.converse import converse as cmd
    choices = {p.name: tuple(p.type.choices) for p in cmd.params if p.name in ("method", "old_name")}
    assert choices == {"method": CLASSES, "old_name": tuple(ALIASES)}


def test_cli_solve_bad_input(cli):
    r = cli("solve", "example-1", "--field", "4")
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "error:" in r.stderr
    r = cli("solve", "no-such-file.yaml")
    assert r.exit_code == 2 and "no such file" in r.stderr


def test_cli_solve_refuses_a_bad_output_folder_before_the_work(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = cli("solve", "example-1", "-o", str(blocker / "sub"))
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "cannot create" in r.stderr


def test_settled_solution_does_not_list_converses_it_did_not_need():
    s = solve(examples.load("audit/vector-optimum-8-3"))
    assert s.verdict == "optimal" and "model converse not needed" in " ".join(s.notes)
    assert not s.skipped
    assert not any(n.startswith("model converse") and "skipped" in n for n in s.notes)


def test_upper_ends_are_trimmed_to_the_key_symbols_they_use():
    # the Theorem-2 construction draws e*·L shared symbols; here three of them are never used
    s = solve(examples.load("audit/vector-optimum-8-3"))
    assert s.upper.source.endswith("3 redundant key symbols dropped")
    assert (s.upper.scheme.key_symbols, s.upper.value) == (8, Fraction(8, 3))
    assert verify(examples.load("audit/vector-optimum-8-3"), s.upper.scheme).ok


def test_a_narrower_lp_never_becomes_the_lower_end():
    # the linear LP's bound holds for linear keys only: solve keeps the every-scheme lower end
    s = solve(examples.load("example-1"), classes=("linear",))
    assert s.lower.scheme_class == "general" and s.lower.method == "corrected"
    assert any(n.startswith("linear converse: R_ZΣ ≥ 2 for every scheme whose keys are linear")
               for n in s.notes)


# Theorem-2 instances of benchmarks/probe_solve.py (ensemble theorem2, seed 11, #3 and #14)
THEOREM2 = {
    "two-protected": ("{servers: [3, 1, 2], security_sets: [[[1, 1]], [[3, 2]], [[1, 1], [3, 2]]], "
                      "collusion_sets: [[[1, 1]], [[1, 2]], [[1, 3]], [[1, 1], [1, 2]], [[1, 1], [1, 3]], "
                      "[[1, 1], [2, 1]], [[1, 1], [3, 2]], [[1, 2], [3, 2]], [[1, 3], [2, 1]], "
                      "[[1, 3], [3, 1]], [[1, 3], [3, 2]], [[2, 1], [3, 1]], [[2, 1], [3, 2]], "
                      "[[3, 1], [3, 2]]]}", Fraction(5, 2)),
    "one-protected": ("{servers: [2, 1, 2, 1], security_sets: [[[1, 2]]], collusion_sets: [[[1, 1]], "
                      "[[2, 1]], [[4, 1]], [[1, 1], [3, 1]], [[1, 1], [3, 2]], [[1, 1], [4, 1]], "
                      "[[1, 2], [2, 1]], [[1, 2], [4, 1]], [[2, 1], [3, 1]], [[2, 1], [4, 1]], "
                      "[[3, 1], [4, 1]]]}", Fraction(5, 3)),
}


@pytest.mark.parametrize("name", sorted(THEOREM2))
def test_theorem2_optimum_is_the_trimmed_construction(name):
    """R* = b* + min(e*, |S̄| - 1): the construction on the symbols it uses, met by the keys LP."""
    import yaml

    from itsa import analyze, parse_instance

    text, value = THEOREM2[name]
    inst = parse_instance(yaml.safe_load(text), name)
    a = analyze(inst)
    assert a.regime == "theorem-2" and a.key_rate_upper.value == a.e_star + a.lp.b_star > value
    assert value == a.lp.b_star + min(a.e_star, max(a.S_bar.bit_count() - 1, 0))
    s = solve(inst)
    assert (s.verdict, s.lower.value, s.upper.value) == ("optimal", value, value)
    assert s.upper.source.startswith("paper construction (theorem-2)") and s.lower.method == "keys"


def test_bad_input_leaves_no_output_folder(cli, tmp_path, monkeypatch):
    """A refused field is refused before the output folder is made."""
    monkeypatch.chdir(tmp_path)
    res = cli("solve", "example-1", "--field", "4")
    assert res.exit_code == 2 and "prime power" in res.stderr
    assert list(tmp_path.iterdir()) == []
