"""Theorem 4: the per-client error of a truncated release, closed forms, bounds and a seeded check.

With the finest authorized layer ``ℓ0``, a client's error is
``E = Q_(Λ_ℓ0)(x) - d - v = e - r``: the dither error ``e`` (second moment
``n_b σ²(Λ_1) = n_b h²/12``) minus the withheld refinement ``r = x - Q_(Λ_ℓ0)(x)``.

- ``T_ℓ0 = E‖r‖²``; under uniform residues ``T_ℓ0 = n_b h² (ρ^(2(ℓ0-1)) - 1)/12`` (eq. 39), exact.
- Theorem 4(b): ``(√T - √(n_b h²/12))² <= E‖E‖² <= (√T + √(n_b h²/12))²`` (eq. 43), certified.
- Theorem 4(a): at ``ℓ0 = 1`` the error is exactly ``n_b h²/12``.

:func:`distortion` (:func:`monte_carlo` at each ``ℓ0``) draws updates, dithers and quantizes with a seed, and
reports the measured ``T`` and error with standard errors.

Examples
--------
>>> uniform_residue_T(4, radix=3)
Fraction(182, 3)
>>> lo, hi = theorem4_bounds(uniform_residue_T(4, radix=3))
>>> interval(lo, 4), interval(hi, 4)
('[56.25, 56.26]', '[65.24, 65.25]')
>>> mc = monte_carlo(2, radix=3, layers=4, samples=2000, seed=1)
>>> mc.inside_bounds
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

import numpy as np

from itsa._util.certified import Certified, Direction, fraction_text, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, counting
from itsa.exceptions import InvalidOption
from itsa.modular._certify import enclose, interval
from itsa.modular._laws import check_radix

__all__ = ["Source", "uniform_residue_T", "theorem4_bounds", "MonteCarlo", "monte_carlo", "Distortion",
           "distortion", "MAX_SAMPLES", "CHUNK", "DEFAULT_SAMPLES"]

#: Most Monte Carlo samples (about 50 s at 2·10⁶ samples per second).
MAX_SAMPLES = 10**8
#: Clients drawn at each finest layer, unless told.
DEFAULT_SAMPLES = 100_000
#: Most layers of a simulation (ρ^L stays within a float's exact integers well before).
MAX_DISTORTION_LAYERS = 30
#: Samples drawn at once: the memory stays at about 100 MB for any ``samples``.
CHUNK = 10**6


class Source(StrEnum):
    """The law of the scaled update ``v`` in the Monte Carlo check: uniform or (clipped) Gaussian."""

    UNIFORM = "uniform"
    GAUSSIAN = "gaussian"


def uniform_residue_T(finest: int, radix: int = 3, block_dimension: int = 1, h=1) -> Fraction:
    """``T_ℓ0 = n_b σ²(Λ_ℓ0)(1 - ρ^(-2(ℓ0-1)))`` with ``σ²(Λ_ℓ0) = h² ρ^(2(ℓ0-1))/12`` (eq. 39), exactly.

    Parameters
    ----------
    finest : int
        ``ℓ0``.
    radix, block_dimension : int
        ``ρ`` and ``n_b``.
    h : Fraction
        The granularity.
    """
    check_radix(radix)
    whole_number("ℓ0", finest, minimum=1)
    h = fraction("h", h, low=0)
    return block_dimension * h * h * Fraction(radix ** (2 * (finest - 1)) - 1, 12)


def theorem4_bounds(T, block_dimension: int = 1, h=1) -> tuple[Certified, Certified]:
    """Theorem 4(b)'s two sides ``(√T ∓ √(n_b h²/12))²`` (eq. 43), certified: a lower and an upper bound.

    Parameters
    ----------
    T : Fraction
        The second moment of the withheld refinement.
    block_dimension : int
        ``n_b``.
    h : Fraction
        The granularity.
    """
    T = Fraction(T)
    floor = block_dimension * Fraction(h) ** 2 / 12
    with precision():
        a, b = to_arb(T).sqrt(), to_arb(floor).sqrt()
        return (enclose("eq. 43 lower side", (a - b) ** 2, Direction.LOWER),
                enclose("eq. 43 upper side", (a + b) ** 2, Direction.UPPER))


def _estimate(name: str, mean: float, se: float) -> Certified:
    """A Monte Carlo mean as a number that says it is one: a heuristic, with its standard error in the method."""
    q = Fraction(mean)
    return Certified(name, q, q, Direction.HEURISTIC,
                     f"seeded Monte Carlo mean (numpy default_rng), standard error {safe_decimal(Fraction(se), 2)}")


@dataclass(frozen=True, repr=False, kw_only=True)
class MonteCarlo(Displayable):
    """Measured ``T`` and per-client error at one ``ℓ0`` (one coordinate, ``h = 1``), with standard errors.

    The measurements are floats (a simulation); they are shown and written as
    heuristic numbers (``Direction.HEURISTIC``), never as bounds.

    Parameters
    ----------
    finest : int
        ``ℓ0``, the finest authorized layer.
    radix, layers : int
        ``ρ`` and ``L``.
    source : Source
        The law of the scaled update.
    spread : Fraction
        Its half-range (uniform) or standard deviation (Gaussian).
    samples, seed : int
        Clients drawn and the seed.
    error, error_se : float
        The mean of ``‖E‖²`` and its standard error.
    T, T_se : float
        The mean of ``‖r‖²`` and its standard error.
    closed_form_T : Fraction
        Eq. 39's ``T`` under uniform residues.
    bounds : tuple of Certified
        Eq. 43 with the closed-form ``T``.
    clipped : Fraction
        The share of Gaussian draws clipped to ``V_(L+1)``.
    """

    finest: int
    radix: int
    layers: int
    source: Source
    spread: Fraction
    samples: int
    seed: int
    error: float
    error_se: float
    T: float
    T_se: float
    closed_form_T: Fraction
    bounds: tuple[Certified, Certified]
    clipped: Fraction = Fraction(0)

    @property
    def measured_bounds(self) -> tuple[Certified, Certified]:
        """Eq. 43 with the measured ``T`` in place of the closed form (distribution-free)."""
        return theorem4_bounds(Fraction(self.T).limit_denominator(10**12))

    @property
    def inside_bounds(self) -> bool:
        """The measured error is within the bounds of the measured ``T``, up to three standard errors."""
        lo, hi = self.measured_bounds
        slack = 3 * self.error_se + 1e-12
        return float(lo.low) - slack <= self.error <= float(hi.high) + slack

    def estimates(self) -> tuple[Certified, Certified]:
        """The measured error and ``T``, as heuristic numbers."""
        return _estimate("error", self.error, self.error_se), _estimate("T", self.T, self.T_se)

    def headline(self) -> str:
        error, T = self.estimates()
        return (f"ℓ0 = {self.finest}, {self.source}: error {error.decimal(4)} ± {safe_decimal(Fraction(self.error_se), 2)}, "
                f"T {T.decimal(4)} (closed form {safe_decimal(self.closed_form_T, 4)}); seeded Monte Carlo, not a bound")

    def rows(self) -> list[tuple[str, str]]:
        lo, hi = self.measured_bounds
        error, T = self.estimates()
        clip = "" if self.source is Source.UNIFORM else (f", {safe_decimal(100 * self.clipped, 3)} % of draws "
                                                         "clipped to V_(L+1)")
        return [("samples, seed", f"{self.samples}, {self.seed}"),
                ("source", f"{self.source}, spread {safe_decimal(self.spread, 6)}{clip}"),
                ("error E‖E‖²", f"{error.decimal(5)} ± {safe_decimal(Fraction(self.error_se), 2)} "
                 "(Monte Carlo, standard error)"),
                ("T measured", f"{T.decimal(5)} ± {safe_decimal(Fraction(self.T_se), 2)} (Monte Carlo)"),
                ("T closed form (eq. 39)", f"{fraction_text(self.closed_form_T)} (exact, uniform residues)"),
                ("eq. 43 with measured T", f"{interval(lo)} .. {interval(hi)}"),
                ("inside eq. 43 (± 3 s.e.)", "yes" if self.inside_bounds else "no")]

    def to_dict(self) -> dict:
        lo, hi = self.measured_bounds
        error, T = self.estimates()
        return {"finest_layer": self.finest, "radix": self.radix, "layers": self.layers, "source": str(self.source),
                "spread": fraction_text(self.spread), "clipped_fraction": fraction_text(self.clipped),
                "samples": self.samples, "seed": self.seed, "error": error.to_dict(),
                "error_standard_error": safe_decimal(Fraction(self.error_se), 4), "T": T.to_dict(),
                "T_standard_error": safe_decimal(Fraction(self.T_se), 4),
                "closed_form_T": fraction_text(self.closed_form_T),
                "bounds_measured_T": [lo.to_dict(), hi.to_dict()], "inside_bounds": self.inside_bounds,
                "method": "seeded Monte Carlo (numpy default_rng)"}


def monte_carlo(finest: int, radix: int = 3, layers: int = 4, source: Source | str = Source.UNIFORM,
                spread=None, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                time_limit: float | Deadline | None = None, tick=None) -> MonteCarlo:
    """Measure ``E‖E_k^(ℓ0)‖²`` and ``T_ℓ0`` by simulation (one coordinate, ``h = 1``), at one ``ℓ0``.

    ``v`` is uniform on ``[-spread, spread)`` (default and largest accepted:
    ``(ρ^L - 1)/2 - 1/2``, half a step inside the exact limit ``(ρ^L - 1)/2``
    beyond which ``round(v + d)`` leaves ``V_(L+1)``, so that rounding in floating
    point cannot push a point out) or Gaussian with standard deviation ``spread``
    (default a sixth of that range), clipped to it (the share clipped is
    reported); the dither is uniform on ``[-1/2, 1/2)``. The samples are drawn in
    blocks of :data:`CHUNK` (the same numbers as one block up to ``CHUNK``
    samples), each block checked against ``time_limit`` (seconds) and counted by
    ``tick(done, total)``.

    Parameters
    ----------
    finest : int
        ``ℓ0``, in ``1..L``.
    radix, layers : int
        ``ρ`` and ``L``.
    source : Source or str
        ``uniform`` or ``gaussian``.
    spread : Fraction or str, optional
        Half-range (uniform) or standard deviation (Gaussian), read exactly.
    samples, seed : int
        Clients drawn and the seed.
    time_limit : float or Deadline, optional
        Seconds.
    tick : callable, optional
        ``tick(done, total)`` after each block.

    Notes
    -----
    Theorem 4 and eq. 38–43 of Azimi-Abarghouyi, arXiv 2610.00695; Fig. 3a.
    """
    check_radix(radix)
    whole_number("L (layers)", layers, minimum=1, maximum=MAX_DISTORTION_LAYERS)
    whole_number("ℓ0", finest, minimum=1, maximum=layers)
    whole_number("samples", samples, minimum=2, maximum=MAX_SAMPLES)
    whole_number("seed", seed, minimum=0)
    kind: Source = choice("source", source, Source)
    if radix ** layers > 2**52:
        raise InvalidOption(f"radix^L = {radix}^{layers} is above 2^52, beyond the exact integers of a float")
    top = Fraction(radix ** layers - 1, 2) - Fraction(1, 2)
    if spread is None:
        spread = top if kind is Source.UNIFORM else top / 6
    else:
        spread = fraction("spread", spread, low=0)
        if spread > 2**52:
            raise InvalidOption(f"spread: at most 2^52 (the exact integers of a float), not {safe_decimal(spread, 4)}")
    if kind is Source.UNIFORM and spread > top:
        raise InvalidOption(f"spread: a uniform half-range above (ρ^L − 1)/2 − 1/2 = {fraction_text(top)} quantizes "
                            f"points outside V_(L+1), where Theorem 4 does not apply; not {safe_decimal(spread, 6)}")
    rng = np.random.default_rng(seed)
    clock = Deadline.of(time_limit)
    error, residue = _Moments(), _Moments()
    clipped = 0
    for start in range(0, samples, CHUNK):
        clock.check(f"sample {start} of {samples}")
        e2, r2, out = _draw(rng, kind, float(spread), float(top), radix ** (finest - 1), min(CHUNK, samples - start))
        error.add(e2)
        residue.add(r2)
        clipped += out
        if tick is not None:
            tick(start + len(e2), samples)
    T = uniform_residue_T(finest, radix)
    return MonteCarlo(finest=finest, radix=radix, layers=layers, source=kind, spread=spread, samples=samples,
                      seed=seed, error=error.mean, error_se=error.standard_error(), T=residue.mean,
                      T_se=residue.standard_error(), closed_form_T=T, bounds=theorem4_bounds(T),
                      clipped=Fraction(clipped, samples))


@dataclass(frozen=True, repr=False)
class Distortion(Displayable):
    """Theorem 4's check at one or every finest layer ``ℓ0``: one :class:`MonteCarlo` each.

    Parameters
    ----------
    levels : tuple of MonteCarlo
        One per ``ℓ0``, coarsest first.
    """

    levels: tuple[MonteCarlo, ...]

    def headline(self) -> str:
        first = self.levels[0]
        inside = sum(m.inside_bounds for m in self.levels)
        return (f"ρ = {first.radix}, L = {first.layers}, {first.source}, {first.samples} samples (seed {first.seed}): "
                f"{inside} of {len(self.levels)} finest layers inside eq. 43 (± 3 s.e.)")

    def rows(self) -> list[tuple[str, str]]:
        return [(f"ℓ0 = {m.finest}", m.headline().split(": ", 1)[1]) for m in self.levels]

    def to_dict(self) -> dict:
        first = self.levels[0]
        return {"finest": [m.finest for m in self.levels], "radix": first.radix, "layers": first.layers,
                "source": str(first.source), "spread": fraction_text(first.spread), "samples": first.samples,
                "seed": first.seed, "rows": [m.to_dict() for m in self.levels]}


def distortion(finest: int | None = None, radix: int = 3, layers: int = 4, source: Source | str = Source.UNIFORM,
               spread=None, samples: int = DEFAULT_SAMPLES, seed: int = 0, progress: Callback | None = None,
               time_limit: float | Deadline | None = None) -> Distortion:
    """:func:`monte_carlo` at ``finest`` or, by default, at every ``ℓ0 = L, …, 1``.

    Parameters
    ----------
    finest : int, optional
        ``ℓ0``; every layer when not given.
    radix, layers : int
        ``ρ`` and ``L``.
    source : Source or str
        ``uniform`` or ``gaussian``.
    spread : Fraction or str, optional
        As for :func:`monte_carlo`.
    samples, seed : int
        Clients drawn at each ``ℓ0`` and the seed.
    progress : callable, optional
        Receives :class:`~itsa._util.progress.Event` s counting the samples drawn.
    time_limit : float or Deadline, optional
        Seconds for the whole run.
    """
    layers = whole_number("L (layers)", layers, minimum=1, maximum=MAX_DISTORTION_LAYERS)
    levels = [finest] if finest is not None else list(range(layers, 0, -1))
    clock, tick = Deadline.of(time_limit), counting(progress, "distortion")
    out = []
    for i, f in enumerate(levels):
        step = None if tick is None else (lambda d, t, i=i: tick(i * t + d, len(levels) * t))
        out.append(monte_carlo(f, radix, layers, source, spread, samples, seed, time_limit=clock, tick=step))
    return Distortion(tuple(out))


def _draw(rng, kind: Source, spread: float, top: float, step: int, n: int):
    """One block of ``n`` clients: the squared error ``‖E‖²``, the squared withheld refinement ``‖r‖²``
    and how many Gaussian draws were clipped to the range."""
    if kind is Source.UNIFORM:
        v = rng.uniform(-spread, spread, n)
        out = 0
    else:
        drawn = rng.normal(0.0, spread, n)
        out = int(np.count_nonzero(np.abs(drawn) > top))
        v = np.clip(drawn, -top, top)
    d = rng.uniform(-0.5, 0.5, n)
    x = np.floor(v + d + 0.5)
    coarse = np.floor_divide(2 * x + step, 2 * step) * step
    return (coarse - d - v) ** 2, (x - coarse) ** 2, out


class _Moments:
    """Running mean and sum of squared deviations over blocks (Chan et al.'s pairwise update)."""

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, x: np.ndarray) -> None:
        n, mean = len(x), float(x.mean())
        m2 = float(((x - mean) ** 2).sum())
        total = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta * delta * self.n * n / total
        self.n = total

    def standard_error(self) -> float:
        return float(np.sqrt(self.m2 / (self.n - 1)) / np.sqrt(self.n))
