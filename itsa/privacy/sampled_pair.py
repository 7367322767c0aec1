"""The Poisson-sampled Gaussian pair, through its certified privacy-loss distribution.

A round dominated by the Gaussian pair ``N(μ, 1)`` against ``N(0, 1)`` (in
both orders: a symmetric pair), run on a Poisson sample of rate ``q`` with
add-remove neighbours, is dominated by

- **remove**: ``P = (1 − q) N(0, 1) + q N(μ, 1)`` against ``Q = N(0, 1)``,
- **add**: ``P = N(0, 1)`` against ``Q = (1 − q) N(0, 1) + q N(μ, 1)``

(as in Zhu, Dong, Wang, "Optimal accounting of differential privacy via
characteristic function", AISTATS 2022; a self-contained proof through
the hockey-stick divergences is in the privacy page of the docs). A fixed pair of neighbouring datasets is the same order in
every round, so ``T`` rounds have ``δ(ε) ≤ max(δ_remove^T(ε), δ_add^T(ε))``,
each the ``T``-fold product of its pair (Zhu, Dong, Wang, Thm 10).

Both pairs' losses are monotone in ``x``: ``L(x) = ± ln(1 − q + q e^(μx − μ²/2))``.
A bin of losses ``(jh, (j + 1)h]`` is an interval of ``x`` whose ends are
``x(l) = (ln((e^l − (1 − q))/q) + μ²/2)/μ``; its ``P``- and ``Q``-masses
are differences of the normal distribution function, in balls (``erfc``
of the nearer tail: no cancellation). They go through
:mod:`itsa.privacy.pld_grid` (connect the dots, masses rounded up, the
rounds composed in integers), whose curve is an upper bound of the pair's;
the mass beyond the last bin is put at loss ``+∞`` (upper side), the mass
below the first moved up to it. :func:`sampled_gaussian_epsilon` returns the
least ``ε`` with ``max(δ_remove^T(ε), δ_add^T(ε)) + slack ≤ δ``.

The grid's step is a power of two near a 20th of the loss's standard
deviation (at most :data:`MAX_BINS` bins): the dots' error is of the order
of ``h²`` per round relative to the loss's variance, so it does not grow
with ``T``. The lower side (losses moved down, masses rounded down, tails
dropped) brackets the pair's ε from below; its error grows by up to a
step per round, so it needs a finer grid (``resolution``) to be tight.

Examples
--------
>>> from fractions import Fraction
>>> up = sampled_gaussian_epsilon(mu="0.5", rate=Fraction(1, 20), rounds=300, delta=Fraction(1, 10**6))
>>> low = sampled_gaussian_epsilon(mu="0.5", rate=Fraction(1, 20), rounds=300, delta=Fraction(1, 10**6),
...                                side="lower", resolution=100)
>>> low.upper() <= up.upper() <= low.upper() * Fraction(102, 100), up.decimal(4), str(up.direction)
(True, '2.203', 'upper bound')
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.conversion import check_delta
from itsa.privacy.pld_grid import LOWER, SIDES, UPPER, GridPld, convolve, grid_from_bins, working_bits

__all__ = ["sampled_gaussian_grid", "sampled_gaussian_delta", "sampled_gaussian_epsilon", "grid_setup", "loss_bins", "pair_inputs",
           "ORDERS", "MAX_BINS",
           "RESOLUTION", "METHOD"]

#: The two orders of the pair (which dataset has the extra record).
ORDERS = ("remove", "add")
#: Most bins of one round's grid (the step is raised to keep below).
MAX_BINS = 1 << 13
#: The step is the largest power of two at most the loss's standard deviation over this.
RESOLUTION = 20
#: Extra bits of the masses' unit beyond ``log2(1/δ)``.
UNIT_BITS = 48
#: ``log2`` of the share of δ the tails and the trimming may take, at most.
TAIL_BITS = 20

METHOD = ("the Poisson-sampled Gaussian pair (1-q) N(0,1) + q N(mu,1) against N(0,1), both orders (Zhu-Dong-Wang "
          "2022), through its privacy-loss distribution on a grid: connect-the-dots bins (Doroshenko et al. "
          "2022) with masses enclosed in balls and rounded up, the rounds composed exactly as integer polynomials, "
          "tails to loss +inf: an upper bound")
LOWER_METHOD = ("the Poisson-sampled Gaussian pair's privacy-loss distribution on a grid, losses moved down and "
                "masses rounded down: a lower bound on the pair's epsilon")


def _nearer(x: flint.arb) -> tuple[flint.arb, bool]:
    """``(t, below)``: ``Φ(x) = t`` when ``below`` (``x`` at most 0), else ``1 − t``; ``t`` the smaller tail."""
    below = float(x.mid()) <= 0
    t = (abs(x) / flint.arb(2).sqrt()).erfc() / 2
    return t, below


class _Cdf:
    """``Φ`` at a point, carried as its nearer tail (differences of two such are computed without cancellation)."""

    def __init__(self, x: flint.arb | None, sign: int = 0):
        if x is None:           # sign -1: -inf; +1: +inf
            self.t, self.below = flint.arb(0), sign < 0
        else:
            self.t, self.below = _nearer(x)

    def minus(self, other: _Cdf) -> flint.arb:
        """``Φ(self) − Φ(other)`` (``self ≥ other``)."""
        if self.below and other.below:
            return self.t - other.t
        if not self.below and not other.below:
            return other.t - self.t
        if not self.below and other.below:
            return 1 - self.t - other.t
        return self.t - 1 + other.t          # self below, other above: only inside a ball's width


def _edge(level: flint.arb, mu: flint.arb, rate: flint.arb) -> flint.arb | None:
    """``x`` with ``1 − q + q e^(μx − μ²/2) = level`` (``None``: no such ``x``, the level is at most ``1 − q``)."""
    room = level - (1 - rate)
    if not room > 0:
        return None
    return ((room / rate).log() + mu * mu / 2) / mu


def _floats(mu: float, rate: float, span: float) -> tuple[float, float, float]:
    """``(low, high, sd)`` of the remove order's loss over ``x ∈ [−span, μ + span]`` and its standard deviation
    under ``P`` (floats: they choose the grid, never a bound)."""
    import numpy as np

    x = np.linspace(-span, mu + span, 4001)
    with np.errstate(divide="ignore"):
        loss = np.logaddexp(np.log1p(-rate), math.log(rate) + mu * x - mu * mu / 2)
    w = (1 - rate) * np.exp(-x * x / 2) + rate * np.exp(-((x - mu) ** 2) / 2)
    w = w / w.sum()
    mean = float((w * loss).sum())
    sd = float(np.sqrt(max(float((w * (loss - mean) ** 2).sum()), 0.0)))
    return float(loss[0]), float(loss[-1]), sd


def _plan(mu: Fraction, rate: Fraction, tail_log: float, resolution: int) -> tuple[Fraction, int, int]:
    """The step ``h`` and the bins' range ``[j_lo, j_hi]`` (of the remove order's loss) for a tail ``e^(−tail_log)``."""
    span = math.sqrt(2 * tail_log) + 1
    low, high, sd = _floats(float(mu), float(rate), span)
    width = max(high - low, 2.0**-40)
    target = min(max(sd / resolution, width / (MAX_BINS * resolution // RESOLUTION), 2.0**-40), 1.0)
    step = Fraction(1, 2 ** -math.floor(math.log2(target)))
    h = float(step)
    return step, math.floor(low / h) - 1, math.ceil(high / h) + 1


def sampled_gaussian_grid(*, mu, rate, order: str, step, first: int, last: int, bits: int,
                          side: str = UPPER) -> GridPld:
    """One round's grid law of the sampled Gaussian pair in ``order``, losses of the remove order in bins
    ``first..last`` (the add order's are their negatives).

    Parameters
    ----------
    mu, rate : number
        ``μ > 0`` and ``q ∈ (0, 1]``, read exactly.
    order : str
        ``"remove"`` or ``"add"``.
    step : Fraction
        ``h``, a power of two.
    first, last : int
        The bins of the remove order's losses ``(jh, (j + 1)h]`` kept, ``first ≤ j < last``; beyond, the mass
        goes to the nearest kept loss on the safe side (upper: up, ``+∞`` past the top; lower: down, or dropped).
    bits : int
        The masses' unit ``2^(−bits)``.
    side : str
        ``"upper"`` or ``"lower"``.
    """
    return _grid(fraction("mu", mu, low=0), fraction("sampling rate", rate, low=0, high=1, closed=True),
                 choice("order", order, ORDERS), fraction("step", step, low=0), int(first), int(last),
                 whole_number("bits", bits, minimum=8), choice("side", side, SIDES))


@lru_cache(maxsize=64)
def _grid(mu: Fraction, rate: Fraction, order: str, step: Fraction, first: int, last: int, bits: int,
          side: str) -> GridPld:
    bins, beyond = _bins(mu, rate, step, first, last, bits)
    j0, above0, above1, below0, below1 = beyond
    with precision(working_bits(bits, step)):
        q = to_arb(rate)
        if order == "remove":
            chosen = [(j, (1 - q) * f0 + q * f1, f0) for j, f0, f1 in bins]
            above, below = (1 - q) * above0 + q * above1, (1 - q) * below0 + q * below1
            high, low = last, j0            # the kept losses' ends (grid indices)
        else:                               # add: the loss is the negative, the bin (-(j+1)h, -jh]
            chosen = [(-j - 1, f0, (1 - q) * f0 + q * f1) for j, f0, f1 in bins]
            above, below = below0, above0   # the top of its losses is the bottom of x
            high, low = -j0, -last
    if side == UPPER:                       # beyond the top to +inf, below the bottom up to it
        return grid_from_bins(chosen, step=step, bits=bits, side=side, points=[(low, below)], infinity=above)
    return grid_from_bins(chosen, step=step, bits=bits, side=side, points=[(high, above)])


@lru_cache(maxsize=16)
def _bins(mu: Fraction, rate: Fraction, step: Fraction, first: int, last: int, bits: int
          ) -> tuple[list[tuple[int, flint.arb, flint.arb]], tuple]:
    """The remove order's bins ``(j, F₀, F₁)``, ``F_i`` the masses of ``N(0, 1)`` and ``N(μ, 1)`` on the ``x``
    of losses ``(jh, (j + 1)h]``, and ``(j₀, F₀, F₁ above the last edge, F₀, F₁ below the first)`` (both orders
    read them)."""
    with precision(working_bits(bits, step)):
        m, q, h = to_arb(mu), to_arb(rate), to_arb(step)
        j0 = first if rate == 1 else max(first, math.floor(math.log1p(-float(rate)) / float(step)) - 1)
        # the edges x_j of the remove order's losses j h, j = j0..last; None: -inf
        edges: list[flint.arb | None] = [_edge((j * h).exp(), m, q) for j in range(j0, last + 1)]
        cdf0 = [_Cdf(x, -1) for x in edges]
        cdf1 = [_Cdf(None if x is None else x - m, -1) for x in edges]
        bins = [(j0 + i, cdf0[i + 1].minus(cdf0[i]), cdf1[i + 1].minus(cdf1[i])) for i in range(len(edges) - 1)]
        start, end = _Cdf(None, -1), _Cdf(None, 1)
        beyond = (j0, end.minus(cdf0[-1]), end.minus(cdf1[-1]), cdf0[0].minus(start), cdf1[0].minus(start))
    return bins, beyond


def _setup(mu: Fraction, rate: Fraction, rounds: int, delta: Fraction, resolution: int = RESOLUTION
           ) -> tuple[Fraction, int, int, int, int]:
    """``(step, first, last, bits, budget)`` for ``rounds`` rounds at ``δ``: the tails and the trimming take at
    most about ``δ 2^(−TAIL_BITS)`` in all (they set the tightness only)."""
    scale = max(0, (rounds - 1).bit_length())              # log2 of the rounds rounded up to a power of two
    inverse = delta.denominator.bit_length() - delta.numerator.bit_length() + 1      # >= log2(1/delta)
    tail_log = (inverse + TAIL_BITS + 2 + scale) * math.log(2)
    step, first, last = _plan(mu, rate, tail_log, resolution)
    bits = inverse + UNIT_BITS
    budget = 1 << max(0, bits - inverse - TAIL_BITS - 2 - (2 * scale + 1).bit_length())
    return step, first, last, bits, budget


#: ``(step, first, last, bits, budget)`` of the grid for ``T`` rounds at ``δ`` (shared with the fixed-size cohort's
#: pair, :mod:`itsa.privacy.sampled_fixed`).
grid_setup = _setup
#: The remove order's bins ``(j, F₀, F₁)`` and the masses beyond (shared likewise).
loss_bins = _bins


@lru_cache(maxsize=32)
def _composed(mu: Fraction, rate: Fraction, rounds: int, delta: Fraction, order: str, side: str,
              resolution: int = RESOLUTION) -> GridPld:
    """``rounds`` rounds of the pair in ``order``: the product of the one round's squarings (:func:`_ladder`)."""
    step, first, last, bits, budget = _setup(mu, rate, rounds, delta, resolution)
    ladder = _ladder(mu, rate, order, step, first, last, bits, side, budget)
    result: GridPld | None = None
    k = 0
    while rounds >> k:
        while len(ladder) <= k:
            ladder.append(convolve(ladder[-1], ladder[-1], budget=budget))
        if rounds >> k & 1:
            result = ladder[k] if result is None else convolve(result, ladder[k], budget=budget)
        k += 1
    assert result is not None
    return result


@lru_cache(maxsize=16)
def _ladder(mu: Fraction, rate: Fraction, order: str, step: Fraction, first: int, last: int, bits: int, side: str,
            budget: int) -> list[GridPld]:
    """The one round's grid law and its repeated squares (extended as asked: a count of rounds in the same power
    of two reuses them)."""
    return [_grid(mu, rate, order, step, first, last, bits, side)]


def pair_inputs(mu, rate, rounds: int, delta, slack, what: str = "sampled Gaussian pair"
                ) -> tuple[Fraction, Fraction, int, Fraction]:
    """``(μ, rate, T, δ − slack)`` of a sampled Gaussian pair, each read exactly and checked (one line naming
    ``what`` when the slack takes the whole ``δ``)."""
    m = fraction("mu", mu, low=0)
    q = fraction("sampling rate", rate, low=0, high=1, closed=True)
    if q == 0:
        raise InvalidOption("sampling rate: must be > 0")
    t = whole_number("rounds", rounds, minimum=1)
    d = check_delta(delta) - fraction("slack", slack, low=0, closed=True)
    if not d > 0:
        raise InvalidOption(f"{what}: the slack takes the whole delta")
    return m, q, t, d


def sampled_gaussian_delta(*, mu, rate, rounds: int, epsilon, delta_hint="1e-6", side: str = UPPER,
                           resolution: int = RESOLUTION) -> Fraction:
    """``max(δ_remove^T(ε), δ_add^T(ε))`` of the sampled Gaussian pair, from ``side`` (exact, rounded outward).

    ``delta_hint`` sets the grid's unit and tails (the δ of interest); ``resolution`` as in
    :func:`sampled_gaussian_epsilon`.

    >>> d = sampled_gaussian_delta(mu=1, rate=1, rounds=1, epsilon=1)      # unsampled: the Gaussian's exact curve
    >>> abs(float(d) - 0.12693673750664397) < 1e-4
    True
    """
    m, q, t, d = pair_inputs(mu, rate, rounds, delta_hint, 0)
    side = choice("side", side, SIDES)
    eps = fraction("epsilon", epsilon)
    res = whole_number("resolution", resolution, minimum=1)
    values = [_composed(m, q, t, d, order, side, res).delta(eps) for order in ORDERS]
    return max(values)


def sampled_gaussian_epsilon(*, mu, rate, rounds: int, delta, slack=0, side: str = UPPER,
                             resolution: int = RESOLUTION) -> Certified | None:
    """The ε at ``δ`` of ``rounds`` rounds of the Poisson-sampled Gaussian pair, from ``side``.

    Parameters
    ----------
    mu : number
        ``μ``: the pair's shift over its standard deviation (``1/z``), read exactly.
    rate : number
        ``q ∈ (0, 1]``.
    rounds : int
        ``T``.
    delta : number
        ``δ`` in ``(0, 1)``.
    slack : number
        Added to both orders' curves (a dominating pair's ``T δ₀``): the ε is at ``δ − slack``.
    side : str
        ``"upper"``: the least ε certified (an upper bound); ``"lower"``: no valid ε of the pair is below it.
    resolution : int
        The grid's step is about the loss's standard deviation over this (:data:`RESOLUTION`); the lower
        side's losses move down by up to a step each round, so a tight lower bound over many rounds needs a
        finer grid than the upper side (whose error is of the order of the step squared).

    Returns
    -------
    Certified or None
        ``None`` where the upper side's mass at ``+∞`` alone exceeds ``δ`` (no ε found).
    """
    m, q, t, d = pair_inputs(mu, rate, rounds, delta, slack)
    side = choice("side", side, SIDES)
    res = whole_number("resolution", resolution, minimum=1)
    found = []
    for order in ORDERS:
        eps = _composed(m, q, t, d, order, side, res).epsilon(d)
        if eps is None:
            return None
        found.append(eps)
    eps = max(found)
    if side == LOWER:
        return Certified("epsilon", eps, eps, Direction.LOWER, LOWER_METHOD)
    note = "" if not slack else f"; at delta - {safe_decimal(fraction('slack', slack), 3)} (the pair's slack)"
    return Certified("epsilon", eps, eps, Direction.UPPER, METHOD + note)
