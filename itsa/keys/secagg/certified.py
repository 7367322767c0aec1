"""The SecAgg+ finder's bounds in exact and certified arithmetic, and its search redone on them.

The finder (:mod:`itsa.keys.secagg.finder`) decides in doubles. Here every
quantity it compares is computed as an exact rational (for at most
:data:`EXACT_LIMIT` clients) or as an arb ball (beyond, widened until the
comparison is decided; an exact sum settles a ball that cannot):

- the union bound on the graph of honest survivors disconnecting,
  ``D(k) = n (n - k - 1) / 2 * B! (n - k)! / (n! (B - k)!)``, ``B`` the corrupt
  plus dropped clients;
- the upper tail of the corrupt neighbours ``X ~ Hyp(n, A, k)`` and the lower
  tail of the surviving neighbours ``Z ~ Hyp(n, n - D, k)``.

The counts are exact: ``A = floor(γ n)``, ``D = floor(δ n)``, with ``γ`` and
``δ`` read as rationals (the finder adds ``1e-14`` before rounding).

Examples
--------
>>> from fractions import Fraction
>>> certified_parameters(1000, Fraction(1, 20), Fraction(1, 20), "semi-honest")
(30, 17)
>>> hypergeometric_tail(10, 3, 4, 2, upper=True)
Fraction(1, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import flint

from itsa._util.certified import arb_to_fractions, precision, to_arb
from itsa.exceptions import Infeasible
from itsa.keys.secagg.finder import CORRECTNESS_PARAMETER, SECURITY_PARAMETER, Adversary, Hypergeometric

__all__ = ["EXACT_LIMIT", "Counts", "counts", "hypergeometric_tail", "tail_interval", "disconnection_interval",
           "security_event", "threshold_for", "degree_passes", "correct", "below", "exact_disconnection", "certified_parameters", "SECURITY_TARGET",
           "CORRECTNESS_TARGET", "PER_EVENT"]

#: Up to this many clients every tail is an exact rational; beyond, an arb ball.
EXACT_LIMIT = 5_000
#: The finder's targets: privacy fails with probability below 2^-40, reconstruction below 2^-20.
SECURITY_TARGET = Fraction(1, 2**SECURITY_PARAMETER)
CORRECTNESS_TARGET = Fraction(1, 2**CORRECTNESS_PARAMETER)
#: Each of the two bad events of security gets half the budget: 2^-41.
PER_EVENT = Fraction(1, 2 ** (SECURITY_PARAMETER + 1))
#: Working precisions tried in turn before an exact sum (bits).
_PRECISIONS = (96, 256, 1024)

Interval = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class Counts:
    """The exact counts of the threat model: ``clients`` of which ``corrupt`` and ``dropped``."""

    clients: int
    corrupt: int
    dropped: int

    @property
    def surviving(self) -> int:
        return self.clients - self.dropped

    @property
    def bad(self) -> int:
        return self.corrupt + self.dropped


def counts(clients: int, corrupt: Fraction, dropout: Fraction) -> Counts:
    """``A = floor(γ n)`` corrupt and ``D = floor(δ n)`` dropped clients, exactly."""
    return Counts(clients, math.floor(corrupt * clients), math.floor(dropout * clients))


def _support(total: int, marked: int, sampled: int) -> tuple[int, int]:
    return max(0, sampled - (total - marked)), min(sampled, marked)


def hypergeometric_tail(total: int, marked: int, sampled: int, x: int, upper: bool) -> Fraction:
    """``Pr[X >= x]`` (``upper``) or ``Pr[X <= x]`` of ``X ~ Hyp(total, marked, sampled)``, exactly."""
    lo, hi = _support(total, marked, sampled)
    first, last = (max(x, lo), hi) if upper else (lo, min(x, hi))
    if first > last:
        return Fraction(0)
    term = math.comb(marked, first) * math.comb(total - marked, sampled - first)
    acc = 0
    for j in range(first, last + 1):
        acc += term
        if j < last:        # Pr[j+1]/Pr[j] = (K-j)(s-j) / ((j+1)(N-K-s+j+1)), an exact integer step
            term = term * (marked - j) * (sampled - j) // ((j + 1) * (total - marked - sampled + j + 1))
    return Fraction(acc, math.comb(total, sampled))


def _log_pmf(total: int, marked: int, sampled: int, x: int) -> flint.arb:
    g = flint.arb.lgamma
    return (g(flint.arb(marked + 1)) - g(flint.arb(x + 1)) - g(flint.arb(marked - x + 1))
            + g(flint.arb(total - marked + 1)) - g(flint.arb(sampled - x + 1))
            - g(flint.arb(total - marked - sampled + x + 1))
            - g(flint.arb(total + 1)) + g(flint.arb(sampled + 1)) + g(flint.arb(total - sampled + 1)))


def _tail_ball(total: int, marked: int, sampled: int, x: int, upper: bool, tolerance: int,
               beyond: flint.arb | None = None) -> flint.arb:
    """The tail summed away from the mode, the rest bounded geometrically (the pmf is log-concave).

    The sum stops once the bound on the rest is below ``2^-tolerance`` of it,
    or (with ``beyond``) once the partial sum alone exceeds ``beyond``.
    """
    lo, hi = _support(total, marked, sampled)
    if upper and x <= lo or not upper and x >= hi:
        return flint.arb(1)
    if upper and x > hi or not upper and x < lo:
        return flint.arb(0)
    mode = (sampled + 1) * (marked + 1) // (total + 2)
    if upper and x <= mode:
        return 1 - _tail_ball(total, marked, sampled, x - 1, False, tolerance)
    if not upper and x >= mode:
        return 1 - _tail_ball(total, marked, sampled, x + 1, True, tolerance)
    a = flint.arb
    term = _log_pmf(total, marked, sampled, x).exp()
    acc, j = flint.arb(0), x
    small = flint.arb(2) ** -tolerance
    while True:
        acc += term
        if (upper and j == hi) or (not upper and j == lo) or (beyond is not None and acc > beyond):
            return acc
        if upper:
            ratio = a((marked - j) * (sampled - j)) / a((j + 1) * (total - marked - sampled + j + 1))
        else:
            ratio = a(j * (total - marked - sampled + j)) / a((marked - j + 1) * (sampled - j + 1))
        if ratio < 1:
            rest = term * ratio / (1 - ratio)       # every later ratio is smaller: a geometric bound
            if rest < small * acc:
                return acc + flint.arb(0).union(rest)
        term *= ratio
        j += 1 if upper else -1


def tail_interval(total: int, marked: int, sampled: int, x: int, upper: bool, bits: int | None = None,
                  beyond: Fraction | None = None) -> Interval:
    """The tail as an interval of Fractions: a point when exact (at most :data:`EXACT_LIMIT`), else a ball's ends.

    With ``beyond``, a ball's sum may stop as soon as it exceeds that number (its upper end is then not tight).
    """
    if bits is None:
        if total <= EXACT_LIMIT:
            value = hypergeometric_tail(total, marked, sampled, x, upper)
            return value, value
        bits = _PRECISIONS[0]
    with precision(bits):
        stop = None if beyond is None else to_arb(beyond)
        return arb_to_fractions(_tail_ball(total, marked, sampled, x, upper, bits // 3, stop))


def disconnection_interval(clients: int, degree: int, bad: int, bits: int | None = None) -> Interval:
    """``D(k)``: the finder's union bound on the graph disconnecting, exactly or as a ball's ends."""
    if degree > bad or degree >= clients - 1:
        return Fraction(0), Fraction(0)
    pairs = Fraction(clients * (clients - degree - 1), 2)
    if bits is None and clients <= EXACT_LIMIT:
        value = pairs * Fraction(math.perm(bad, degree), math.perm(clients, degree))
        return value, value
    g = flint.arb.lgamma
    with precision(bits or _PRECISIONS[0]):
        log_ratio = g(flint.arb(bad + 1)) + g(flint.arb(clients - degree + 1)) - g(flint.arb(clients + 1)) - g(
            flint.arb(bad - degree + 1))
        return arb_to_fractions(to_arb(pairs) * log_ratio.exp())


def below(interval_at: Callable[[int | None], Interval], target: Fraction, exact: Callable[[], Fraction]) -> bool:
    """Whether the quantity is ``< target``, decided: a first interval, wider precisions, then the exact value."""
    low, high = interval_at(None)
    if high < target:
        return True
    if low >= target:
        return False
    for bits in _PRECISIONS[1:]:
        low, high = interval_at(bits)
        if high < target:
            return True
        if low >= target:
            return False
    return exact() < target


def _tail_below(c_total: int, marked: int, sampled: int, x: int, upper: bool, target: Fraction) -> bool:
    return below(lambda bits: tail_interval(c_total, marked, sampled, x, upper, bits, beyond=target), target,
                 lambda: hypergeometric_tail(c_total, marked, sampled, x, upper))


def security_event(threshold: int, degree: int, adversary: Adversary) -> int:
    """How many corrupt neighbours break a client's privacy: ``t``, or ``2t - k`` for a semi-malicious server."""
    return 2 * threshold - degree if adversary is Adversary.SEMI_MALICIOUS else threshold


def threshold_for(c: Counts, degree: int, adversary: Adversary) -> int:
    """The finder's threshold rule, decided exactly: the smallest ``t`` with ``n Pr[X >= event(t)] < 2^-41``.

    Semi-honest (and none): ``t = t1 + 1`` with ``t1 = min{t : Pr[X > t] < 2^-41/n}``; semi-malicious:
    the smallest ``t`` with ``2t - k > t1``.
    """
    q = PER_EVENT / c.clients
    guess = int(Hypergeometric(c.clients, c.corrupt, degree).quantile(float(q), True))   # a start, then decided
    t1 = min(max(guess, 0), degree)

    def passes(t: int) -> bool:             # Pr[X > t] < q
        return _tail_below(c.clients, c.corrupt, degree, t + 1, True, q)

    while t1 > 0 and passes(t1 - 1):
        t1 -= 1
    while not passes(t1):
        t1 += 1
    if adversary is Adversary.SEMI_MALICIOUS:
        return (t1 + degree + 2) // 2        # the smallest t with 2t - k >= t1 + 1
    return t1 + 1


def correct(c: Counts, degree: int, threshold: int) -> bool:
    """``Pr[Z <= t - 1] < 2^-20 / n`` for the surviving neighbours ``Z ~ Hyp(n, n - D, k)``."""
    return _tail_below(c.clients, c.surviving, degree, threshold - 1, False, CORRECTNESS_TARGET / c.clients)


def degree_passes(c: Counts, degree: int, adversary: Adversary, floor_first: bool = False) -> int | None:
    """The threshold at ``degree`` if it passes both tests in exact arithmetic, else ``None``.

    The threshold is raised to 2 (the Shamir sharing needs ``t >= 2``)
    before the correctness test; ``floor_first=False`` keeps the finder's
    order (test, then raise), which can leave a threshold that fails it.
    """
    if not below(lambda bits: disconnection_interval(c.clients, degree, c.bad, bits), PER_EVENT,
                 lambda: exact_disconnection(c, degree)):
        return None
    t = threshold_for(c, degree, adversary)
    if floor_first:
        t = max(t, 2)
    if t > degree or not correct(c, degree, t):
        return None
    return max(t, 2)


def exact_disconnection(c: Counts, degree: int) -> Fraction:
    """``D(k)`` as an exact rational (0 when ``k > B`` or for the full graph)."""
    if degree > c.bad or degree >= c.clients - 1:
        return Fraction(0)
    return Fraction(c.clients * (c.clients - degree - 1), 2) * Fraction(math.perm(c.bad, degree),
                                                                          math.perm(c.clients, degree))


def certified_parameters(clients: int, corrupt: Fraction, dropout: Fraction, adversary: Adversary | str,
                         floor_first: bool = False) -> tuple[int, int]:
    """The finder's search (``k = 2, 4, ... < n - 1``, first that passes) with every test decided exactly.

    Raises :class:`~itsa.exceptions.Infeasible` when no degree below ``n - 1`` passes.
    """
    kind = Adversary(adversary)
    c = counts(clients, Fraction(corrupt), Fraction(dropout))
    for degree in range(2, clients - 1, 2):
        t = degree_passes(c, degree, kind, floor_first)
        if t is not None:
            return degree, t
    raise Infeasible(f"no Harary graph of degree below {clients - 1} meets the targets for {clients} clients")
