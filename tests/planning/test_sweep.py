"""Sweeps: the rule's curve beside itsa's (an evaluate built from the certified evaluation), rows, figure fonts."""

from fractions import Fraction

import pytest

from itsa.exceptions import InvalidInput, InvalidOutputPath
from itsa.planning.drivers.sweep import Quantity, SweepParameters, draw_sweep, heuristic_error, parse_sweep, sweep
from itsa.planning.rule.heuristic import certify_heuristic, k_stddevs_rule

BASE = dict(clients=200, dimension=128, clip=1, word_bits=16, epsilon=4, delta="1e-6", rounds=20,
            dropout="1/10", overflow="1e-6")


def hadamard_evaluate(value):
    """A stand-in for the planner: the rule with the Hadamard rotation, certified the same way."""
    h = k_stddevs_rule(200, 128, 1, value, noise_multiplier=3, rotation="hd")
    risk = certify_heuristic(h, dropout="1/10", rounds=20, delta="1e-6")
    return risk.epsilon, risk.wrap_round, heuristic_error(risk)


def test_rows_and_json_of_a_word_size_sweep():
    s = sweep(SweepParameters(**BASE), "word_bits", [12, 16, 20], evaluate=hadamard_evaluate)
    assert s.quantity is Quantity.WORD_BITS and s.has_itsa
    labels = [label for label, _ in s.rows()]
    assert labels == ["word_bits = 12", "word_bits = 16", "word_bits = 20"]
    assert all("rule:" in text and "itsa:" in text for _, text in s.rows())
    data = s.to_dict()
    assert data["columns"] == ["epsilon", "wrap_probability", "error"] and len(data["points"]) == 3
    for point, bits in zip(s.points, (12, 16, 20)):
        eps, wrap, err = hadamard_evaluate(bits)
        assert point.itsa == (eps, wrap, err)
        assert point.heuristic.config.word_bits == bits and point.heuristic.survivors == 180
    eps = [p.heuristic.epsilon.upper() for p in s.points]
    assert eps[0] > eps[1] > eps[2]                                         # fewer bits: more rounding inflation
    assert data["points"][0]["itsa"]["epsilon"]["direction"] == "upper bound"


def test_epsilon_sweep_calibrates_the_rule_and_its_error_bound():
    s = sweep(SweepParameters(**BASE), "epsilon", ["2", "8"])
    assert not s.has_itsa
    low, high = s.points
    assert low.heuristic.config.noise_multiplier > high.heuristic.config.noise_multiplier
    assert low.heuristic_error.upper() > high.heuristic_error.upper()
    c, k = high.heuristic.config, high.heuristic.survivors
    assert high.heuristic_error.upper() == c.step**2 * (Fraction(k, 4) + k * c.sigma**2) / k**2


def test_clients_and_dropout_sweeps():
    s = sweep(SweepParameters(**BASE), "clients", [100, 400])
    assert [p.heuristic.config.clients for p in s.points] == [100, 400]
    d = sweep(SweepParameters(**BASE), "dropout", ["0", "1/2"])
    assert d.points[1].heuristic.epsilon.upper() > d.points[0].heuristic.epsilon.upper()   # no allowance for dropouts


def test_parse_sweep():
    assert parse_sweep("word_bits=12..32")[1] == list(range(12, 33))
    assert parse_sweep("clients = 10,100")[1] == [10, 100]
    for bad in ("word_bits", "bits=1..3", "word_bits=5..1", "word_bits=1..999", "dropout=2", "epsilon=0"):
        with pytest.raises(InvalidInput):
            parse_sweep(bad)


def test_bad_sweeps():
    p = SweepParameters(**BASE)
    with pytest.raises(InvalidInput):
        sweep(p, "modulus", [1])
    with pytest.raises(InvalidInput):
        sweep(p, "word_bits", [])
    with pytest.raises(InvalidInput):
        SweepParameters(**(BASE | {"dropout": 1}))


def test_the_figure_has_no_type3_fonts(tmp_path):
    pytest.importorskip("matplotlib")
    s = sweep(SweepParameters(**BASE), "word_bits", [12, 14, 16], evaluate=hadamard_evaluate)
    pdf = draw_sweep(s, tmp_path / "sweep.pdf")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and b"/Type3" not in data and b"/FontFile2" in data
    with pytest.raises(InvalidOutputPath):
        draw_sweep(s, tmp_path / "sweep.txt")
    with pytest.raises(InvalidOutputPath):
        draw_sweep(s, tmp_path / "missing" / "sweep.pdf")
