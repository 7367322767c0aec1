"""Theorem 4: the per-client error of a truncated release, closed forms, bounds and a seeded check.

With the finest authorized layer ``ℓ0``, a client's error is
``E = Q_(Λ_ℓ0)(x) - d - v = e - r``: the dither error ``e`` (second moment
``n_b σ²(Λ_1) = n_b h²/12``) minus the withheld refinement ``r = x - Q_(Λ_ℓ0)(x)``.

- ``T_ℓ0 = E‖r‖²``; under uniform residues ``T_ℓ0 = n_b h² (ρ^(2(ℓ0-1)) - 1)/12`` (eq. 39), exact.
- Theorem 4(b): ``(√T - √(n_b h²/12))² <= E‖E‖² <= (√T + √(n_b h²/12))²`` (eq. 43), certified.
- Theorem 4(a): at ``ℓ0 = 1`` the error is exactly ``n_b h²/12``.

:func:`monte_carlo` draws updates, dithers and quantizes with a seed, and
reports the measured ``T`` and error with standard errors.

Examples
--------
>>> uniform_residue_T(4, radix=3)
Fraction(182, 3)
>>> lo, hi = theorem4_bounds(uniform_residue_T(4, radix=3))
>>> lo.text(2), hi.text(2)
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

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.modular.laws import check_radix
from itsa.modular.numbers import Certified, certified, fraction_text, working_precision

__all__ = ["Source", "uniform_residue_T", "theorem4_bounds", "MonteCarlo", "monte_carlo", "MAX_SAMPLES", "CHUNK"]

#: Most Monte Carlo samples (about 50 s at 2·10⁶ samples per second).
MAX_SAMPLES = 10**8
#: Samples drawn at once: the memory stays at about 100 MB for any ``samples``.
CHUNK = 10**6


class Source(StrEnum):
    """The law of the scaled update ``v`` in the Monte Carlo check."""

    UNIFORM = "uniform"
    GAUSSIAN = "gaussian"


def uniform_residue_T(finest: int, radix: int = 3, block_dimension: int = 1, h=1) -> Fraction:
    """``T_ℓ0 = n_b σ²(Λ_ℓ0)(1 - ρ^(-2(ℓ0-1)))`` with ``σ²(Λ_ℓ0) = h² ρ^(2(ℓ0-1))/12`` (eq. 39), exactly."""
    check_radix(radix)
    whole_number("ℓ0", finest, minimum=1)
    h = fraction("h", h, low=0)
    return block_dimension * h * h * Fraction(radix ** (2 * (finest - 1)) - 1, 12)


def theorem4_bounds(T, block_dimension: int = 1, h=1) -> tuple[Certified, Certified]:
    """Theorem 4(b)'s two sides ``(√T ∓ √(n_b h²/12))²`` (eq. 43), certified."""
    import flint

    T = Fraction(T)
    floor = block_dimension * Fraction(h) ** 2 / 12
    with working_precision():
        a = (flint.arb(T.numerator) / T.denominator).sqrt()
        b = (flint.arb(floor.numerator) / floor.denominator).sqrt()
        return certified((a - b) ** 2), certified((a + b) ** 2)


@dataclass(frozen=True, repr=False, kw_only=True)
class MonteCarlo(Displayable):
    """Measured ``T`` and per-client error at one ``ℓ0`` (one coordinate, ``h = 1``), with standard errors."""

    finest: int
    radix: int
    layers: int
    source: Source
    spread: float
    samples: int
    seed: int
    error: float
    error_se: float
    T: float
    T_se: float
    closed_form_T: Fraction
    bounds: tuple[Certified, Certified]
    clipped: float = 0.0

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

    def headline(self) -> str:
        return (f"ℓ0 = {self.finest}, {self.source}: error {self.error:.4g} ± {self.error_se:.2g}, "
                f"T {self.T:.4g} (closed form {float(self.closed_form_T):.4g}); seeded Monte Carlo, not a bound")

    def rows(self) -> list[tuple[str, str]]:
        lo, hi = self.measured_bounds
        clip = "" if self.source is Source.UNIFORM else f", {100 * self.clipped:.2f} % of draws clipped to V_(L+1)"
        return [("samples, seed", f"{self.samples}, {self.seed}"),
                ("source", f"{self.source}, spread {self.spread:g}{clip}"),
                ("error E‖E‖²", f"{self.error:.5g} ± {self.error_se:.2g} (Monte Carlo, standard error)"),
                ("T measured", f"{self.T:.5g} ± {self.T_se:.2g} (Monte Carlo)"),
                ("T closed form (eq. 39)", f"{fraction_text(self.closed_form_T)} (exact, uniform residues)"),
                ("eq. 43 with measured T", f"{lo.text(4)} .. {hi.text(4)}"),
                ("inside eq. 43 (± 3 s.e.)", "yes" if self.inside_bounds else "no")]

    def to_json(self) -> dict:
        lo, hi = self.measured_bounds
        return {"finest_layer": self.finest, "source": str(self.source), "spread": self.spread,
                "clipped_fraction": self.clipped,
                "samples": self.samples, "seed": self.seed, "error": self.error, "error_standard_error": self.error_se,
                "T": self.T, "T_standard_error": self.T_se, "closed_form_T": fraction_text(self.closed_form_T),
                "bounds_measured_T": [lo.to_json(), hi.to_json()], "inside_bounds": self.inside_bounds,
                "method": "seeded Monte Carlo (numpy default_rng)"}


def monte_carlo(finest: int, radix: int = 3, layers: int = 4, source: Source | str = Source.UNIFORM,
                spread: float | None = None, samples: int = 100_000, seed: int = 0,
                time_limit: float | Deadline | None = None, tick=None) -> MonteCarlo:
    """Measure ``E‖E_k^(ℓ0)‖²`` and ``T_ℓ0`` by simulation (one coordinate, ``h = 1``).

    ``v`` is uniform on ``[-spread, spread)`` (default and largest accepted:
    ``(ρ^L - 1)/2 - 1/2``, half a step inside the exact limit ``(ρ^L - 1)/2``
    beyond which ``round(v + d)`` leaves ``V_(L+1)``, so that rounding in floating
    point cannot push a point out) or Gaussian with standard deviation ``spread``
    (default a sixth of that range), clipped to it (the share clipped is
    reported); the dither is uniform on ``[-1/2, 1/2)``. The samples are drawn in
    blocks of :data:`CHUNK` (the same numbers as one block up to ``CHUNK``
    samples), each block checked against ``time_limit`` (seconds) and counted by
    ``tick(done, total)``.

    Notes
    -----
    Theorem 4 and eq. 38–43 of Azimi-Abarghouyi, arXiv 2610.00695; Fig. 3a.
    """
    check_radix(radix)
    whole_number("L (layers)", layers, minimum=1, maximum=30)
    whole_number("ℓ0", finest, minimum=1, maximum=layers)
    whole_number("samples", samples, minimum=2, maximum=MAX_SAMPLES)
    whole_number("seed", seed, minimum=0)
    kind: Source = choice("source", source, Source)
    if radix ** layers > 2**52:
        raise InvalidOption(f"radix^L = {radix}^{layers} is above 2^52, beyond the exact integers of a float")
    top = (radix ** layers - 1) / 2 - 0.5
    if spread is None:
        spread = top if kind is Source.UNIFORM else top / 6
    else:
        exact = fraction("spread", spread, low=0)
        if exact > 2**52:
            raise InvalidOption(f"spread: at most 2^52 (the exact integers of a float), not {spread:g}")
        spread = float(exact)
    if kind is Source.UNIFORM and spread > top:
        raise InvalidOption(f"spread: a uniform half-range above (ρ^L − 1)/2 − 1/2 = {top:g} quantizes points "
                            f"outside V_(L+1), where Theorem 4 does not apply; not {spread:g}")
    rng = np.random.default_rng(seed)
    clock = Deadline.of(time_limit)
    error, residue = _Moments(), _Moments()
    clipped = 0
    for start in range(0, samples, CHUNK):
        clock.check(f"sample {start} of {samples}")
        e2, r2, out = _draw(rng, kind, spread, top, radix ** (finest - 1), min(CHUNK, samples - start))
        error.add(e2)
        residue.add(r2)
        clipped += out
        if tick is not None:
            tick(start + len(e2), samples)
    T = uniform_residue_T(finest, radix)
    return MonteCarlo(finest=finest, radix=radix, layers=layers, source=kind, spread=spread, samples=samples,
                      seed=seed, error=error.mean, error_se=error.standard_error(), T=residue.mean,
                      T_se=residue.standard_error(), closed_form_T=T, bounds=theorem4_bounds(T),
                      clipped=clipped / samples)


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
