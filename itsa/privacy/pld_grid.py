"""Certified numerical privacy-loss distributions: a pessimistic grid, composed exactly in integers.

A pair ``(P, Q)`` has the privacy curve ``δ(ε) = E_P[(1 − e^(ε − L))₊]``,
``L = ln(dP/dQ)`` its privacy loss (``+∞`` where ``Q`` has no mass), and
``T`` rounds of it (the product pair) the same formula with ``L`` the sum of
``T`` independent losses. :class:`GridPld` holds a distribution of losses on
the grid ``h Z`` (``h`` a power of two) plus a mass at ``+∞``, its masses
integers over ``2^bits``; on the ``upper`` side every step below only
raises ``δ(ε)`` at every ``ε``, on the ``lower`` side only lowers it:

1. **Monotone in losses and masses.** ``δ(ε)`` is an expectation over the
   product of the rounds' loss laws of ``(1 − e^(ε − Σ L_i))₊``, which is
   nondecreasing in each ``L_i`` and nonnegative: raising a loss (coupled
   pointwise) or adding mass never lowers ``δ``; lowering or removing never
   raises it.
2. **Connecting the dots** (the upper side's bins, :func:`grid_from_bins`).
   A bin whose losses lie in ``[jh, (j + 1)h]``, of ``P``-mass ``p`` and
   ``Q``-mass ``q = E_P[e^(−L); bin]``, is replaced by the two atoms ``jh``
   and ``(j + 1)h`` of masses ``w₀ + w₁ = p`` with the same
   ``E_P[e^(−L)] = q``: ``w₀ = (q e^(jh) − p e^(−h))/(1 − e^(−h))``,
   ``w₁ = (p − q e^(jh))/(1 − e^(−h))``. In ``y = e^(−L)`` this is a
   mean-preserving spread of the bin's ``y``, and ``(1 − e^ε y Π y_i)₊`` is
   convex in ``y`` for the other rounds' ``y_i`` fixed, so the composed
   ``δ`` only grows (Jensen, round by round; Doroshenko, Ghazi, Kamath,
   Kumar, Manurangsi, "Connect the dots", PETS 2022). Its error is of order
   ``h²`` per round, not ``h``: no drift over the rounds. The lower side puts
   each bin at its lower end ``jh`` (losses moved down).
3. **Rounding.** The weights are balls (ball arithmetic); the upper side
   keeps their upper ends rounded up to a unit ``2^(−bits)``, the lower side
   their lower ends rounded down (step 1).
4. **Composition** (:func:`convolve`, :func:`self_compose`): the product of
   two grid laws is the product of their integer polynomials (python-flint's
   ``fmpz_poly``, exact), the ``+∞`` mass ``a_∞ (B + b_∞) + b_∞ A``; the
   result, in units ``2^(−2 bits)``, is divided by ``2^bits`` rounding up
   (upper) or down (lower). ``T`` rounds by repeated squaring.
5. **Trimming**: after each product the ends are cut where at most
   ``budget`` units lie beyond: the upper side moves its top mass to ``+∞``
   and its bottom mass up to the lowest kept loss, the lower side its top
   mass down to the highest kept loss and drops its bottom mass (step 1).
   The budget sets the tightness only, never the soundness.
6. **δ and ε** (:meth:`GridPld.delta`, :meth:`GridPld.epsilon`): on
   ``(l_(k−1), l_k]`` the curve is ``(S₀ + m_∞ − e^ε S₁)/2^bits`` with
   ``S₀`` the integer mass of the losses ``≥ l_k`` and ``S₁ = Σ m_l e^(−l)``
   over them (one polynomial evaluated at ``e^(−h)``, in balls); ε at a δ
   is that line solved in balls, read at the side's end.

So the upper side's ``δ(ε)`` is at least the pair's true curve after ``T``
rounds, the lower side's at most it; their ε at a δ bracket the pair's.

Examples
--------
Randomized response (``P = (3/4, 1/4)``, ``Q = (1/4, 3/4)``), whose loss
``ln 3`` is off the grid, over 3 rounds: the exact ``δ(1) = 54/64 − 10e/64`` (the sums ``3 ln 3`` and
``ln 3`` are above 1) lies between the two sides.

>>> from fractions import Fraction
>>> up = self_compose(grid_from_atoms([(Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))],
...                                   step=Fraction(1, 2**10), bits=80), 3)
>>> low = self_compose(grid_from_atoms([(Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))],
...                                    step=Fraction(1, 2**10), bits=80, side="lower"), 3)
>>> exact = 54 / 64 - 10 * 2.718281828459045 / 64
>>> float(low.delta(1)) < exact, abs(float(up.delta(1)) - exact) < 1e-12   # no loss sum near 1: dots exact
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fractions import Fraction

import flint

from itsa._util.certified import precision, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.exceptions import InvalidOption

__all__ = ["GridPld", "grid_from_bins", "grid_from_atoms", "convolve", "self_compose", "SIDES", "UPPER", "LOWER",
           "EPSILON_GRAIN", "working_bits"]

UPPER, LOWER = "upper", "lower"
#: The two sides: ``upper`` (pessimistic: δ only raised) and ``lower`` (optimistic: δ only lowered).
SIDES = (UPPER, LOWER)
#: An ε is given as a multiple of this (rounded outward).
EPSILON_GRAIN = Fraction(1, 2**60)
#: Extra working bits of the balls beyond the masses' units (and beyond ``log2(1/h)``, which the dots divide by).
GUARD_BITS = 24


def working_bits(bits: int, step: Fraction) -> int:
    """The balls' working precision for masses in units ``2^(−bits)`` on a grid of step ``h``."""
    return bits + GUARD_BITS + Fraction(step).denominator.bit_length()


def _units(x: flint.arb, bits: int, up: bool) -> int:
    """``x · 2^bits`` rounded up from its ball's upper end (``up``) or down from its lower end; never below 0."""
    end = (x * 2**bits).upper() if up else (x * 2**bits).lower()
    man, exp = (int(v) for v in end.man_exp())
    value = man << exp if exp >= 0 else (-((-man) >> -exp) if up else man >> -exp)
    return max(value, 0)


def _shift_down(value, bits: int, up: bool):
    """``value / 2^bits`` rounded up or down (a polynomial or an integer)."""
    if up:
        return -((-value) // 2**bits)
    return value // 2**bits


@dataclass(frozen=True, eq=False)
class GridPld:
    """A privacy-loss distribution on the grid ``h Z`` with a mass at ``+∞``, masses integers over ``2^bits``.

    Parameters
    ----------
    step : Fraction
        ``h``, a power of two.
    start : int
        The loss of the polynomial's coefficient ``i`` is ``(start + i) h``.
    masses : fmpz_poly
        The ``P``-masses, in units ``2^(−bits)``.
    infinity : int
        The ``P``-mass at loss ``+∞`` (units).
    bits : int
        The unit's exponent.
    side : str
        ``"upper"``: its curve is at least the pair's; ``"lower"``: at most it.
    rounds : int
        How many rounds of the pair it stands for.
    """

    step: Fraction
    start: int
    masses: flint.fmpz_poly
    infinity: int
    bits: int
    side: str
    rounds: int = 1

    @property
    def up(self) -> bool:
        return self.side == UPPER

    @property
    def size(self) -> int:
        """How many grid losses it holds."""
        return int(self.masses.length())

    def loss(self, index: int) -> Fraction:
        """The loss of coefficient ``index``: ``(start + index) h``."""
        return (self.start + index) * self.step

    def _above(self, first: int) -> tuple[int, flint.arb]:
        """``(S₀, S₁)``: the integer mass of the coefficients ``≥ first`` and ``Σ m_i e^(−loss_i)`` over them."""
        first = max(first, 0)
        if first >= self.size:
            return 0, flint.arb(0)
        tail = self.masses.right_shift(first) if first > 0 else self.masses
        h = to_arb(self.step)
        return int(tail(1)), flint.arb_poly(tail)((-h).exp()) * (-(self.start + first) * h).exp()

    def _first_above(self, epsilon: Fraction) -> int:
        """The first coefficient whose loss is above ``ε``."""
        return math.floor(epsilon / self.step) + 1 - self.start

    def delta(self, epsilon) -> Fraction:
        """``δ(ε)`` from this side: at least the pair's (upper), at most it (lower); exact, rounded outward.

        Parameters
        ----------
        epsilon : number
            ``ε``, read exactly.
        """
        eps = fraction("epsilon", epsilon)
        with precision(self.bits + 2 * GUARD_BITS + self.size.bit_length()):
            s0, s1 = self._above(self._first_above(eps))
            value = (s0 + self.infinity - to_arb(eps).exp() * s1) / flint.arb(2) ** self.bits
            end = value.upper() if self.up else value.lower()
            man, exp = (int(v) for v in end.man_exp())
        found = Fraction(man) * Fraction(2) ** exp
        return max(found, Fraction(0))

    def epsilon(self, delta) -> Fraction | None:
        """``ε`` at ``δ`` from this side, rounded outward to :data:`EPSILON_GRAIN` (``ε ≥ 0``).

        Upper side: the least ``ε`` whose (upper) curve is certainly at most ``δ``: an upper bound on the
        pair's ``ε``; ``None`` when the mass at ``+∞`` alone exceeds ``δ``. Lower side: an ``ε`` whose (lower)
        curve is above ``δ`` just below it: the pair's ``ε`` is at least it.

        Parameters
        ----------
        delta : number
            ``δ`` in ``(0, 1)``, read exactly.
        """
        d = fraction("delta", delta, low=0, high=1)
        goal = d * 2**self.bits
        if self.infinity >= goal:
            return None if self.up else Fraction(0)
        with precision(self.bits + 2 * GUARD_BITS + self.size.bit_length()):
            target = to_arb(goal)

            def at_most(k: int) -> bool:     # the side's curve at eps = loss(k) is at most delta
                s0, s1 = self._above(k + 1)
                value = s0 + self.infinity - to_arb(self.loss(k)).exp() * s1
                return bool(value <= target) if self.up else not bool(value > target)

            low, high = -1, self.size - 1          # at_most(high) holds (only the mass at +inf is above)
            if at_most(-1):
                high = -1
            while high - low > 1:
                mid = (low + high) // 2
                low, high = (low, mid) if at_most(mid) else (mid, high)
            # eps in (loss(high - 1), loss(high)]: the losses above it are the coefficients >= high
            s0, s1 = self._above(high)
            room = s0 + self.infinity - target
            if s1.is_zero() or not room > 0:
                eps_ball = None
            else:
                eps_ball = (room / s1).log()
            if self.up:
                top = self.loss(high)
                value = top if eps_ball is None else min(top, _end(eps_ball.upper(), up=True))
            else:                           # loss(high - 1) was found above delta, unless high is -1 (untested)
                bottom = self.loss(high - 1) if high >= 0 else None
                solved = None if eps_ball is None else _end(eps_ball.lower(), up=False)
                if bottom is None:
                    value = Fraction(0) if solved is None else solved
                else:
                    value = bottom if solved is None else max(bottom, solved)
        return max(value, Fraction(0))


def _end(point: flint.arb, up: bool) -> Fraction:
    """An exact ball end as a Fraction, rounded outward to :data:`EPSILON_GRAIN`."""
    if not point.is_finite():
        raise InvalidOption("grid privacy loss: an epsilon overflowed the ball arithmetic")
    man, exp = (int(v) for v in point.man_exp())
    x = Fraction(man) * Fraction(2) ** exp
    scaled = x / EPSILON_GRAIN
    return (math.ceil(scaled) if up else math.floor(scaled)) * EPSILON_GRAIN


def _check(step, bits: int, side: str) -> tuple[Fraction, int, str]:
    h = fraction("step", step, low=0)
    if h.numerator != 1 or h.denominator & (h.denominator - 1):
        raise InvalidOption(f"step: must be 1/2^k, not {h}")
    return h, whole_number("bits", bits, minimum=8), choice("side", side, SIDES)


def grid_from_bins(bins: Iterable[tuple[int, flint.arb, flint.arb]], *, step, bits: int, side: str = UPPER,
                   points: Iterable[tuple[int, flint.arb]] = (), infinity: flint.arb | int = 0) -> GridPld:
    """One round's grid law from bins of losses (step 2 of the module's notes).

    Parameters
    ----------
    bins : iterable of (int, arb, arb)
        ``(j, p, q)``: the pair's losses on a set of ``P``-mass ``p`` and ``Q``-mass ``q`` all lie in
        ``[jh, (j + 1)h]`` (balls enclosing the masses).
    step : Fraction
        ``h``, a power of two.
    bits : int
        The masses' unit ``2^(−bits)``.
    side : str
        ``"upper"`` (connect the dots, rounded up) or ``"lower"`` (lower ends, rounded down).
    points : iterable of (int, arb)
        ``(j, p)``: a ``P``-mass put at loss ``jh`` as it is (the caller moved it: up for the upper side, down
        for the lower side).
    infinity : arb or int
        ``P``-mass at ``+∞`` (the upper side keeps it; for the lower side, mass certainly at ``+∞``).
    """
    h, bits, side = _check(step, bits, side)
    up = side == UPPER
    weights: dict[int, int] = {}

    def add(j: int, units: int) -> None:
        if units:
            weights[j] = weights.get(j, 0) + units

    with precision(working_bits(bits, h)):
        hh = to_arb(h)
        gap = 1 - (-hh).exp()
        shrink = (-hh).exp()
        for j, p, q in bins:
            if up:
                lift = q * (j * hh).exp()
                add(j, _units((lift - p * shrink) / gap, bits, True))
                add(j + 1, _units((p - lift) / gap, bits, True))
            else:
                add(j, _units(p, bits, False))
        for j, p in points:
            add(j, _units(to_arb(p), bits, up))
        inf = _units(to_arb(infinity), bits, up)
    if not weights:
        return GridPld(h, 0, flint.fmpz_poly([]), inf, bits, side)
    first, last = min(weights), max(weights)
    coeffs = [0] * (last - first + 1)
    for j, w in weights.items():
        coeffs[j - first] = w
    return GridPld(h, first, flint.fmpz_poly(coeffs), inf, bits, side)


def grid_from_atoms(atoms: Iterable[tuple[object, object]], *, step, bits: int, side: str = UPPER) -> GridPld:
    """One round's grid law of a discrete pair: its atoms' ``(P, Q)`` masses, read exactly.

    An atom of loss ``ln(p/q)`` is its own bin (``q = 0``: at ``+∞``; ``p = 0``: nothing).

    >>> g = grid_from_atoms([(Fraction(1, 2), Fraction(1, 4)), (Fraction(1, 2), Fraction(3, 4))], step="1/64", bits=40)
    >>> g.start, g.size, g.infinity
    (-26, 72, 0)
    """
    h, bits, side = _check(step, bits, side)
    bins, infinity = [], Fraction(0)
    with precision(working_bits(bits, h)):
        for p_mass, q_mass in atoms:
            p, q = fraction("P mass", p_mass, low=0, closed=True), fraction("Q mass", q_mass, low=0, closed=True)
            if p == 0:
                continue
            if q == 0:
                infinity += p
                continue
            where = to_arb(p / q).log() / to_arb(h)
            j = _floor_end(where)
            if not where <= j + 1:
                raise InvalidOption("grid privacy loss: an atom's loss is too wide a ball to place on the grid")
            bins.append((j, to_arb(p), to_arb(q)))
        return grid_from_bins(bins, step=h, bits=bits, side=side, infinity=to_arb(infinity))


def _floor_end(x: flint.arb) -> int:
    """The floor of a ball's lower end (an exact point)."""
    man, exp = (int(v) for v in x.lower().man_exp())
    return man << exp if exp >= 0 else man >> -exp


def _trim(g: GridPld, budget: int) -> GridPld:
    """Cut the ends where at most ``budget`` units lie beyond (step 5): safe on the law's side."""
    size = g.size
    if budget <= 0 or size == 0:
        return g
    masses = g.masses
    top, moved_top = size, 0
    while top > 1 and moved_top + masses[top - 1] <= budget:
        top -= 1
        moved_top += int(masses[top])
    bottom, moved_bottom = 0, 0
    while bottom < top - 1 and moved_bottom + masses[bottom] <= budget:
        moved_bottom += int(masses[bottom])
        bottom += 1
    if top == size and bottom == 0:
        return g
    kept = masses.truncate(top)
    if bottom:
        kept = kept.right_shift(bottom)
    infinity = g.infinity
    if g.up:
        infinity += moved_top               # the top to +inf
        kept += moved_bottom                # the bottom up to the lowest kept loss
    elif moved_top:                         # the top down to the highest kept loss; the bottom dropped
        kept += flint.fmpz_poly([moved_top]).left_shift(top - bottom - 1)
    return replace(g, start=g.start + bottom, masses=kept, infinity=infinity)


def convolve(a: GridPld, b: GridPld, *, budget: int = 0) -> GridPld:
    """The grid law of the two pairs' product (step 4), trimmed at ``budget`` units (step 5).

    >>> g = grid_from_atoms([(Fraction(1, 2), Fraction(1, 4)), (Fraction(1, 2), Fraction(3, 4))], step="1/64", bits=40)
    >>> convolve(g, g).rounds, convolve(g, g).delta(0) >= Fraction(1, 8)      # TV of the product: 1/8
    (2, True)
    """
    if (a.step, a.bits, a.side) != (b.step, b.bits, b.side):
        raise InvalidOption("convolve: the two grid laws differ in step, bits or side")
    up = a.up
    mass_a, mass_b = int(a.masses(1)) if a.size else 0, int(b.masses(1)) if b.size else 0
    product = _shift_down(a.masses * b.masses, a.bits, up)
    infinity = _shift_down(a.infinity * (mass_b + b.infinity) + b.infinity * mass_a, a.bits, up)
    return _trim(GridPld(a.step, a.start + b.start, product, int(infinity), a.bits, a.side, a.rounds + b.rounds),
                 budget)


def self_compose(g: GridPld, rounds: int, *, budget: int = 0) -> GridPld:
    """``rounds`` rounds of the pair (repeated squaring of :func:`convolve`), trimmed at ``budget`` units."""
    t = whole_number("rounds", rounds, minimum=1)
    result: GridPld | None = None
    base = g
    while t:
        if t & 1:
            result = base if result is None else convolve(result, base, budget=budget)
        t >>= 1
        if t:
            base = convolve(base, base, budget=budget)
    assert result is not None
    return result
