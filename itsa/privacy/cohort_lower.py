"""A certified lower bound on the ε of distributed discrete Gaussian shares over a sampled cohort (replace-one).

The pair. One member's update is ``+x`` in one population and ``−x`` in the
other (replace-one), every other member's 0. Its encoding is ``±m`` (``m``
whole, a known sign each) on ``copies`` coordinates and 0 elsewhere: without a
rotation ``m = ⌊γS⌋`` on one coordinate (``copies = 1``); after the randomized
Hadamard rotation ``H D``, ``x = a e_1`` with ``γa = m √d'`` rotates to
``D_1 m`` on all ``d'`` coordinates, and ``x = a (e_1 + e_2)/√2`` with
``γa = u √(2d')`` to ``±2u`` on the ``d'/2`` coordinates where two columns of
``H`` agree (0 elsewhere), whatever the signs (the planner picks, in
:mod:`itsa.planning.accounting`). Either is its own rounding (to nearest or
stochastic). The statistic ``t``, the signed sum over those coordinates, is a
function of the release (undoing the rotation, a multiple of the first
released coordinate, or of the sum of the first two): it is
``X + B s`` against ``X − B s``, ``s = m · copies``, ``X`` the sum of
``copies · n`` discrete Gaussians ``N_Z(0, σ²)`` (``n`` survivors' shares),
``B`` whether the member is in the cohort.

The cohort. Given its count ``k`` (a fixed size, or a Poisson count of law
``Bin(N, q)``), ``B ~ Bernoulli(k/N)`` and, in the deployment's dropout,
exactly ``n_k = ⌈(1 − dropout) k⌉`` survive, the member among them. The bit
``[t ≥ c]`` of a round is ``Bernoulli(a)`` against ``Bernoulli(b)``,
``a = Σ_k P(k)[(k/N) F_k(c − s) + (1 − k/N) F_k(c)]``,
``b = Σ_k P(k)[(k/N) F_k(c + s) + (1 − k/N) F_k(c)]``, ``F_k(x) = P(X ≥ x)``;
the counts outside a window of the binomial (the mean ± :data:`WINDOW` standard deviations, at most
:data:`MOST_COUNTS` counts), and the empty cohort, enter as ``[0, P(K ∉ window)]``.
The ``T`` rounds' count of bits is then tested as in
:mod:`itsa.privacy.sampled_lower` (:func:`~itsa.privacy.sampled_lower.bernoulli_lower`).

``F`` is certified from the sum's law: ``|P(X = y) − e^(−y²/(2V))/(θ^N' √(2πV))| ≤ E``
(:func:`itsa.privacy.lattice.sum_error`, ``V = N' σ²``, ``N'`` the shares summed), the
Gaussian's sum over ``[c, M]`` enclosed by :func:`itsa.privacy.pld.gauss_sum`,
``E`` counted on every integer of ``[c, M]``, and ``P(X > M) ≤ 2 e^(−M²/(2V))``
(a sum of discrete Gaussians is ``V``-sub-Gaussian: :func:`itsa.privacy.tails.subgaussian_tail`).
The proof is in the privacy page of the docs.

Examples
--------
>>> from fractions import Fraction
>>> from itsa.privacy.sampled_cohort import fixed_cohort
>>> low = cohort_lower(sigma=3, shift=20, copies=1, cohort=fixed_cohort(population=10, size=2), rounds=5,
...                    delta=Fraction(1, 10**5))
>>> low.upper() > 1, str(low.direction)
(True, 'lower bound')
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import dropout_fraction, fraction, whole_number
from itsa.privacy.conversion import check_delta
from itsa.privacy.lattice import sum_error, theta
from itsa.privacy.pld import gauss_sum
from itsa.privacy.sampled_cohort import Cohort
from itsa.privacy.sampled_lower import BITS, THRESHOLDS, _float_log_counts, bernoulli_lower, binomial_tail
from itsa.privacy.shares import survivors_under
from itsa.privacy.tails import subgaussian_tail

__all__ = ["cohort_lower", "share_sum_tail", "METHOD", "WINDOW", "MOST_COUNTS"]

#: The Poisson counts summed one by one: the mean ± this many standard deviations (the rest in an interval).
WINDOW = 5
#: Most counts summed one by one (a wider window keeps this many around the mean, the rest in the interval).
MOST_COUNTS = 1200
#: Standard deviations of the sum past the threshold summed before the sub-Gaussian tail takes over.
REACH = 45

METHOD = ("a threshold test on one member's update +-a e_1 (replace-one, every other 0, its own rounding; after a "
          "Hadamard rotation the sum of the rotated coordinates), the cohort's count mixed exactly (binomial weights "
          "in balls, the counts beyond a window as an interval), the sum of shares' tails enclosed (Gaussian "
          "expression within the sum error, sub-Gaussian beyond), the rounds' count of bits against its binomial "
          "tails: a lower bound")


def share_sum_tail(x: int, *, sigma, shares: int) -> flint.arb:
    """``P(X ≥ x)`` for ``X`` the sum of ``shares`` independent ``N_Z(0, σ²)``, a ball.

    >>> ball = share_sum_tail(0, sigma=5, shares=1)      # 1/2 + P(X = 0)/2
    >>> 0.538 < float(ball.lower()) and float(ball.upper()) < 0.542
    True
    """
    s = fraction("sigma", sigma, low=0)
    n = whole_number("shares", shares, minimum=1)
    c = int(x)
    with precision(BITS):
        one = to_arb(s * s)
        var = one * n
        norm = 1 / (theta(one) ** n * (2 * flint.arb.pi() * var).sqrt())
        error = sum_error(one, n)
        top = max(c, 0) + REACH * (math.isqrt(int(float(var.upper())) + 1) + 1)
        lo, hi = gauss_sum(c, top, 0, var)
        count = top - c + 1
        beyond = subgaussian_tail(top, var)           # P(X > M) <= P(|X| >= M): the sub-Gaussian tail's home
        low = (norm * lo - error * count).lower()
        high = (norm * hi + error * count + beyond).upper()
        low = max(low, flint.arb(0).lower())
        high = min(high, flint.arb(1).upper())
        return flint.arb.union(flint.arb(low), flint.arb(high))


def _weights(cohort: Cohort) -> tuple[list[tuple[int, flint.arb]], flint.arb]:
    """``[(k, P(K = k))]`` over the window and ``P(K ∉ window)`` (an upper bound), balls."""
    n = cohort.population
    if cohort.sampling == "fixed":
        return [(cohort.expected, flint.arb(1))], flint.arb(0)
    q = Fraction(cohort.expected, n)
    if q == 1:                      # every member, every round: the count is n
        return [(n, flint.arb(1))], flint.arb(0)
    sd = math.sqrt(n * float(q) * (1 - float(q)))
    half = min(WINDOW * sd, MOST_COUNTS / 2)
    lo = max(0, math.floor(cohort.expected - half))
    hi = min(n, math.ceil(cohort.expected + half))
    with precision(BITS):
        p, logs = to_arb(q), None
        logs = (p.log(), (1 - p).log(), flint.arb(n + 1).lgamma())
        out = [(k, (logs[2] - flint.arb(k + 1).lgamma() - flint.arb(n - k + 1).lgamma() + k * logs[0]
                    + (n - k) * logs[1]).exp()) for k in range(max(lo, 1), hi + 1)]
        outside = flint.arb(0)
        if lo > 0:
            outside += binomial_tail(n, p, lo - 1, False)
        else:                       # the empty cohort (nothing released) is outside the window too
            outside += (n * (-p).log1p()).exp()
        if hi < n:
            outside += binomial_tail(n, p, hi + 1, True)
    return out, flint.arb(outside.upper())


def _choose(sigma: float, shift: int, rate: float, rounds: int, delta: float) -> tuple[int, int]:
    """Floats: the threshold ``c`` and count ``m`` of the largest float ε (the continuous Gaussian's tails)."""
    from scipy.special import gammaln  # scipy.special loads slowly: only the lower bound needs it

    j = np.arange(rounds + 1)
    log_choose = gammaln(rounds + 1) - gammaln(j + 1) - gammaln(rounds - j + 1)
    best = (-np.inf, 0, 0)
    for t in np.concatenate([THRESHOLDS, THRESHOLDS + 0.1]):
        c = round(t * sigma)
        f0, fm, fp = (math.erfc((c - 0.5 - x) / (sigma * math.sqrt(2))) / 2 for x in (0, shift, -shift))
        a, b = rate * fm + (1 - rate) * f0, rate * fp + (1 - rate) * f0
        if not (0 < b < a < 1):
            continue
        top = min(rounds, math.ceil(rounds * a + 40 * math.sqrt(rounds * a) + 100))
        part = log_choose[:top + 1]
        lp, lq = _float_log_counts(part, a, True, rounds), _float_log_counts(part, b, True, rounds)
        with np.errstate(invalid="ignore", divide="ignore"):
            eps = np.log(np.maximum(np.exp(lp) - delta, 0)) - lq
        eps = np.where(np.isfinite(eps), eps, -np.inf)
        m = int(np.argmax(eps))
        if eps[m] > best[0]:
            best = (float(eps[m]), c, m)
    return best[1], best[2]


def cohort_lower(*, sigma, shift: int, copies: int, cohort: Cohort, rounds: int, delta, dropout=0) -> Certified:
    """A certified lower bound on the ε at ``δ`` of ``T`` rounds of distributed shares over ``cohort`` (the
    module's notes).

    Parameters
    ----------
    sigma : number
        σ of one share (integer units).
    shift : int
        ``m ≥ 1``: the member's encoded value on each of its ``copies`` coordinates.
    copies : int
        The coordinates carrying it (1 without a rotation, ``d'`` after the Hadamard rotation).
    cohort : Cohort
        How a round's cohort is drawn.
    rounds : int
        ``T``.
    delta : number
        δ in ``(0, 1)``.
    dropout : number
        The fraction of a cohort that may drop out (the survivors are ``⌈(1 − dropout) k⌉``).

    Returns
    -------
    Certified
        A lower bound (0 where no test beats δ).
    """
    s = fraction("sigma", sigma, low=0)
    m = whole_number("shift", shift, minimum=1)
    r = whole_number("copies", copies, minimum=1)
    T = whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta)
    f = dropout_fraction(dropout)
    total = m * r
    middle = r * survivors_under(cohort.expected, f)
    c, count = _choose(float(s) * math.sqrt(middle), total, cohort.expected / cohort.population, T, float(d))
    weights, outside = _weights(cohort)
    with precision(BITS):
        a = b = flint.arb(0)
        for k, w in weights:
            n = r * survivors_under(k, f)
            f0, fm, fp = (share_sum_tail(x, sigma=s, shares=n) for x in (c, c - total, c + total))
            g = to_arb(Fraction(k, cohort.population))
            a += w * (g * fm + (1 - g) * f0)
            b += w * (g * fp + (1 - g) * f0)
        a = flint.arb.union(a, a + outside)
        b = flint.arb.union(b, b + outside)
    best = Fraction(0)
    for m_count in (count - 1, count, count + 1):
        if m_count >= 1:
            best = max(best, bernoulli_lower(a=a, b=b, rounds=T, delta=d, count=m_count, upper_tail=True))
    return Certified("epsilon", best, best, Direction.LOWER, METHOD)
