"""Certified privacy-loss brackets for the discrete Gaussian, central or as a sum of shares, over T rounds.

The pair. Per coordinate the noise ``N`` is one discrete Gaussian
``N_Z(0, σ²)`` (central, ``survivors = 1``) or the sum of ``n`` independent
ones (distributed: the ``survivors = n`` clients' shares). The pair examined is ``N`` against
``N + k`` on one coordinate (every other coordinate equal), with ``k`` the
integer sensitivity ``Δ`` rounded down: the worst shift along one axis of
the integer lattice among inputs at ``ℓ2`` distance at most ``Δ``. Its
privacy curve after ``T`` rounds is ``δ_pair(ε) = Σ_x⃗ (P(x⃗) − e^ε Q(x⃗))₊``.

The method, and why it is rigorous. No grid and no FFT: the privacy loss of
a shifted Gaussian-shaped law is linear in the noise, so the ``T``-fold
privacy-loss distribution is the law of a sum of discrete Gaussians, and
``δ`` is two Gaussian sums over a half-line of integers, each enclosed
between two integrals (monotone pieces), evaluated in ball arithmetic.

- One share's law against a Gaussian (Poisson summation): the ``m``-fold sum
  ``S`` of ``N_Z(0, v)`` has ``|P(S = y) − e^(−y²/(2mv)) / (θ^m √(2π m v))| ≤ E``
  for every integer ``y`` (:func:`sum_error`; ``E = 0`` for ``m = 1``),
  ``θ = Σ_j e^(−2π² v j²)``. From its characteristic function
  ``θ^(−1) (g + R)``, ``g(t) = e^(−v t²/2)``, ``R`` the ``j ≠ 0`` terms of
  ``Σ_j g(t − 2πj)``, on ``[−π, π]``: ``(g + R)^m − g^m ≤ m R (1 + ρ)^(m−1)``
  with ``R ≤ ρ = 2 e^(−π² v/2)/(1 − e^(−4π² v))`` there, and
  ``∫_(−π)^π R = ∫_(|t|>π) g`` (the translates tile the line), so
  ``E = (m (1+ρ)^(m−1) ∫_(|t|>π) g + ∫_(|t|>π) g^m) / (2π θ^m)``.
- Distributed shares (``n > 1``): on ``|x| ≤ K`` the law of ``N`` is
  ``c e^(−x²/(2nσ²))`` within a factor ``1 ± r`` (``r = E / (c e^(−(K+k)²/(2nσ²)))``),
  its privacy loss within ``± u``, ``u = ln((1+r)/(1−r))``, of the linear
  ``a − b x`` (``a = k²/(2nσ²)``, ``b = k/(nσ²)``); the mass beyond ``K`` is at
  most ``2 e^(−K²/(2nσ²))`` (a discrete Gaussian is σ²-subgaussian:
  ``Σ_x e^(−(x−c)²/(2σ²)) ≤ Σ_x e^(−x²/(2σ²))`` by Poisson summation,
  Canonne–Kamath–Steinke 2020). The lower bound keeps the box
  ``|x_i| ≤ K``, masses ``× (1 − r)`` and losses ``− u``; the upper bound
  ``× (1 + r)``, ``+ u`` and the mass outside counted in full. Losses only
  move down (lower bound) or up (upper bound) and masses likewise:
  ``δ = E[(1 − e^(ε − L))₊]`` is monotone in both, so each side is safe.
- The ``T`` rounds: the linear losses add, ``Σ (a − b x_i) = T a − b S``, with
  ``S`` the sum of ``T`` discrete Gaussians of variance ``nσ²``, enclosed as
  above: ``δ ≈ c_T [Σ_(y<y*) e^(−y²/(2 v_T)) − e^(ε) Σ_(y<y*) e^(−(y−kT)²/(2 v_T))]``.
  Each sum of a unimodal Gaussian over integers lies between the integrals
  ``∫_(A−1)^B`` and ``∫_A^B + f(B)`` of its rising part (mirrored for the
  falling part), in erfc form.

ε from δ: ``ε_lower`` is the largest ``ε`` (bisection on exact rationals,
each step certified by the ball) with ``δ_lower(ε) > δ``; since
``δ_lower ≤ δ_pair ≤ δ_true`` no valid ε at that δ is below it. ``ε`` of
the pair from above is the least ``ε`` with ``δ_upper(ε) ≤ δ``: an upper
bound on the mechanism's ε only where the pair is provably the worst case,
that is in one dimension (``d = 1``): the noise law is log-concave (the
discrete Gaussian is, and convolution keeps discrete log-concavity), so the
shifts form a family with monotone likelihood ratio and a larger shift has a
lower trade-off curve (Neyman–Pearson thresholds), and the composition of
dominated pairs is dominated (Dong, Roth, Su 2022). In ``d > 1`` dimensions a
shift off the axes of the same ``ℓ2`` norm can do (slightly) worse; there the
upper bound is the Gaussian pair that dominates every shift
(:func:`itsa.privacy.lattice.dominating_epsilon`, ``μ = (Δ + 2)/s``) or the
Rényi bound, whichever is smaller.

The accuracy needs ``π² σ²/2`` well above ``ln(1/δ)`` for shares
(``σ ≳ 3``): below, the enclosure is still valid but loose.

Examples
--------
>>> b = epsilon_bracket(sigma=1000, sensitivity=100, rounds=10, delta="1e-5", dimension=1)
>>> b.epsilon_lower.decimal(5), b.upper_method, str(b.epsilon_lower.direction)
('1.1993', 'pld', 'lower bound')
>>> b.ratio.upper() < Fraction(1001, 1000)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.privacy.conversion import check_delta
from itsa.privacy.lattice import BITS, dominating_epsilon, sum_error, theta
from itsa.privacy.tails import subgaussian_tail

__all__ = ["EpsilonBracket", "epsilon_bracket", "pair_delta", "pair_epsilon", "gauss_sum", "sum_error", "BITS", "STEPS"]

#: Bisection steps for an ε (each halves the bracket).
STEPS = 60
#: The bisection stops once the bracket is this narrow, relatively.
WIDTH = Fraction(1, 2**44)
#: ``-ln`` of the mass left out by the truncations (far below any δ of interest).
TAIL_LOG = 230

_LOWER, _UPPER = "lower", "upper"


def _integral(p: Fraction | None, q: Fraction, m: int, v: flint.arb) -> flint.arb:
    """``∫_p^q e^(−(y−m)²/(2v)) dy`` (``p = None``: from −∞), in erfc form (no cancellation in the tails)."""
    r, half = (2 * v).sqrt(), (flint.arb.pi() * v / 2).sqrt()
    if p is not None and p >= q:
        return flint.arb(0)

    def below(x: Fraction) -> flint.arb:         # ∫_(-inf)^x, x <= m
        return half * (to_arb(m - x) / r).erfc()

    def above(x: Fraction) -> flint.arb:         # ∫_x^inf, x >= m
        return half * (to_arb(x - m) / r).erfc()

    if q <= m:
        return below(q) - (below(p) if p is not None else 0)
    if p is not None and p >= m:
        return above(p) - above(q)
    return 2 * half - (below(p) if p is not None else 0) - above(q)


_H = Fraction(1, 2)


def gauss_sum(lo: int | None, hi: int, m: int, v: flint.arb) -> tuple[flint.arb, flint.arb]:
    """``(low, high)`` with ``low ≤ Σ_(y=lo)^hi e^(−(y−m)²/(2v)) ≤ high`` (``lo = None``: from −∞).

    ``f(y) = e^(−(y−m)²/(2v))`` is convex for ``|y − m| ≥ √v`` and concave
    between. On a convex stretch ``[A, B]`` (each ``[y − 1/2, y + 1/2]``
    inside it) the midpoint rule is below the integral and the trapezoid rule
    above it: ``∫_A^B f + (f(A) + f(B))/2 ≤ Σ ≤ ∫_(A−1/2)^(B+1/2) f``; on the
    concave stretch the two swap; the at most two integers left between
    stretches are added one by one.
    """
    low, high = flint.arb(0), flint.arb(0)
    if lo is not None and hi < lo:
        return low, high
    root, half = v.sqrt(), to_arb(_H)

    def f(y: int) -> flint.arb:
        return (-(to_arb(y - m) ** 2) / (2 * v)).exp()

    left = _floor(m - root - half)                 # y <= left: [y - 1/2, y + 1/2] convex
    mid_lo = -_floor(-(m - root + half))           # ceil
    mid_hi = _floor(m + root - half)
    right = -_floor(-(m + root + half))
    pieces = [(None, left, True), (mid_lo, mid_hi, False), (right, None, True)]
    covered: list[tuple[int | None, int | None]] = []
    for a, b, convex in pieces:
        a2 = lo if a is None else (a if lo is None else max(a, lo))
        b2 = hi if b is None else min(b, hi)
        if a2 is not None and b2 < a2:
            continue
        covered.append((a2, b2))
        f_a = f(a2) if a2 is not None else flint.arb(0)
        trap = _integral(None if a2 is None else Fraction(a2), Fraction(b2), m, v) + (f_a + f(b2)) / 2
        midpoint = _integral(None if a2 is None else a2 - _H, b2 + _H, m, v)
        low, high = (low + trap, high + midpoint) if convex else (low + midpoint, high + trap)
    for y in list(range(left + 1, mid_lo)) + list(range(mid_hi + 1, right)):
        if (lo is None or y >= lo) and y <= hi:
            value = f(y)
            low, high = low + value, high + value
    return low, high


def _floor(x) -> int:
    unique = to_arb(x).floor().unique_fmpz()
    if unique is None:
        raise InvalidOption(f"a bound {x} is too wide to round to an integer: raise the working precision")
    return int(unique)


@dataclass(frozen=True)
class _Pair:
    """The exact and certified constants of one pair (σ², survivors, shift, rounds) for :func:`pair_delta`."""

    variance: Fraction          # n σ²: one round's noise variance (Gaussian expression)
    shift: int
    rounds: int
    r: flint.arb                # relative error of the Gaussian expression on the box (0 for one share)
    u: flint.arb                # the loss's error on the box
    kappa: flint.arb            # theta(n σ²) / theta(σ²)^n
    outside: flint.arb          # bound on P(|N| > K), per round (0 for one share)
    error_T: flint.arb          # E of the T-fold sum
    c_T: flint.arb              # 1 / (theta(n σ²)^T sqrt(2 pi T n σ²))
    start: int | None           # Y0: the composed sum's lower cut (None: from -inf)
    below: flint.arb            # P(S < Y0) bound (0 without a cut)


def _pair(sigma: Fraction, survivors: int, shift: int, rounds: int) -> _Pair:
    v1 = survivors * sigma**2
    with precision(BITS):
        var, one = to_arb(v1), to_arb(sigma**2)
        theta_s = theta(var)
        if survivors == 1:
            r = u = outside = flint.arb(0)
            kappa = flint.arb(1)
        else:
            c = 1 / (theta(one) ** survivors * (2 * flint.arb.pi() * var).sqrt())
            e1 = sum_error(one, survivors)
            depth = min(float(-(e1 / c).log().lower()) / 2 if e1 > 0 else 2.0 * TAIL_LOG, TAIL_LOG + 20.0)
            depth = max(depth, 1.0)
            reach = max(1, int(math.isqrt(int(2 * v1 * Fraction(depth))))) - shift     # (K + k)^2/(2 v1) ~ depth
            reach = max(reach, 1)
            # the Gaussian's density at the box's edge (not a tail): the law's relative error there
            r = e1 / (c * (-(to_arb(reach + shift) ** 2) / (2 * var)).exp())
            if not r < 1:
                r = flint.arb("inf")
                u = flint.arb("inf")
            else:
                u = (1 + r).log() - (1 - r).log()
            kappa = theta_s / theta(one) ** survivors
            outside = subgaussian_tail(reach, var)         # the mass beyond the box: the sub-Gaussian tail
        error_T = sum_error(var, rounds)
        vT = rounds * var
        c_T = 1 / (theta_s**rounds * (2 * flint.arb.pi() * vT).sqrt())
        if error_T.is_zero():
            start, below = None, flint.arb(0)
        else:
            start = -(math.isqrt(int(2 * TAIL_LOG * rounds * v1)) + 1)
            # P(S < Y0) <= e^(-Y0^2/(2 v_T)): the one-sided sub-Gaussian tail (half of tails.subgaussian_tail's
            # two-sided bound, kept here: halving that ball would round its radius up)
            below = (-(to_arb(start) ** 2) / (2 * vT)).exp()
    return _Pair(v1, shift, rounds, r, u, kappa, outside, error_T, c_T, start, below)


def pair_delta(epsilon, *, sigma, shift: int, survivors: int = 1, rounds: int = 1, side: str = _LOWER) -> flint.arb:
    """A certified bound on ``δ_pair(ε)`` of ``N`` against ``N + shift`` over ``rounds`` rounds.

    Parameters
    ----------
    epsilon : number
        ``ε ≥ 0``, read exactly.
    sigma : number
        ``σ`` of one discrete Gaussian share (integer units).
    shift : int
        ``k ≥ 1``, the integer shift on one coordinate.
    survivors : int
        ``n``: the noise is the sum of the ``n`` survivors' shares (1: central noise).
    rounds : int
        ``T``, the rounds composed.
    side : str
        ``"lower"``: the ball's lower end is at most ``δ_pair(ε)``; ``"upper"``: its upper end is at least it.

    Returns
    -------
    arb
        The bound's ball (read its lower or upper end as ``side`` says).

    >>> d = pair_delta(1, sigma=10, shift=5, rounds=4)
    >>> 0.12 < float(d.lower()) < 0.13
    True
    """
    if side not in (_LOWER, _UPPER):
        raise InvalidOption(f"side: 'lower' or 'upper', not {side!r}")
    pair = _pair(fraction("sigma", sigma, low=0), whole_number("survivors", survivors, minimum=1),
                 whole_number("shift", shift, minimum=1), whole_number("rounds", rounds, minimum=1))
    return _delta(pair, fraction("epsilon", epsilon, low=None), side == _LOWER)


def _delta(pair: _Pair, eps: Fraction, lower: bool) -> flint.arb:
    """:func:`pair_delta` on the pair's constants: the lower (``lower``) or upper bound's ball."""
    if not pair.r.is_finite():
        return flint.arb(0) if lower else flint.arb(1)
    with precision(BITS):
        T, k, var = pair.rounds, pair.shift, to_arb(pair.variance)
        vT = T * var
        a = Fraction(k * k * T, 2) / pair.variance             # T a, exact
        b = to_arb(Fraction(k) / pair.variance)
        shifted = to_arb(a) - T * pair.u if lower else to_arb(a) + T * pair.u
        loss = flint.arb(shifted.lower() if lower else shifted.upper())      # T (a -/+ u), an exact point
        e = to_arb(eps)
        coef = (e - loss + to_arb(a)).exp()
        cut = (loss - e) / b
        last = _floor(flint.arb(cut.lower()))
        g0 = gauss_sum(pair.start, last, 0, vT)
        g1 = gauss_sum(pair.start, last, k * T, vT)
        count = last - pair.start + 1 if pair.start is not None and last >= pair.start else 0
        if lower:
            core = pair.c_T * (g0[0] - coef * g1[1]) - pair.error_T * count
            if pair.outside.is_zero():
                return core
            return (1 - pair.r) ** T * pair.kappa**T * (core - T * pair.outside)
        core = pair.c_T * (g0[1] - coef * g1[0]) + pair.error_T * count + pair.below
        for y in range(last + 1, _floor(flint.arb(cut.upper())) + 1):      # terms the cut's ball left undecided
            weight = (1 - (e - loss + b * y).exp()).max(flint.arb(0))
            core += (pair.c_T * (-(to_arb(y) ** 2) / (2 * vT)).exp() + pair.error_T) * weight
        return (1 + pair.r) ** T * pair.kappa**T * core + T * pair.outside


def pair_epsilon(delta, *, sigma, shift: int, survivors: int = 1, rounds: int = 1, side: str = _LOWER,
                 start: Fraction | None = None) -> Fraction:
    """The pair's ε at ``δ`` from one side, as an exact rational (bisection, each step certified).

    ``side="lower"``: the largest ε found with ``δ_lower(ε) > δ`` (0 if none):
    no valid ε of the pair, hence of the mechanism, is below it.
    ``side="upper"``: the least ε found with ``δ_upper(ε) ≤ δ``: an upper
    bound on the pair's ε.

    Parameters
    ----------
    delta : number
        δ in ``(0, 1)``.
    sigma, shift, survivors, rounds
        As in :func:`pair_delta`.
    side : str
        ``"lower"`` or ``"upper"``.
    start : Fraction, optional
        A first guess of the far end of the bracket (doubled as needed).

    >>> pair_epsilon("1e-5", sigma=1000, shift=100, rounds=10) < pair_epsilon("1e-5", sigma=1000, shift=100,
    ...                                                                         rounds=10, side="upper")
    True
    """
    d = check_delta(delta)
    s = fraction("sigma", sigma, low=0)
    pair = _pair(s, whole_number("survivors", survivors, minimum=1), whole_number("shift", shift, minimum=1),
                 whole_number("rounds", rounds, minimum=1))
    target = to_arb(d)

    def holds(eps: Fraction) -> bool:       # "lower": delta_lower(eps) > delta; "upper": delta_upper(eps) <= delta
        value = _delta(pair, eps, side == _LOWER)
        return bool(value > target) if side == _LOWER else bool(value <= target)

    mu2 = 2 * Fraction(shift * shift * rounds, 2) / pair.variance       # mu_T^2
    guess = start if start is not None and start > 0 else Fraction(
        math.ceil(1 + float(mu2) / 2 + math.sqrt(float(mu2) * 2 * math.log(1 / float(d)))))
    if side == _LOWER:
        if not holds(Fraction(0)):
            return Fraction(0)
        low, high = Fraction(0), guess
        for _ in range(64):
            if not holds(high):
                break
            low, high = high, 2 * high
        else:
            raise InvalidOption("pair epsilon: no bracket found (delta_lower stays above delta)")
    else:
        low, high = Fraction(0), guess
        for _ in range(64):
            if holds(high):
                break
            low, high = high, 2 * high
        else:
            raise InvalidOption("pair epsilon: no bracket found (delta_upper stays above delta)")
        if holds(Fraction(0)):
            return Fraction(0)
    for _ in range(STEPS):
        if high - low <= WIDTH * high:
            break
        mid = _dyadic((low + high) / 2)
        if holds(mid) == (side == _LOWER):
            low = mid
        else:
            high = mid
    return low if side == _LOWER else high


def _dyadic(x: Fraction) -> Fraction:
    """``x`` rounded to 64 significant bits (short rationals keep the balls exact)."""
    if x == 0:
        return x
    exp = x.numerator.bit_length() - x.denominator.bit_length() - 64
    return Fraction(math.floor(x / Fraction(2) ** exp)) * Fraction(2) ** exp


def _decimal(x: Fraction, up: bool) -> str:
    return safe_decimal(x, 6, up=up)


@dataclass(frozen=True, kw_only=True, repr=False)
class EpsilonBracket(Displayable):
    """The true ε of a discrete Gaussian plan bracketed: a certified lower bound, the upper bound used, their ratio.

    Parameters
    ----------
    epsilon_lower : Certified
        A lower bound on the mechanism's ε at ``delta`` (the pair's, from below).
    epsilon_upper : Certified
        The upper bound used (``upper_method``: ``pld``, the pair's in one dimension; ``dominating``, the
        dominating Gaussian pair's; ``rdp``; or ``given``), the smallest at hand.
    upper_method : str
        Where ``epsilon_upper`` comes from.
    ratio : Certified
        ``epsilon_upper / epsilon_lower``, an upper bound.
    pair_upper : Certified
        The pair's ε from above; a bound on the mechanism's ε only when ``worst_pair_proven``.
    rdp_upper : Certified or None
        The Rényi bound (or the one given), for comparison.
    worst_pair_proven : bool
        Whether the pair is proven to be the worst case (one dimension).
    pair : str
        The neighbouring pair, in words.
    shift : int
        ``k``, the shift on one coordinate.
    sigma : Fraction
        σ of one share.
    survivors, rounds, dimension : int
        ``n``, ``T`` and ``d``.
    delta : Fraction
        δ.
    method : str
        How the bounds were computed.
    notes : tuple of str
        Limits, in words.
    """

    epsilon_lower: Certified
    epsilon_upper: Certified
    upper_method: str
    ratio: Certified
    pair_upper: Certified
    rdp_upper: Certified | None
    worst_pair_proven: bool
    pair: str
    shift: int
    sigma: Fraction
    survivors: int
    rounds: int
    dimension: int
    delta: Fraction
    method: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    def headline(self) -> str:
        return (f"eps in [{self.epsilon_lower.decimal(6)}, {self.epsilon_upper.decimal(6)}] at delta "
                f"{safe_decimal(self.delta, 4)} over {self.rounds} rounds (upper/lower <= {self.ratio.decimal(4)})")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("epsilon lower", f"{self.epsilon_lower.decimal(8)} (lower bound; {self.epsilon_lower.method})"),
                ("epsilon upper", f"{self.epsilon_upper.decimal(8)} (upper bound, {self.upper_method})"),
                ("ratio", f"{self.ratio.decimal(6)} (upper bound)"),
                ("pair", self.pair),
                ("pair from above", f"{self.pair_upper.decimal(8)} ({self.pair_upper.direction}; "
                                    f"{'the worst pair: a bound on the mechanism' if self.worst_pair_proven else 'this pair only, not a bound on the mechanism'})")]
        if self.rdp_upper is not None:
            rows.append(("rdp upper", f"{self.rdp_upper.decimal(8)} ({self.rdp_upper.direction})"))
        return rows + [("method", self.method)] + [("note", n) for n in self.notes]

    def to_dict(self) -> dict:
        return {"epsilon_lower": self.epsilon_lower.to_dict(), "epsilon_upper": self.epsilon_upper.to_dict(),
                "upper_method": self.upper_method, "ratio": self.ratio.to_dict(),
                "pair_upper": self.pair_upper.to_dict(), "worst_pair_proven": self.worst_pair_proven,
                "rdp_upper": None if self.rdp_upper is None else self.rdp_upper.to_dict(),
                "pair": self.pair, "shift": self.shift, "sigma": str(self.sigma), "survivors": self.survivors,
                "rounds": self.rounds, "dimension": self.dimension, "delta": str(self.delta),
                "method": self.method, "notes": list(self.notes)}


METHOD = ("privacy loss of the pair linear in the noise: T rounds = one sum of T discrete Gaussians; its law "
          "enclosed by Poisson summation, the shares' law within (1 +- r) of a Gaussian on a box, the rest "
          "bounded (subgaussian tails); Gaussian sums over integers between integrals; no grid, no FFT; "
          "epsilon by bisection on exact rationals, each step certified in ball arithmetic")


def _sensitivity(value) -> flint.arb:
    if isinstance(value, Certified):
        return value.arb()
    if isinstance(value, flint.arb):
        return value
    return to_arb(fraction("sensitivity", value, low=0))


def _rdp_upper(sigma: Fraction, survivors: int, sensitivity: flint.arb, rounds: int, delta: Fraction,
               dimension: int) -> Certified:
    """The Rényi bound the plan uses, through the accountant: the central discrete Gaussian, or the distributed
    one with its τ term (the conservative form), composed over the rounds and converted (CKS)."""
    from itsa.privacy.accounting import Accountant
    from itsa.privacy.events import DiscreteGaussianEvent, DistributedDiscreteGaussianEvent, Event

    event: Event = (DiscreteGaussianEvent(sigma=sigma, sensitivity=sensitivity) if survivors == 1 else
                    DistributedDiscreteGaussianEvent(sensitivity=sensitivity, scale=sigma, survivors=survivors,
                                                     dimension=dimension))
    return Accountant().compose(event, rounds).bound(delta).epsilon


def epsilon_bracket(*, sigma, sensitivity, rounds: int, delta, survivors: int = 1, dimension: int = 1,
                    shift: int | None = None, upper: Certified | None = None) -> EpsilonBracket:
    """The mechanism's ε at ``δ`` bracketed: a certified lower bound from one pair, and the best upper bound at hand.

    Parameters
    ----------
    sigma : number
        ``σ`` of one discrete Gaussian share, integer units (the plan's ``sigma_client``; central: its σ).
    sensitivity : number, arb or Certified
        ``Δ``, the integer ``ℓ2`` sensitivity (the plan's ``noise.sensitivity``).
    rounds : int
        ``T``.
    delta : number
        δ in ``(0, 1)``.
    survivors : int
        ``n``: the noise of the sum is the ``n`` survivors' shares (the fewest; 1 for central noise).
    dimension : int
        ``d``; the pair's upper bound is a bound on the mechanism only for ``d = 1`` (beyond, the dominating pair's).
    shift : int, optional
        The pair's shift ``k`` (default ``⌊Δ⌋``, the lower end of its ball; at most it).
    upper : Certified, optional
        A certified upper bound to compare with (the plan's ε); by default the Rényi one the plan uses.

    Returns
    -------
    EpsilonBracket

    Notes
    -----
    A PSA layering whose ``L`` layers share one scale and one sensitivity in
    their digit units is ``L T`` rounds of the same mechanism for a server that
    sees every layer: pass ``rounds = L T`` and the per-layer numbers.

    >>> b = epsilon_bracket(sigma=100000, survivors=100, sensitivity=100000, rounds=100, delta="1e-6", dimension=1000)
    >>> b.upper_method, b.worst_pair_proven, b.epsilon_lower.decimal(4), b.epsilon_upper.decimal(4)
    ('dominating', False, '4.886', '4.887')
    """
    s = fraction("sigma", sigma, low=0)
    n = whole_number("survivors", survivors, minimum=1)
    T = whole_number("rounds", rounds, minimum=1)
    d = whole_number("dimension", dimension, minimum=1)
    dl = check_delta(delta)
    sens = _sensitivity(sensitivity)
    floor_low, floor_high = _floor(flint.arb(sens.lower())), _floor(flint.arb(sens.upper()))
    k = floor_low if shift is None else whole_number("shift", shift, minimum=1)
    if k < 1 or k > floor_high:
        raise InvalidOption(f"shift: must be a whole number in [1, {floor_high}] (the sensitivity rounded down), "
                            f"not {k}")
    low = pair_epsilon(dl, sigma=s, shift=k, survivors=n, rounds=T, side=_LOWER)
    worst = d == 1
    top = floor_high if worst else k
    high = pair_epsilon(dl, sigma=s, shift=top, survivors=n, rounds=T, side=_UPPER, start=max(low, Fraction(1)) * 2)
    noun = "one discrete Gaussian" if n == 1 else f"the sum of {n} discrete Gaussian shares"
    pair = (f"noise N ({noun} of sigma {_decimal(s, True)} per coordinate) against N + {k} e_1 "
            f"(shift {k} = the sensitivity rounded down, along one axis), {T} rounds")
    lower = Certified("epsilon", low, low, Direction.LOWER, "the pair's PLD, from below")
    pair_upper = Certified("epsilon", high, high, Direction.UPPER if worst else Direction.CONDITIONAL,
                           "the pair's PLD, from above" + ("" if worst else
                                                           " (a bound only if the axis shift is the worst case)"))
    rdp = upper if upper is not None else (_rdp_upper(s, n, sens, T, dl, d) if n == 1 or s >= Fraction(1, 2) else None)
    candidates = [(rdp, "rdp" if upper is None else "given")]
    if worst:
        candidates.append((pair_upper, "pld"))
    else:
        candidates.append((dominating_epsilon(sigma=s, sensitivity=sens, rounds=T, delta=dl, survivors=n, dimension=d),
                           "dominating"))
    found = [(c, how) for c, how in candidates if c is not None]
    if not found:
        raise InvalidOption("no certified upper bound: give upper= (the share's sigma is below 1/2)")
    chosen, how = min(found, key=lambda item: item[0].upper())
    notes: list[str] = []
    if not worst:
        notes.append("d > 1: the axis pair is not the worst case (a shift of the same l2 norm off the axes may do "
                     "worse); the upper bound is the dominating Gaussian pair's or the Renyi one, the smaller")
    if n > 1 and low == 0:
        notes.append("the shares' sigma is too small for the Gaussian enclosure (pi^2 sigma^2/2 near ln(1/delta)): "
                     "the lower bound is trivial")
    with precision():
        ratio_ball = to_arb(chosen.upper()) / to_arb(low) if low > 0 else None
    ratio = (Certified.from_arb("upper/lower", ratio_ball, Direction.UPPER, "epsilon_upper / epsilon_lower")
             if ratio_ball is not None else Certified("upper/lower", Fraction(0), Fraction(0), Direction.VACUOUS,
                                                      "the lower bound is 0"))
    return EpsilonBracket(epsilon_lower=lower, epsilon_upper=chosen, upper_method=how, ratio=ratio,
                          pair_upper=pair_upper, rdp_upper=rdp, worst_pair_proven=worst, pair=pair, shift=k,
                          sigma=s, survivors=n, rounds=T, dimension=d, delta=dl, method=METHOD, notes=tuple(notes))
