"""The planned protocol inside a simulated round: SecAgg+ end to end, or the multi-server model's verified scheme.

With a deployment's ``protocol`` (:mod:`itsa.planning.protocol`), ``itsa plan
--simulate`` masks and unmasks each round's encoded inputs with the protocol
the plan sized, in place of the generic ring of pairwise masks:

- **SecAgg+** (:class:`SecAggRun`): each round is
  :func:`itsa.keys.secagg.simulate.simulate_round`: a Harary graph of the
  plan's degree ``k`` on a random ring order, each client's mask key and
  self-mask seed Shamir-shared ``t``-of-``k`` over the prime ``2^31 + 11``,
  masks expanded by a seeded PRG (NumPy's PCG64, standing for AES-CTR), the
  round's dropouts leaving after the shares are sent, and the server
  rebuilding the dropped clients' pairwise masks and the survivors'
  self-masks from ``t`` surviving neighbours' shares. **The key agreement is
  simulated**: Diffie-Hellman on random secret keys in a toy group modulo
  that prime (not secure; it stands for the elliptic-curve agreement). The
  clients counted corrupt are drawn at the protocol's corrupt fraction each
  round. The server's result must be the sum of the survivors' encoded
  inputs mod ``M`` exactly; a round whose reconstruction failed, and a round
  in which an honest client had ``t`` or more corrupt neighbours, are counted.
- **multi-server** (:class:`SchemeRun`): the key-rate instance built from the
  deployment (:func:`itsa.planning.protocol.build_instance`), its verified
  linear scheme over the prime ``p`` just below ``2^b`` (``b`` the word;
  :func:`itsa.search_min_rate` over that field, or the one-time pad of
  Condition 1 when it finds none in time, then :func:`itsa.verify`): per coordinate block of
  ``L`` symbols a fresh source key ``N``, ``Z_{u,v} = F_{u,v} N``, uploads
  ``X = W + Z mod p``, each server's relay ``Y_u = Σ_v X_{u,v}``, and every
  server's decode ``Σ_v X_{k,v} + Σ_{u≠k} Y_u`` must be the sum of all the
  inputs mod ``p``. The model has no dropouts: the round runs with every
  client. Built only up to :data:`SCHEME_USERS` users and
  :data:`SCHEME_CONFIGURATIONS` configurations (the verifier checks each);
  the search tries ``L = 2`` only where its limit of ``K·L + d`` source
  symbols allows it (``K <= 15``), ``L = 1`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any

import flint
import numpy as np

from itsa._util.checks import whole_number
from itsa._util.deadline import Deadline
from itsa._util.progress import Callback
from itsa.exceptions import InvalidOption
from itsa.keys.bounds.analysis import analyze
from itsa.keys.secagg.simulate import simulate_round
from itsa.planning.protocol import MultiServerKeys, MultiServerProtocol, SecAggKeys, SecAggProtocol, build_instance

__all__ = ["SecAggRun", "SchemeRun", "ProtocolTally", "ProtocolStats", "with_protocol", "protocol_sum",
           "check_protocol_simulation", "scheme_field", "scheme_configurations", "SCHEME_USERS",
           "SCHEME_CONFIGURATIONS", "SECAGG_METHOD", "protocol_seconds"]

#: Most users of the multi-server instance whose scheme a simulation builds and verifies (the scheme search's
#: limit of 60 source symbols ``K·L + d`` holds ``L = 1`` and every ``d < K`` up to 30 users).
SCHEME_USERS = 30
#: Most configurations (servers x collusion sets) whose instance a simulation verifies (measured: 20 clients,
#: 7 servers, collusion 5, 151,900 configurations: the one-time pad built and verified in 12 s).
SCHEME_CONFIGURATIONS = 200_000
#: Most seconds the scheme search of a multi-server simulation takes (then the one-time pad; measured: 6 to 12
#: users settle in a few seconds).
SEARCH_SECONDS = 20.0
#: Largest modulus a SecAgg+ round sums in (its masks are 64-bit words summed with room).
SECAGG_MODULUS = 2**32
#: What a SecAgg+ round simulates, and what stands in for what.
SECAGG_METHOD = ("SecAgg+ run end to end: Harary graph of degree k on a random ring order, Shamir t-of-k shares of "
                 "each client's mask key and self-mask seed over the prime 2^31 + 11, masks expanded by a seeded PRG "
                 "(PCG64, standing for AES-CTR), dropouts after the shares are sent, the server's reconstruction from "
                 "t surviving neighbours; key agreement simulated by random seeds (Diffie-Hellman in a toy group "
                 "modulo 2^31 + 11, not secure)")


@dataclass(frozen=True, kw_only=True)
class SecAggRun:
    """The SecAgg+ of a plan: degree ``k``, threshold ``t``, and the corrupt fraction drawn each round."""

    degree: int
    threshold: int
    corrupt: Fraction = Fraction(0)

    def describe(self) -> str:
        return f"SecAgg+ k = {self.degree}, t = {self.threshold}, corrupt {self.corrupt}"


@dataclass(frozen=True, kw_only=True)
class SchemeRun:
    """The multi-server model's verified scheme over ``F_p`` for the deployment's clients."""

    instance: Any
    scheme: Any
    source: str

    def describe(self) -> str:
        s = self.scheme
        return (f"multi-server scheme of {self.instance.name} over F_{s.field}: rate {s.rate} (L = {s.L}, "
                f"{s.key_symbols} key symbols; {self.source}; verified)")


@dataclass
class ProtocolTally:
    """What the rounds of a protocol showed (filled round by round)."""

    failed_rounds: list = field(default_factory=list)
    exposed_rounds: list = field(default_factory=list)
    inexact_rounds: list = field(default_factory=list)
    most_corrupt_neighbours: int = 0
    failed_reconstructions: int = 0


@dataclass(frozen=True, kw_only=True)
class ProtocolStats:
    """The protocol's part of a simulation: its method, and the rounds in which it failed or was exposed."""

    protocol: str
    method: str
    rounds: int
    failed_rounds: tuple[int, ...]
    inexact_rounds: tuple[int, ...]
    exposed_rounds: tuple[int, ...] = ()
    most_corrupt_neighbours: int | None = None
    failed_reconstructions: int = 0

    def rows(self) -> list[tuple[str, str]]:
        exact = ("the exact sum in every round" if not self.inexact_rounds else
                 f"NOT the exact sum in {len(self.inexact_rounds)} rounds (first {self.inexact_rounds[0]})")
        rows = [("protocol", self.method), ("protocol result", exact)]
        if self.protocol == "secagg+":
            rows += [("failed reconstructions", f"{self.failed_reconstructions} secrets in {len(self.failed_rounds)} "
                                                f"of {self.rounds} rounds (counted)"),
                     ("corrupt neighbours", f"at most {self.most_corrupt_neighbours} of an honest client; "
                                            f"{len(self.exposed_rounds)} of {self.rounds} rounds had an honest "
                                            "client with t or more (counted)")]
        return rows

    def to_dict(self) -> dict:
        return {"protocol": self.protocol, "method": self.method, "rounds": self.rounds,
                "failed_rounds": list(self.failed_rounds), "inexact_rounds": list(self.inexact_rounds),
                "exposed_rounds": list(self.exposed_rounds), "most_corrupt_neighbours": self.most_corrupt_neighbours,
                "failed_reconstructions": self.failed_reconstructions, "kind": "counted in the simulation"}

    @classmethod
    def of(cls, run, tally: ProtocolTally, rounds: int) -> ProtocolStats:
        if isinstance(run, SecAggRun):
            return cls(protocol="secagg+", method=SECAGG_METHOD + f" (k = {run.degree}, t = {run.threshold})",
                       rounds=rounds, failed_rounds=tuple(tally.failed_rounds),
                       inexact_rounds=tuple(tally.inexact_rounds), exposed_rounds=tuple(tally.exposed_rounds),
                       most_corrupt_neighbours=tally.most_corrupt_neighbours,
                       failed_reconstructions=tally.failed_reconstructions)
        return cls(protocol="multi-server", method=run.describe() + "; fresh source key per round; no dropouts (the "
                   "model has none)", rounds=rounds, failed_rounds=(), inexact_rounds=tuple(tally.inexact_rounds))


def scheme_field(word_bits: int) -> int:
    """The prime just below ``2^b``: the field of a multi-server simulation in a ``b``-bit word.

    >>> scheme_field(8), scheme_field(62) == 2**62 - 57
    (251, True)
    """
    p = 2**word_bits - 1
    while not flint.fmpz(p).is_prime():          # a proven primality test
        p -= 1
    return p


def scheme_configurations(clients: int, servers: int, collusion: int) -> int:
    """The configurations the verifier checks in the multi-server instance: ``U`` servers times every set of at
    most ``t`` colluding clients.

    >>> scheme_configurations(20, 7, 5)
    151900
    """
    return servers * sum(comb(clients, r) for r in range(min(collusion, clients) + 1))


def check_protocol_simulation(deployment) -> None:
    """Refuse, before any work, a protocol the simulation cannot run (one line)."""
    p = deployment.protocol
    if isinstance(p, SecAggProtocol):
        if deployment.encoding.layered:
            raise InvalidOption("simulate: SecAgg+ is simulated on a flat word (encoding.word_bits), not a layering")
        bits = deployment.encoding.word_bits
        if bits is not None and 2**bits > SECAGG_MODULUS:
            raise InvalidOption(f"simulate: SecAgg+ rounds sum in words of at most 32 bits, not {bits}")
    if isinstance(p, MultiServerProtocol):
        if deployment.clients > SCHEME_USERS:
            raise InvalidOption(f"simulate: the multi-server scheme is built and verified for at most {SCHEME_USERS} "
                                f"clients, not {deployment.clients} (the plan's keys section bounds larger ones)")
        n = scheme_configurations(deployment.clients, p.servers, p.collusion)
        if n > SCHEME_CONFIGURATIONS:
            raise InvalidOption(f"simulate: the multi-server scheme is verified over at most {SCHEME_CONFIGURATIONS:,} "
                                f"configurations (servers times collusion sets), not {n:,} ({deployment.clients} clients, "
                                f"{p.servers} servers, collusion {p.collusion}; the plan's keys section bounds "
                                "larger ones)")
        if deployment.encoding.layered:
            raise InvalidOption("simulate: the multi-server scheme is simulated on a flat word, not a layering")
        bits = deployment.encoding.word_bits
        if bits is not None and not 3 <= bits <= 62:
            raise InvalidOption(f"simulate: the multi-server scheme runs over a prime below 2^b, 3 <= b <= 62, "
                                f"not b = {bits}")


def _build_scheme(plan, word_bits: int, seed: int, time_limit) -> SchemeRun:
    # The key-rate search, constructions and verifier (30 ms to import) load only when a multi-server run needs them:
    from itsa.keys.schemes.constructions import build_scheme  # lazy: only this simulation builds a scheme
    from itsa.keys.search.scalar import MAX_SOURCE_DIM, search_min_rate  # lazy: only this simulation searches

    d = plan.deployment
    instance = build_instance(f"{d.name}-U{d.protocol.servers}-t{d.protocol.collusion}", d.clients, d.protocol)
    if instance is None:
        raise InvalidOption("simulate: the multi-server instance cannot be built at this size")
    p = scheme_field(word_bits)
    clock = Deadline.of(time_limit)
    left = clock.left()
    budget = SEARCH_SECONDS if left is None else min(SEARCH_SECONDS, left / 2)
    # every d < K at each L the search's limit of K·L + d source symbols allows (L = 2 up to 15 clients):
    L_values = tuple(L for L in (1, 2) if 2 * d.clients * L <= MAX_SOURCE_DIM)
    found = search_min_rate(instance, field=p, seed=seed, time_limit=budget, L_values=L_values)
    if found.scheme is not None:
        scheme, verdict = found.scheme, found.verdict       # the search's verify(engine="rank") accepted it
        source = f"itsa's scheme search over F_{p}, rate {found.rate}"
    else:
        clock.check("the multi-server scheme search, before the one-time pad is built and verified")
        built = build_scheme(analyze(instance), p, seed=seed, construction="condition-1")
        scheme, verdict = built.scheme, built.verdict       # build_scheme's verify(engine="rank") accepted it
        source = "the one-time pad of Condition 1 (the search found no scheme over this field in time)"
    if verdict is None or not verdict.ok:    # never simulate a scheme the verifier refuses
        raise InvalidOption(f"simulate: the scheme of {instance.name} over F_{p} does not verify")
    return SchemeRun(instance=instance, scheme=scheme, source=source)


def with_protocol(plan, setup: dict, seed: int = 0, time_limit: float | Deadline | None = None) -> dict:
    """The simulation setup's fields of a plan with its protocol added (``setup`` unchanged without one).

    A multi-server plan sums in the prime just below the word, with every client (the model has no dropouts).
    """
    keys = getattr(plan, "keys", None)
    if isinstance(keys, SecAggKeys):
        if keys.degree is None:
            raise InvalidOption("simulate: the plan has no SecAgg+ degree (no graph meets the targets)")
        check_protocol_simulation(plan.deployment)
        return {**setup, "protocol": SecAggRun(degree=keys.degree, threshold=int(keys.threshold or 0),
                                               corrupt=keys.protocol.corrupt)}
    if isinstance(keys, MultiServerKeys):
        check_protocol_simulation(plan.deployment)
        bits = plan.encoding.word_bits
        run = _build_scheme(plan, bits, seed, time_limit)
        return {**setup, "modulus": run.scheme.field, "dropout": Fraction(0), "protocol": run}
    return setup


def check_setup(run, clients: int, moduli: tuple[int, ...], dropout: Fraction) -> None:
    """A setup's protocol fits its clients and moduli (one line if not)."""
    if isinstance(run, SecAggRun):
        whole_number("protocol degree", run.degree, minimum=2, maximum=clients - 1)
        whole_number("protocol threshold", run.threshold, minimum=2, maximum=run.degree)
        if max(moduli) > SECAGG_MODULUS:
            raise InvalidOption(f"protocol: SecAgg+ rounds sum modulo at most 2^32, not {max(moduli)}")
    elif isinstance(run, SchemeRun):
        if run.instance.K != clients:
            raise InvalidOption(f"protocol: the scheme's {run.instance.K} users are not the {clients} clients")
        if moduli != (run.scheme.field,):
            raise InvalidOption(f"protocol: the scheme sums modulo its field {run.scheme.field}, not {moduli}")
        if dropout:
            raise InvalidOption("protocol: the multi-server model has no dropouts (dropout 0)")
    elif run is not None:
        raise InvalidOption(f"protocol: must be a SecAggRun or a SchemeRun, not {type(run).__name__}")


def protocol_seconds(run, clients: int, dimension: int) -> float:
    """About how long one round of the protocol takes at the fast end (measured: SecAgg+ at ``n = 1000``,
    ``k = 36``, ``d = 1290``: 2.6 s; ``k = 30``, ``d = 10^4``: 5.3 s; on a shared core)."""
    if isinstance(run, SecAggRun):
        return clients * run.degree / 2 * (5e-5 + 1.5e-8 * dimension)
    return 0.0


def _secagg(run: SecAggRun, rng, values: np.ndarray, alive: np.ndarray, modulus: int, clock: Deadline | None,
            tally: ProtocolTally, round_index: int, progress: Callback | None) -> tuple[np.ndarray, bool, None]:
    def watch(event) -> None:
        if clock is not None:
            clock.check(f"a SecAgg+ round ({event.stage})")
        if progress is not None:
            progress(event)

    K, d = values.shape
    r = simulate_round(K, run.degree, run.threshold, dimension=d, modulus=modulus,
                       dropped=np.flatnonzero(~alive).tolist(), corrupt=run.corrupt,
                       inputs=np.mod(values, modulus).astype(np.uint64), seed=int(rng.integers(0, 2**62)),
                       progress=watch)
    if r.failed_reconstructions:
        tally.failed_rounds.append(round_index)
        tally.failed_reconstructions += len(r.failed_reconstructions)
    if r.exposed:
        tally.exposed_rounds.append(round_index)
    tally.most_corrupt_neighbours = max(tally.most_corrupt_neighbours, r.max_corrupt_neighbours)
    if not r.exact:
        tally.inexact_rounds.append(round_index)
    return r.aggregate.astype(np.int64), r.exact, None


def _scheme(run: SchemeRun, rng, values: np.ndarray, clock: Deadline | None,
            tally: ProtocolTally, round_index: int) -> tuple[np.ndarray, bool, np.ndarray]:
    s, inst = run.scheme, run.instance
    p, L, n_keys = s.field, s.L, s.key_symbols
    K, d = values.shape
    blocks = -(-d // L)
    W = np.zeros((K, blocks * L), dtype=object)
    W[:, :d] = np.mod(values, p).astype(object)
    W = W.reshape(K, blocks, L)
    N = rng.integers(0, p, size=(blocks, max(n_keys, 1)), dtype=np.int64).astype(object)[:, :n_keys]
    X = np.empty_like(W)
    for i in range(K):
        if clock is not None and i % 8 == 0:
            clock.check(f"a multi-server round (client {i} of {K})")
        F = s.key_matrix(i).astype(object)                       # L x key symbols
        Z = (N @ F.T) % p if n_keys else np.zeros((blocks, L), dtype=object)
        X[i] = (W[i] + Z) % p
    offsets = np.cumsum((0,) + tuple(inst.servers))
    relays = [X[offsets[u]:offsets[u + 1]].sum(axis=0) % p for u in range(inst.U)]
    decoded = [(sum(relays[u] for u in range(inst.U) if u != k) + X[offsets[k]:offsets[k + 1]].sum(axis=0)) % p
               for k in range(inst.U)]
    truth = W.sum(axis=0) % p
    exact = all(np.array_equal(dec, truth) for dec in decoded)
    if not exact:
        tally.inexact_rounds.append(round_index)
    out = np.asarray(decoded[0].reshape(-1)[:d], dtype=np.int64)
    return out, exact, np.asarray(X[0].reshape(-1)[:d], dtype=np.int64)


def protocol_sum(run, rng, values: np.ndarray, alive: np.ndarray, modulus: int, clock: Deadline | None,
                 tally: ProtocolTally, round_index: int,
                 progress: Callback | None = None) -> tuple[np.ndarray, bool, np.ndarray | None]:
    """``(the server's sum mod M, exact?, one masked upload or None)`` of one round under the protocol."""
    if isinstance(run, SecAggRun):
        return _secagg(run, rng, values, alive, modulus, clock, tally, round_index, progress)
    return _scheme(run, rng, values, clock, tally, round_index)
