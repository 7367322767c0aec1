"""The dominating Gaussian pair re-derived: its lattice step against exact laws, its composition against
mixed shifts, and the dimension the plan asks it for (an independent review's checks)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from itsa.privacy.lattice import dominating_epsilon


def _dg(sigma: float, reach: int) -> np.ndarray:
    x = np.arange(-reach, reach + 1)
    p = np.exp(-x.astype(float) ** 2 / (2 * sigma**2))
    return p / p.sum()


@pytest.mark.parametrize(("s", "v0"), [(0.6, (1, 1)), (1.0, (1, 2)), (1.2, (2, 3)), (0.8, (1, 1, 1)), (1.3, (1, 2, 2))])
def test_the_law_along_a_shift_is_a_discrete_gaussian_within_the_smoothing_factor(s, v0):
    """``P(⟨v₀, X⟩ = y) / N_Z(0, s²‖v₀‖²)(y) ∈ [1/F, F]``, ``F = (1+ε)/(1−ε)``, ε from Lemma 3.3 at ``Δ = ‖v₀‖``."""
    law = _dg(s, int(14 * s) + 3)
    reach = (len(law) - 1) // 2
    y_law = np.array([1.0])
    for c in v0:                                            # the law of sum c_i X_i, convolved exactly
        spread = np.zeros(abs(c) * (len(law) - 1) + 1)
        spread[::abs(c)] = law
        y_law = np.convolve(y_law, spread)
    top = (len(y_law) - 1) // 2
    assert top == reach * sum(abs(c) for c in v0)
    norm2 = sum(c * c for c in v0)
    tau2 = s * s * norm2
    y = np.arange(-top, top + 1)
    gauss = np.exp(-(y.astype(float) ** 2) / (2 * tau2))
    gauss /= gauss.sum()
    room = 2 * math.pi**2 * s * s / norm2 - math.log(2 * (len(v0) - 1))
    eps = 1 / math.expm1(room)
    fold = (1 + eps) / (1 - eps)
    inner = np.abs(y) <= 5 * math.sqrt(tau2)
    ratio = y_law[inner] / gauss[inner]
    assert 1 / fold * (1 - 1e-9) <= ratio.min() and ratio.max() <= fold * (1 + 1e-9)


def _pld(law: np.ndarray, v: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The privacy-loss distribution of ``X`` against ``X + v`` (i.i.d. coordinates ``law``), exactly."""
    vals, probs = np.array([0.0]), np.array([1.0])
    n = len(law)
    for k in (abs(c) for c in v if c):
        loss = np.log(law[k:]) - np.log(law[:n - k])          # x - k in the support: x = k-reach ... reach
        p = law[k:]
        vals = (vals[:, None] + loss[None, :]).ravel()
        probs = (probs[:, None] * p[None, :]).ravel()
    return vals, probs


def _binned_down(vals: np.ndarray, probs: np.ndarray, step: float = 1e-6) -> tuple[np.ndarray, np.ndarray]:
    keys, inverse = np.unique(np.floor(vals / step).astype(np.int64), return_inverse=True)
    return keys * step, np.bincount(inverse, weights=probs)


def _delta(vals: np.ndarray, probs: np.ndarray, eps: float) -> float:
    keep = vals > eps
    return float((probs[keep] * (1 - np.exp(eps - vals[keep]))).sum())


def test_two_rounds_of_mixed_shifts_stay_below_the_dominating_bound():
    """Two rounds, every pair of long shifts (on and off the axes, mixed), losses rounded down: below the bound."""
    law = _dg(6.0, 70)
    shifts = [(a, b) for a in range(0, 6) for b in range(0, a + 1) if 16 <= a * a + b * b <= 25]
    plds = {v: _binned_down(*_pld(law, v)) for v in shifts}
    bound = dominating_epsilon(sigma=6, sensitivity=5, rounds=2, delta="1e-4", dimension=2)
    assert bound is not None
    eps = float(bound.upper())
    for v, w in itertools.combinations_with_replacement(shifts, 2):
        (a, pa), (b, pb) = plds[v], plds[w]
        both = _binned_down((a[:, None] + b[None, :]).ravel(), (pa[:, None] * pb[None, :]).ravel())
        assert _delta(*both, eps) <= 1e-4


@pytest.mark.parametrize("rotation", ["hadamard", "dft"])
def test_the_plan_asks_the_dominating_bound_for_the_dimension_the_noise_is_added_in(rotation, monkeypatch):
    """A rotation pads d = 3 to 4 words, each with its own noise: the bound must be asked for d' = 4.

    Passing the deployment's d (3) would take the smoothing condition ``ln(2(d' − 1))`` and the shares'
    box factors for one coordinate fewer than the integer shift can touch, outside what the bound proves.
    """
    import itsa.privacy.lattice as lattice
    import itsa.privacy.pld as pld
    import itsa.privacy.tightest as tightest
    from itsa.planning import parse_deployment, plan

    asked: list[int] = []
    original = lattice.dominating_epsilon

    def spy(**kwargs):
        asked.append(kwargs["dimension"])
        return original(**kwargs)

    for module in (lattice, pld, tightest):         # every module that calls it by its own name
        monkeypatch.setattr(module, "dominating_epsilon", spy)
    p = plan(parse_deployment({"clients": 100, "dimension": 3, "clip": 1, "noise": "distributed",
                               "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10},
                               "encoding": {"word_bits": 32, "gamma": 256, "rotation": rotation}}))
    assert p.payload.dimension == 4
    assert asked and set(asked) == {p.payload.dimension}
