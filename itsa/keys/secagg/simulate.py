"""One SecAgg+ round run end to end: graph, key agreement, Shamir shares, dropouts, masking and unmasking.

The protocol of Bell, Bonawitz, Gascón, Lepoint and Raykova (2020) on a
random Harary graph of degree ``k`` (or the full graph, ``k = n - 1``):

1. the clients are placed on a ring in a random order; each is joined to
   the ``k/2`` clients on either side;
2. each client ``i`` draws a mask key ``sk_i`` and a self-mask seed ``b_i``
   and Shamir-shares both, ``t``-of-``k``, over the prime field of
   ``2^31 + 11`` (the prime of federated-compute's Shamir sharing), one
   share of each to every neighbour ``j``, evaluated at ``x = j + 1``;
3. key agreement is Diffie-Hellman in the multiplicative group modulo that
   prime: ``pk_i = g^sk_i`` and ``s_ij = pk_j^sk_i = pk_i^sk_j``. The group is
   far too small to be secure: it stands for the elliptic-curve agreement of
   the protocol, so that the server's recomputation of a dropped client's
   masks from ``sk_i`` is the protocol's own;
4. the clients in the dropout set leave after the shares are sent;
5. each survivor sends ``y_i = x_i + PRG(b_i) + sum_j ±PRG(s_ij) mod M``
   (``+`` towards a larger client id). The PRG is NumPy's PCG64 generator
   seeded with the seed (it stands for the protocol's AES-CTR generator);
   each pairwise mask is expanded once and added with each surviving
   endpoint's sign, which gives the server's sum of the masked inputs
   without holding ``n`` vectors;
6. the server asks each survivor's surviving neighbours for shares of
   ``b_i``, each dropped client's for shares of ``sk_i``, interpolates at 0
   from any ``t`` of them, removes the self-masks and the dropped clients'
   pairwise masks, and is left with ``sum_{i survived} x_i mod M``.

Examples
--------
>>> r = simulate_round(40, 8, 5, dimension=16, dropout="1/10", seed=1)
>>> r.exact, r.failed_reconstructions, r.survivors
(True, (), 36)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption

__all__ = ["SecAggRound", "simulate_round", "harary_neighbours", "PRIME", "GENERATOR", "shamir_shares",
           "shamir_reconstruct"]

#: The Shamir field: the prime 2^31 + 11 (federated-compute's ``ShamirSecretSharing::kPrime``).
PRIME = 2**31 + 11
#: The base of the toy Diffie-Hellman agreement modulo :data:`PRIME`.
GENERATOR = 2
#: Largest modulus ``M`` of the inputs (the sum is carried in unsigned 64-bit words).
MAX_MODULUS = 2**32


def harary_neighbours(clients: int, degree: int, order: np.ndarray) -> np.ndarray:
    """The ``(n, k)`` neighbour table of the Harary graph on the ring ``order`` (or the full graph, ``k = n - 1``)."""
    if degree == clients - 1:
        everyone = np.arange(clients)
        return np.array([np.delete(everyone, i) for i in range(clients)], dtype=np.int64).reshape(clients, degree)
    half = degree // 2
    offsets = np.concatenate([np.arange(-half, 0), np.arange(1, half + 1)])
    position = np.empty(clients, dtype=np.int64)
    position[order] = np.arange(clients)
    return order[(position[:, None] + offsets[None, :]) % clients]


def _powmod(base: np.ndarray, exponent: int) -> np.ndarray:
    """``base ** exponent mod PRIME`` elementwise (products stay below 2^63)."""
    result = np.ones_like(base)
    square = base % PRIME
    while exponent:
        if exponent & 1:
            result = result * square % PRIME
        square = square * square % PRIME
        exponent >>= 1
    return result


def shamir_shares(secrets: np.ndarray, points: np.ndarray, threshold: int, rng: np.random.Generator) -> np.ndarray:
    """Shares of each secret (shape ``(m,)``) at its row of ``points`` (shape ``(m, k)``): degree ``t - 1`` polynomials."""
    coefficients = rng.integers(0, PRIME, size=(secrets.shape[0], threshold), dtype=np.int64)
    coefficients[:, 0] = secrets
    values = np.zeros(points.shape, dtype=np.int64)
    for c in range(threshold - 1, -1, -1):       # Horner, every row at once
        values = (values * points + coefficients[:, c:c + 1]) % PRIME
    return values


def shamir_reconstruct(points: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """The secrets (value at 0) from ``t`` shares per row: Lagrange interpolation modulo :data:`PRIME`."""
    count = points.shape[1]
    numerators = np.ones(points.shape, dtype=np.int64)
    denominators = np.ones(points.shape, dtype=np.int64)
    for l in range(count):
        other = points[:, l:l + 1]
        mask = np.arange(count)[None, :] != l
        numerators = np.where(mask, numerators * other % PRIME, numerators)
        denominators = np.where(mask, denominators * ((other - points) % PRIME) % PRIME, denominators)
    weights = numerators * _powmod(denominators, PRIME - 2) % PRIME
    return (weights * shares % PRIME).sum(axis=1) % PRIME


def _mask(tag: int, seed: int, dimension: int, modulus: int) -> np.ndarray:
    """The PRG's expansion of ``seed`` (``tag`` 0: pairwise, 1: self-mask) to ``dimension`` words mod ``modulus``."""
    return np.random.Generator(np.random.PCG64([tag, seed])).integers(0, modulus, size=dimension, dtype=np.uint64)


@dataclass(frozen=True, kw_only=True, repr=False)
class SecAggRound(Displayable):
    """What one simulated round did and whether the server's sum is exact.

    Parameters
    ----------
    clients, degree, threshold, dimension, modulus, seed : int
        The round's sizes and seed.
    dropped, corrupt : tuple of int
        The clients that left after the shares were sent, and those counted corrupt.
    survivors : int
        Clients whose masked input was summed.
    failed_reconstructions : tuple of int
        Clients whose secret (self-mask seed of a survivor, mask key of a dropped client)
        had fewer than ``t`` surviving neighbours to rebuild it.
    exact : bool
        The unmasked sum equals the sum of the survivors' inputs mod ``M`` (``False`` if a reconstruction failed).
    max_corrupt_neighbours : int
        The most corrupt neighbours any honest client had.
    exposed : tuple of int
        Honest clients with ``t`` or more corrupt neighbours (their secrets within the coalition's reach).
    aggregate : numpy.ndarray
        The server's result (not in :meth:`to_dict`; its SHA-256 is).
    """

    clients: int
    degree: int
    threshold: int
    dimension: int
    modulus: int
    seed: int
    dropped: tuple[int, ...]
    corrupt: tuple[int, ...]
    survivors: int
    failed_reconstructions: tuple[int, ...]
    exact: bool
    max_corrupt_neighbours: int
    exposed: tuple[int, ...]
    aggregate: np.ndarray = field(compare=False)

    @classmethod
    def title(cls) -> str:
        return "SecAgg+ round"

    def digest(self) -> str:
        """SHA-256 of the aggregate (little-endian 64-bit words)."""
        return hashlib.sha256(self.aggregate.astype("<u8").tobytes()).hexdigest()

    def headline(self) -> str:
        verdict = "exact sum of the survivors" if self.exact else "sum NOT recovered"
        return (f"{self.survivors} of {self.clients} survived; {verdict}; "
                f"{len(self.failed_reconstructions)} failed reconstructions")

    def rows(self) -> list[tuple[str, str]]:
        return [("clients", str(self.clients)), ("degree", str(self.degree)), ("threshold", str(self.threshold)),
                ("dimension", str(self.dimension)), ("modulus", str(self.modulus)),
                ("dropped", str(len(self.dropped))), ("survivors", str(self.survivors)),
                ("failed reconstructions", str(len(self.failed_reconstructions))),
                ("exact", "yes" if self.exact else "no"), ("corrupt", str(len(self.corrupt))),
                ("most corrupt neighbours", str(self.max_corrupt_neighbours)),
                ("clients with >= t corrupt neighbours", str(len(self.exposed))),
                ("aggregate SHA-256", self.digest())]

    def to_dict(self) -> dict:
        return {"clients": self.clients, "degree": self.degree, "threshold": self.threshold,
                "dimension": self.dimension, "modulus": self.modulus, "seed": self.seed,
                "dropped": list(self.dropped), "corrupt": list(self.corrupt), "survivors": self.survivors,
                "failed_reconstructions": list(self.failed_reconstructions), "exact": self.exact,
                "max_corrupt_neighbours": self.max_corrupt_neighbours, "exposed": list(self.exposed),
                "aggregate_sha256": self.digest()}


def _chosen(name: str, given: Iterable[int] | None, rate, clients: int, rng: np.random.Generator) -> np.ndarray:
    if given is not None:
        chosen = np.unique(np.asarray(list(given), dtype=np.int64))
        if chosen.size and (chosen[0] < 0 or chosen[-1] >= clients):
            raise InvalidOption(f"{name}: client ids must lie in 0..{clients - 1}")
        return chosen
    share = fraction(name, rate, low=0, high=1, closed=True)
    return np.sort(rng.choice(clients, size=int(share * clients), replace=False))


def simulate_round(clients: int, degree: int, threshold: int, *, dimension: int = 1, modulus: int = MAX_MODULUS,
                   dropout=Fraction(0), corrupt=Fraction(0), dropped: Iterable[int] | None = None,
                   corrupt_clients: Iterable[int] | None = None, inputs: np.ndarray | None = None, seed: int = 0,
                   progress: Callback | None = None) -> SecAggRound:
    """Run one SecAgg+ round and check the server's sum against the survivors' inputs.

    Parameters
    ----------
    clients, degree, threshold : int
        ``n``, ``k`` (even, or ``n - 1`` for the full graph) and ``t`` (``2 <= t <= k``).
    dimension, modulus : int
        ``d`` words per input, summed mod ``M`` (``2 <= M <=`` :data:`MAX_MODULUS`).
    dropout, corrupt : number or text
        Fractions of clients drawn to drop out (after the shares are sent) and to count corrupt;
        or give the sets as ``dropped`` and ``corrupt_clients``.
    inputs : numpy.ndarray, optional
        ``(n, d)`` integers in ``[0, M)``; drawn from the seed when absent.
    seed : int
        Seeds every random choice (order, keys, shares, dropouts, inputs).
    progress : callable, optional
        Called with an :class:`~itsa._util.progress.Event` per stage and as the masks are expanded.
    """
    whole_number("clients", clients, minimum=3)
    whole_number("degree", degree, minimum=2, maximum=clients - 1)
    whole_number("threshold", threshold, minimum=2, maximum=degree)
    if degree < clients - 1 and degree % 2:
        raise InvalidOption(f"degree: a Harary graph below the full graph has an even degree, not {degree}")
    whole_number("dimension", dimension, minimum=1)
    whole_number("modulus", modulus, minimum=2, maximum=MAX_MODULUS)
    whole_number("seed", seed, minimum=0)
    report = Reporter(progress, prefix="secagg round")
    rng = np.random.default_rng(seed)
    neighbours = harary_neighbours(clients, degree, rng.permutation(clients))
    gone = _chosen("dropout", dropped, dropout, clients, rng)
    bad = _chosen("corrupt", corrupt_clients, corrupt, clients, rng)
    if inputs is None:
        data = rng.integers(0, modulus, size=(clients, dimension), dtype=np.uint64)
    else:
        data = np.asarray(inputs)
        if data.shape != (clients, dimension) or data.dtype.kind not in "iu" or data.size and (
                data.min() < 0 or data.max() >= modulus):
            raise InvalidOption(f"inputs: must be integers in [0, {modulus}) of shape ({clients}, {dimension})")
        data = data.astype(np.uint64)

    # rounds 0-1: keys advertised, secrets Shamir-shared to the neighbours at x = id + 1
    report("shares")
    secret_keys = rng.integers(1, PRIME - 1, size=clients, dtype=np.int64)
    self_seeds = rng.integers(0, PRIME, size=clients, dtype=np.int64)
    public_keys = np.array([pow(GENERATOR, int(s), PRIME) for s in secret_keys], dtype=np.int64)
    points = neighbours + 1
    key_shares = shamir_shares(secret_keys, points, threshold, rng)
    seed_shares = shamir_shares(self_seeds, points, threshold, rng)

    alive = np.ones(clients, dtype=bool)
    alive[gone] = False
    # round 2: the survivors' masked inputs, summed by the server
    total = np.zeros(dimension, dtype=np.uint64)
    for client in np.flatnonzero(alive):
        total += data[client]
        total += _mask(1, int(self_seeds[client]), dimension, modulus)
    edges = [(i, int(j)) for i in range(clients) for j in neighbours[i] if i < j]
    for done, (i, j) in enumerate(edges):
        if alive[i] or alive[j]:
            mask = _mask(0, pow(int(public_keys[j]), int(secret_keys[i]), PRIME), dimension, modulus)
            if alive[i]:
                total += mask                          # i < j adds the mask, j subtracts it
            if alive[j]:
                total += np.uint64(modulus) - mask
        if done % 1024 == 0:
            report("masked inputs", done=done, total=len(edges))
        if done % 4096 == 4095:
            total %= np.uint64(modulus)
    total %= np.uint64(modulus)

    # round 3: unmasking from the surviving neighbours' shares
    report("unmasking")
    holders_alive = alive[neighbours]
    enough = holders_alive.sum(axis=1) >= threshold
    needed = alive | holders_alive.any(axis=1)      # a dropped client no survivor is joined to left no mask
    failed = tuple(int(i) for i in np.flatnonzero(~enough & needed))
    rebuild = np.flatnonzero(enough & needed)
    order = np.argsort(~holders_alive[rebuild], axis=1, kind="stable")[:, :threshold]   # the first t alive holders
    chosen_points = np.take_along_axis(points[rebuild], order, axis=1)
    shares = np.where(alive[rebuild][:, None], np.take_along_axis(seed_shares[rebuild], order, axis=1),
                      np.take_along_axis(key_shares[rebuild], order, axis=1))
    recovered = dict(zip(rebuild.tolist(), shamir_reconstruct(chosen_points, shares).tolist()))
    result = total.copy()
    for survivor in np.flatnonzero(alive).tolist():
        if survivor in recovered:
            result += np.uint64(modulus) - _mask(1, recovered[survivor], dimension, modulus)
    for leaver in np.flatnonzero(~alive).tolist():
        if leaver not in recovered:
            continue
        for j in neighbours[leaver].tolist():
            if alive[j]:
                mask = _mask(0, pow(int(public_keys[j]), recovered[leaver], PRIME), dimension, modulus)
                # j added +mask if j < leaver, -mask if j > leaver: remove it
                result += (np.uint64(modulus) - mask) if j < leaver else mask
        result %= np.uint64(modulus)
    result %= np.uint64(modulus)
    expected = data[alive].sum(axis=0, dtype=np.uint64) % np.uint64(modulus) if alive.any() else np.zeros(
        dimension, dtype=np.uint64)
    corrupt_mask = np.zeros(clients, dtype=bool)
    corrupt_mask[bad] = True
    counts = corrupt_mask[neighbours].sum(axis=1)
    honest = ~corrupt_mask
    worst = int(counts[honest].max()) if honest.any() else 0
    exposed = tuple(int(i) for i in np.flatnonzero(honest & (counts >= threshold)))
    report("done")
    return SecAggRound(clients=clients, degree=degree, threshold=threshold, dimension=dimension, modulus=modulus,
                       seed=seed, dropped=tuple(int(i) for i in gone), corrupt=tuple(int(i) for i in bad),
                       survivors=int(alive.sum()), failed_reconstructions=failed,
                       exact=not failed and bool(np.array_equal(result, expected)),
                       max_corrupt_neighbours=worst, exposed=exposed, aggregate=result)
