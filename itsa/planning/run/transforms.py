"""The client's encoding on arrays: the rotation, the rounding at ``γ``, and the centred residue of the sum.

One home for the run's rounds (:mod:`itsa.planning.run.simulate`, through
:mod:`itsa.planning.run.shard`) and a framework's client mod (in
:mod:`itsa.frameworks`): the rotation's public signs
(:func:`rotation_signs`), :func:`rotate` and :func:`unrotate` (the
normalised Walsh–Hadamard transform, or the real randomized DFT), the
rounding at ``γ`` (:func:`round_rows`, with conditional rounding's
:func:`norm_cap`) and the centred residue of the sum (:func:`centred`).
The plan's side of the same encoding (the scale, the word, the certified
probability that the sum wraps) is :mod:`itsa.planning.encoding`'s.

Examples
--------
>>> import numpy as np
>>> x, signs = np.array([[3.0, 4.0, 0.0]]), np.array([1, -1, 1, 1])
>>> bool(np.allclose(unrotate(rotate(x, signs, "hadamard"), signs, "hadamard", 3), x))
True
>>> centred(np.array([0, 5, 9]), 10).tolist()
[0, -5, -1]
"""

from __future__ import annotations

import math

import numpy as np

from itsa._util.deadline import Deadline
from itsa.planning.mechanisms.base import DRAW_CHUNK
from itsa.planning.rotation import Rotation
from itsa.planning.run.setup import SimulationSetup
from itsa.privacy.neighbours import Rounding, rounded_norm

__all__ = ["rotation_signs", "rotate", "unrotate", "round_rows", "norm_cap", "centred"]

def rotation_signs(rng, setup: SimulationSetup) -> np.ndarray | None:
    """The round's random signs (public randomness, one rotation shared by every client); ``None`` without one."""
    if setup.rotation == Rotation.NONE:
        return None
    return 2 * rng.integers(0, 2, size=setup.rotated_dimension, dtype=np.int64) - 1


def _walsh_hadamard(a: np.ndarray) -> np.ndarray:
    """The normalised Walsh–Hadamard transform along the last axis (Sylvester order, entries ``±1/√n``, ``n`` a
    power of two): symmetric and orthogonal, its own inverse."""
    lead, n, h = a.shape[:-1], a.shape[-1], 1
    while h < n:
        blocks = a.reshape(*lead, n // (2 * h), 2, h)
        a = np.stack((blocks[..., 0, :] + blocks[..., 1, :], blocks[..., 0, :] - blocks[..., 1, :]),
                     axis=-2).reshape(*lead, n)
        h *= 2
    return a / math.sqrt(n)


def rotate(x: np.ndarray, signs: np.ndarray, rotation: str) -> np.ndarray:
    """Rows ``x`` rotated into ``d' = len(signs)`` coordinates: padded with zeros, times the signs, then the
    normalised Walsh–Hadamard transform (``hadamard``) or, the ``d'/2`` complex numbers ``y_j + i y_(d'/2+j)``,
    their unitary DFT read back as the real parts then the imaginary parts (``dft``)."""
    d_rot = len(signs)
    y = np.zeros((*x.shape[:-1], d_rot))
    y[..., :x.shape[-1]] = x
    y *= signs
    if rotation == Rotation.HADAMARD:
        return _walsh_hadamard(y)
    half = d_rot // 2
    w = np.fft.fft(y[..., :half] + 1j * y[..., half:], norm="ortho")
    return np.concatenate((w.real, w.imag), axis=-1)


def unrotate(y: np.ndarray, signs: np.ndarray, rotation: str, dimension: int) -> np.ndarray:
    """The inverse of :func:`rotate` (its transpose), keeping the first ``dimension`` coordinates."""
    if rotation == Rotation.HADAMARD:
        x = _walsh_hadamard(y)
    else:
        half = y.shape[-1] // 2
        z = np.fft.ifft(y[..., :half] + 1j * y[..., half:], norm="ortho")
        x = np.concatenate((z.real, z.imag), axis=-1)
    return (x * signs)[..., :dimension]


def round_rows(rng, y: np.ndarray, setup: SimulationSetup, cap: float | None,
               clock: Deadline | None = None) -> tuple[np.ndarray, int]:
    """``(y_int, attempts)``: the rows ``y`` (already rotated) rounded at ``γ`` as ``setup`` rounds, and the
    stochastic roundings drawn (stochastic rounding rounds ``γ y`` up with probability its fractional part; conditional rounding draws a client again while its rounded squared norm is above ``cap``, :func:`norm_cap`'s; a look at ``clock`` before each slice of about :data:`~itsa.planning.mechanisms.base.DRAW_CHUNK` coordinates and each retry)."""
    K, g = y.shape[0], float(setup.gamma)
    if setup.rounding == Rounding.NEAREST:
        return np.floor(y * g + 0.5).astype(np.int64), 0
    ints, attempts, rows = np.empty(y.shape, dtype=np.int64), 0, max(1, DRAW_CHUNK // y.shape[1])
    for start in range(0, K, rows):
        if clock is not None:
            clock.check(f"a round's rounding (client {start:,} of {K:,})")
        scaled = y[start:start + rows] * g
        low = np.floor(scaled)
        frac = scaled - low
        r = low + (rng.random(scaled.shape) < frac)
        attempts += r.shape[0]
        again = np.zeros(r.shape[0], dtype=bool) if cap is None else (r * r).sum(axis=1) > cap
        while again.any():                    # conditional rounding: retry the clients over the bound
            if clock is not None:
                clock.check(f"a round's conditional rounding ({int(again.sum()):,} clients retried)")
            r[again] = low[again] + (rng.random((int(again.sum()), r.shape[1])) < frac[again])
            attempts += int(again.sum())
            again[again] = (r[again] * r[again]).sum(axis=1) > cap
        ints[start:start + rows] = r
    return ints, attempts


def norm_cap(setup: SimulationSetup) -> float | None:
    """Conditional rounding's bound on the rounded squared norm (``None`` for another rounding): the square of
    the lower end of :func:`itsa.privacy.neighbours.rounded_norm`'s enclosure (the plan's bound, in the
    rotated dimension ``d'``), less a relative ``10⁻¹²`` so that a float sum never accepts a vector over it."""
    if setup.rounding != Rounding.CONDITIONAL:
        return None
    bound = rounded_norm(gamma=setup.gamma, clip=setup.clip, dimension=setup.rotated_dimension,
                         rounding=Rounding.CONDITIONAL, beta=setup.beta)
    return float(bound.low) ** 2 * (1 - 1e-12)


def centred(r: np.ndarray, modulus: int) -> np.ndarray:
    """The representative of ``r mod M`` in ``[−⌊M/2⌋, M − 1 − ⌊M/2⌋]``."""
    return np.mod(r + modulus // 2, modulus) - modulus // 2
