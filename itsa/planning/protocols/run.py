"""The planned protocol inside a simulated round: the setup, the tally and the stats every protocol's run shares.

With a deployment's ``protocol`` (:mod:`itsa.planning.protocols`), ``itsa
plan --simulate`` masks and unmasks each round's encoded inputs with the
protocol the plan sized, in place of the generic ring of pairwise masks.
The protocol gives its run (:meth:`~itsa.planning.protocols.base.AggregationProtocol.simulation`:
SecAgg+ end to end, :class:`~itsa.planning.protocols.secagg.SecAggRun`; the
multi-server model's verified scheme,
:class:`~itsa.planning.protocols.multi_server.SchemeRun`); the functions
here ask the run, never its class: ``describe()``, ``check_setup``,
``seconds``, ``sum`` (one round) and ``stats`` (the rounds' account).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from itsa._util.deadline import Deadline
from itsa._util.progress import Callback
from itsa.exceptions import InvalidOption
from itsa.planning.protocols.base import ProtocolKeys

__all__ = ["ProtocolTally", "ProtocolStats", "with_protocol", "protocol_sum", "check_protocol_simulation",
           "check_setup", "protocol_seconds"]


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
        if self.most_corrupt_neighbours is not None:         # a protocol that counts its corrupt neighbours
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
        """The stats of ``rounds`` rounds of the protocol's ``run`` (the run's own account)."""
        return run.stats(tally, rounds)


def check_protocol_simulation(deployment) -> None:
    """Refuse, before any work, a protocol the simulation cannot run (one line)."""
    if deployment.protocol is not None:
        deployment.protocol.check_simulation(clients=deployment.clients, word_bits=deployment.encoding.word_bits,
                                             layered=deployment.encoding.layered)


def with_protocol(plan, setup: dict, seed: int = 0, time_limit: float | Deadline | None = None) -> dict:
    """The simulation setup's fields of a plan with its protocol added (``setup`` unchanged without one)."""
    keys = getattr(plan, "keys", None)
    if not isinstance(keys, ProtocolKeys) or plan.deployment.protocol is None:
        return setup
    check_protocol_simulation(plan.deployment)
    return plan.deployment.protocol.simulation(keys, setup, word_bits=plan.encoding.word_bits, seed=seed,
                                               time_limit=time_limit)


def check_setup(run, clients: int, moduli: tuple[int, ...], dropout: Fraction) -> None:
    """A setup's protocol fits its clients and moduli (one line if not)."""
    if run is None:
        return
    if not callable(getattr(run, "check_setup", None)):
        raise InvalidOption(f"protocol: must be a protocol's run (a SecAggRun or a SchemeRun), not "
                            f"{type(run).__name__}")
    run.check_setup(clients, moduli, dropout)


def protocol_seconds(run, clients: int, dimension: int) -> float:
    """About how long one round of the protocol takes at the fast end (0 without one)."""
    return 0.0 if run is None else run.seconds(clients, dimension)


def protocol_sum(run, rng, values: np.ndarray, alive: np.ndarray, modulus: int, clock: Deadline | None,
                 tally: ProtocolTally, round_index: int,
                 progress: Callback | None = None) -> tuple[np.ndarray, bool, np.ndarray | None]:
    """``(the server's sum mod M, exact?, one masked upload or None)`` of one round under the protocol."""
    return run.sum(rng, values, alive, modulus, clock, tally, round_index, progress)
