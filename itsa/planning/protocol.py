"""The deployment's secure-aggregation protocol (``protocol:``) and the plan's keys for its own clients.

A deployment names the protocol that masks its clients' inputs:

- ``protocol: {secagg+: {corrupt: 1/20, adversary: semi-honest}}``: SecAgg+
  (Bell, Bonawitz, Gascón, Lepoint, Raykova 2020), the single-server
  protocol of Flower and of Google's production stack. The plan's keys are
  the degree ``k`` and threshold ``t`` of :func:`itsa.keys.secagg.secagg_parameters`
  at the deployment's ``n`` clients, corrupt fraction and dropout (or the
  ``degree`` and ``threshold`` given in the file, checked), their certified
  failure bounds, the dropout they tolerate checked against the file's, and
  the key and share traffic per client per round;
- ``protocol: {multi-server: {servers: U, collusion: t}}``: the key-rate
  model (docs/model.md) built from the deployment: its ``K`` clients split
  over the ``U`` servers as evenly as possible (the first ``K mod U`` servers
  get one client more), every input protected, any ``t`` clients colluding
  with a server. The plan's keys are the instance's quantities and bounds
  (:func:`itsa.analyze`, or their closed forms where the analysis is too
  large for a plan), ``R*`` from :func:`itsa.solve` when it settles within
  the plan's limits (or the published optimum of the homogeneous family),
  and the source key per round.

Examples
--------
>>> p = parse_protocol({"secagg+": {"corrupt": "1/20", "adversary": "semi-honest"}})
>>> p.corrupt, str(p.adversary), p.to_dict()["secagg+"]["corrupt"]
(Fraction(1, 20), 'semi-honest', '1/20')
>>> parse_protocol({"multi-server": {"servers": 3, "collusion": 1}})
MultiServerProtocol(servers=3, collusion=1)
>>> split_clients(1000, 3)
(334, 333, 333)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb
from typing import Any

from itsa._util.certified import Certified, exact_text, safe_decimal
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa._util.progress import Reporter
from itsa.exceptions import Infeasible, InvalidDeployment, InvalidInput, excerpt
from itsa.keys.bounds.analysis import analyze
from itsa.keys.model.io import parse_instance
from itsa.keys.secagg import certified as cert
from itsa.keys.secagg import secagg_bounds, secagg_cost, secagg_parameters
from itsa.keys.secagg.finder import Adversary
from itsa.keys.secagg.parameters import finder_rates, tolerated_dropout
from itsa.planning.keysolve import bounded_solve

__all__ = ["SecAggProtocol", "MultiServerProtocol", "parse_protocol", "split_clients", "SecAggKeys",
           "MultiServerKeys", "size_protocol_keys", "protocol_reasons", "SECAGG", "MULTI_SERVER",
           "SPLIT_RULE", "ANALYZE_CONFIGURATIONS", "SOLVE_USERS", "SECAGG_SECURITY", "MULTI_SERVER_SECURITY"]

_ERR = InvalidDeployment
#: The names of the protocols in a deployment file.
SECAGG = "secagg+"
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
#: What SecAgg+ keeps secret, from whom (docs/secagg.md, "The threat models").
SECAGG_SECURITY = ("the server learns only the survivors' sum, unless the honest survivors' graph disconnects or "
                   "a client has t or more corrupt neighbours (2t - k against a semi-malicious server): the "
                   "security failure bound; corrupt clients see their own shares and masks only; a withholding "
                   "client is a dropout, recovered while fewer than the tolerated dropout leave")
#: What the multi-server model keeps secret, from whom (docs/model.md, constraint (7)).
MULTI_SERVER_SECURITY = ("each single server, with any t clients, learns nothing about the other inputs beyond "
                         "the sum (information-theoretic, no computational assumption); servers pooling their "
                         "views, and dropouts, are outside the model")


def _rate(name: str, raw) -> Fraction:
    if isinstance(raw, bool):
        raise _ERR(f"{name}: must be a fraction in [0, 1), not {excerpt(raw)}")
    value = fraction(name, str(raw) if isinstance(raw, Fraction) else raw, low=0, high=1, closed=True, error=_ERR)
    if value == 1:
        raise _ERR(f"{name}: must lie in [0, 1), not 1")
    return value


@dataclass(frozen=True, kw_only=True)
class SecAggProtocol:
    """SecAgg+ against ``adversary`` with a fraction ``corrupt`` of corrupt clients; ``degree`` and
    ``threshold`` given (a Flower configuration: ``num_shares = degree + 1``) or chosen by the plan."""

    corrupt: Fraction = Fraction(0)
    adversary: Adversary = Adversary.SEMI_HONEST
    degree: int | None = None
    threshold: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "corrupt", _rate("protocol.secagg+.corrupt", self.corrupt))
        object.__setattr__(self, "adversary", choice("protocol.secagg+.adversary", self.adversary, Adversary,
                                                     error=_ERR))
        if self.adversary is Adversary.NONE and self.corrupt > 0:
            raise _ERR(f"protocol.secagg+.corrupt: the adversary none expects corrupt 0, not {frac(self.corrupt)}")
        if (self.degree is None) != (self.threshold is None):
            raise _ERR("protocol.secagg+: give degree and threshold together, or neither (chosen)")
        if self.degree is not None:
            k = whole_number("protocol.secagg+.degree", self.degree, minimum=2, error=_ERR)
            whole_number("protocol.secagg+.threshold", self.threshold, minimum=2, maximum=k, error=_ERR)

    def check(self, clients: int) -> None:
        """Refuse (one line) a degree the deployment's clients cannot have."""
        if clients < 3:
            raise _ERR(f"protocol.secagg+: needs at least 3 clients, not {clients}")
        if self.degree is None:
            return
        if self.degree > clients - 1:
            raise _ERR(f"protocol.secagg+.degree: at most clients - 1 = {clients - 1}, not {self.degree}")
        if self.degree < clients - 1 and self.degree % 2:
            raise _ERR(f"protocol.secagg+.degree: a Harary graph below the full graph has an even degree, "
                       f"not {self.degree}")

    def check_rates(self, dropout: Fraction) -> None:
        """Refuse (one line) a corrupt fraction and dropout outside the finder's domain
        (:func:`itsa.keys.secagg.parameters.finder_rates`)."""
        try:
            finder_rates(self.corrupt, dropout, self.adversary)
        except InvalidInput as exc:
            raise _ERR(f"protocol.secagg+: {exc}") from None

    def to_dict(self) -> dict:
        return {SECAGG: {"corrupt": frac(self.corrupt), "adversary": str(self.adversary), "degree": self.degree,
                         "threshold": self.threshold}}


@dataclass(frozen=True, kw_only=True)
class MultiServerProtocol:
    """The key-rate model's ``U = servers`` servers, any ``t = collusion`` clients colluding with a server."""

    servers: int
    collusion: int = 0

    def __post_init__(self):
        whole_number("protocol.multi-server.servers", self.servers, minimum=1, maximum=4096, error=_ERR)
        whole_number("protocol.multi-server.collusion", self.collusion, minimum=0, error=_ERR)

    def check(self, clients: int) -> None:
        """Refuse (one line) more servers than clients, or a collusion of every client."""
        if self.servers > clients:
            raise _ERR(f"protocol.multi-server.servers: at most the {clients} clients, not {self.servers}")
        if self.collusion >= clients:
            raise _ERR(f"protocol.multi-server.collusion: below the {clients} clients, not {self.collusion}")

    def to_dict(self) -> dict:
        return {MULTI_SERVER: {"servers": self.servers, "collusion": self.collusion}}


Protocol = SecAggProtocol | MultiServerProtocol


def parse_protocol(raw) -> Protocol | None:
    """The file's ``protocol:`` mapping (one key: ``secagg+`` or ``multi-server``), checked."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or len(raw) != 1:
        raise _ERR(f"protocol: must be a mapping with one key, {SECAGG} or {MULTI_SERVER}, not {excerpt(raw)}")
    (name, body), = raw.items()
    body = {} if body is None else body
    if not isinstance(body, dict):
        raise _ERR(f"protocol.{name}: must be a mapping, not {excerpt(body)}")
    keys = {SECAGG: {"corrupt", "adversary", "degree", "threshold"}, MULTI_SERVER: {"servers", "collusion"}}
    if name not in keys:
        raise _ERR(f"protocol: unknown protocol {excerpt(name)} (known: {SECAGG}, {MULTI_SERVER})")
    extra = sorted(set(map(str, body)) - keys[name])
    if extra:
        raise _ERR(f"protocol.{name}: unknown key {extra[0]!r} (known: {', '.join(sorted(keys[name]))})")
    if name == SECAGG:
        return SecAggProtocol(corrupt=body.get("corrupt", 0), adversary=body.get("adversary", "semi-honest"),
                              degree=body.get("degree"), threshold=body.get("threshold"))
    if "servers" not in body:
        raise _ERR("protocol.multi-server.servers: missing (the number of servers U)")
    return MultiServerProtocol(servers=body["servers"], collusion=body.get("collusion", 0))


def split_clients(clients: int, servers: int) -> tuple[int, ...]:
    """``K`` clients over ``U`` servers as evenly as possible, the first ``K mod U`` one more (:data:`SPLIT_RULE`)."""
    base, extra = divmod(clients, servers)
    return tuple(base + (1 if u < extra else 0) for u in range(servers))


# -- SecAgg+ ----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, repr=False)
class SecAggKeys(Displayable):
    """The SecAgg+ keys of the deployment: degree, threshold, certified bounds, tolerated dropout, traffic.

    ``finder`` is :func:`itsa.keys.secagg.secagg_parameters` at the deployment's
    values (``None`` when no graph meets the targets); ``bounds`` and ``cost``
    are at the degree and threshold used (the file's, or the finder's).
    ``reasons`` say why the protocol makes the plan infeasible.
    """

    protocol: SecAggProtocol
    clients: int
    dropout: Fraction
    degree: int | None
    threshold: int | None
    given: bool
    finder: Any
    bounds: Any
    cost: Any
    tolerated_dropout: int | None
    dropped_clients: int
    reasons: tuple[str, ...] = ()

    @classmethod
    def title(cls) -> str:
        return "keys: SecAgg+"

    @property
    def dropout_tolerated(self) -> bool:
        return self.tolerated_dropout is not None and self.tolerated_dropout >= self.dropped_clients

    def headline(self) -> str:
        if self.degree is None:
            return f"SecAgg+: {self.reasons[0]}"
        return (f"SecAgg+ degree {self.degree}, threshold {self.threshold} for the {self.clients:,} clients "
                f"({self.protocol.adversary}, corrupt {frac(self.protocol.corrupt)})")

    def _tolerated(self) -> str:
        mine = f"the file's dropout {frac(self.dropout)} drops {self.dropped_clients:,}"
        if self.tolerated_dropout is None:
            return f"none (the choice fails even without dropouts); {mine}"
        verdict = "tolerated" if self.dropout_tolerated else "NOT tolerated"
        return (f"{self.tolerated_dropout:,} clients ({exact_text(Fraction(self.tolerated_dropout, self.clients))}); "
                f"{mine}: {verdict}")

    def rows(self) -> list[tuple[str, str]]:
        p = self.protocol
        rows = [("protocol", f"SecAgg+ (Harary graph, Shamir t-of-k): {p.adversary}, corrupt {frac(p.corrupt)}, "
                             f"for the deployment's {self.clients:,} clients")]
        if self.degree is None:
            return rows + [("secagg", r) for r in self.reasons] + [("key security", SECAGG_SECURITY)]
        how = "given in the deployment file" if self.given else "the open-source finder's choice, decided exactly"
        rows += [("degree", f"{self.degree} neighbours (Flower num_shares = {self.degree + 1}); {how}"),
                 ("threshold", f"{self.threshold} shares (Flower reconstruction_threshold)")]
        if self.given and self.finder is not None:
            rows.append(("finder's choice", f"degree {self.finder.degree}, threshold {self.finder.threshold}"))
        b = self.bounds
        rows += [("graph disconnects", f"<= {b.disconnection.decimal()} ({b.disconnection.direction})"),
                 ("security failure", f"<= {b.security.decimal()} ({b.security.direction}; target 2^-40)"),
                 ("correctness failure", f"<= {b.correctness.decimal()} ({b.correctness.direction}; target 2^-20)"),
                 ("tolerated dropout", self._tolerated())]
        c = self.cost
        rows += [("key traffic", f"{c.key_agreements} key agreements (2 public keys up, {2 * self.degree} down)"),
                 ("share traffic", f"{c.shares_sent} shares sent, at most {c.shares_revealed} revealed at unmasking"),
                 ("bytes per client per round", f"{c.upload_bytes:,} up ({c.masked_input_bytes:,} of them the masked "
                                                f"input), {c.download_bytes:,} down (exact, at the assumed sizes)")]
        rows += [("secagg", r) for r in self.reasons]
        return rows + [("key security", SECAGG_SECURITY)]

    def to_dict(self) -> dict:
        body: dict[str, Any] = {
            "degree": self.degree, "threshold": self.threshold,
            "num_shares": None if self.degree is None else self.degree + 1,
            "chosen": "given" if self.given else "finder",
            "corrupt": frac(self.protocol.corrupt), "adversary": str(self.protocol.adversary),
            "clients": self.clients, "dropped_clients": self.dropped_clients,
            "tolerated_dropout": self.tolerated_dropout,
            "tolerated_dropout_fraction": None if self.tolerated_dropout is None else
            exact_text(Fraction(self.tolerated_dropout, self.clients)),
            "dropout_tolerated": self.dropout_tolerated,
            "bounds": None if self.bounds is None else self.bounds.to_dict(),
            "cost": None if self.cost is None else self.cost.to_dict(),
            "finder": None if self.finder is None else {"degree": self.finder.degree,
                                                        "threshold": self.finder.threshold}}
        return {"protocol": SECAGG, "secagg": body, "reasons": list(self.reasons), "security": SECAGG_SECURITY}


def _secagg_keys(p: SecAggProtocol, *, clients: int, dropout: Fraction, dimension: int,
                 payload_bits: int) -> SecAggKeys:
    p.check(clients)
    n = clients
    dropped = cert.counts(n, p.corrupt, dropout).dropped
    try:
        finder = secagg_parameters(n, p.corrupt, dropout, p.adversary, dimension=dimension,
                                   payload_bits=payload_bits)
    except Infeasible as exc:
        finder, why = None, str(exc)
    except InvalidInput as exc:
        raise _ERR(f"protocol.secagg+: {exc}") from None
    if p.degree is None:
        if finder is None:
            return SecAggKeys(protocol=p, clients=n, dropout=dropout, degree=None, threshold=None, given=False,
                              finder=None, bounds=None, cost=None, tolerated_dropout=None, dropped_clients=dropped,
                              reasons=(why,))
        return SecAggKeys(protocol=p, clients=n, dropout=dropout, degree=finder.degree, threshold=finder.threshold,
                          given=False, finder=finder, bounds=finder.bounds, cost=finder.cost,
                          tolerated_dropout=finder.tolerated_dropout, dropped_clients=dropped)
    k, t = p.degree, p.threshold
    assert t is not None
    bounds = secagg_bounds(n, k, t, p.corrupt, dropout, p.adversary)
    tolerated = tolerated_dropout(cert.counts(n, p.corrupt, dropout), k, t)
    keys = SecAggKeys(protocol=p, clients=n, dropout=dropout, degree=k, threshold=t, given=True, finder=finder,
                      bounds=bounds, cost=secagg_cost(k, dimension, payload_bits), tolerated_dropout=tolerated,
                      dropped_clients=dropped)
    reasons = []
    if not keys.dropout_tolerated:
        reasons.append(f"the SecAgg+ graph (degree {k}, threshold {t}) tolerates "
                       f"{'no' if tolerated is None else f'{tolerated:,}'} dropped clients, the file's dropout "
                       f"drops {dropped:,}")
    if bounds.security.high >= cert.SECURITY_TARGET:
        reasons.append(f"the SecAgg+ security failure bound {bounds.security.decimal()} is not below 2^-40")
    if bounds.correctness.high >= cert.CORRECTNESS_TARGET and keys.dropout_tolerated:
        reasons.append(f"the SecAgg+ correctness failure bound {bounds.correctness.decimal()} is not below 2^-20")
    return replace(keys, reasons=tuple(reasons))


# -- the multi-server model ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, repr=False)
class MultiServerKeys(Displayable):
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
        return rows + [("key security", MULTI_SERVER_SECURITY)]

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
            "not_covered": ["dropouts", "servers pooling their views"]}, "security": MULTI_SERVER_SECURITY}


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


# -- the keys section ----------------------------------------------------------------------------------


def size_protocol_keys(protocol: SecAggProtocol | MultiServerProtocol, *, clients: int, dropout: Fraction,
                       dimension: int, name: str, bits_per_round: Certified, payload_bits: int, time_limit,
                       seed: int = 0, report=None) -> SecAggKeys | MultiServerKeys:
    """The keys section of a deployment's ``protocol`` for its ``clients`` (``dropout`` of them may drop out).

    ``dimension`` is the number of words a client sends and ``payload_bits`` the bits of one (the word);
    ``name`` names the multi-server instance built; ``time_limit`` bounds a multi-server solve (a forked
    child, :mod:`itsa.planning.keysolve`).
    """
    report = report if report is not None else Reporter(None)
    if isinstance(protocol, SecAggProtocol):
        return _secagg_keys(protocol, clients=clients, dropout=dropout, dimension=dimension,
                            payload_bits=payload_bits)
    return _multi_server_keys(protocol, clients=clients, dropout=dropout, name=name, bits_per_round=bits_per_round,
                              time_limit=time_limit, seed=seed, report=report)


def protocol_reasons(keys) -> tuple[list[str], dict]:
    """Why the protocol makes a plan infeasible, and the fix: the finder's degree (the smallest that works)."""
    if not isinstance(keys, SecAggKeys) or not keys.reasons:
        return [], {}
    fixes = {}
    if keys.finder is not None:
        f = keys.finder
        fixes["secagg_degree"] = {"degree": f.degree, "threshold": f.threshold,
                                  "text": f"SecAgg+ degree {f.degree}, threshold {f.threshold}: the smallest degree "
                                          "whose graph meets 2^-40 / 2^-20 at this dropout"}
    return list(keys.reasons), fixes
