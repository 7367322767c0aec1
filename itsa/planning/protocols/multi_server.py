"""The key-rate model as a deployment's protocol: ``protocol: {multi-server: {servers: U, collusion: t}}``.

The key-rate model (docs/model.md) built from the deployment: its ``K``
clients split over the ``U`` servers as evenly as possible (the first
``K mod U`` servers get one client more), every input protected, any ``t``
clients colluding with a server. The plan's keys are the instance's
quantities and bounds (:func:`itsa.analyze`, or their closed forms where
the analysis is too large for a plan), ``R*`` from :func:`itsa.solve` when
it settles within the plan's limits (or the published optimum of the
homogeneous family), and the source key per round.

With ``itsa plan --simulate`` (:class:`SchemeRun`): the instance's verified
linear scheme over the prime ``p`` just below ``2^b`` (``b`` the word;
:func:`itsa.search_min_rate` over that field, or the one-time pad of
Condition 1 when it finds none in time, then :func:`itsa.verify`): per
coordinate block of ``L`` symbols a fresh source key ``N``,
``Z_{u,v} = F_{u,v} N``, uploads ``X = W + Z mod p``, each server's relay
``Y_u = Σ_v X_{u,v}``, and every server's decode
``Σ_v X_{k,v} + Σ_{u≠k} Y_u`` must be the sum of all the inputs mod ``p``.
The model has no dropouts: the round runs with every client. Built only up
to :data:`SCHEME_USERS` users and :data:`SCHEME_CONFIGURATIONS`
configurations (the verifier checks each); the search tries ``L = 2`` only
where its limit of ``K·L + d`` source symbols allows it (``K <= 15``),
``L = 1`` otherwise.

Examples
--------
>>> MultiServerProtocol.from_body({"servers": 3, "collusion": 1})
MultiServerProtocol(servers=3, collusion=1)
>>> split_clients(1000, 3)
(334, 333, 333)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, ClassVar

import flint
import numpy as np

from itsa._util.certified import Certified, safe_decimal
from itsa._util.checks import whole_number
from itsa._util.deadline import Deadline
from itsa._util.plain import frac
from itsa.exceptions import InvalidDeployment, InvalidInput, InvalidOption
from itsa.keys.bounds.analysis import analyze
from itsa.keys.model.io import parse_instance
from itsa.planning.keysolve import bounded_solve
from itsa.planning.protocols.base import AggregationProtocol, ProtocolKeys
from itsa.planning.protocols.run import ProtocolStats, ProtocolTally

__all__ = ["MultiServerProtocol", "MultiServerKeys", "SchemeRun", "split_clients", "build_instance",
           "scheme_field", "scheme_configurations", "MULTI_SERVER", "SPLIT_RULE", "ANALYZE_CONFIGURATIONS",
           "SOLVE_USERS", "MULTI_SERVER_SECURITY", "SCHEME_USERS", "SCHEME_CONFIGURATIONS"]

_ERR = InvalidDeployment
#: The protocol's name in a deployment file.
MULTI_SERVER = "multi-server"
#: How the deployment's clients become the key-rate model's users.
SPLIT_RULE = ("the K clients split over the U servers as evenly as possible, in order (the first K mod U servers "
              "have one client more); every input protected; any t clients may collude with a server")
#: Most configurations ``U x N`` (servers x collusion sets) the plan analyses (measured: 3,003 at K = 1000,
#: t = 1 take 0.13 s; 1,501,503 at t = 2 take 65 s).
ANALYZE_CONFIGURATIONS = 50_000
#: Most users of a built instance whose ``R*`` the plan solves (measured: 30 users settle in 0.3 s; 1,000 do
#: not settle in 60 s).
SOLVE_USERS = 64
#: What the multi-server model keeps secret, from whom (docs/model.md, constraint (7)).
MULTI_SERVER_SECURITY = ("each single server, with any t clients, learns nothing about the other inputs beyond "
                         "the sum (information-theoretic, no computational assumption); servers pooling their "
                         "views, and dropouts, are outside the model")


#: Most users of the multi-server instance whose scheme a simulation builds and verifies (the scheme search's
#: limit of 60 source symbols ``K·L + d`` holds ``L = 1`` and every ``d < K`` up to 30 users).
SCHEME_USERS = 30
#: Most configurations (servers x collusion sets) whose instance a simulation verifies (measured: 20 clients,
#: 7 servers, collusion 5, 151,900 configurations: the one-time pad built and verified in 12 s).
SCHEME_CONFIGURATIONS = 200_000
#: Most seconds the scheme search of a multi-server simulation takes (then the one-time pad; measured: 6 to 12
#: users settle in a few seconds).
SEARCH_SECONDS = 20.0


@dataclass(frozen=True, kw_only=True)
class MultiServerProtocol(AggregationProtocol):
    """The key-rate model's ``U = servers`` servers, any ``t = collusion`` clients colluding with a server."""

    name: ClassVar[str] = MULTI_SERVER
    fields: ClassVar[frozenset[str]] = frozenset({"servers", "collusion"})

    servers: int
    collusion: int = 0

    def __post_init__(self):
        whole_number("protocol.multi-server.servers", self.servers, minimum=1, maximum=4096, error=_ERR)
        whole_number("protocol.multi-server.collusion", self.collusion, minimum=0, error=_ERR)

    @classmethod
    def from_body(cls, body: dict) -> MultiServerProtocol:
        if "servers" not in body:
            raise _ERR("protocol.multi-server.servers: missing (the number of servers U)")
        return cls(servers=body["servers"], collusion=body.get("collusion", 0))

    def check(self, clients: int) -> None:
        """Refuse (one line) more servers than clients, or a collusion of every client."""
        if self.servers > clients:
            raise _ERR(f"protocol.multi-server.servers: at most the {clients} clients, not {self.servers}")
        if self.collusion >= clients:
            raise _ERR(f"protocol.multi-server.collusion: below the {clients} clients, not {self.collusion}")

    def to_dict(self) -> dict:
        return {MULTI_SERVER: {"servers": self.servers, "collusion": self.collusion}}

    def size(self, *, clients: int, dropout: Fraction, dimension: int, name: str, bits_per_round: Any,
             payload_bits: int, time_limit, seed: int, report) -> MultiServerKeys:
        return _multi_server_keys(self, clients=clients, dropout=dropout, name=name, bits_per_round=bits_per_round,
                                  time_limit=time_limit, seed=seed, report=report)

    def sum_space(self, payload_bits: int, clients: int) -> str:
        return (f"F_p, p the prime just below 2^{payload_bits} in a simulated round (the model holds over any "
                "field; keys are symbols of it)")

    def check_simulation(self, *, clients: int, word_bits: int | None, layered: bool) -> None:
        if clients > SCHEME_USERS:
            raise InvalidOption(f"simulate: the multi-server scheme is built and verified for at most {SCHEME_USERS} "
                                f"clients, not {clients} (the plan's keys section bounds larger ones)")
        n = scheme_configurations(clients, self.servers, self.collusion)
        if n > SCHEME_CONFIGURATIONS:
            raise InvalidOption(f"simulate: the multi-server scheme is verified over at most {SCHEME_CONFIGURATIONS:,} "
                                f"configurations (servers times collusion sets), not {n:,} ({clients} clients, "
                                f"{self.servers} servers, collusion {self.collusion}; the plan's keys section bounds "
                                "larger ones)")
        if layered:
            raise InvalidOption("simulate: the multi-server scheme is simulated on a flat word, not a layering")
        if word_bits is not None and not 3 <= word_bits <= 62:
            raise InvalidOption(f"simulate: the multi-server scheme runs over a prime below 2^b, 3 <= b <= 62, "
                                f"not b = {word_bits}")

    def simulation(self, keys: ProtocolKeys, setup: dict, *, word_bits: int, seed: int, time_limit) -> dict:
        """A multi-server plan sums in the prime just below the word, with every client (no dropouts)."""
        assert isinstance(keys, MultiServerKeys)
        run = _build_scheme(keys, word_bits, seed, time_limit)
        return {**setup, "modulus": run.scheme.field, "dropout": Fraction(0), "protocol": run}


def split_clients(clients: int, servers: int) -> tuple[int, ...]:
    """``K`` clients over ``U`` servers as evenly as possible, the first ``K mod U`` one more (:data:`SPLIT_RULE`)."""
    base, extra = divmod(clients, servers)
    return tuple(base + (1 if u < extra else 0) for u in range(servers))


@dataclass(frozen=True, kw_only=True, repr=False)
class MultiServerKeys(ProtocolKeys):
    """The key-rate instance built from the deployment, its quantities and bounds, ``R*`` and the key per round.

    ``quantities`` holds ``e_star``, ``a_star``, ``s_bar`` (``|S̄|``), ``regime``,
    ``lower_printed`` (the paper's converse, not valid on every instance),
    ``lower`` (itsa's corrected converse) and ``upper`` (the paper's
    constructions), each ``None`` where not computed; ``method`` says how.
    ``rate_low``/``rate_high`` bracket ``R*`` (``None``: not known),
    ``rate_how`` says where they come from.
    """

    protocol: MultiServerProtocol
    clients: int
    dropout: Fraction
    users_per_server: tuple[int, ...]
    instance: str
    quantities: dict
    method: str
    published: Fraction | None
    rate_low: Fraction | None
    rate_high: Fraction | None
    rate_how: str
    bits_per_round: Certified

    @classmethod
    def title(cls) -> str:
        return "keys: multi-server"

    def _split(self) -> str:
        sizes = sorted(set(self.users_per_server), reverse=True)
        counts = {s: self.users_per_server.count(s) for s in sizes}
        return " and ".join(f"{c} server{'s' if c > 1 else ''} of {s}" for s, c in counts.items())

    def _rate(self) -> str:
        lo, hi = self.rate_low, self.rate_high
        if lo is not None and lo == hi:
            return f"= {frac(lo)}"
        return f"in [{'?' if lo is None else frac(lo)}, {'inf' if hi is None else frac(hi)}]"

    def _key(self, rate: Fraction | None) -> str:
        return "unknown" if rate is None else safe_decimal(rate * self.bits_per_round.upper(), 8) + " bits"

    def headline(self) -> str:
        return (f"{self.instance}: R* {self._rate()}, source key {self._key(self.rate_low)} per round "
                f"{'' if self.rate_low == self.rate_high else 'at least'}").rstrip()

    def rows(self) -> list[tuple[str, str]]:
        p, q = self.protocol, self.quantities
        rows = [("protocol", f"multi-server (the key-rate model): U = {p.servers} servers, any t = {p.collusion} "
                             "clients colluding with a server"),
                ("instance", f"{self.instance}: {self._split()}, K = {self.clients:,} = the deployment's clients "
                             "(split as evenly as possible, in order)"),
                ("quantities", f"e* = {q['e_star']}, a* = {_opt(q['a_star'])}, |S̄| = {_opt(q['s_bar'])}, "
                               f"regime {q['regime'] or 'not computed'} ({self.method})"),
                ("key rate lower (paper)", f"{_opt(q['lower_printed'])} (min{{e*, K-1}}; not valid on every instance)"),
                ("key rate lower (itsa)", f"{_opt(q['lower'])} (the corrected converse, proved)"),
                ("key rate upper (paper)", f"{_opt(q['upper'])} (the paper's constructions)")]
        if self.published is not None:
            rows.append(("published optimum", f"{frac(self.published)} = min{{U+V+t-2, UV-1}} (the homogeneous "
                                              "family, every server the same V)"))
        rows += [("key rate R*", f"{self._rate()} ({self.rate_how}; exact)"),
                 ("source key per round", f"{self._key(self.rate_low)} (R* x bits per client per round, for each "
                                          "client's input)")]
        if self.rate_high != self.rate_low:
            rows.append(("source key per round, upper end", self._key(self.rate_high)))
        rows.append(("not covered", f"dropouts: every client's masked input is needed (the keys sum to zero over "
                                    f"all K); the file's dropout {frac(self.dropout)} is outside the model"
                                    if self.dropout else "dropouts (the model has none: every client must send)"))
        return rows + self.space_rows() + [("key security", MULTI_SERVER_SECURITY)]

    def to_dict(self) -> dict:
        q = {k: (frac(v) if isinstance(v, Fraction) else v) for k, v in self.quantities.items()}
        return {"protocol": MULTI_SERVER, "multi_server": {
            "servers": self.protocol.servers, "collusion": self.protocol.collusion,
            "users_per_server": list(self.users_per_server), "split": SPLIT_RULE, "instance": self.instance,
            "quantities": q, "method": self.method, "published_optimum": frac(self.published),
            "rate": frac(self.rate_low), "rate_upper": frac(self.rate_high), "rate_how": self.rate_how,
            "key_bits_per_round": None if self.rate_low is None else frac(self.rate_low * self.bits_per_round.upper()),
            "key_bits_per_round_upper": None if self.rate_high is None
            else frac(self.rate_high * self.bits_per_round.upper()),
            "not_covered": ["dropouts", "servers pooling their views"]}, "security": MULTI_SERVER_SECURITY,
                "sum_space": self.sum_space or None}


def _opt(value) -> str:
    return "not computed" if value is None else str(value)


def build_instance(name: str, clients: int, p: MultiServerProtocol):
    """The key-rate instance of :data:`SPLIT_RULE` (``None`` beyond what an instance may hold)."""
    try:
        return parse_instance({"name": name, "servers": list(split_clients(clients, p.servers)),
                               "security_sets": ["all"], "collusion_sets": {"all_users_up_to": p.collusion}})
    except InvalidInput:
        return None


def _configurations(clients: int, p: MultiServerProtocol) -> int:
    sets, total = 0, 0
    for r in range(min(p.collusion, clients) + 1):
        sets += comb(clients, r)
        total = p.servers * sets
        if total > ANALYZE_CONFIGURATIONS:
            break
    return total


def _closed_form(clients: int, p: MultiServerProtocol, split: tuple[int, ...]) -> dict:
    """The quantities read off the definitions (docs/model.md §2) for this family: ``S = {𝒦}``, so every
    ``D_{u,m,n} = 𝒦``, ``S̄ = 𝒦``, ``a* = K`` and ``e* = min(V_max + t, K) + U - 1``."""
    e = min(max(split) + p.collusion, clients) + p.servers - 1
    return {"e_star": e, "a_star": clients, "s_bar": clients, "regime": None,
            "lower_printed": Fraction(min(e, clients - 1)), "lower": None, "upper": None}


def _multi_server_keys(p: MultiServerProtocol, *, clients: int, dropout: Fraction, name: str,
                       bits_per_round: Certified, time_limit, seed: int, report) -> MultiServerKeys:
    p.check(clients)
    split = split_clients(clients, p.servers)
    name = f"{name}-U{p.servers}-t{p.collusion}"
    equal = len(set(split)) == 1
    published = Fraction(min(p.servers + split[0] + p.collusion - 2, clients - 1)) if equal else None
    instance = build_instance(name, clients, p)
    configurations = _configurations(clients, p)
    if instance is not None and configurations <= ANALYZE_CONFIGURATIONS:
        report("keys", note=f"analysing {name}")
        a = analyze(instance)
        q: dict[str, Any] = {"e_star": a.e_star, "a_star": a.a_star, "s_bar": a.S_bar.bit_count(), "regime": str(a.regime),
             "lower_printed": a.key_rate_lower_printed.value, "lower": a.key_rate_lower.value,
             "upper": a.key_rate_upper.value}
        method = "itsa.analyze of the built instance"
    else:
        q = _closed_form(clients, p, split)
        why = ("more users than an instance holds" if instance is None else
               f"more than {ANALYZE_CONFIGURATIONS:,} configurations (servers x collusion sets)")
        method = f"closed form of the definitions for this family; not analysed: {why}"
    low: Fraction | None = q["lower"]
    high: Fraction | None = q["upper"]
    how = "the analysis' bounds"
    if instance is not None and instance.K <= SOLVE_USERS:
        report("keys", note=f"solving {name}")
        solved = bounded_solve(instance, time_limit, seed)
        low, high = solved.rate_low, solved.rate_high
        how = ("itsa solve, settled" if solved.verdict == "optimal" else
               f"itsa solve, open{': ' + solved.note if solved.note else ''}")
    elif published is not None:
        low = high = published
        how = f"the published optimum of the homogeneous family (not solved: more than {SOLVE_USERS} users)"
    elif instance is not None:
        how = f"the analysis' bounds (not solved: more than {SOLVE_USERS} users)"
    else:
        how = "not bounded at this size (the instance is not built)"
    return MultiServerKeys(protocol=p, clients=clients, dropout=dropout, users_per_server=split, instance=name,
                           quantities=q, method=method, published=published, rate_low=low, rate_high=high,
                           rate_how=how, bits_per_round=bits_per_round)


# -- the simulated round ---------------------------------------------------------------------------


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

    def check_setup(self, clients: int, moduli: tuple[int, ...], dropout: Fraction) -> None:
        if self.instance.K != clients:
            raise InvalidOption(f"protocol: the scheme's {self.instance.K} users are not the {clients} clients")
        if moduli != (self.scheme.field,):
            raise InvalidOption(f"protocol: the scheme sums modulo its field {self.scheme.field}, not {moduli}")
        if dropout:
            raise InvalidOption("protocol: the multi-server model has no dropouts (dropout 0)")

    def seconds(self, clients: int, dimension: int) -> float:
        return 0.0

    def stats(self, tally: ProtocolTally, rounds: int) -> ProtocolStats:
        return ProtocolStats(protocol=MULTI_SERVER, method=self.describe() + "; fresh source key per round; no "
                             "dropouts (the model has none)", rounds=rounds, failed_rounds=(),
                             inexact_rounds=tuple(tally.inexact_rounds))

    def sum(self, rng, values: np.ndarray, alive: np.ndarray, modulus: int, clock: Deadline | None,
            tally: ProtocolTally, round_index: int, progress=None) -> tuple[np.ndarray, bool, np.ndarray]:
        """``(every server's decode, exact?, client 0's masked upload)`` of one round."""
        return _scheme(self, rng, values, clock, tally, round_index)


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



def _build_scheme(keys: MultiServerKeys, word_bits: int, seed: int, time_limit) -> SchemeRun:
    # The key-rate search, constructions and verifier (30 ms to import) load only when a multi-server run needs them:
    from itsa.keys.schemes.constructions import build_scheme  # lazy: only this simulation builds a scheme
    from itsa.keys.search.scalar import MAX_SOURCE_DIM, search_min_rate  # lazy: only this simulation searches

    instance = build_instance(keys.instance, keys.clients, keys.protocol)
    if instance is None:
        raise InvalidOption("simulate: the multi-server instance cannot be built at this size")
    p = scheme_field(word_bits)
    clock = Deadline.of(time_limit)
    left = clock.left()
    budget = SEARCH_SECONDS if left is None else min(SEARCH_SECONDS, left / 2)
    # every d < K at each L the search's limit of K·L + d source symbols allows (L = 2 up to 15 clients):
    L_values = tuple(L for L in (1, 2) if 2 * keys.clients * L <= MAX_SOURCE_DIM)
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

