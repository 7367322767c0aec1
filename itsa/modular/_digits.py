"""Balanced radix-ρ digits, layer symbols, and Assumption 1 decided by exhaustive enumeration.

For the integer chain ``Λ_ℓ = ρ^(ℓ-1) Z`` (``h = 1``), a point ``|x| <= (ρ^L-1)/2``
has balanced digits ``a_ℓ ∈ {-(ρ-1)/2, …, (ρ-1)/2}`` with ``x = Σ ρ^(ℓ-1) a_ℓ``,
and the layer symbol ``x^ℓ = Q_ℓ(x) - Q_(ℓ+1)(x)`` equals ``ρ^(ℓ-1) a_ℓ``.

:func:`digits` checks Assumption 1 (``x^ℓ ∈ C_ℓ = Λ_ℓ ∩ V_(ℓ+1)``) on
every point of ``Λ_1 ∩ V_(L+1)`` for a chain: the integer chain in ``n_b``
dimensions, or the self-similar hexagonal chain ``Λ_ℓ = ρ^(ℓ-1) A2``.

Examples
--------
>>> balanced_digits(13, radix=3, layers=3)
(1, 1, 1)
>>> balanced_digits(-5, radix=3, layers=3), from_digits((1, -1, -1), radix=3)
((1, 1, -1), -11)
>>> layer_symbols(13, radix=3, layers=3)
(1, 3, 9)
>>> c = digits("integer", radix=3, layers=4)
>>> c.points, [r.violations for r in c.counts]
(81, [0, 0, 0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

import numpy as np

from itsa._util.certified import safe_decimal
from itsa._util.checks import choice, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.modular._laws import check_radix

__all__ = ["Chain", "balanced_digits", "from_digits", "layer_symbols", "LayerCount", "Compatibility",
           "digits", "compatibility", "DEFAULT_SAMPLES", "MAX_ENUMERATION", "TIE_BREAK", "MAX_COUNT_BYTES", "count_bytes"]

#: Most points enumerated exhaustively; beyond, points are sampled (with a standard error).
MAX_ENUMERATION = 2 * 10**6
#: Largest estimated working memory of a count (bytes): about 3 s of work at the limit.
MAX_COUNT_BYTES = 2**30
#: Points drawn when sampling, unless told.
DEFAULT_SAMPLES = 200_000
#: The deterministic boundary rule of every quantizer here.
TIE_BREAK = ("a point equidistant from several lattice points is quantized to the one whose "
             "coordinates in the lattice basis are lexicographically smallest; for the odd-radix "
             "integer chain no ties occur")


class Chain(StrEnum):
    """The lattice chains whose digit compatibility can be counted: the integer chain and the hexagonal A2."""

    INTEGER = "integer"
    A2 = "a2"


def balanced_digits(x: int, radix: int, layers: int) -> tuple[int, ...]:
    """The balanced radix-``ρ`` digits of ``x``, least significant first (balanced Euclidean division).

    Parameters
    ----------
    x : int
        An integer with ``|x| <= (ρ^L - 1)/2``.
    radix, layers : int
        ``ρ`` and ``L``.
    """
    check_radix(radix)
    top = (radix ** layers - 1) // 2
    if not isinstance(x, int) or abs(x) > top:
        raise InvalidOption(f"x: must be an integer with |x| <= (ρ^L-1)/2 = {top}, not {x!r}")
    half = radix // 2
    digits = []
    for _ in range(layers):
        a = (x + half) % radix - half
        digits.append(a)
        x = (x - a) // radix
    return tuple(digits)


def from_digits(digits: Sequence[int], radix: int) -> int:
    """``Σ_ℓ ρ^(ℓ-1) a_ℓ``.

    Parameters
    ----------
    digits : sequence of int
        ``a_1, a_2, …``, least significant first.
    radix : int
        ``ρ``.
    """
    return sum(a * radix ** i for i, a in enumerate(digits))


def _nearest_multiple(x: np.ndarray, step: int) -> np.ndarray:
    """Nearest multiple of the odd ``step`` (no ties for integers)."""
    return np.floor_divide(2 * x + step, 2 * step) * step


def layer_symbols(x: int, radix: int, layers: int) -> tuple[int, ...]:
    """``x^ℓ = Q_(ρ^(ℓ-1) Z)(x) - Q_(ρ^ℓ Z)(x)`` for ``ℓ = 1..L`` (eq. 7).

    Parameters
    ----------
    x : int
        An integer with ``|x| <= (ρ^L - 1)/2``.
    radix, layers : int
        ``ρ`` and ``L``.
    """
    balanced_digits(x, radix, layers)
    q = [int(_nearest_multiple(np.array(x), radix ** i)) for i in range(layers + 1)]
    return tuple(q[i] - q[i + 1] for i in range(layers))


def _quantize_a2(a: np.ndarray, b: np.ndarray, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """Nearest point of ``scale · A2`` (basis (1,0), (1/2, √3/2)), in basis coordinates.

    The point lies in a parallelogram of the basis whose two triangles are
    Delaunay cells, so the nearest lattice point is one of its four corners;
    ``N(u, v) = u² + uv + v²`` is the squared norm in these coordinates.
    """
    i0, j0 = np.floor_divide(a, scale), np.floor_divide(b, scale)
    corners = [(i0, j0), (i0, j0 + 1), (i0 + 1, j0), (i0 + 1, j0 + 1)]   # lexicographic order
    norms = []
    for i, j in corners:
        u, v = a - scale * i, b - scale * j
        norms.append(u * u + u * v + v * v)
    pick = np.argmin(np.stack(norms), axis=0)      # the first minimum: lexicographic tie-break
    i = np.choose(pick, [c[0] for c in corners])
    j = np.choose(pick, [c[1] for c in corners])
    return scale * i, scale * j


@dataclass(frozen=True)
class LayerCount:
    """Assumption 1 at one layer: how many of the points have ``x^ℓ`` outside ``C_ℓ``.

    Parameters
    ----------
    layer : int
        ``ℓ``.
    violations : int
        Points whose layer symbol leaves ``C_ℓ``.
    points : int
        Points counted.
    telescoping_failures : int
        Points whose symbols do not sum back to the point (0: telescoping is algebraic).
    """

    layer: int
    violations: int
    points: int
    telescoping_failures: int = 0

    @property
    def fraction(self) -> Fraction:
        return Fraction(self.violations, self.points)

    def standard_error(self) -> float:
        """The standard error of the sampled share (a float: a statistic, never printed unrounded)."""
        p = self.violations / self.points
        return float(np.sqrt(p * (1 - p) / self.points))

    def to_dict(self, exhaustive: bool = True) -> dict:
        se = {} if exhaustive else {"standard_error": safe_decimal(Fraction(self.standard_error()), 4)}
        return {"layer": self.layer, "violations": self.violations, "points": self.points,
                "fraction": str(self.fraction), "telescoping_failures": self.telescoping_failures, **se}


@dataclass(frozen=True, repr=False, kw_only=True)
class Compatibility(Displayable):
    """Per-layer counts of Assumption 1's violations over ``Λ_1 ∩ V_(L+1)`` (or a sample of it).

    Parameters
    ----------
    chain : Chain
        ``integer`` or ``a2``.
    radix, layers, block_dimension : int
        ``ρ``, ``L`` and ``n_b``.
    points : int
        Points counted.
    exhaustive : bool
        Every point enumerated (else a seeded sample).
    seed : int or None
        The sample's seed (``None`` when exhaustive).
    counts : tuple of LayerCount
        One per layer.
    max_points, samples : int
        The enumeration limit and the sample size asked for.
    """

    chain: Chain
    radix: int
    layers: int
    block_dimension: int
    points: int
    exhaustive: bool
    seed: int | None
    counts: tuple[LayerCount, ...]
    max_points: int = MAX_ENUMERATION
    samples: int = DEFAULT_SAMPLES

    @property
    def satisfied(self) -> bool:
        return all(r.violations == 0 for r in self.counts)

    def headline(self) -> str:
        how = "every point enumerated" if self.exhaustive else f"{self.points} sampled points (seed {self.seed})"
        verdict = "holds" if self.satisfied else "fails"
        return f"{self.chain} chain, ρ = {self.radix}, L = {self.layers}: Assumption 1 {verdict} ({how})"

    def rows(self) -> list[tuple[str, str]]:
        rows = []
        for r in self.counts:
            share = f"{r.fraction} = {safe_decimal(100 * r.fraction, 4)} %, rounded up" if r.violations else "0"
            error = safe_decimal(100 * Fraction(r.standard_error()), 3)
            how = "exact count" if self.exhaustive else f"sampled, ± {error} % standard error"
            rows.append((f"layer {r.layer}", f"{r.violations} of {r.points} outside C_ℓ ({how}; {share})"))
        rows.append(("tie-break", TIE_BREAK))
        return rows

    def to_dict(self) -> dict:
        return {"chain": str(self.chain), "radix": self.radix, "layers": self.layers,
                "block_dimension": self.block_dimension, "max_points": self.max_points, "samples": self.samples,
                "points": self.points, "exhaustive": self.exhaustive, "seed": self.seed,
                "satisfied": self.satisfied, "tie_break": TIE_BREAK,
                "rows": [r.to_dict(self.exhaustive) for r in self.counts]}


def digits(chain: Chain | str = Chain.INTEGER, radix: int = 3, layers: int = 4,
           block_dimension: int | None = None, max_points: int = MAX_ENUMERATION, samples: int = DEFAULT_SAMPLES,
           seed: int = 0) -> Compatibility:
    """Count, per layer, the points of ``Λ_1 ∩ V_(L+1)`` whose layer symbol leaves ``C_ℓ``.

    Every point is enumerated when there are at most ``max_points`` of them
    (``ρ^(n_b L)``); beyond, ``samples`` points are drawn uniformly with ``seed``.
    ``block_dimension`` is the integer chain's ``n_b`` (default 1); the A2 chain
    is 2-dimensional, and another ``block_dimension`` for it is refused.

    Notes
    -----
    Assumption 1 and eq. 2–4 of Azimi-Abarghouyi, arXiv 2610.00695; Fig. 1b
    reports sampled rates for the A2 chain (14.4 %, 14.8 %, 13.1 % at layers 2–4).
    The boundary rule is :data:`TIE_BREAK`.

    Parameters
    ----------
    chain : Chain or str
        ``integer`` (``Λ_ℓ = ρ^(ℓ-1) Z^(n_b)``) or ``a2`` (``ρ^(ℓ-1) A2``).
    radix, layers : int
        ``ρ`` and ``L``.
    block_dimension : int, optional
        ``n_b`` of the integer chain (default 1); the A2 chain is 2-dimensional.
    max_points : int
        Enumerate every point up to this many; sample beyond.
    samples : int
        Points drawn when sampling.
    seed : int
        The sample's seed.

    Examples
    --------
    >>> [r.violations for r in digits("a2", radix=3, layers=2).counts]
    [0, 12]
    """
    kind: Chain = choice("chain", chain, Chain)
    check_radix(radix)
    layers = whole_number("L (layers)", layers, minimum=1, maximum=40)
    dim = _block_dimension(kind, block_dimension)
    whole_number("samples", samples, minimum=1, maximum=10**7)
    if radix ** layers > 2**30:
        raise InvalidOption(f"radix^L = {radix}^{layers} is above 2^30, beyond the integer range of the enumeration")
    whole_number("max points", max_points, minimum=0)
    whole_number("seed", seed, minimum=0)
    total = radix ** (dim * layers)
    exhaustive = total <= max_points
    need = count_bytes(total if exhaustive else samples, dim, layers)
    if need > MAX_COUNT_BYTES:
        what = f"every one of {radix}^{dim * layers} points" if exhaustive else f"{samples} sampled points"
        raise InvalidOption(f"digits: counting {what} in {dim} dimensions would take about {need // 2**20} MiB "
                            f"(limit {MAX_COUNT_BYTES // 2**20} MiB); lower the enumeration limit (max points) "
                            "or the samples")
    cosets = _all_cosets(radix ** layers, dim) if exhaustive else _sample_cosets(radix ** layers, dim, samples, seed)
    quantize: Any = _quantize_a2 if kind is Chain.A2 else _quantize_box
    top = radix ** layers
    coarse = quantize(*cosets, top)
    points = [c - q for c, q in zip(cosets, coarse)]          # Λ_1 ∩ V_(L+1), tie-broken
    rows = _count_layers(points, radix, layers, quantize)
    return Compatibility(chain=kind, radix=radix, layers=layers, block_dimension=dim, points=len(points[0]),
                         exhaustive=exhaustive, seed=None if exhaustive else seed, counts=tuple(rows),
                         max_points=max_points, samples=samples)


#: The former name of :func:`digits`.
compatibility = digits


def _block_dimension(kind: Chain, block_dimension: int | None) -> int:
    if kind is Chain.A2:
        if block_dimension not in (None, 2):
            raise InvalidOption(f"block dimension: the A2 chain is 2-dimensional; {block_dimension} does not apply")
        return 2
    return 1 if block_dimension is None else whole_number("block dimension", block_dimension, minimum=1, maximum=64)


def count_bytes(points: int, dim: int, layers: int) -> int:
    """Estimated peak memory (bytes) of counting ``points`` points: ``L + 1`` quantizations of ``dim`` int64 arrays.

    Parameters
    ----------
    points, dim, layers : int
        Points counted, their dimension and ``L``.

    Measured: 1.4 GB for 10⁶ points, ``n_b = 8``, ``L = 13`` (estimate 1.2 GB).
    """
    return points * dim * 8 * (layers + 6)


def _quantize_box(*coords_and_scale):
    *coords, scale = coords_and_scale
    return tuple(_nearest_multiple(c, scale) for c in coords)


def _all_cosets(modulus: int, dim: int) -> list[np.ndarray]:
    grids = np.meshgrid(*([np.arange(modulus, dtype=np.int64)] * dim), indexing="ij")
    return [g.ravel() for g in grids]


def _sample_cosets(modulus: int, dim: int, samples: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, modulus, size=samples, dtype=np.int64) for _ in range(dim)]


def _count_layers(points, radix, layers, quantize) -> list[LayerCount]:
    q = [quantize(*points, radix ** i) for i in range(layers + 1)]
    rows = []
    total = [np.zeros_like(points[0]) for _ in points]
    for ell in range(1, layers + 1):
        symbol = [a - b for a, b in zip(q[ell - 1], q[ell])]
        total = [t + s for t, s in zip(total, symbol)]
        back = quantize(*symbol, radix ** ell)
        outside = np.zeros(len(points[0]), dtype=bool)
        for c in back:
            outside |= c != 0
        rows.append(LayerCount(ell, int(outside.sum()), len(points[0])))
    failures = np.zeros(len(points[0]), dtype=bool)
    for t, p in zip(total, points):
        failures |= t != p
    bad = int(failures.sum())
    return [LayerCount(r.layer, r.violations, r.points, bad) for r in rows]
