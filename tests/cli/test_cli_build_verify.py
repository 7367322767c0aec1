"""``itsa build`` and ``itsa verify`` through CliRunner: outputs and exit codes."""

import json

import itsa
from tests.conftest import INSTANCES

EX1, EX2 = INSTANCES / "example-1.yaml", INSTANCES / "example-2.yaml"


def test_verify_builds_then_checks_example1_over_f7(cli):
    res = cli("verify", EX1, "--field", 7, "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["ok"] and d["rate"] == "2" and d["scheme"]["construction"] == "condition-2"
    assert d["configurations"] == 3 * 4 * 16 and d["trivial"] == 3 * 16
    assert d["nonzero_leaks"] == 0 and d["leaks"] == []


def test_verify_printed_example2_scheme_passes(cli):
    res = cli("verify", EX2, "--scheme", INSTANCES / "example-2.scheme.json")
    assert res.exit_code == 0 and "PASS" in res.stdout and "rate 7/2" in res.stdout


def test_verify_enumerate_on_small_field(cli):
    res = cli("verify", EX1, "--scheme", INSTANCES / "example-1.scheme.json", "--field", 3,
              "--engine", "enumerate", "--json")
    d = json.loads(res.stdout)
    assert res.exit_code == 0 and d["engine"] == "enumerate" and d["ok"]


def test_broken_scheme_exits_1_and_names_leaks(cli, tmp_path):
    data = json.loads((INSTANCES / "example-1.scheme.json").read_text())
    del data["keys"]["1,3"]                       # Z_{1,3} = 0: the implicit user is exposed
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    res = cli("verify", EX1, "--scheme", path, "--json")
    assert res.exit_code == 1
    d = json.loads(res.stdout)
    assert not d["ok"]
    assert d["correct"] == {"1": False, "2": False, "3": False}   # Σ Z = -N_2 ≠ 0
    leaks = {(x["k"], x["m"], x["n"]): x["leak"] for x in d["leaks"]}
    # Server 1 sees W_{1,2}, W_{1,3} and Y_3 = W_{3,1} + W_{3,2} in the clear; with
    # ΣW and W_{2,2} (T_3 = {(2,2)}) it learns W_{1,1} + W_{2,1}: one symbol about S_4.
    assert leaks[(1, 4, 3)] == "1"
    assert (1, 4, 1) not in leaks                 # with T = ∅, W_{2,2} still masks the sum
    assert {k for k, _, _ in leaks} == {1}
    table = cli("verify", EX1, "--scheme", path)
    assert table.exit_code == 1 and "FAIL" in table.stdout and "not decodable" in table.stdout


def test_bad_scheme_files_exit_2(cli, tmp_path):
    cases = {
        "notjson.json": "{field: 7",
        "shape.json": json.dumps({"field": 7, "L": 1, "key_symbols": 2, "keys": {"1,1": [[1]]}}),
        "user.json": json.dumps({"field": 7, "L": 1, "key_symbols": 1, "keys": {"9,1": [[1]]}}),
        "field.json": json.dumps({"field": 8, "L": 1, "key_symbols": 1, "keys": {}}),
        "entry.json": json.dumps({"field": 7, "L": 1, "key_symbols": 1, "keys": {"1,1": [[1.5]]}}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        res = cli("verify", EX1, "--scheme", path)
        assert res.exit_code == 2, (name, res.output)
        assert name in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_build_writes_a_scheme_that_verify_accepts(cli, tmp_path):
    out = tmp_path / "s.json"
    res = cli("build", EX2, "--field", 11, "--seed", 1, "-o", out, "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["construction"] == "theorem-2" and d["rate"] == "7/2" and d["verified"]
    assert cli("verify", EX2, "--scheme", out).exit_code == 0
    again = json.loads(cli("build", EX2, "--field", 11, "--seed", 1, "--json").stdout)
    assert again["scheme"] == d["scheme"]


def test_build_without_a_verified_scheme_exits_1_and_writes_nothing(cli, tmp_path):
    out = tmp_path / "s.json"
    res = cli("build", INSTANCES / "homogeneous-U3-V2-t1.yaml", "--field", 7, "-o", out)
    assert res.exit_code == 1 and "LP" in res.stderr and not out.exists()
    res = cli("build", EX2, "--field", 2, "--max-tries", 2, "-o", out)
    assert res.exit_code == 1 and "within 2 tries" in res.stderr and not out.exists()


def test_build_rejects_non_prime_field(cli):
    res = cli("build", EX1, "--field", 9)
    assert res.exit_code == 2 and "prime" in res.stderr


def test_library_and_cli_agree_on_the_scheme(cli, tmp_path):
    out = tmp_path / "s.json"
    assert cli("build", EX1, "--field", 7, "-o", out).exit_code == 0
    inst = itsa.load_instance(EX1)
    built = itsa.build_scheme(itsa.analyze(inst), 7, seed=0).scheme
    assert itsa.load_scheme(inst, out) == built


def test_build_has_a_default_field(cli):
    res = cli("build", EX1, "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["field"] == itsa.default_field(itsa.analyze(itsa.load_instance(EX1))) == 101
    assert d["required_field"] == 6 and d["verified"]


def test_build_below_schwartz_zippel_warns_at_once(cli):
    res = cli("build", EX1, "--field", 5, "--max-tries", 1)
    lines = res.stderr.splitlines()
    assert lines[0].startswith("warning: F_5 is not above the Schwartz-Zippel size of the condition-2 "
                               "construction (q > 6)")
    assert "failure probability of 6/5 per draw" in lines[0]
    assert res.exit_code in (0, 1)
    assert not [ln for ln in lines if "Schwartz-Zippel size" in ln and ln.startswith("warning") and ln != lines[0]]


def test_build_reports_progress_over_draws(example1):
    calls = []
    a = itsa.analyze(example1)
    b = None
    try:
        b = itsa.build_scheme(a, 3, max_tries=3, progress=lambda e: calls.append((e.done, e.total)))
    except itsa.VerificationError:
        pass
    assert calls and calls[0] == (1, 3) and all(t == 3 for _, t in calls)
    assert [d for d, _ in calls] == list(range(1, len(calls) + 1))
    if b is not None:
        assert len(calls) == b.tries


def test_verify_without_scheme_verifies_once(cli, monkeypatch):
    import itsa.keys.schemes.constructions as cons

    calls = []
    real = cons.verify

    def counting(*args, **kwargs):
        calls.append(kwargs.get("engine"))
        return real(*args, **kwargs)

    monkeypatch.setattr(cons, "verify", counting)
    monkeypatch.setattr(itsa, "verify", counting)
    res = cli("verify", EX1, "--field", 7, "--json")
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["ok"] and d["engine"] == "rank" and "automatic enumeration limit" in d["fallback"]
    assert calls == ["auto"]          # the build's one draw (F_7 works first time), no second pass


def test_verify_refuses_a_scheme_of_another_instance(cli):
    """The shipped Example 1 scheme names users that Example 2 also has; its instance record tells them apart."""
    res = cli("verify", "example-2", "--scheme", INSTANCES / "example-1.scheme.json")
    assert res.exit_code == 2
    assert "made for instance 'example-1'" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_a_saved_scheme_records_its_instance(example1, tmp_path):
    from itsa.exceptions import InvalidScheme

    scheme = itsa.load_scheme(example1, INSTANCES / "example-1.scheme.json")
    data = itsa.scheme_to_dict(example1, scheme)
    assert data["instance"] == {"name": "example-1", "fingerprint": example1.fingerprint}
    data["instance"]["fingerprint"] = "0" * 16
    try:
        itsa.scheme_from_dict(example1, data)
    except InvalidScheme as exc:
        assert "0000000000000000" in str(exc)
    else:
        raise AssertionError("a scheme recorded for another instance was read")
    del data["instance"]                                 # files from before the record still read
    assert itsa.scheme_from_dict(example1, data).keys == scheme.keys


def test_fingerprints_separate_the_shipped_problems():
    """Same fingerprint exactly when same topology and families (one instance is shipped twice)."""
    shipped = [itsa.load_instance(itsa.keys.examples.resolve(n)) for n in itsa.keys.examples.names()]
    problems = {(i.servers, i.security_sets, i.collusion_sets) for i in shipped}
    assert len({i.fingerprint for i in shipped}) == len(problems) < len(shipped)


def test_a_fingerprint_ignores_the_order_of_the_sets_but_not_the_sets():
    a = itsa.Instance.from_users([2, 2], [[(1, 1)], [(2, 1)]], [[], [(1, 2)]])
    b = itsa.Instance.from_users([2, 2], [[(2, 1)], [(1, 1)]], [[(1, 2)], []], name="renamed")
    c = itsa.Instance.from_users([2, 2], [[(1, 1)], [(2, 2)]], [[], [(1, 2)]])
    assert a.fingerprint == b.fingerprint != c.fingerprint
