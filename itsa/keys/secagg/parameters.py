"""SecAgg+ degree and threshold for a deployment: the finder's choice, decided exactly, with its bounds and cost.

:func:`secagg_parameters` runs the open-source finder's search with every
test decided in exact or certified arithmetic (:mod:`itsa.keys.secagg.certified`),
beside the float reproduction (:mod:`itsa.keys.secagg.finder`), and returns
the degree ``k`` and threshold ``t`` with certified failure bounds, the
dropout the choice tolerates and the per-client cost. :func:`secagg_bounds`
gives the same bounds for a degree and threshold chosen by hand (a
framework's configuration, as :mod:`itsa.frameworks` reads one).

Examples
--------
>>> p = secagg_parameters(10_000, "1/20", "1/20")
>>> p.degree, p.threshold, p.agrees
(34, 20, True)
>>> p.bounds.meets_targets
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, exact_text
from itsa._util.checks import MAX_WHOLE, choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import Infeasible, InvalidOption
from itsa.keys.secagg import certified as cert
from itsa.keys.secagg.finder import MAX_CLIENTS, Adversary, harary_graph_parameters

__all__ = ["num_shares", "SecAggBounds", "SecAggCost", "SecAggParameters", "secagg_bounds", "secagg_parameters", "secagg_cost",
           "tolerated_dropout", "finder_rates", "PUBLIC_KEY_BYTES", "SHARE_BYTES", "LARGEST_CLIENTS"]

#: Bytes of one public key: a compressed P-256 point (federated-compute's ``EcdhPublicKey``).
PUBLIC_KEY_BYTES = 33
#: Bytes of one Shamir share of a 32-byte secret: nine 31-bit sub-secrets over the prime 2^31 + 11, 4 bytes each.
SHARE_BYTES = 36
#: Most clients :func:`secagg_parameters` sizes (the finder itself stops at 10^6).
LARGEST_CLIENTS = 10_000_000

_GRAPH = "union bound over pairs of runs of k/2 removed clients on the ring"


def _interval_certified(name: str, low: Fraction, high: Fraction, method: str) -> Certified:
    return Certified(name, low, high, Direction.UPPER, method)


def _scaled(interval: tuple[Fraction, Fraction], factor: int) -> tuple[Fraction, Fraction]:
    return interval[0] * factor, interval[1] * factor


def _how(clients: int) -> str:
    return "exact rational" if clients <= cert.EXACT_LIMIT else "arb ball"


def _tail(clients: int, marked: int, degree: int, x: int, upper: bool) -> tuple[Fraction, Fraction]:
    bits = None if clients <= cert.EXACT_LIMIT else 128
    return cert.tail_interval(clients, marked, degree, x, upper, bits)


@dataclass(frozen=True, kw_only=True, repr=False)
class SecAggBounds(Displayable):
    """Certified failure bounds of SecAgg+ at a given degree and threshold.

    Parameters
    ----------
    clients, degree, threshold : int
        ``n``, ``k`` (neighbours of a client, the self-edge not counted) and ``t``.
    corrupt, dropout : Fraction
        ``γ`` and ``δ``; ``corrupt_clients = floor(γ n)``, ``dropped_clients = floor(δ n)``.
    adversary : Adversary
        The adversary class.
    disconnection : Certified
        Upper bound on the honest survivors' graph disconnecting (0 for the full graph).
    security : Certified
        Upper bound on privacy failing: ``disconnection + n Pr[X >= e]``, ``X ~ Hyp(n, A, k)`` the
        corrupt neighbours, ``e = t`` (``2t - k`` against a semi-malicious server).
    correctness : Certified
        Upper bound on a reconstruction failing: ``n Pr[Z <= t - 1]``, ``Z ~ Hyp(n, n - D, k)``.
    meets_targets : bool
        ``security < 2^-40`` and ``correctness < 2^-20``.
    security_per_client : Certified
        A tighter security bound (not the finder's): each honest client's ``k`` neighbours are drawn
        from the ``n - 1`` others, so ``disconnection + (n - A) Pr[X' >= e]`` with ``X' ~ Hyp(n - 1, A, k)``.
    """

    clients: int
    degree: int
    threshold: int
    corrupt: Fraction
    dropout: Fraction
    adversary: Adversary
    corrupt_clients: int
    dropped_clients: int
    disconnection: Certified
    security: Certified
    correctness: Certified
    meets_targets: bool
    security_per_client: Certified

    @classmethod
    def title(cls) -> str:
        return "SecAgg+ bounds"

    def headline(self) -> str:
        verdict = "meets" if self.meets_targets else "misses"
        return (f"k = {self.degree}, t = {self.threshold}: security <= {self.security.decimal()}, "
                f"correctness <= {self.correctness.decimal()} ({verdict} 2^-40 / 2^-20)")

    def rows(self) -> list[tuple[str, str]]:
        return [("clients", str(self.clients)), ("degree", str(self.degree)), ("threshold", str(self.threshold)),
                ("corrupt clients", f"{self.corrupt_clients} (corrupt {exact_text(self.corrupt)})"),
                ("dropped clients", f"{self.dropped_clients} (dropout {exact_text(self.dropout)})"),
                ("adversary", str(self.adversary)),
                ("graph disconnects", f"<= {self.disconnection.decimal()} ({self.disconnection.direction})"),
                ("security failure", f"<= {self.security.decimal()} ({self.security.direction}; target 2^-40)"),
                ("correctness failure", f"<= {self.correctness.decimal()} ({self.correctness.direction}; target 2^-20)"),
                ("security, per-client model", f"<= {self.security_per_client.decimal()} (tighter upper bound, "
                 "neighbours among the n - 1 others, union over honest clients)"),
                ("meets targets", "yes" if self.meets_targets else "no"),
                ("method", str(self.security.method))]

    def to_dict(self) -> dict:
        return {"clients": self.clients, "degree": self.degree, "threshold": self.threshold,
                "corrupt": exact_text(self.corrupt), "dropout": exact_text(self.dropout),
                "adversary": str(self.adversary), "corrupt_clients": self.corrupt_clients,
                "dropped_clients": self.dropped_clients, "disconnection": self.disconnection.to_dict(),
                "security_failure": self.security.to_dict(), "correctness_failure": self.correctness.to_dict(),
                "security_failure_per_client": self.security_per_client.to_dict(),
                "meets_targets": self.meets_targets}


@dataclass(frozen=True, kw_only=True, repr=False)
class SecAggCost(Displayable):
    """What one client sends and does in one SecAgg+ round (Bell et al. 2020, Bonawitz et al. 2017).

    Each client advertises two public keys (one for the channel that carries
    its shares, one for its pairwise masks), agrees a key with each of its
    ``k`` neighbours under each (``2k`` agreements), sends each neighbour one
    share of its self-mask seed and one of its mask key (``2k`` shares), its
    masked input, and at most ``k`` shares when the server unmasks. Sizes:
    :data:`PUBLIC_KEY_BYTES` a key, :data:`SHARE_BYTES` a share (assumed, as in
    federated-compute; encryption overhead not counted).
    """

    degree: int
    dimension: int
    payload_bits: int
    key_agreements: int
    shares_sent: int
    shares_revealed: int
    masked_input_bytes: int
    upload_bytes: int
    download_bytes: int

    @classmethod
    def title(cls) -> str:
        return "SecAgg+ cost per client"

    def headline(self) -> str:
        return (f"{self.key_agreements} key agreements, {self.shares_sent} shares, "
                f"{self.upload_bytes:,} bytes up and {self.download_bytes:,} down per client")

    def rows(self) -> list[tuple[str, str]]:
        return [("key agreements", f"{self.key_agreements} (2 per neighbour: channel and mask keys)"),
                ("shares sent", f"{self.shares_sent} (self-mask seed and mask key, to each neighbour)"),
                ("shares revealed", f"at most {self.shares_revealed} (one per neighbour, at unmasking)"),
                ("masked input", f"{self.masked_input_bytes:,} bytes ({self.dimension} x {self.payload_bits} bits)"),
                ("upload", f"{self.upload_bytes:,} bytes"), ("download", f"{self.download_bytes:,} bytes")]

    def to_dict(self) -> dict:
        return {"degree": self.degree, "dimension": self.dimension, "payload_bits": self.payload_bits,
                "key_agreements": self.key_agreements, "shares_sent": self.shares_sent,
                "shares_revealed": self.shares_revealed, "masked_input_bytes": self.masked_input_bytes,
                "upload_bytes": self.upload_bytes, "download_bytes": self.download_bytes,
                "public_key_bytes": PUBLIC_KEY_BYTES, "share_bytes": SHARE_BYTES}


def secagg_cost(degree: int, dimension: int = 1, payload_bits: int = 32) -> SecAggCost:
    """The per-client cost of one round at degree ``k`` for a payload of ``dimension`` words of ``payload_bits``."""
    whole_number("degree", degree, minimum=1)
    whole_number("dimension", dimension, minimum=1, maximum=MAX_WHOLE)
    whole_number("payload bits", payload_bits, minimum=1, maximum=MAX_WHOLE)
    masked = -(-dimension * payload_bits // 8)
    up = 2 * PUBLIC_KEY_BYTES + degree * 2 * SHARE_BYTES + masked + degree * SHARE_BYTES
    down = degree * 2 * PUBLIC_KEY_BYTES + degree * 2 * SHARE_BYTES
    return SecAggCost(degree=degree, dimension=dimension, payload_bits=payload_bits, key_agreements=2 * degree,
                      shares_sent=2 * degree, shares_revealed=degree, masked_input_bytes=masked,
                      upload_bytes=up, download_bytes=down)


def _rates(corrupt, dropout, adversary) -> tuple[Fraction, Fraction, Adversary]:
    kind = choice("adversary", adversary, Adversary)
    g = fraction("corrupt", corrupt, low=0, high=1, closed=True)
    d = fraction("dropout", dropout, low=0, high=1, closed=True)
    if g == 1 or d == 1:
        raise InvalidOption(f"{'corrupt' if g == 1 else 'dropout'}: must lie in [0, 1), not 1")
    if kind is Adversary.NONE and g > 0:
        raise InvalidOption(f"corrupt: the adversary class none expects corrupt = 0, not {exact_text(g)}")
    return g, d, kind


def num_shares(degree: int) -> int:
    """The shares each client's secrets are split into on a SecAgg+ graph of ``degree`` neighbours: ``degree + 1``
    (its neighbourhood with the client itself counted, the frameworks' ``num_shares``).

    >>> num_shares(36)
    37
    """
    return degree + 1


def finder_rates(corrupt, dropout, adversary) -> tuple[Fraction, Fraction, Adversary]:
    """The corrupt fraction, dropout and adversary :func:`secagg_parameters` takes (one line if not):
    ``corrupt + dropout``, or ``corrupt + 2 dropout`` against a semi-malicious adversary, at most ``9/10``.

    >>> finder_rates("1/20", "1/10", "semi-malicious")
    (Fraction(1, 20), Fraction(1, 10), <Adversary.SEMI_MALICIOUS: 'semi-malicious'>)
    """
    g, d, kind = _rates(corrupt, dropout, adversary)
    limit = Fraction(9, 10)
    if kind is not Adversary.SEMI_MALICIOUS and g + d > limit:
        raise InvalidOption(f"corrupt + dropout must be <= 9/10 ({kind}), not {exact_text(g + d)}")
    if kind is Adversary.SEMI_MALICIOUS and g + 2 * d > limit:
        raise InvalidOption(f"corrupt + 2 dropout must be <= 9/10 (semi-malicious), not {exact_text(g + 2 * d)}")
    return g, d, kind


def secagg_bounds(clients: int, degree: int, threshold: int, corrupt, dropout,
                  adversary: Adversary | str = Adversary.SEMI_HONEST) -> SecAggBounds:
    """Certified failure bounds of SecAgg+ on ``clients`` with a given ``degree`` and ``threshold``.

    Parameters
    ----------
    clients : int
        ``n >= 2``.
    degree : int
        Neighbours of each client (the self-edge not counted): even and ``< n - 1`` for a
        Harary graph, or ``n - 1`` for full SecAgg.
    threshold : int
        Shares that reconstruct a secret, ``1 <= t <= k``.
    corrupt, dropout : number or text
        ``γ`` and ``δ`` in ``[0, 1)``, read exactly (``"1/20"``, ``0.05``).
    adversary : str
        ``semi-honest``, ``semi-malicious`` or ``none``.

    Notes
    -----
    The bounds are those the open-source finder tests (its hypergeometric
    model of a client's neighbours, ``Hyp(n, ., k)``, and its union bounds),
    computed exactly or in ball arithmetic; a union over ``n`` clients.
    """
    whole_number("clients", clients, minimum=2, maximum=LARGEST_CLIENTS)
    whole_number("degree", degree, minimum=1, maximum=clients - 1)
    whole_number("threshold", threshold, minimum=1, maximum=degree)
    if degree < clients - 1 and degree % 2:
        raise InvalidOption(f"degree: a Harary graph below the full graph has an even degree, not {degree}")
    g, d, kind = _rates(corrupt, dropout, adversary)
    c = cert.counts(clients, g, d)
    how = _how(clients)
    disc = cert.disconnection_interval(clients, degree, c.bad, None if clients <= cert.EXACT_LIMIT else 128)
    event = cert.security_event(threshold, degree, kind)
    leak = _scaled(_tail(clients, c.corrupt, degree, event, True), clients)
    own = _scaled(_tail(clients - 1, c.corrupt, degree, event, True), clients - c.corrupt)
    fail = _scaled(_tail(clients, c.surviving, degree, threshold - 1, False), clients)
    security = _interval_certified("security failure", disc[0] + leak[0], disc[1] + leak[1],
                                   f"{_GRAPH} + n Pr[corrupt neighbours >= {event}], hypergeometric ({how})")
    correctness = _interval_certified("correctness failure", *fail,
                                      f"n Pr[surviving neighbours <= {threshold - 1}], hypergeometric ({how})")
    disconnection = _interval_certified("graph disconnection", *disc, f"{_GRAPH} ({how})")
    meets = security.high < cert.SECURITY_TARGET and correctness.high < cert.CORRECTNESS_TARGET
    return SecAggBounds(clients=clients, degree=degree, threshold=threshold, corrupt=g, dropout=d, adversary=kind,
                        corrupt_clients=c.corrupt, dropped_clients=c.dropped, disconnection=disconnection,
                        security=security, correctness=correctness, meets_targets=meets,
                        security_per_client=_interval_certified(
                            "security failure (per-client model)", disc[0] + own[0], disc[1] + own[1],
                            f"tighter than the finder's: {_GRAPH} + (n - A) Pr[Hyp(n - 1, A, k) >= {event}] ({how})"))


@dataclass(frozen=True, kw_only=True, repr=False)
class SecAggParameters(Displayable):
    """SecAgg+ degree and threshold for ``n`` clients, decided exactly, with the float reproduction beside.

    Parameters
    ----------
    degree, threshold : int
        The choice: the first even degree the finder's tests pass in exact arithmetic and its
        threshold; the full graph (``k = n - 1``) when none below passes. The threshold is
        raised to 2 (Shamir needs ``t >= 2``) before the correctness test, not after as in the finder.
    full_graph : bool
        Whether the choice is full SecAgg.
    reproduction : tuple or None
        ``(k, t)`` of the open-source finder in doubles, or ``None`` (then ``reproduction_note`` says why).
    agrees : bool
        Whether the two choices are the same.
    full_threshold : int or None
        The threshold of full SecAgg (``k = n - 1``) under the same bounds; ``None`` if none passes.
    tolerated_dropout : int or None
        The most dropped clients for which the choice still passes the finder's tests
        (graph ``< 2^-41``, ``n Pr[Z <= t - 1] < 2^-20``), the corrupt count fixed.
    bounds : SecAggBounds
        Certified bounds at the choice.
    cost : SecAggCost
        Per-client cost at the choice.
    """

    clients: int
    corrupt: Fraction
    dropout: Fraction
    adversary: Adversary
    degree: int
    threshold: int
    full_graph: bool
    reproduction: tuple[int, int] | None
    reproduction_note: str
    agrees: bool
    full_threshold: int | None
    tolerated_dropout: int | None
    bounds: SecAggBounds
    cost: SecAggCost

    @classmethod
    def title(cls) -> str:
        return "SecAgg+ parameters"

    def headline(self) -> str:
        graph = "full graph" if self.full_graph else "Harary graph"
        return f"degree {self.degree}, threshold {self.threshold} ({graph}, {self.adversary}, {self.clients:,} clients)"

    def rows(self) -> list[tuple[str, str]]:
        repro = (f"k = {self.reproduction[0]}, t = {self.reproduction[1]} "
                 f"({'the same' if self.agrees else 'DIFFERS'})" if self.reproduction else self.reproduction_note)
        full = "none passes" if self.full_threshold is None else str(self.full_threshold)
        tolerated = ("none (fails even without dropouts)" if self.tolerated_dropout is None else
                     f"{self.tolerated_dropout:,} clients ({exact_text(Fraction(self.tolerated_dropout, self.clients))})")
        return [("degree", f"{self.degree} neighbours"),
                ("threshold", str(self.threshold)), ("open-source finder (doubles)", repro),
                ("full SecAgg threshold", f"{full} (k = {self.clients - 1})"),
                ("tolerated dropout", tolerated),
                *self.bounds.rows()[3:], *[("cost: " + k, v) for k, v in self.cost.rows()]]

    def to_dict(self) -> dict:
        return {"degree": self.degree, "threshold": self.threshold, "clients": self.clients,
                "corrupt": exact_text(self.corrupt), "dropout": exact_text(self.dropout),
                "adversary": str(self.adversary), "full_graph": self.full_graph,
                "reproduction": None if self.reproduction is None else
                {"degree": self.reproduction[0], "threshold": self.reproduction[1]},
                "reproduction_note": self.reproduction_note, "agrees": self.agrees,
                "full_threshold": self.full_threshold, "tolerated_dropout": self.tolerated_dropout,
                "tolerated_dropout_fraction": None if self.tolerated_dropout is None else
                exact_text(Fraction(self.tolerated_dropout, self.clients)),
                "bounds": self.bounds.to_dict(), "cost": self.cost.to_dict()}


def tolerated_dropout(c: cert.Counts, degree: int, threshold: int) -> int | None:
    """The most dropped clients for which ``(k, t)`` passes the finder's graph and correctness tests."""
    def passes(dropped: int) -> bool:
        trial = cert.Counts(c.clients, c.corrupt, dropped)
        graph = cert.below(lambda bits: cert.disconnection_interval(c.clients, degree, trial.bad, bits),
                           cert.PER_EVENT, lambda: cert.exact_disconnection(trial, degree))
        return graph and cert.correct(trial, degree, threshold)

    if not passes(0):
        return None
    low, high = 0, c.clients - c.corrupt        # passes(low); find the last that passes
    while low < high:
        mid = (low + high + 1) // 2
        if passes(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _reproduce(clients: int, g: Fraction, d: Fraction, kind: Adversary) -> tuple[tuple[int, int] | None, str]:
    if clients > MAX_CLIENTS:
        return None, f"refused: the finder stops at {MAX_CLIENTS:,} clients"
    try:
        return harary_graph_parameters(clients, float(g), float(d), kind), ""
    except InvalidOption as exc:
        return None, f"refused: {exc}"
    except Infeasible:
        return None, "no degree below n - 1 (the server falls back to full SecAgg)"


def secagg_parameters(clients: int, corrupt, dropout, adversary: Adversary | str = Adversary.SEMI_HONEST, *,
                      dimension: int = 1, payload_bits: int = 32) -> SecAggParameters:
    """Degree and threshold of SecAgg+ for ``clients``, a corrupt and a dropout fraction, and an adversary class.

    Parameters
    ----------
    clients : int
        ``n``, from 2 to :data:`LARGEST_CLIENTS` (below 3 clients no threshold ``t >= 2`` fits: ``Infeasible``).
    corrupt, dropout : number or text
        ``γ`` and ``δ`` in ``[0, 1)``, read exactly; ``γ + δ <= 9/10`` (``γ + 2δ`` against a
        semi-malicious server), ``γ = 0`` for ``none``: the finder's feasibility rule.
    adversary : str
        ``semi-honest`` (default), ``semi-malicious`` or ``none``.
    dimension, payload_bits : int
        The payload whose cost is reported: ``dimension`` words of ``payload_bits`` each.

    Raises
    ------
    InvalidOption
        On inputs outside the finder's domain.
    Infeasible
        When neither a Harary graph nor the full graph meets the targets.
    """
    whole_number("clients", clients, minimum=2, maximum=LARGEST_CLIENTS)
    if clients < 3:
        raise Infeasible(f"clients: SecAgg+ needs at least 3 clients, not {clients}: a threshold t >= 2 (at t = 1 "
                            "every share is the secret) needs k >= 2 neighbours, and n clients give at most n - 1")
    g, d, kind = finder_rates(corrupt, dropout, adversary)
    whole_number("dimension", dimension, minimum=1, maximum=MAX_WHOLE)
    whole_number("payload bits", payload_bits, minimum=1, maximum=MAX_WHOLE)
    c = cert.counts(clients, g, d)
    full_t = cert.degree_passes(c, clients - 1, kind, floor_first=True)
    try:
        degree, threshold = cert.certified_parameters(clients, g, d, kind, floor_first=True)
        full = False
    except Infeasible:
        if full_t is None:
            raise Infeasible(f"neither a Harary graph nor the full graph meets 2^-40 / 2^-20 for {clients} clients "
                             f"(corrupt {exact_text(g)}, dropout {exact_text(d)}, {kind})") from None
        degree, threshold, full = clients - 1, full_t, True
    repro, note = _reproduce(clients, g, d, kind)
    return SecAggParameters(
        clients=clients, corrupt=g, dropout=d, adversary=kind, degree=degree, threshold=threshold, full_graph=full,
        reproduction=repro, reproduction_note=note, agrees=repro == (degree, threshold),
        full_threshold=full_t, tolerated_dropout=tolerated_dropout(c, degree, threshold),
        bounds=secagg_bounds(clients, degree, threshold, g, d, kind),
        cost=secagg_cost(degree, dimension, payload_bits))

