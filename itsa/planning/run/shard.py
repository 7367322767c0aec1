"""A shard of a simulated round: a range of clients encoded, noised and masked, and their partial sums.

A round of :func:`itsa.planning.run.simulate.simulate` is cut into **blocks** of
consecutive clients (:func:`block_clients`: about :data:`BLOCK_CELLS`
client-coordinates, at least :data:`MIN_BLOCK` clients) and the blocks into
**shards** (:func:`shard_ranges`: about :data:`SHARD_CELLS`), both fixed by
the setup alone, never by the workers. Every random choice of a block comes
from its own stream, derived from ``(seed, round, block)``
(:class:`numpy.random.SeedSequence` with the spawn key ``(round, 1, block)``;
the noise from a seed text naming the round, the layer and the block's first
client); the round's public randomness (the rotation's signs, who drops out)
from ``(round, 0, 0)``. A shard's work (:func:`shard_sums`) is a pure function
of plain data, so the same shard gives the same :class:`ShardSums` in this
process, on a local Dask worker or on a remote one; shards are merged in their
order, so a round run serially and one run over any number of workers agree
bit for bit.

Within a block the clients mask their words on a ring (client ``i`` shares a
uniform mask with each of its next ``w = min(NEIGHBOURS, block − 1)``
neighbours in the block), so the masks cancel in each block's sum; the masks of
a pair with a dropped member are removed from that pair's masks alone. A
shard keeps, per summed symbol, the survivors' uploads summed modulo ``M``
less those masks, and their true (integer) sum: memory ``O(d')`` per shard
beyond the block being encoded.

Examples
--------
>>> from itsa.planning.run.setup import SimulationSetup
>>> s = SimulationSetup(clients=20, dimension=8, clip=1, gamma=4, sigma_client=1, modulus=2**10)
>>> signs, alive = round_public(s, seed=7, t=0)
>>> one, again = (shard_sums(s, "sphere", 7, 0, 0, 20, signs, alive) for _ in range(2))
>>> bool((one.unmasked[0] == again.unmasked[0]).all()), one.cancel, shard_ranges(s)
(True, True, [(0, 20)])
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from itsa._util.deadline import Deadline
from itsa._util.progress import Callback
from itsa.planning.mechanisms import mechanism
from itsa.planning.protocols.run import ProtocolTally, protocol_sum
from itsa.planning.run.setup import MIN_BLOCK, NEIGHBOURS, SimulationSetup, Updates
from itsa.planning.run.transforms import norm_cap, rotate, rotation_signs, round_rows
from itsa.planning.vocabulary import NoiseKind
from itsa.privacy.neighbours import Rounding

__all__ = ["ShardSums", "shard_sums", "shard_ranges", "block_clients", "round_public", "BLOCK_CELLS", "SHARD_CELLS", "MIN_SHARDS",
           "MIN_BLOCK"]

#: Client-coordinates of one block (its arrays are encoded at once: about a dozen of this many numbers).
BLOCK_CELLS = 1 << 20
#: Client-coordinates of one shard (one task of a sharded run: a few seconds of work).
SHARD_CELLS = 1 << 24
#: Shards a large round is cut into at least (smaller shards than :data:`SHARD_CELLS` if need be).
MIN_SHARDS = 32


def block_clients(setup: SimulationSetup) -> int:
    """Clients per block: about :data:`BLOCK_CELLS` client-coordinates, at least :data:`MIN_BLOCK`, at most
    every client; all of them under a planned protocol (its round runs on the whole matrix).

    >>> from itsa.planning.run.setup import SimulationSetup
    >>> block_clients(SimulationSetup(clients=10**4, dimension=120_000, clip=1, gamma=1, modulus=2**20))
    8
    """
    if setup.protocol is not None:
        return setup.clients
    return min(setup.clients, max(MIN_BLOCK, BLOCK_CELLS // setup.rotated_dimension))


def shard_ranges(setup: SimulationSetup) -> list[tuple[int, int]]:
    """The shards' client ranges ``[lo, hi)``: whole blocks, about :data:`SHARD_CELLS` client-coordinates each,
    or fewer so that a round has about :data:`MIN_SHARDS` shards (the workers then end a round together).

    >>> from itsa.planning.run.setup import SimulationSetup
    >>> len(shard_ranges(SimulationSetup(clients=10**4, dimension=120_000, clip=1, gamma=1, modulus=2**20)))
    74
    """
    size = block_clients(setup)
    cells = min(SHARD_CELLS, setup.clients * setup.rotated_dimension // MIN_SHARDS)
    size *= max(1, cells // (size * setup.rotated_dimension))
    return [(lo, min(lo + size, setup.clients)) for lo in range(0, setup.clients, size)]


def round_public(setup: SimulationSetup, seed: int, t: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Round ``t``'s public randomness: the rotation's signs (``None`` without one) and who survives (a boolean
    per client: the most the dropout allows drop out), from the stream of ``(seed, t, 0, 0)``."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(t, 0, 0)))
    signs = rotation_signs(rng, setup)
    K = setup.clients
    alive = np.ones(K, dtype=bool)
    alive[rng.permutation(K)[:K - setup.survivors]] = False
    return signs, alive


@dataclass
class ShardSums:
    """What a shard hands back: per summed symbol (finest first) the survivors' uploads summed modulo ``M`` less
    the dropped pairs' masks (``unmasked``) and their true integer sum (``true``); the survivors' updates summed
    (``x``, float, ``d``); their rounding errors ``Σ (round(γ y) − γ y)`` (rounding to nearest) or variances
    ``Σ f (1 − f)`` (otherwise), float, ``d'``; whether every block's masks cancelled; the first survivor's
    masked upload if it is in the shard; the stochastic roundings drawn; the seconds of work."""

    unmasked: list
    true: list
    x: np.ndarray
    rounding: np.ndarray
    cancel: bool
    upload: np.ndarray | None
    attempts: int
    seconds: float

    def merged(self, other: ShardSums, moduli: tuple[int, ...]) -> ShardSums:
        """This shard's sums then ``other``'s (the order fixes the float sums' rounding)."""
        return ShardSums(unmasked=[np.mod(a + b, m) for a, b, m in zip(self.unmasked, other.unmasked, moduli)],
                         true=[a + b for a, b in zip(self.true, other.true)], x=self.x + other.x,
                         rounding=self.rounding + other.rounding, cancel=self.cancel and other.cancel,
                         upload=self.upload if self.upload is not None else other.upload,
                         attempts=self.attempts + other.attempts, seconds=self.seconds + other.seconds)


def shard_sums(setup: SimulationSetup, kind: str, seed: int, t: int, lo: int, hi: int, signs: np.ndarray | None,
               alive: np.ndarray, clock: Deadline | None = None, tally: ProtocolTally | None = None,
               progress: Callback | None = None) -> ShardSums:
    """Encode clients ``lo..hi−1`` of round ``t`` block by block and return their :class:`ShardSums`.

    ``alive`` says who survives, for every client of the round; ``signs`` are the round's (see
    :func:`round_public`); ``lo`` starts a block. ``clock`` is looked at inside (noise chunks, masks,
    rounding); ``tally`` and ``progress`` are a planned protocol's (its round runs in one block)."""
    start, size, cap = time.perf_counter(), block_clients(setup), norm_cap(setup)
    survivors = np.flatnonzero(alive)
    first = int(survivors[0]) if len(survivors) else -1
    out: ShardSums | None = None
    for a in range(lo, hi, size):
        part = _block(setup, kind, seed, t, a, min(a + size, hi), signs, alive, first, cap, clock, tally, progress)
        out = part if out is None else out.merged(part, setup.moduli)
    assert out is not None
    out.seconds = time.perf_counter() - start
    return out


def _block(setup: SimulationSetup, kind: str, seed: int, t: int, a: int, b: int, signs, alive_all: np.ndarray,
           first: int, cap: float | None, clock, tally, progress) -> ShardSums:
    """Clients ``a..b−1`` (one block) from their own stream (``(seed, t, 1, a // block)``)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(t, 1, a // block_clients(setup))))
    alive = alive_all[a:b]
    x, y, ints, attempts = _updates(rng, setup, kind, signs, cap, b - a, clock)
    radix, layers = setup.digits()
    digits = _digits(ints, radix, layers) if setup.layered else [ints]
    noisy = [v + _noise(setup, a, b, first, f"itsa-simulate:{seed}:round:{t}:layer:{ell}", clock)
             for ell, v in enumerate(digits, start=1)]
    unmasked, true, cancel, upload = [], [], True, None
    for i, (modulus, ls) in enumerate(setup.blocks()):
        symbol = noisy[ls[0] - 1].copy()
        for j, ell in enumerate(ls[1:], start=1):
            symbol += radix ** j * noisy[ell - 1]
        if setup.protocol is None:
            total, ok, first_upload = _masked_sum(rng, symbol, alive, modulus, clock)
        else:                                     # the planned protocol, on the whole round (one block)
            assert tally is not None
            total, ok, first_upload = protocol_sum(setup.protocol, rng, symbol, alive, modulus, clock, tally, t,
                                                   progress)
        unmasked.append(total)
        true.append(symbol[alive].sum(axis=0))
        cancel &= ok
        if i == 0 and a <= first < b:
            upload = first_upload
    scaled = y[alive] * float(setup.gamma)
    if setup.rounding == Rounding.NEAREST:        # the rounding's error is fixed by the data
        rounding = (ints[alive] - scaled).sum(axis=0)
    else:                                         # a stochastic rounding's variance is f (1 - f)
        f = scaled - np.floor(scaled)
        rounding = (f * (1 - f)).sum(axis=0)
    return ShardSums(unmasked=unmasked, true=true, x=x[alive].sum(axis=0), rounding=rounding, cancel=cancel,
                     upload=upload, attempts=attempts, seconds=0.0)


# -- a block's updates and their rounding ---------------------------------------------------------

def _updates(rng, setup: SimulationSetup, kind: str, signs: np.ndarray | None, cap: float | None, clients: int,
             clock: Deadline | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(x, y, y_int, attempts)``: the real updates, their rotations (``x`` itself without one), the roundings
    of ``γ y`` and the stochastic roundings drawn (``0`` for rounding to nearest).

    Stochastic rounding rounds ``γ y`` up with probability its fractional part; conditional rounding draws
    it again for every client whose rounded squared norm is above ``cap`` (:func:`~itsa.planning.run.transforms.norm_cap`) until none
    is. The clients are rounded in slices of about :data:`DRAW_CHUNK` coordinates, with a look at ``clock``
    before each slice and each retry."""
    K, d, g = clients, setup.dimension, float(setup.gamma)
    if kind == Updates.UNIFORM:
        top = math.floor(setup.gamma * setup.clip)
        ints = rng.integers(-top, top + 1, size=(K, d), dtype=np.int64)
        return ints / g, ints / g, ints, 0
    x = rng.standard_normal((K, d))
    x *= float(setup.clip) / np.linalg.norm(x, axis=1, keepdims=True)
    y = x if signs is None else rotate(x, signs, setup.rotation)
    ints, attempts = round_rows(rng, y, setup, cap, clock)
    return x, y, ints, attempts


# -- the rotation, as :mod:`itsa.planning.rotation` defines it ------------------------------------

def _digits(ints: np.ndarray, radix: int, layers: int) -> list[np.ndarray]:
    """Balanced radix digits, layer 1 (finest) first: ``x = Σ ρ^(ℓ−1) a_ℓ``."""
    half, rest, out = (radix - 1) // 2, ints.copy(), []
    for _ in range(layers):
        a = np.mod(rest + half, radix) - half
        out.append(a)
        rest = (rest - a) // radix
    return out


def _noise(setup: SimulationSetup, a: int, b: int, first: int, seed_text: str,
           clock: Deadline | None = None) -> np.ndarray:
    """One layer's noise for clients ``a..b−1``, ``(b − a, d')``: a share per client (from ``seed_text`` and
    the block's first client), or (central) one draw on the first survivor's row if it is in the block;
    drawn by the mechanism's sampler (:meth:`~itsa.planning.mechanisms.NoiseMechanism.draws`)."""
    d = setup.rotated_dimension
    out = np.zeros((b - a, d), dtype=np.int64)
    if setup.sigma_client == 0:
        return out
    draws = mechanism(setup.mechanism).draws
    if setup.noise == NoiseKind.DISTRIBUTED:
        return draws(setup.sigma_client, (b - a) * d, f"{seed_text}:clients:{a}", clock).reshape(out.shape)
    if a <= first < b:
        out[first - a] = draws(setup.sigma_client, d, seed_text, clock)
    return out


def _mod_sum(rows: np.ndarray, modulus: int) -> np.ndarray:
    """``Σ rows mod M`` along axis 0 in int64 (chunks small enough never to overflow)."""
    chunk = max(1, (2**62) // modulus)
    total = np.zeros(rows.shape[1], dtype=np.int64)
    for start in range(0, rows.shape[0], chunk):
        total = np.mod(total + np.mod(rows[start:start + chunk].sum(axis=0), modulus), modulus)
    return total


def _masked_sum(rng, values: np.ndarray, alive: np.ndarray, modulus: int,
                clock: Deadline | None = None) -> tuple[np.ndarray, bool, np.ndarray | None]:
    """Mask every client's ``values`` on the block's ring, sum the survivors', unmask: ``(sum mod M, cancel?,
    the first survivor's upload or None)``.

    ``clock`` is looked at before each neighbour's masks."""
    K, d = values.shape
    w = min(NEIGHBOURS, K - 1)
    masks = np.zeros((K, d), dtype=np.int64)
    residue = np.zeros(d, dtype=np.int64)
    for k in range(1, w + 1):
        if clock is not None:
            clock.check(f"a round's masks (neighbour {k} of {w})")
        pair = rng.integers(0, modulus, size=(K, d), dtype=np.int64)     # shared by i and i + k
        masks = np.mod(masks + pair, modulus)
        masks = np.mod(masks - np.roll(pair, k, axis=0), modulus)
        sign = alive.astype(np.int64) - np.roll(alive, -k).astype(np.int64)   # pairs with one member dropped
        if sign.any():
            residue = np.mod(residue + _mod_sum(np.mod(sign[:, None] * pair, modulus), modulus), modulus)
    uploads = np.mod(np.mod(values, modulus) + masks, modulus)
    total = _mod_sum(uploads[alive], modulus)
    unmasked = np.mod(total - residue, modulus)
    cancel = bool(np.array_equal(unmasked, _mod_sum(np.mod(values[alive], modulus), modulus)))
    survivors = np.flatnonzero(alive)
    return unmasked, cancel, uploads[int(survivors[0])] if len(survivors) else None
