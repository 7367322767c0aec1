"""Leading composition ratios of the ℓ2-clipped ball and of the rotated, coordinatewise-clipped box (Figs. 2b, 5a).

Proposition 3's leading ratio is ``(Σ_ℓ D_ℓ)² / D_flat²`` (eq. 34). Both
figures leave the dimension, gain, dither convention and the flat
sensitivity's form unprinted; each function here computes one stated
convention exactly (a Fraction) or certified (an arb ball), so that the
readings can be listed beside the printed decimals.

**The box** (Fig. 5a, §IX-E). Each rotated coordinate is clipped at
``γC/√d``; with the gain chosen so that the box's half-width is
``ρ^L/2 + c`` lattice steps (``h = 1``), the box fills every digit alphabet
(``Σ_ℓ D_ℓ = (ρ^L − 1)√d``), and the surviving ℓ2 bound gives the flat
``D_flat = 2aC = (ρ^L + 2c)√d/γ``: the ratio is ``γ²((ρ^L − 1)/(ρ^L + 2c))²``,
exact. ``c = 0`` is the box-fill model ``γ²(1 − ρ^−L)²``; ``c = ±r_cov(Λ_1)``,
``±2r_cov(Λ_1)`` (``r_cov = 1/2`` per coordinate) are the margins of §IV-C's
range condition. Every reading tends to ``γ²`` as ``L`` grows.

**The ball** (Fig. 2b). The update ``v = a g`` lies in a ball of radius
``R`` (lattice steps) in dimension ``n``; the client sends ``x = Q(v + d)``.
The layer-ℓ symbol of ``x`` is ``ρ^(ℓ−1) a_ℓ(x)`` coordinatewise (balanced
digits). Because ``a_ℓ(−x) = −a_ℓ(x)`` and ``(p + q)² ≤ 2p² + 2q²``, the worst
pair is ``(x, −x)``, so ``D_ℓ² = 4 max Σ_i (ρ^(ℓ−1) a_ℓ(x_i))²`` over the
admissible ``x``: a knapsack whose items are the coordinates and whose
options are the digit magnitudes, each at the integer cost of the cheapest
``|x_i|`` carrying it. The admissible set is one of three
(:class:`Dither`): the lattice points of the ball (``none``: cost ``x_i²``,
budget ``R²``), the points whose Voronoi cell meets the ball (``fixed``,
dither 0: cost ``(2|x_i| − 1)²``, budget ``4R²``), or meets the ball plus
the cell (``worst``, any dither: cost ``max(|x_i| − 1, 0)²``, budget ``R²``).

Examples
--------
>>> box_ratio(3, 2, 2), box_ratio(3, 2, 2, Fraction(1, 2))
(Fraction(256, 81), Fraction(64, 25))
>>> ball_layer_square(radix=3, layer=2, dimension=2, budget=20, dither="none")
18
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from itsa._util.certified import precision, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.modular._digits import balanced_digits
from itsa.modular._laws import check_radix

__all__ = ["box_ratio", "BOX_MARGINS", "Dither", "ball_layer_square", "BallReading", "ball_ratio", "ball_readings",
           "BALL_DIMENSIONS"]

#: The margins ``c`` of the box's half-width ``ρ^L/2 + c`` tried for Fig. 5a, with their names.
BOX_MARGINS = ((Fraction(0), "box fill, half-width ρ^L/2"),
               (Fraction(1, 2), "half-width ρ^L/2 + r_cov(Λ_1)"),
               (Fraction(-1, 2), "half-width ρ^L/2 − r_cov(Λ_1)"),
               (Fraction(1), "half-width ρ^L/2 + 2 r_cov(Λ_1)"),
               (Fraction(-1), "half-width ρ^L/2 − 2 r_cov(Λ_1) (§IV-C's B)"))
#: The ball dimensions tried for Fig. 2b: a block n_b, or the full d of §IX-D's two models.
BALL_DIMENSIONS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1290, 3850)
#: Largest budget and dimension the ball's knapsack takes.
MAX_BUDGET = 10 ** 9


class Dither(StrEnum):
    """Which quantized points the ball admits (module docstring)."""

    NONE = "none"
    FIXED = "fixed"
    WORST = "worst"


def box_ratio(radix: int, layers: int, gamma, margin=0) -> Fraction:
    """``γ² ((ρ^L − 1)/(ρ^L + 2c))²``: the rotated box's leading ratio with half-width ``ρ^L/2 + c`` (exact).

    Parameters
    ----------
    radix, layers : int
        ``ρ`` and ``L``.
    gamma : Fraction or str
        The clip factor ``γ > 0`` (each rotated coordinate clipped at ``γC/√d``).
    margin : Fraction or str
        ``c``, in lattice steps; ``ρ^L/2 + c`` must be positive.

    Examples
    --------
    >>> [str(box_ratio(3, L, 2)) for L in (2, 3)]
    ['256/81', '2704/729']
    """
    check_radix(radix)
    whole_number("L (layers)", layers, minimum=1)
    g = fraction("gamma", gamma, low=0)
    c = fraction("margin", margin)
    top = Fraction(radix ** layers)
    if top + 2 * c <= 0:
        raise InvalidOption(f"margin: the half-width ρ^L/2 + c must be positive, not {top / 2 + c}")
    return g * g * ((top - 1) / (top + 2 * c)) ** 2


def _costs(x: int, dither: Dither) -> int:
    """The integer cost of a coordinate ``|x_i| = x`` (budget ``R²``, or ``4R²`` for ``fixed``)."""
    if dither is Dither.NONE:
        return x * x
    if dither is Dither.FIXED:
        return 0 if x == 0 else (2 * x - 1) ** 2
    return max(x - 1, 0) ** 2


def _options(radix: int, layer: int, layers: int, dither: Dither) -> list[tuple[int, int]]:
    """``(cost, m²)`` of the cheapest ``|x| ≤ (ρ^L − 1)/2`` carrying each layer digit magnitude ``m ≥ 1``."""
    best: dict[int, int] = {}
    for x in range(1, (radix ** layers - 1) // 2 + 1):
        m = abs(balanced_digits(x, radix, layers)[layer - 1])
        if m and (m not in best or _costs(x, dither) < best[m]):
            best[m] = _costs(x, dither)
    return sorted((c, m * m) for m, c in best.items())


def _knapsack(options: list[tuple[int, int]], items: int, budget: int) -> int:
    """The most ``Σ value`` of at most ``items`` options of total cost at most ``budget`` (exact enumeration)."""
    if not options or items == 0:
        return 0
    (cost, value), rest = options[0], options[1:]
    top = items if cost == 0 else min(items, budget // cost)
    if not rest:
        return top * value
    return max(k * value + _knapsack(rest, items - k, budget - k * cost) for k in range(top + 1))


def ball_layer_square(*, radix: int, layer: int, dimension: int, budget: int, dither: Dither | str,
                      layers: int | None = None) -> int:
    """``D_ℓ²/4 = max Σ_i (ρ^(ℓ−1) a_ℓ(x_i))²`` over the admissible ``x`` of the ball, exactly.

    Parameters
    ----------
    radix, layer : int
        ``ρ`` and ``ℓ``.
    dimension : int
        ``n``, the ball's dimension (the knapsack's items).
    budget : int
        The integer budget: ``⌊R²⌋`` (``none``, ``worst``) or ``⌊4R²⌋`` (``fixed``).
    dither : Dither or str
        The admissible set.
    layers : int, optional
        ``L``: coordinates are kept within the chain's range ``(ρ^L − 1)/2`` (default ``ℓ``).

    Returns
    -------
    int
        The maximum; ``D_ℓ`` is twice its square root.
    """
    check_radix(radix)
    ell = whole_number("layer", layer, minimum=1)
    top = ell if layers is None else whole_number("L (layers)", layers, minimum=ell)
    n = whole_number("dimension", dimension, minimum=1)
    b = whole_number("budget", budget, minimum=0, maximum=MAX_BUDGET)
    kind = choice("dither", dither, Dither)
    if radix > 5:
        raise InvalidOption(f"radix: the ball's knapsack enumerates digit magnitudes for ρ <= 5, not {radix}")
    return radix ** (2 * (ell - 1)) * _knapsack(_options(radix, ell, top, kind), n, b)


@dataclass(frozen=True)
class BallReading:
    """One convention for Fig. 2b's ball: dimension, radius, dither and flat form (module docstring).

    Parameters
    ----------
    dimension : int
        ``n``.
    radius : str
        ``range`` (``R = ρ^L/2``), ``cover`` (``R = ρ^L/2 − r_cov``) or ``range-B`` (``R = ρ^L/2 − 2r_cov``,
        §IV-C's ``B``), ``r_cov = √n/2``.
    dither : Dither
        The admissible quantized points.
    flat : str
        ``diameter`` (``2R``) or ``lattice`` (twice the largest norm of a lattice point of the ball).
    """

    dimension: int
    radius: str
    dither: Dither
    flat: str

    def describe(self) -> str:
        return f"n = {self.dimension}, radius {self.radius}, dither {self.dither}, flat {self.flat}"


def _radius(reading: BallReading, radix: int, layers: int):
    shift = {"range": 0, "cover": 1, "range-B": 2}[reading.radius]
    return to_arb(Fraction(radix ** layers, 2)) - shift * to_arb(reading.dimension).sqrt() / 2


def _floor(ball) -> int:
    lo, hi = ball.lower().floor(), ball.upper().floor()
    if lo != hi:
        raise InvalidOption("radius: too close to an integer to decide in ball arithmetic")
    return int(lo.unique_fmpz())


def _largest_square(budget: int, dimension: int) -> int:
    """The largest ``Σ x_i² ≤ budget`` with ``dimension`` integers (Lagrange: ``budget`` itself from four on)."""
    if dimension >= 4:
        return budget
    best = 0
    for a in range(math.isqrt(budget) + 1):
        for b in range(math.isqrt(budget - a * a) + 1) if dimension >= 2 else (0,):
            rest = budget - a * a - b * b
            c = math.isqrt(rest) if dimension >= 3 else 0
            best = max(best, a * a + b * b + c * c)
    return best


def ball_ratio(reading: BallReading, radix: int = 3, layers: int = 4):
    """The leading ratio ``(Σ_ℓ D_ℓ)²/D_flat²`` of the ball under ``reading``, as an arb ball (``None``: empty ball).

    >>> r = ball_ratio(BallReading(2, "range", Dither.NONE, "diameter"), 3, 2)
    >>> round(float(r.mid()), 4)          # (8√2/9)²: both coordinates carry a digit in each layer
    1.5802
    """
    with precision():
        R = _radius(reading, radix, layers)
        if not R > 0:
            return None
        budget = _floor(4 * R * R if reading.dither is Dither.FIXED else R * R)
        total = to_arb(0)
        for ell in range(1, layers + 1):
            total += 2 * to_arb(ball_layer_square(radix=radix, layer=ell, dimension=reading.dimension, budget=budget,
                                                  dither=reading.dither, layers=layers)).sqrt()
        flat = 2 * R if reading.flat == "diameter" else \
            2 * to_arb(_largest_square(_floor(R * R), reading.dimension)).sqrt()
        return (total / flat) ** 2 if flat > 0 else None


def ball_readings(dimensions=BALL_DIMENSIONS) -> list[BallReading]:
    """Every convention tried for Fig. 2b: dimension × radius × dither × flat form."""
    return [BallReading(n, r, d, f) for n in dimensions for r in ("range", "cover", "range-B") for d in Dither
            for f in ("diameter", "lattice")]
