"""A certified lower bound on the ε of a Poisson-sampled round of central discrete Gaussian noise.

The pair. One client's update is ``k`` on one coordinate (``k = ⌊γS⌋``, an
update the clip allows and rounding to nearest keeps exact) and every other
client's is 0. Each round the client is in the sample with probability
``q``; the coordinate released is ``X + Bk``, ``X ~ N_Z(0, σ²)``,
``B ~ Bernoulli(q)``, against ``X`` without the client (the **remove**
order; the **add** order swaps them). The same pair of datasets in every
round: ``T`` independent rounds of it.

The test. Any function of the release has an ε no larger than the
release's (post-processing), so a lower bound on the ε of the bits
``b_i = [x_i ≥ c]`` of the ``T`` rounds is a lower bound on the
mechanism's. Their count ``N`` is ``Bin(T, a)`` with one order's ``a`` and
``Bin(T, b)`` with the other's, ``F₀ = P(X ≥ c)``, ``F₁ = P(X ≥ c − k)``:

- remove: ``a = (1 − q) F₀ + q F₁``, ``b = F₀``; add: ``a = F₀``, ``b = (1 − q) F₀ + q F₁``.

For every ``m``, ``δ(ε) = Σ_n (P(n) − e^ε Q(n))₊ ≥ P(N ≥ m) − e^ε Q(N ≥ m)``
(remove; ``N ≤ m`` for add, where ``a < b``), so every ``ε`` with
``P(N ≥ m) − e^ε Q(N ≥ m) > δ`` is below the mechanism's ε at ``δ``. The
tails of ``X`` are sums of a Gaussian over a half-line of integers, enclosed
between integrals (:func:`itsa.privacy.pld.gauss_sum`) over the certified
normaliser; a binomial upper tail grows with its probability and a lower
tail falls, so ``P``'s tail takes the end of ``a`` that lowers it and
``Q``'s the end of ``b`` that raises it; a tail is the regularized
incomplete beta function in balls (``P(Bin(T, p) ≥ m) = I_p(m, T − m + 1)``). Floats
choose ``c`` and ``m`` (where the rare rounds that drew the client and a
large noise are told apart); the balls certify the ε at them.

The test is near-optimal where few rounds draw the client (``qT`` small,
production's sampling: within 1 % of the true ε at ``q = 10⁻⁵``, 10⁴
rounds) and weaker where many do (a sum of many small losses: 26 % below
at ``q = 1/20``, 300 rounds); :func:`itsa.privacy.sampled_pair.sampled_gaussian_epsilon`'s lower
side is not a bound on this mechanism (it is the dominating pair's).

Examples
--------
>>> from fractions import Fraction
>>> low = sampled_discrete_lower(sigma=500, shift=1000, rate=Fraction(1, 10**5), rounds=10**4, delta=Fraction(1, 10**6))
>>> low.decimal(3), str(low.direction)       # the true epsilon of the continuous pair is 0.199
('0.198', 'lower bound')
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.conversion import check_delta
from itsa.privacy.discrete_gaussian import normaliser
from itsa.privacy.pld import gauss_sum

__all__ = ["sampled_discrete_lower", "bernoulli_lower", "threshold_probabilities", "binomial_tail", "METHOD"]

#: Working precision of the balls.
BITS = 256
#: Thresholds ``c/σ`` the float search tries first (from the bulk to far in the shifted tail), then a finer
#: step around the best.
THRESHOLDS = np.linspace(-3.0, 16.0, 96)
#: The finer step's offsets around the best threshold.
REFINE = np.linspace(-0.2, 0.2, 11)
#: The ε returned is rounded down to a multiple of this.
GRAIN = Fraction(1, 2**40)

METHOD = ("a threshold test: one client's update floor(gamma S) on one coordinate, every other 0; each round's "
          "coordinate reduced to the bit [x >= c] (post-processing), the T rounds' count Bin(T, a) against "
          "Bin(T, b), delta(eps) >= P(N >= m) - e^eps Q(N >= m), discrete Gaussian tails enclosed between "
          "integrals and binomial tails as incomplete beta functions in balls")


def threshold_probabilities(*, sigma, shift: int, rate, threshold: int) -> tuple[flint.arb, flint.arb]:
    """``(F₀, F₁)``: ``P(X ≥ c)`` and ``P(X ≥ c − k)`` for ``X ~ N_Z(0, σ²)``, as balls.

    >>> f0, f1 = threshold_probabilities(sigma=10, shift=10, rate=Fraction(1, 2), threshold=0)
    >>> abs(float(f0.mid()) - 0.5199) < 1e-3, abs(float(f1.mid()) - 0.8531) < 1e-3
    (True, True)
    """
    s = fraction("sigma", sigma, low=0)
    k = whole_number("shift", shift, minimum=1)
    c = int(threshold)
    with precision(BITS):
        v, z = to_arb(s * s), normaliser(s)
        tails = []
        for start in (c, c - k):             # sum_{x >= start} = sum_{y <= -start} by symmetry
            low, high = gauss_sum(None, -start, 0, v)
            tails.append(flint.arb.union(low, high) / z)
        return tails[0], tails[1]


#: Past this many trials a tail whose end is within :data:`SUMMED_TERMS` of 0 is summed term by term (the
#: incomplete beta's cost grows with ``n``: 0.65 s at 10^10 trials, over 100 s at 10^12).
SUMMED_FROM = 10**7
#: Most terms a tail is summed over.
SUMMED_TERMS = 10**6


def _summed_tail(n: int, p: flint.arb, m: int, upper_tail: bool) -> flint.arb | None:
    """The tail as a sum of the pmf's terms, a ball, where it is short: ``P(≤ m)`` over ``j = 0 … m``
    (``t_0 = (1 − p)^n``, ``t_(j+1) = t_j (n − j) p / ((j + 1)(1 − p))``), ``P(≥ m)`` from ``t_m`` (by ``lgamma``)
    up, the rest bounded by the geometric series of the last ratio (the ratios fall with ``j``); ``None``
    where the sum would be long."""
    ratio = p / (1 - p)
    if not upper_tail:
        if m > SUMMED_TERMS:
            return None
        term = (n * (-p).log1p()).exp()
        total = term
        for j in range(m):
            term = term * (n - j) * ratio / (j + 1)
            total += term
        return total
    if (m - 1) * (1 - p) < (n - m + 1) * p:           # the ratios still above 1 at m: not a short tail
        return None
    term = (flint.arb(n + 1).lgamma() - flint.arb(m + 1).lgamma() - flint.arb(n - m + 1).lgamma()
            + m * p.log() + (n - m) * (-p).log1p()).exp()
    total, j = term, m
    while j < min(n, m + SUMMED_TERMS):
        r = ratio * (n - j) / (j + 1)
        term = term * r
        total += term
        j += 1
        if term < total * flint.arb(2) ** -(BITS // 2) and r < 1:
            return total + flint.arb(0, (term * r / (1 - r)).upper()) if j < n else total
    return None if j < n else total


def _count_at(n: int, p: flint.arb, m: int, upper_tail: bool) -> flint.arb:
    """``P(Bin(n, p) ≥ m)`` (``upper_tail``) or ``P(Bin(n, p) ≤ m)``, a ball: the regularized incomplete beta
    ``I_p(m, n − m + 1)`` (``1 − P(≥ m + 1)`` as ``I_(1−p)(n − m, m + 1)``), at rising precision; past
    :data:`SUMMED_FROM` trials a short tail is summed (:func:`_summed_tail`)."""
    if upper_tail and m <= 0 or not upper_tail and m >= n:
        return flint.arb(1)
    if upper_tail and m > n or not upper_tail and m < 0:
        return flint.arb(0)
    if n > SUMMED_FROM:
        with precision(BITS):
            summed = _summed_tail(n, p, m, upper_tail)
        if summed is not None and summed.is_finite():
            return summed
    for bits in (BITS, 1024, 4096):
        with precision(bits):
            ball = (p.beta_lower(m, n - m + 1, regularized=True) if upper_tail
                    else (1 - p).beta_lower(n - m, m + 1, regularized=True))
        if ball.is_finite() and ball.rad() < ball.mid().abs_lower() * flint.arb(2) ** -40:
            return ball
    return ball


def binomial_tail(n: int, p: flint.arb, m: int, upper_tail: bool) -> flint.arb:
    """``P(Bin(n, p) ≥ m)`` (``upper_tail``) or ``P(Bin(n, p) ≤ m)``, a ball (the incomplete beta function, the
    one home of a binomial tail in balls).

    >>> float(binomial_tail(10, flint.arb(1) / 2, 9, True).mid())      # (10 + 1)/1024
    0.0107421875
    """
    return _count_at(whole_number("n", n, minimum=1), p, int(m), bool(upper_tail))


def bernoulli_lower(*, a: flint.arb, b: flint.arb, rounds: int, delta, count: int, upper_tail: bool) -> Fraction:
    """A certified lower bound on the ε at ``δ`` of ``T`` rounds of ``Bernoulli(a)`` against ``Bernoulli(b)``
    from the test ``N ≥ m`` (``upper_tail``) or ``N ≤ m``: the largest ``ε`` (rounded down) with
    ``P(N ≥ m) − e^ε Q(N ≥ m) > δ``, 0 if there is none.

    >>> half, quarter = flint.arb(1) / 2, flint.arb(1) / 4
    >>> e = bernoulli_lower(a=half, b=quarter, rounds=1, delta=Fraction(1, 10), count=1, upper_tail=True)
    >>> abs(float(e) - math.log(0.4 / 0.25)) < 1e-9      # one round: ln((1/2 - 1/10)/(1/4))
    True
    """
    d = check_delta(delta)
    T = whole_number("rounds", rounds, minimum=1)
    with precision(BITS):
        # an upper tail grows with the probability, a lower tail falls: P's end lowers its tail, Q's raises it
        a_end, b_end = (a.lower(), b.upper()) if upper_tail else (a.upper(), b.lower())
        a_end, b_end = flint.arb(a_end), flint.arb(b_end)
        if not (0 < a_end < 1 and 0 < b_end < 1):
            return Fraction(0)
        p_tail = flint.arb(_count_at(T, a_end, count, upper_tail).lower())
        q_tail = flint.arb(_count_at(T, b_end, count, upper_tail).upper())
        room = p_tail - to_arb(d)
        if not room > 0 or not q_tail > 0:
            return Fraction(0)
        eps = (room / q_tail).log()
        end = eps.lower()
        if not end.is_finite() or not end > 0:
            return Fraction(0)
        man, exp = (int(x) for x in end.man_exp())
        value = Fraction(man) * Fraction(2) ** exp
    return math.floor(value / GRAIN) * GRAIN


def _float_log_counts(log_choose: np.ndarray, p: float, upper_tail: bool, n: int) -> np.ndarray:
    """``ln P(Bin(n, p) ≥ m)`` (or ``≤ m``) for every ``m`` up to the coefficients given (floats: they choose the
    test; the terms past them are left out)."""
    j = np.arange(len(log_choose))
    logs = log_choose + j * math.log(p) + (n - j) * math.log1p(-p)
    if upper_tail:
        return np.logaddexp.accumulate(logs[::-1])[::-1]
    return np.logaddexp.accumulate(logs)


def _choose(sigma: float, shift: int, rate: float, rounds: int, delta: float) -> list[tuple[int, int, bool]]:
    """The float search: for each order, the threshold ``c`` and count ``m`` of the largest float ε."""
    from scipy.special import gammaln

    j = np.arange(rounds + 1)
    log_choose = gammaln(rounds + 1) - gammaln(j + 1) - gammaln(rounds - j + 1)
    found: dict[bool, tuple[float, int, int]] = {}
    for t in THRESHOLDS:
        _try(round(t * sigma), sigma, shift, rate, delta, log_choose, found)
    for c0 in {c for _, c, _ in found.values()}:
        for t in REFINE:
            _try(c0 + round(t * sigma), sigma, shift, rate, delta, log_choose, found)
    return [(c, m, remove) for remove, (_, c, m) in found.items()]


def _try(c: int, sigma: float, shift: int, rate: float, delta: float, log_choose: np.ndarray,
         found: dict[bool, tuple[float, int, int]]) -> None:
    """Record the threshold ``c``'s best count for each order where its float ε is the largest yet."""
    f0 = math.erfc((c - 0.5) / (sigma * math.sqrt(2))) / 2
    f1 = math.erfc((c - shift - 0.5) / (sigma * math.sqrt(2))) / 2
    mix = (1 - rate) * f0 + rate * f1
    for remove in (True, False):
        a, b = (mix, f0) if remove else (f0, mix)
        if not (0 < a < 1 and 0 < b < 1) or a == b:
            continue
        up = a > b
        n = len(log_choose) - 1
        mean = n * max(a, b)
        top = min(n, math.ceil(mean + 40 * math.sqrt(mean) + 100))      # the terms above are negligible here
        part = log_choose[:top + 1]
        lp, lq = _float_log_counts(part, a, up, n), _float_log_counts(part, b, up, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            eps = np.log(np.maximum(np.exp(lp) - delta, 0)) - lq
        eps = np.where(np.isfinite(eps), eps, -np.inf)
        m = int(np.argmax(eps))
        if eps[m] > found.get(remove, (-np.inf, 0, 0))[0]:
            found[remove] = (float(eps[m]), c, m)


def sampled_discrete_lower(*, sigma, shift: int, rate, rounds: int, delta) -> Certified:
    """A certified lower bound on the ε at ``δ`` of ``T`` Poisson-sampled rounds of central ``N_Z(0, σ²)`` noise
    (add-remove neighbours) where one client's update moves one coordinate by ``shift`` (the module's notes).

    Parameters
    ----------
    sigma : number
        σ of the discrete Gaussian (integer units), read exactly.
    shift : int
        ``k ≥ 1``: the integer update.
    rate : number
        ``q ∈ (0, 1]``.
    rounds : int
        ``T``.
    delta : number
        δ in ``(0, 1)``.

    Returns
    -------
    Certified
        A lower bound (0 where no test beats δ).
    """
    s = fraction("sigma", sigma, low=0)
    k = whole_number("shift", shift, minimum=1)
    q = fraction("sampling rate", rate, low=0, high=1, closed=True)
    if q == 0:
        raise InvalidOption("sampling rate: must be > 0")
    T = whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    best = Fraction(0)
    for c, m, remove in _choose(float(s), k, float(q), T, float(d)):
        f0, f1 = threshold_probabilities(sigma=s, shift=k, rate=q, threshold=c)
        with precision(BITS):
            mix = (1 - to_arb(q)) * f0 + to_arb(q) * f1
        a, b = (mix, f0) if remove else (f0, mix)
        up = float(a.mid()) > float(b.mid())
        for count in (m - 1, m, m + 1):
            best = max(best, bernoulli_lower(a=a, b=b, rounds=T, delta=d, count=count, upper_tail=up))
    return Certified("epsilon", best, best, Direction.LOWER, METHOD)
