"""The exception family and the CLI's exit codes for each kind of bad input."""

import pytest

import itsa
from itsa import InvalidInput, InvalidInstance, InvalidOption, InvalidOutputPath, InvalidScheme, ItsaError
from itsa_cli._common import LIMIT_PREFIX

from .conftest import INSTANCES

EX1 = INSTANCES / "example-1.yaml"


def test_family_is_itsa_error_and_value_error():
    for cls in (InvalidInstance, InvalidScheme, InvalidOption, InvalidOutputPath):
        assert issubclass(cls, InvalidInput)
    assert issubclass(InvalidInput, ItsaError) and issubclass(InvalidInput, ValueError)
    assert not issubclass(itsa.Infeasible, InvalidInput)


def test_each_kind_of_input_raises_its_own_class(example1, tmp_path):
    a = itsa.analyze(example1)
    with pytest.raises(InvalidOption, match="not a prime"):
        itsa.build_scheme(a, 10)
    with pytest.raises(InvalidOption, match="unknown engine"):
        itsa.verify(example1, itsa.Scheme(7, 1, 0), engine="fast")
    with pytest.raises(InvalidOption, match="q_rule"):
        itsa.analyze(example1, q_rule="both")
    with pytest.raises(InvalidScheme, match="L: must be"):
        itsa.Scheme(7, 0, 1)
    with pytest.raises(InvalidOutputPath, match="extension"):
        itsa.draw_instance(a, tmp_path / "x.gif")
    with pytest.raises(InvalidOutputPath, match="cannot write"):
        itsa.save_scheme(example1, itsa.Scheme(7, 1, 0), tmp_path / "missing-dir" / "s.json")
    with pytest.raises(InvalidInstance, match="no such file"):
        itsa.load_instance(tmp_path / "none.yaml")
    with pytest.raises(InvalidScheme, match="no such file"):
        itsa.load_scheme(example1, tmp_path / "none.json")


@pytest.mark.parametrize("args", [
    ("build", EX1, "--field", 7, "-o", "/nonexistent-dir/s.json"),   # output path
    ("build", EX1, "--field", 10),                                     # option: field
    ("draw", EX1, "-o", "x.gif"),                                      # output path: extension
    ("draw", EX1, "-o", "x.png", "--config", "9,9,9"),                # option: configuration
    ("verify", EX1, "--scheme", INSTANCES / "example-2.scheme.json"),  # scheme: wrong users
    ("audit", EX1, "--field", 1),                                      # option: field
], ids=["build-out", "build-field", "draw-ext", "draw-config", "verify-scheme", "audit-field"])
def test_cli_maps_the_family_to_exit_2(cli, args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = cli(*args)
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: ")
    assert LIMIT_PREFIX not in res.stderr


@pytest.mark.parametrize("exc,word", [(RecursionError, "recursion limit"), (MemoryError, "out of memory")])
def test_safety_net_turns_resource_errors_into_one_line(cli, monkeypatch, exc, word):
    def boom(*a, **k):
        raise exc()

    monkeypatch.setattr(itsa, "load_instance", boom)
    res = cli("analyze", EX1)
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {LIMIT_PREFIX}") and word in res.stderr
    assert res.stderr.count("\n") == 1


@pytest.mark.parametrize("q, error, words", [
    (9, "InvalidOption", "prime power"), (6, "InvalidOption", "not a prime"), (1, "InvalidOption", "q >= 2"),
])
def test_check_field_is_the_one_field_check(q, error, words):
    from itsa.keys.schemes.linalg import check_field, field_problem

    with pytest.raises(getattr(itsa, error), match=words) as info:
        check_field(q)
    assert str(info.value) == field_problem(q)
    with pytest.raises(itsa.InvalidScheme, match="requested"):
        check_field(q, itsa.InvalidScheme, "requested ")
    check_field(7)


def test_formerly_bare_value_errors_are_invalid_input():
    from itsa.keys.schemes.linalg import rank

    with pytest.raises(itsa.InvalidOption, match="rank backend"):
        rank([[1]], 7, backend="nope")
    with pytest.raises(itsa.InvalidOption, match="2-D"):
        rank([1, 2, 3], 7)
    inst = itsa.keys.examples.example1()
    with pytest.raises(itsa.InvalidOption, match="another instance"):
        itsa.analyze(inst, conf=itsa.configurations(itsa.keys.examples.example2()))
