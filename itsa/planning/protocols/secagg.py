"""SecAgg+ (Bell, Bonawitz, Gascón, Lepoint, Raykova 2020) as a deployment's protocol: its keys and its round.

``protocol: {secagg+: {corrupt: 1/20, adversary: semi-honest}}``: the
single-server protocol the frameworks run (:mod:`itsa.frameworks` writes it for one) and Google's
production stack ran. The
plan's keys are the degree ``k`` and threshold ``t`` of
:func:`itsa.keys.secagg.secagg_parameters` at the deployment's ``n``
clients, corrupt fraction and dropout (or the ``degree`` and ``threshold``
given in the file, checked), their certified failure bounds, the dropout
they tolerate checked against the file's, and the key and share traffic per
client per round. It sums the words modulo the word's own ``2^b``.

With ``itsa plan --simulate`` each round is
:func:`itsa.keys.secagg.simulate.simulate_round` (:class:`SecAggRun`): a
Harary graph of the plan's degree ``k`` on a random ring order, each
client's mask key and self-mask seed Shamir-shared ``t``-of-``k`` over the
prime ``2^31 + 11``, masks expanded by a seeded PRG (NumPy's PCG64,
standing for AES-CTR), the round's dropouts leaving after the shares are
sent, and the server rebuilding the dropped clients' pairwise masks and the
survivors' self-masks from ``t`` surviving neighbours' shares. **The key
agreement is simulated**: Diffie-Hellman on random secret keys in a toy
group modulo that prime (not secure; it stands for the elliptic-curve
agreement). The clients counted corrupt are drawn at the protocol's corrupt
fraction each round. The server's result must be the sum of the survivors'
encoded inputs mod ``M`` exactly; a round whose reconstruction failed, and a
round in which an honest client had ``t`` or more corrupt neighbours, are
counted.

Examples
--------
>>> p = SecAggProtocol.from_body({"corrupt": "1/20", "adversary": "semi-honest"})
>>> p.corrupt, str(p.adversary), p.to_dict()["secagg+"]["corrupt"]
(Fraction(1, 20), 'semi-honest', '1/20')
>>> p.sum_space(32, 1000)
'the word itself: masks cancel modulo 2^32'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from itsa._util.certified import exact_text
from itsa._util.checks import choice, whole_number
from itsa._util.deadline import Deadline
from itsa._util.plain import frac
from itsa._util.progress import Callback
from itsa.exceptions import Infeasible, InvalidDeployment, InvalidInput, InvalidOption
from itsa.keys.secagg import certified as cert
from itsa.keys.secagg import secagg_bounds, secagg_cost, secagg_parameters
from itsa.keys.secagg.finder import Adversary
from itsa.keys.secagg.parameters import finder_rates, num_shares, tolerated_dropout
from itsa.keys.secagg.simulate import simulate_round
from itsa.planning.protocols.base import AggregationProtocol, ProtocolKeys, rate
from itsa.planning.protocols.run import ProtocolStats, ProtocolTally

__all__ = ["SecAggProtocol", "SecAggKeys", "SecAggRun", "SECAGG", "SECAGG_SECURITY", "SECAGG_MODULUS",
           "SECAGG_METHOD"]

_ERR = InvalidDeployment
#: The protocol's name in a deployment file.
SECAGG = "secagg+"
#: What SecAgg+ keeps secret, from whom (docs/secagg.md, "The threat models").
SECAGG_SECURITY = ("the server learns only the survivors' sum, unless the honest survivors' graph disconnects or "
                   "a client has t or more corrupt neighbours (2t - k against a semi-malicious server): the "
                   "security failure bound; corrupt clients see their own shares and masks only; a withholding "
                   "client is a dropout, recovered while fewer than the tolerated dropout leave")
#: Largest modulus a SecAgg+ round sums in (its masks are 64-bit words summed with room).
SECAGG_MODULUS = 2**32
#: What a SecAgg+ round simulates, and what stands in for what.
SECAGG_METHOD = ("SecAgg+ run end to end: Harary graph of degree k on a random ring order, Shamir t-of-k shares of "
                 "each client's mask key and self-mask seed over the prime 2^31 + 11, masks expanded by a seeded PRG "
                 "(PCG64, standing for AES-CTR), dropouts after the shares are sent, the server's reconstruction from "
                 "t surviving neighbours; key agreement simulated by random seeds (Diffie-Hellman in a toy group "
                 "modulo 2^31 + 11, not secure)")


@dataclass(frozen=True, kw_only=True)
class SecAggProtocol(AggregationProtocol):
    """SecAgg+ against ``adversary`` with a fraction ``corrupt`` of corrupt clients; ``degree`` and
    ``threshold`` given (a framework's configuration, as :mod:`itsa.frameworks` reads one) or chosen by the plan."""

    name: ClassVar[str] = SECAGG
    fields: ClassVar[frozenset[str]] = frozenset({"corrupt", "adversary", "degree", "threshold"})

    corrupt: Fraction = Fraction(0)
    adversary: Adversary = Adversary.SEMI_HONEST
    degree: int | None = None
    threshold: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "corrupt", rate("protocol.secagg+.corrupt", self.corrupt))
        object.__setattr__(self, "adversary", choice("protocol.secagg+.adversary", self.adversary, Adversary,
                                                     error=_ERR))
        if self.adversary is Adversary.NONE and self.corrupt > 0:
            raise _ERR(f"protocol.secagg+.corrupt: the adversary none expects corrupt 0, not {frac(self.corrupt)}")
        if (self.degree is None) != (self.threshold is None):
            raise _ERR("protocol.secagg+: give degree and threshold together, or neither (chosen)")
        if self.degree is not None:
            k = whole_number("protocol.secagg+.degree", self.degree, minimum=2, error=_ERR)
            whole_number("protocol.secagg+.threshold", self.threshold, minimum=2, maximum=k, error=_ERR)

    @classmethod
    def from_body(cls, body: dict) -> SecAggProtocol:
        return cls(corrupt=body.get("corrupt", 0), adversary=body.get("adversary", "semi-honest"),
                   degree=body.get("degree"), threshold=body.get("threshold"))

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

    def size(self, *, clients: int, dropout: Fraction, dimension: int, name: str, bits_per_round: Any,
             payload_bits: int, time_limit, seed: int, report) -> SecAggKeys:
        return _secagg_keys(self, clients=clients, dropout=dropout, dimension=dimension, payload_bits=payload_bits)

    def sum_space(self, payload_bits: int, clients: int) -> str:
        return f"the word itself: masks cancel modulo 2^{payload_bits}"

    def check_simulation(self, *, clients: int, word_bits: int | None, layered: bool) -> None:
        if layered:
            raise InvalidOption("simulate: SecAgg+ is simulated on a flat word (encoding.word_bits), not a layering")
        if word_bits is not None and 2**word_bits > SECAGG_MODULUS:
            raise InvalidOption(f"simulate: SecAgg+ rounds sum in words of at most 32 bits, not {word_bits}")

    def simulation(self, keys: ProtocolKeys, setup: dict, *, word_bits: int, seed: int, time_limit) -> dict:
        assert isinstance(keys, SecAggKeys)
        if keys.degree is None:
            raise InvalidOption("simulate: the plan has no SecAgg+ degree (no graph meets the targets)")
        return {**setup, "protocol": SecAggRun(degree=keys.degree, threshold=int(keys.threshold or 0),
                                               corrupt=self.corrupt)}


@dataclass(frozen=True, kw_only=True, repr=False)
class SecAggKeys(ProtocolKeys):
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
            return rows + [("secagg", r) for r in self.reasons] + self.space_rows() + [("key security",
                                                                                          SECAGG_SECURITY)]
        how = "given in the deployment file" if self.given else "the open-source finder's choice, decided exactly"
        rows += [("degree", f"{self.degree} neighbours; {how}"),
                 ("threshold", f"{self.threshold} shares")]
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
        return rows + self.space_rows() + [("key security", SECAGG_SECURITY)]

    def fixes(self) -> dict:
        """The finder's degree (the smallest that works), when the file's does not."""
        if not self.reasons or self.finder is None:
            return {}
        f = self.finder
        return {"secagg_degree": {"degree": f.degree, "threshold": f.threshold,
                                  "text": f"SecAgg+ degree {f.degree}, threshold {f.threshold}: the smallest degree "
                                          "whose graph meets 2^-40 / 2^-20 at this dropout"}}

    def to_dict(self) -> dict:
        body: dict[str, Any] = {
            "degree": self.degree, "threshold": self.threshold,
            "num_shares": None if self.degree is None else num_shares(self.degree),
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
        return {"protocol": SECAGG, "secagg": body, "reasons": list(self.reasons), "security": SECAGG_SECURITY,
                "sum_space": self.sum_space or None}


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



# -- the simulated round ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SecAggRun:
    """The SecAgg+ of a plan: degree ``k``, threshold ``t``, and the corrupt fraction drawn each round."""

    degree: int
    threshold: int
    corrupt: Fraction = Fraction(0)

    def describe(self) -> str:
        return f"SecAgg+ k = {self.degree}, t = {self.threshold}, corrupt {self.corrupt}"

    def check_setup(self, clients: int, moduli: tuple[int, ...], dropout: Fraction) -> None:
        whole_number("protocol degree", self.degree, minimum=2, maximum=clients - 1)
        whole_number("protocol threshold", self.threshold, minimum=2, maximum=self.degree)
        if max(moduli) > SECAGG_MODULUS:
            raise InvalidOption(f"protocol: SecAgg+ rounds sum modulo at most 2^32, not {max(moduli)}")

    def seconds(self, clients: int, dimension: int) -> float:
        """About how long one round takes at the fast end (measured: ``n = 1000``, ``k = 36``, ``d = 1290``:
        2.6 s; ``k = 30``, ``d = 10^4``: 5.3 s; on a shared core)."""
        return clients * self.degree / 2 * (5e-5 + 1.5e-8 * dimension)

    def stats(self, tally: ProtocolTally, rounds: int) -> ProtocolStats:
        return ProtocolStats(protocol=SECAGG, method=SECAGG_METHOD + f" (k = {self.degree}, t = {self.threshold})",
                             rounds=rounds, failed_rounds=tuple(tally.failed_rounds),
                             inexact_rounds=tuple(tally.inexact_rounds), exposed_rounds=tuple(tally.exposed_rounds),
                             most_corrupt_neighbours=tally.most_corrupt_neighbours,
                             failed_reconstructions=tally.failed_reconstructions)

    def sum(self, rng, values: np.ndarray, alive: np.ndarray, modulus: int, clock: Deadline | None,
            tally: ProtocolTally, round_index: int, progress: Callback | None) -> tuple[np.ndarray, bool, None]:
        """``(the server's sum mod M, exact?, None)`` of one round."""
        def watch(event) -> None:
            if clock is not None:
                clock.check(f"a SecAgg+ round ({event.stage})")
            if progress is not None:
                progress(event)

        K, d = values.shape
        r = simulate_round(K, self.degree, self.threshold, dimension=d, modulus=modulus,
                           dropped=np.flatnonzero(~alive).tolist(), corrupt=self.corrupt,
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
