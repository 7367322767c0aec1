"""Banded Toeplitz and BLT mechanisms: sensitivity under minimum separation, and the error beside the tree's.

A matrix mechanism releases ``C x + z Δ N(0, I)`` and estimates the prefix
sums ``A x`` by ``B = A C⁻¹`` (``A`` the lower-triangular matrix of ones).
Here ``C`` is lower-triangular Toeplitz, given by its first column
``c_0, c_1, ...``:

- **banded**: ``b`` coefficients, the rest zero (Choquette-Choo et al. 2023,
  banded matrix factorization);
- **BLT** (buffered linear Toeplitz): ``c_0 = 1`` and
  ``c_k = Σ_i ω_i θ_i^(k−1)`` for ``k ≥ 1`` (Dvijotham et al. 2024; the
  ``output_scale`` ω and ``buf_decay`` θ of jax-privacy's ``BufferedToeplitz``).

**Sensitivity.** A client taking part in the rounds ``π`` (at most ``E``,
two of them at least ``g = ξ + 1`` apart) with clipped updates ``u_t`` moves
the release by ``Σ_{t∈π} C[:, t] ⊗ u_t``, whose squared norm is at most
``Σ_{i,j∈π} |X_ij|`` (``X = CᵀC``), with equality at ``u_t`` all equal when
``X ≥ 0``. When the coefficients are **non-negative and non-increasing**
(checked exactly), the worst pattern is the earliest one, rounds
``0, g, ..., (k − 1) g`` with ``k = min(E, ⌈T/g⌉)``, and the squared
sensitivity is ``‖C 1_π‖²`` (McMahan, Xu, Zhang 2024, arXiv 2405.13763,
Theorem 2): exact. Otherwise the coefficients are replaced by the
non-increasing envelope of their absolute values, ``ĉ_k = max_{m≥k} |c_m|``,
which dominates every ``|X_ij|``: the closed form at ``ĉ`` is a certified
upper bound, and ``‖C 1_π‖²`` at the same pattern a lower bound (the
interval is printed). jax-privacy's ``minsep_sensitivity_squared`` takes the
same envelope; it does not say which of its answers is exact.

**Error.** At equal privacy every mechanism adds ``N(0, z² Δ²)`` per
coordinate of ``C x`` (``Δ²`` its own squared sensitivity), so the mean
squared error of the ``T`` prefix sums is ``z² Δ² ‖B‖_F² / T``; it is
reported per ``z²``. ``B`` is lower-triangular Toeplitz with coefficients
the running sums of ``C⁻¹``'s. Tree aggregation's, on the same schedule, is
``s · (1/T) Σ_t popcount(t + 1)`` (the prefix ``[0, t]`` is the sum of
``popcount(t + 1)`` nodes of the forest, each with noise variance ``z² s``;
the plain estimator, not Honaker's).

Every number is exact: the inputs are read as rationals and the
coefficients, the inverse (a BLT's from its rational generating function) and
the norms are ``Fraction``s.

Examples
--------
>>> r = toeplitz(["1", "1/2", "1/4"], rounds=16, max_participations=2, min_separation=3)
>>> r.sensitivity_squared.decimal(), r.closed_form, r.pattern
('2.625', True, (0, 4))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, exact_text, safe_decimal
from itsa._util.checks import fraction
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.privacy.matrix._accounting import check_schedule
from itsa.privacy.matrix._forest import Forest, check_restarts
from itsa.privacy.matrix._worst import worst_case

__all__ = ["toeplitz", "blt_coefficients", "blt_inverse", "ToeplitzMechanism", "tree_mean_error", "MECHANISMS",
           "MAGNITUDE_BITS"]

#: The Toeplitz mechanisms and what their coefficients are.
MECHANISMS = ("banded", "blt")


def tree_mean_error(rounds: int, sensitivity_squared: int) -> Fraction:
    """Tree aggregation's mean squared error of the ``T`` prefix sums, per ``z²``: ``s Σ_t popcount(t+1) / T``.

    >>> tree_mean_error(4, 3)
    Fraction(15, 4)
    """
    return Fraction(sensitivity_squared * sum(bin(t).count("1") for t in range(1, rounds + 1)), rounds)


#: A parameter's magnitude (unless 0) lies in [2^-MAGNITUDE_BITS, 2^MAGNITUDE_BITS], a double's range: the exact
#: products over T rounds of a larger or smaller one grow without bound.
MAGNITUDE_BITS = 1024


def _parameter(name: str, value) -> Fraction:
    """``value`` read exactly, refused outside a double's range (0 aside) in one line."""
    x = fraction(name, value)
    if x and not Fraction(1, 2**MAGNITUDE_BITS) <= abs(x) <= 2**MAGNITUDE_BITS:
        raise InvalidOption(f"{name}: a magnitude outside [2^-{MAGNITUDE_BITS}, 2^{MAGNITUDE_BITS}] (0 aside) is not "
                            f"accepted, not {value!s:.40}")
    return x


def _blt_parameters(output_scale: Sequence, buf_decay: Sequence) -> tuple[list[Fraction], list[Fraction]]:
    omega = [_parameter("output scale", w) for w in output_scale]
    theta = [_parameter("buffer decay", t) for t in buf_decay]
    if len(omega) != len(theta) or not omega:
        raise InvalidOption("blt: give as many output scales as buffer decays (at least one)")
    return omega, theta


def blt_coefficients(output_scale: Sequence, buf_decay: Sequence, rounds: int) -> list[Fraction]:
    """``c_0 = 1, c_k = Σ_i ω_i θ_i^(k−1)``: a BLT's first column, exact (the inputs read as rationals).

    >>> [str(c) for c in blt_coefficients(["1/2"], ["1/2"], 4)]
    ['1', '1/2', '1/4', '1/8']
    """
    omega, theta = _blt_parameters(output_scale, buf_decay)
    powers = [Fraction(1)] * len(theta)
    out = [Fraction(1)]
    for _ in range(1, rounds):
        out.append(sum((w * p for w, p in zip(omega, powers)), Fraction(0)))
        powers = [p * t for p, t in zip(powers, theta)]
    return out


def _poly_mul(a: list, b: list) -> list:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def blt_inverse(output_scale: Sequence, buf_decay: Sequence, rounds: int) -> list[Fraction]:
    """The first column of a BLT's ``C⁻¹``, exact: ``C(x) = P(x)/Q(x)`` with ``Q = Π (1 − θ_i x)`` and
    ``P = Q + Σ_i ω_i x Π_{j≠i} (1 − θ_j x)``, so ``C⁻¹(x) = Q/P`` and ``d_n = q_n − Σ_{m≥1} p_m d_{n−m}``.

    >>> [str(d) for d in blt_inverse(["1/2"], ["1/2"], 4)]
    ['1', '-1/2', '0', '0']
    """
    omega, theta = _blt_parameters(output_scale, buf_decay)
    q = [Fraction(1)]
    for t in theta:
        q = _poly_mul(q, [Fraction(1), -t])
    p = list(q)
    for i, w in enumerate(omega):
        term = [Fraction(0), w]
        for j, t in enumerate(theta):
            if j != i:
                term = _poly_mul(term, [Fraction(1), -t])
        p = [a + b for a, b in zip(p + [Fraction(0)] * (len(term) - len(p)), term + [Fraction(0)] * (len(p) - len(term)))]
    out: list[Fraction] = []
    for n in range(rounds):
        value = q[n] if n < len(q) else Fraction(0)
        for m in range(1, min(n, len(p) - 1) + 1):
            value -= p[m] * out[n - m]
        out.append(value)
    return out


@dataclass(frozen=True, kw_only=True, repr=False)
class ToeplitzMechanism(Displayable):
    """A Toeplitz mechanism's squared sensitivity under minimum separation and its error beside the tree's.

    Parameters
    ----------
    mechanism : str
        ``banded`` or ``blt``.
    rounds, max_participations, min_separation : int
        The schedule.
    sensitivity_squared : Certified
        Exact, an enclosure of the exact value, or an interval whose upper end bounds it (see ``closed_form``).
    closed_form : bool
        Whether the coefficients are non-negative and non-increasing (checked): the closed form is exact.
    pattern : tuple of int
        The earliest pattern ``0, g, 2g, ...`` (the worst one when ``closed_form``).
    mean_error : Certified
        Mean squared error of the prefix sums per ``z²``: ``Δ² ‖B‖_F² / T``.
    tree_sensitivity_squared : int
        Tree aggregation's exact worst case on the same schedule.
    tree_mean_error : Fraction
        Its mean squared error per ``z²``, exact.
    """

    mechanism: str
    rounds: int
    max_participations: int
    min_separation: int
    sensitivity_squared: Certified
    closed_form: bool
    pattern: tuple[int, ...]
    mean_error: Certified
    tree_sensitivity_squared: int
    tree_mean_error: Fraction

    def headline(self) -> str:
        return (f"{self.mechanism}: Delta^2 = {_shown(self.sensitivity_squared, 4)} "
                f"({self.sensitivity_squared.direction}), mean error {_shown(self.mean_error, 4)} z^2 against the "
                f"tree's {safe_decimal(self.tree_mean_error, 4)} z^2")

    def rows(self) -> list[tuple[str, str]]:
        return [("mechanism", self.mechanism), ("rounds T", str(self.rounds)),
                ("max participations E", str(self.max_participations)),
                ("min separation", str(self.min_separation)),
                ("sensitivity squared", f"{_shown(self.sensitivity_squared, 8)} ({self.sensitivity_squared.direction}; "
                                        f"{self.sensitivity_squared.method})"),
                ("worst pattern" if self.closed_form else "earliest pattern", ", ".join(map(str, self.pattern))),
                ("mean squared error / z^2", f"{_shown(self.mean_error, 8)} ({self.mean_error.direction})"),
                ("tree: sensitivity squared", f"{self.tree_sensitivity_squared} (exact)"),
                ("tree: mean squared error / z^2", f"{exact_text(self.tree_mean_error)} (exact; plain estimator)")]

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "rounds": self.rounds, "max_participations": self.max_participations,
                "min_separation": self.min_separation, "sensitivity_squared": self.sensitivity_squared.to_dict(),
                "closed_form": self.closed_form, "pattern": list(self.pattern), "mean_error": self.mean_error.to_dict(),
                "tree_sensitivity_squared": self.tree_sensitivity_squared,
                "tree_mean_error": str(self.tree_mean_error)}


def _shown(number: Certified, digits: int) -> str:
    """An exact number to ``digits`` digits (rounded up: the safe side of a sensitivity or an error), else its bound."""
    return safe_decimal(number.high, digits) if number.direction is Direction.EXACT else number.decimal(digits)


def _common(values: Sequence[Fraction]) -> tuple[list[int], int]:
    """``values`` as integers over one common denominator ``L``: ``(numerators, L)`` (integer sums skip the gcds)."""
    denominator = math.lcm(*(Fraction(v).denominator for v in values)) if values else 1
    return [int(Fraction(v) * denominator) for v in values], denominator


def _closed_form(coef: Sequence, rounds: int, pattern: Sequence[int]) -> Fraction:
    """``‖C 1_π‖²`` for the lower-triangular Toeplitz ``C`` of first column ``coef`` (zeros past its end), exact."""
    numerators, denominator = _common(coef)
    total = 0
    for t in range(rounds):
        entry = sum(numerators[t - p] for p in pattern if 0 <= t - p < len(numerators))
        total += entry * entry
    return Fraction(total, denominator * denominator)


def _inverse(coef: Sequence, rounds: int) -> list:
    """The first column of ``C⁻¹`` (lower-triangular Toeplitz, ``c_0 ≠ 0``): ``d_n = −Σ_{m≥1} c_m d_{n−m} / c_0``."""
    out = [1 / coef[0]]
    for n in range(1, rounds):
        acc = 0 * coef[0]
        for m in range(1, min(n, len(coef) - 1) + 1):
            acc += coef[m] * out[n - m]
        out.append(-acc / coef[0])
    return out


def _frobenius_prefix(inverse: Sequence, rounds: int) -> Fraction:
    """``‖A C⁻¹‖_F²`` from ``C⁻¹``'s first column: ``B``'s coefficients are its running sums, entry ``k`` appearing
    ``T − k`` times."""
    numerators, denominator = _common(inverse)
    running, total = 0, 0
    for k, d in enumerate(numerators):
        running += d
        total += (rounds - k) * running * running
    return Fraction(total, denominator * denominator)


def toeplitz(coefficients: Sequence | None = None, *, rounds: int, max_participations: int, min_separation: int,
             output_scale: Sequence | None = None, buf_decay: Sequence | None = None) -> ToeplitzMechanism:
    """A banded Toeplitz (``coefficients``) or BLT (``output_scale``, ``buf_decay``) mechanism on a schedule.

    Parameters
    ----------
    coefficients : sequence of numbers, optional
        A banded mechanism's ``c_0, ..., c_{b−1}``, read exactly (``c_0 ≠ 0``).
    rounds, max_participations, min_separation : int
        ``T``, ``E``, ``ξ`` (TF Privacy's convention: rounds strictly between; jax-privacy's ``min_sep`` is ``ξ + 1``).
    output_scale, buf_decay : sequence of numbers, optional
        A BLT's ``ω`` and ``θ`` instead of ``coefficients``.

    Returns
    -------
    ToeplitzMechanism

    Notes
    -----
    McMahan, Xu, Zhang, arXiv 2405.13763 (2024), Theorem 2 (the earliest
    pattern is the worst for non-negative non-increasing Toeplitz columns);
    Choquette-Choo et al., arXiv 2306.08153 (banded); Dvijotham et al., arXiv
    2404.16706 (BLT). See docs/matrix.md for the envelope bound's proof.
    """
    schedule = check_schedule(max_participations, min_separation)
    total, _ = check_restarts(rounds, None)
    if (coefficients is None) == (output_scale is None and buf_decay is None):
        raise InvalidOption("give a banded mechanism's coefficients, or a BLT's output scales and buffer decays")
    gap = schedule.min_separation + 1
    k = min(schedule.max_participations, -(-total // gap))
    pattern = tuple(m * gap for m in range(k))
    if coefficients is not None:
        mechanism = "banded"
        coef = [_parameter("coefficient", c) for c in coefficients][:total]
        if not coef or coef[0] == 0:
            raise InvalidOption("coefficients: give at least one, the first not 0 (C must be invertible)")
        monotone = all(c >= 0 for c in coef) and all(a >= b for a, b in zip(coef, coef[1:]))
        inverse = _inverse(coef, total)
    else:
        mechanism = "blt"
        omega, theta = _blt_parameters(output_scale or [], buf_decay or [])
        coef = blt_coefficients(omega, theta, total)
        inverse = blt_inverse(omega, theta, total)
        # c_k (k >= 1) is a sum of non-negative non-increasing geometric terms, and c_1 = sum of omega <= c_0 = 1
        monotone = all(w >= 0 for w in omega) and all(0 <= t <= 1 for t in theta) and sum(omega) <= 1
    value = _closed_form(coef, total, pattern)
    error = _frobenius_prefix(inverse, total)
    if monotone:
        sens = Certified.exact("sensitivity squared", value,
                               "closed form at the earliest pattern: the coefficients are non-negative and "
                               "non-increasing (checked), so it is the worst (McMahan-Xu-Zhang 2024, Thm 2)")
        mean = Certified.exact("mean error", value * error / total, "Delta^2 ||A C^-1||_F^2 / T, exact")
    else:
        high = _closed_form(_envelope(coef), total, pattern)
    if not monotone and high == value:
        sens = Certified.exact("sensitivity squared", value,
                               "the earliest pattern's ||C 1_pi||^2 (a lower bound) meets the closed form at the "
                               "coefficients' non-increasing envelope (an upper bound): exact")
        mean = Certified.exact("mean error", value * error / total, "Delta^2 ||A C^-1||_F^2 / T, exact")
    elif not monotone:
        sens = Certified("sensitivity squared", value, high, Direction.UPPER,
                         "the coefficients are not non-negative non-increasing: the closed form at their "
                         "non-increasing envelope max_{m>=k} |c_m| (an upper bound); the lower end is the earliest "
                         "pattern's own ||C 1_pi||^2")
        mean = Certified("mean error", value * error / total, high * error / total, Direction.UPPER,
                         "Delta^2 ||A C^-1||_F^2 / T, Delta^2 bounded as above")
    tree_s, _ = worst_case(Forest.of(total), schedule.max_participations, schedule.min_separation)
    return ToeplitzMechanism(mechanism=mechanism, rounds=total, max_participations=max_participations,
                             min_separation=min_separation, sensitivity_squared=sens, closed_form=monotone,
                             pattern=pattern, mean_error=mean, tree_sensitivity_squared=tree_s,
                             tree_mean_error=tree_mean_error(total, tree_s))


def _envelope(coef: Sequence) -> list:
    out = list(coef)
    for k in range(len(out) - 1, -1, -1):
        a = abs(out[k])
        out[k] = a if k == len(out) - 1 else _max(a, out[k + 1])
    return out


def _max(a, b):
    return max(a, b)
