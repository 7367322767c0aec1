"""The clip rate of a rotated coordinate: how often ``|(Ug)_i| > γC/√d`` after a random rotation ``U`` (§IX-E).

An update ``g`` of norm ``‖g‖ = r C`` is rotated in ``d`` dimensions and each
coordinate clipped at ``γC/√d``. The rate is the probability that one given
coordinate is clipped, which is also the expected fraction of clipped
coordinates; ``d`` times it is the expected number per update.

- ``uniform`` (a Haar-random rotation): ``Ug/‖g‖`` is uniform on the sphere,
  and a coordinate ``u_1`` of a uniform point has ``u_1² ~ Beta(1/2, (d−1)/2)``,
  so the rate is exactly ``P(|u_1| > t) = I_(1−t²)((d−1)/2, 1/2)`` with
  ``t = γ/(r√d)`` (0 when ``t ≥ 1``): the regularized incomplete beta
  function, certified in ball arithmetic.
- ``hadamard`` (``HD``, random signs ``D``, normalised Walsh–Hadamard ``H``,
  ``d`` a power of two): a coordinate is a Rademacher sum whose coefficients'
  squares add to ``‖g‖²/d``, so Hoeffding bounds the rate by
  ``2 exp(−γ²/(2r²))`` (an upper bound, whatever ``d``).

At ``r = 1`` (an update at the clip norm), ``γ = 2`` the uniform rate tends to
``erfc(√2) = 4.55 %`` as ``d`` grows; a rate of 10⁻⁴ needs ``r`` about 0.51.

Examples
--------
>>> c = clip_rate(1, 2, 1290)
>>> c.rate.decimal(4), c.rate.direction
('0.04546', <Direction.ENCLOSURE: 'enclosure'>)
>>> clip_rate(1, 2, 1024, "hadamard").rate.decimal(4)
'0.2707'
>>> clip_rate(Fraction(1, 30), 2, 100).rate.decimal(2)     # t = γ/(r√d) = 6 >= 1: never clipped
'0'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.modular._certify import enclose, interval

__all__ = ["ClipRotation", "ClipRate", "clip_rate", "rate_at", "largest_norm", "simulate_clip_rate"]

BETA = "regularized incomplete beta I_(1−t²)((d−1)/2, 1/2), ball arithmetic (python-flint arb)"
HOEFFDING = "Hoeffding: 2 exp(−γ²/(2r²)) for a Rademacher sum, ball arithmetic (python-flint arb)"
#: Bisection steps of :func:`largest_norm` (the interval's width is about 2^-steps).
STEPS = 40


class ClipRotation(StrEnum):
    """The random rotation before the coordinate clip."""

    UNIFORM = "uniform"
    HADAMARD = "hadamard"


def _inputs(norm, clip_factor, dimension, rotation) -> tuple[Fraction, Fraction, int, ClipRotation]:
    r = fraction("norm ‖g‖/C", norm, low=0)
    g = fraction("clip factor γ", clip_factor, low=0)
    d = whole_number("dimension", dimension, minimum=1, maximum=10 ** 9)
    kind = choice("rotation", rotation, ClipRotation)
    if kind is ClipRotation.HADAMARD and d & (d - 1):
        raise InvalidOption(f"dimension: a Hadamard rotation works in a power of two, not {d}")
    return r, g, d, kind


def _ball(r: Fraction, g: Fraction, d: int, kind: ClipRotation):
    """The rate (uniform) or its bound (Hadamard) as an arb ball, or the exact 0 / 1."""
    import flint

    if kind is ClipRotation.HADAMARD:
        return min(to_arb(1), 2 * (-(to_arb(g) ** 2) / (2 * to_arb(r) ** 2)).exp()) if g > 0 else to_arb(1)
    t2 = g * g / (r * r * d)
    if t2 >= 1:
        return Fraction(0)
    if d == 1:
        return Fraction(1)
    return to_arb(1 - t2).beta_lower(flint.arb(d - 1) / 2, flint.arb(1) / 2, regularized=1)


def rate_at(norm, clip_factor, dimension: int, rotation: ClipRotation | str = ClipRotation.UNIFORM) -> Certified:
    """The clip rate of one coordinate (``uniform``: exact, certified enclosure; ``hadamard``: an upper bound).

    Parameters
    ----------
    norm : Fraction or str
        ``r = ‖g‖/C > 0``.
    clip_factor : Fraction or str
        ``γ > 0``: each rotated coordinate is clipped at ``γC/√d``.
    dimension : int
        ``d``, the dimension the rotation works in.
    rotation : ClipRotation or str
        ``uniform`` or ``hadamard``.
    """
    r, g, d, kind = _inputs(norm, clip_factor, dimension, rotation)
    with precision():
        value = _ball(r, g, d, kind)
        direction = Direction.UPPER if kind is ClipRotation.HADAMARD else Direction.ENCLOSURE
        if isinstance(value, Fraction):
            return Certified("clip rate", value, value, Direction.EXACT, "t = γ/(r√d) >= 1" if value == 0 else "d = 1")
        return enclose("clip rate", value, direction, HOEFFDING if kind is ClipRotation.HADAMARD else BETA)


def largest_norm(rate, clip_factor, dimension: int, rotation: ClipRotation | str = ClipRotation.UNIFORM
                 ) -> tuple[Fraction, Fraction]:
    """``[lo, hi]``: the clip rate is at most ``rate`` at ``r = lo`` and above it at ``r = hi`` (certified bisection).

    The rate increases with ``r``; for ``hadamard`` the bound's threshold is
    ``γ/√(2 ln(2/rate))``, enclosed the same way.

    >>> lo, hi = largest_norm(Fraction(1, 10**4), 2, 1290)
    >>> 0.5152 < float(lo) < float(hi) < 0.5153
    True
    """
    p = fraction("rate", rate, low=0, high=1)
    _inputs(1, clip_factor, dimension, rotation)

    def above(r: Fraction) -> bool:
        c = rate_at(r, clip_factor, dimension, rotation)
        if c.high <= p:
            return False
        if c.low > p:
            return True
        raise InvalidOption("rate: too close to the clip rate to decide in ball arithmetic")

    lo, hi = Fraction(0), Fraction(1)
    while not above(hi):
        lo, hi = hi, 2 * hi
        if hi > 2 ** 60:
            raise InvalidOption("rate: no norm reaches it")
    for _ in range(STEPS):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if above(mid) else (mid, hi)
    return lo, hi


@dataclass(frozen=True, repr=False)
class ClipRate(Displayable):
    """The clip rate at one norm, the expected clipped coordinates per update, and the norm meeting a rate.

    Parameters
    ----------
    norm, clip_factor : Fraction
        ``r = ‖g‖/C`` and ``γ``.
    dimension : int
        ``d``.
    rotation : ClipRotation
        The rotation.
    rate : Certified
        The rate of one coordinate.
    per_update : Certified
        ``d`` times it: the expected clipped coordinates of one update.
    rate_to_meet : Fraction or None
        A clip rate to meet.
    largest_norm : tuple of Fraction or None
        ``[lo, hi]`` around the largest ``r`` meeting ``rate_to_meet``.
    """

    norm: Fraction
    clip_factor: Fraction
    dimension: int
    rotation: ClipRotation
    rate: Certified
    per_update: Certified
    rate_to_meet: Fraction | None = None
    largest_norm: tuple[Fraction, Fraction] | None = None

    def headline(self) -> str:
        return f"{self.rate.decimal(4)} per coordinate ({self.rate.direction}) at ‖g‖/C = {frac(self.norm)}, γ = {frac(self.clip_factor)}"

    def rows(self) -> list[tuple[str, str]]:
        out = [("rotation", f"{self.rotation} in d = {self.dimension}; clip at γC/√d, γ = {frac(self.clip_factor)}"),
               ("clip rate", f"{interval(self.rate, 6)} ({self.rate.direction}; {self.rate.method})"),
               ("clipped per update", f"{self.per_update.decimal(4)} coordinates ({self.per_update.direction})")]
        if self.largest_norm is not None:
            lo, hi = self.largest_norm
            out.append((f"rate <= {frac(self.rate_to_meet)}", f"for ‖g‖/C <= {safe_decimal(lo, 6, up=False)} "
                                                 f"(above it from {safe_decimal(hi, 6)}; certified bisection)"))
        return out

    def to_dict(self) -> dict:
        out: dict = {"norm": frac(self.norm), "clip_factor": frac(self.clip_factor), "dimension": self.dimension,
               "rotation": str(self.rotation), "rate": self.rate.to_dict(), "per_update": self.per_update.to_dict(),
               "rate_to_meet": frac(self.rate_to_meet)}
        if self.largest_norm is not None:
            out["largest_norm"] = [safe_decimal(self.largest_norm[0], 8, up=False),
                                   safe_decimal(self.largest_norm[1], 8)]
        return out


def clip_rate(norm=1, clip_factor=2, dimension: int = 1290,
              rotation: ClipRotation | str = ClipRotation.UNIFORM, rate=None) -> ClipRate:
    """The clip rate of a rotated coordinate as a certified function of ``‖g‖/C``, ``γ`` and ``d``.

    Parameters
    ----------
    norm : Fraction or str
        ``‖g‖/C > 0`` (1: an update at the clip norm).
    clip_factor : Fraction or str
        ``γ``: the clip at ``γC/√d``.
    dimension : int
        ``d``.
    rotation : ClipRotation or str
        ``uniform`` (exact) or ``hadamard`` (Hoeffding's upper bound).
    rate : Fraction or str, optional
        A clip rate: also find the largest ``‖g‖/C`` meeting it.

    Notes
    -----
    §IX-E of Azimi-Abarghouyi, arXiv 2610.00695 ("the measured
    coordinate-clipping rate stays below 10⁻⁴").
    """
    r, g, d, kind = _inputs(norm, clip_factor, dimension, rotation)
    p = None if rate is None else fraction("rate", rate, low=0, high=1)
    value = rate_at(r, g, d, kind)
    per = Certified("clipped coordinates per update", d * value.low, d * value.high, value.direction, value.method)
    top = None if p is None else largest_norm(p, g, d, kind)
    return ClipRate(r, g, d, kind, value, per, p, top)


def simulate_clip_rate(norm, clip_factor, dimension: int, rotation: ClipRotation | str, samples: int, seed: int
                       ) -> tuple[int, int]:
    """Clipped coordinates and coordinates drawn: ``samples`` seeded rotations of one update of norm ``‖g‖/C``.

    A heuristic check, not a bound: ``uniform`` rotates ``g`` by a Haar
    rotation (the direction of a standard normal vector), ``hadamard`` by
    ``HD`` with fresh signs each time, ``g`` spread evenly on the first
    ``d/2`` coordinates.
    """
    import numpy as np

    r, g, d, kind = _inputs(norm, clip_factor, dimension, rotation)
    n = whole_number("samples", samples, minimum=1, maximum=10 ** 6)
    rng = np.random.default_rng(whole_number("seed", seed))
    threshold = float(g) / d ** 0.5
    if kind is ClipRotation.UNIFORM:
        z = rng.standard_normal((n, d))
        u = float(r) * z / np.linalg.norm(z, axis=1, keepdims=True)
    else:
        x = np.zeros(d)
        x[: max(d // 2, 1)] = float(r) / max(d // 2, 1) ** 0.5
        u = x * (2 * rng.integers(0, 2, size=(n, d)) - 1)
        h = 1
        while h < d:
            u = u.reshape(n, d // (2 * h), 2, h)
            u = np.stack((u[:, :, 0] + u[:, :, 1], u[:, :, 0] - u[:, :, 1]), axis=2).reshape(n, d)
            h *= 2
        u /= d ** 0.5
    return int((np.abs(u) > threshold).sum()), n * d
