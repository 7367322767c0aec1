"""Accuracy in the verdict: the error target, γ chosen for the error (not a power of two), the RMS warning."""

from __future__ import annotations

from fractions import Fraction

from itsa.planning import parse_deployment, plan
from itsa.planning.mechanism import gaussian_limit, gaussian_multiplier
from itsa.planning.planner import noise_inputs

BASE = {"clients": 300, "dropout": "1/10", "dimension": 2000, "clip": 1, "noise": {"mechanism": "dgauss", "placement": "central"},
        "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 20},
        "encoding": {"word_bits": 20, "rotation": "dft", "rounding": "conditional"}}


def test_an_accuracy_target_met_is_feasible_and_one_missed_says_why_and_the_fix():
    free = plan(parse_deployment(BASE), time_limit=0)
    assert free.verdict.feasible
    met = plan(parse_deployment({**BASE, "accuracy": {"mse": str(free.error.total * 2)}}), time_limit=0)
    assert met.verdict.feasible
    target = free.error.total - free.error.dimension * free.error.quantization / 2     # half the rounding's error
    missed = plan(parse_deployment({**BASE, "accuracy": {"mse": str(target)}}), time_limit=0)
    assert not missed.verdict.feasible and "accuracy target" in missed.verdict.reasons[-1]
    fix = missed.verdict.fixes["accuracy"]
    assert fix["word_bits"] > 20
    wider = plan(parse_deployment({**BASE, "encoding": {**BASE["encoding"], "word_bits": fix["word_bits"]},
                                   "accuracy": {"mse": str(target)}}), time_limit=0)
    assert wider.verdict.feasible and wider.error.total <= target


def test_an_accuracy_below_the_unconstrained_limit_asks_for_more_survivors():
    d = parse_deployment({**BASE, "accuracy": {"mse": "1/1000"}})
    p = plan(d, time_limit=0)
    _, limit = gaussian_limit(noise_inputs(d))
    assert limit > Fraction(1, 1000) and not p.verdict.feasible
    assert p.verdict.fixes["accuracy"]["survivors"] > d.survivors


def test_without_a_word_the_scale_is_chosen_for_the_error_never_one_by_default():
    raw = {**BASE, "encoding": {"rotation": "none"}, "dimension": 100000}
    p = plan(parse_deployment(raw), time_limit=0)
    z = gaussian_multiplier(Fraction(4), Fraction(1, 10**6), 20)      # the Renyi-calibrated Gaussian's
    renyi = 100000 * (z * 2 / 270) ** 2
    assert p.encoding.gamma > 1 and p.error.total <= Fraction(101, 100) * renyi * Fraction(1001, 1000)
    assert p.error.limit_total < renyi


def test_a_noise_louder_than_the_clip_is_warned_of():
    raw = {**BASE, "clients": 12, "dropout": 0, "privacy": {"epsilon": 1, "delta": "1e-6", "rounds": 1000}}
    p = plan(parse_deployment(raw), time_limit=0)
    assert any("exceeds the clip" in w for w in p.error.warnings)
    assert any("exceeds the clip" in v for k, v in p.error.rows() if k == "warning")


PSA = {"clients": 1000, "dimension": 1290, "clip": 1, "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 150},
       "noise": "distributed", "encoding": {"radix": 3, "layers": 4, "stages": "4,3/2,1"},
       "overflow": {"probability": "1/1000", "per": "coordinate"}}


def test_a_layered_plan_meets_or_misses_its_accuracy_target_with_the_fix():
    free = plan(parse_deployment(PSA), time_limit=0)
    assert free.verdict.feasible
    met = plan(parse_deployment({**PSA, "accuracy": {"mse": str(free.error.total)}}), time_limit=0)
    assert met.verdict == free.verdict                        # met exactly: nothing added
    _, limit = gaussian_limit(noise_inputs(parse_deployment(PSA)))
    target = limit * 4                                        # above the limit, below the layering's error
    assert limit < target < free.error.total
    missed = plan(parse_deployment({**PSA, "accuracy": {"mse": str(target)}}), time_limit=0)
    assert not missed.verdict.feasible and "accuracy target" in missed.verdict.reasons[-1]
    fix = missed.verdict.fixes["accuracy"]
    assert "flat" in fix["text"] and fix["word_bits"] >= 2
    flat = plan(parse_deployment({**PSA, "encoding": {"word_bits": fix["word_bits"]},
                                  "accuracy": {"mse": str(target)}}), time_limit=0)
    assert flat.verdict.feasible and flat.error.total <= target
    assert missed.to_dict()["verdict"]["fixes"]["accuracy"]["word_bits"] == fix["word_bits"]


def test_a_layered_plan_below_the_unconstrained_limit_asks_for_more_survivors():
    d = parse_deployment({**PSA, "accuracy": {"mse": "1/10"}})
    _, limit = gaussian_limit(noise_inputs(d))
    p = plan(d, time_limit=0)
    assert limit > Fraction(1, 10) and not p.verdict.feasible
    assert p.verdict.fixes["accuracy"]["survivors"] > d.survivors
