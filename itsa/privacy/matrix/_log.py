"""Accounting after the fact: the ε of the schedule a training run actually followed, from its participation log.

Production learns the realized participation counts and separations only
when training ends. Given the log (which client took part in which round),
each client's own squared sensitivity is ``Σ_node c²`` over its actual
rounds (exact, :meth:`~._forest.Forest.sensitivity_squared`); the release is
the Gaussian mechanism at the largest of them, so its ρ, ε and ε_RDP are
those of :func:`~._accounting.tree_epsilons` at that maximum, never more than
the planned worst case's. A log that breaks the plan (a client with more
rounds than ``E``, two rounds closer than ``ξ + 1``, a round outside the
schedule, or more than ``per_epoch`` rounds between two restarts) is refused
in one line: the planned guarantee does not cover it.

The log is a file:

- CSV, with the header ``client,round``, one participation a line (the round
  counted from 0);
- or JSON, one object ``{"client": [round, ...], ...}``.

Examples
--------
>>> log = ParticipationLog({"a": (0, 5), "b": (3,)})
>>> r = realized(log, max_participations=2, min_separation=3, rounds=8, noise_multiplier=2, delta="1e-5")
>>> r.sensitivity_squared, r.worst_client, r.planned_sensitivity_squared
(10, 'a', 10)
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from itsa._util.certified import Certified, exact_text, safe_decimal
from itsa._util.checks import digits_only, fraction, is_whole
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.files import read_text
from itsa._util.plain import frac
from itsa.exceptions import InvalidInput, InvalidOption, excerpt
from itsa.privacy.conversion import EpsilonBound, check_delta
from itsa.privacy.matrix._accounting import MODEL, check_schedule, tree_epsilons
from itsa.privacy.matrix._forest import Forest, check_restarts
from itsa.privacy.matrix._worst import worst_case

__all__ = ["ParticipationLog", "read_log", "realized", "RealizedAccounting", "MAX_LOG_BYTES"]

#: The largest log file read (bytes).
MAX_LOG_BYTES = 512 * 2**20


@dataclass(frozen=True)
class ParticipationLog:
    """Which rounds (from 0) each client took part in.

    Parameters
    ----------
    rounds_of : mapping
        Client name -> its rounds, in any order.
    """

    rounds_of: Mapping[str, tuple[int, ...]]


def _round(where: str, value) -> int:
    if isinstance(value, str) and digits_only(value.strip()):
        value = int(value.strip())
    if not is_whole(value) or value < 0:
        raise InvalidInput(f"{where}: a round must be a whole number >= 0, not {excerpt(value)}")
    return value


def read_log(path) -> ParticipationLog:
    """The participation log in ``path``: CSV with the header ``client,round``, or a JSON object of lists.

    Parameters
    ----------
    path : str or Path
        The file (``.json`` is read as JSON, anything else as CSV).
    """
    text = read_text(path, InvalidInput, max_bytes=MAX_LOG_BYTES)
    found: dict[str, list[int]] = {}
    if Path(path).suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
        if not isinstance(data, dict):
            raise InvalidInput(f"{path}: a participation log is one object {{client: [round, ...]}}, "
                               f"not {type(data).__name__}")
        for client, rounds in data.items():
            if not isinstance(rounds, list):
                raise InvalidInput(f"{path}: client {excerpt(client)}: a list of rounds, not {excerpt(rounds)}")
            found[client] = [_round(f"{path}: client {excerpt(client)}", r) for r in rounds]
    else:
        rows = csv.reader(io.StringIO(text))
        header = next(rows, None)
        if header is None or [h.strip() for h in header] != ["client", "round"]:
            raise InvalidInput(f"{path}: a participation log's CSV starts with the header client,round, "
                               f"not {excerpt(','.join(header or []))}")
        for line, row in enumerate(rows, start=2):
            if not row:
                continue
            if len(row) != 2:
                raise InvalidInput(f"{path}: line {line}: two fields (client,round), not {len(row)}")
            found.setdefault(row[0].strip(), []).append(_round(f"{path}: line {line}", row[1]))
    if not found:
        raise InvalidInput(f"{path}: no participation in the log")
    return ParticipationLog({c: tuple(r) for c, r in found.items()})


@dataclass(frozen=True, kw_only=True, repr=False)
class RealizedAccounting(Displayable):
    """The realized schedule's guarantee: the largest client's ``Σ_node c²``, ρ exact, ε certified.

    Parameters
    ----------
    clients : int
        Clients in the log.
    realized_max_participations : int
        The most rounds one client took part in.
    realized_min_separation : int or None
        The fewest rounds strictly between two of one client's (``None``: no client took part twice).
    sensitivity_squared : int
        ``max_client Σ_node c²`` over the clients' actual rounds (exact).
    worst_client : str
        A client attaining it, and ``worst_rounds`` its rounds.
    planned_sensitivity_squared : int
        The plan's worst case (for comparison).
    rho, epsilon, epsilon_rdp
        As :class:`~itsa.privacy.matrix.TreeAccounting`'s, at the realized maximum.
    """

    rounds: int
    restarts: tuple[int, ...]
    clients: int
    realized_max_participations: int
    realized_min_separation: int | None
    sensitivity_squared: int
    worst_client: str
    worst_rounds: tuple[int, ...]
    planned_sensitivity_squared: int
    noise_multiplier: Fraction
    rho: Fraction
    epsilon: Certified
    epsilon_rdp: EpsilonBound
    planned_epsilon: Certified
    delta: Fraction

    def headline(self) -> str:
        return (f"realized s = {self.sensitivity_squared} (planned {self.planned_sensitivity_squared}), "
                f"eps <= {self.epsilon.decimal()} (planned {self.planned_epsilon.decimal()}) at delta = "
                f"{exact_text(self.delta)}")

    def rows(self) -> list[tuple[str, str]]:
        sep = "-" if self.realized_min_separation is None else str(self.realized_min_separation)
        return [("clients", str(self.clients)), ("rounds T", str(self.rounds)),
                ("realized max participations", str(self.realized_max_participations)),
                ("realized min separation", sep),
                ("sensitivity squared", f"{self.sensitivity_squared} (exact, the largest client's)"),
                ("worst client", f"{self.worst_client}: rounds {', '.join(map(str, self.worst_rounds))}"),
                ("planned sensitivity squared", f"{self.planned_sensitivity_squared} (exact worst case)"),
                ("rho (zCDP)", f"{exact_text(self.rho)} = {safe_decimal(self.rho, 6)} (exact)"),
                ("epsilon", f"{self.epsilon.decimal(6)} (certified upper bound; exact Gaussian privacy curve)"),
                ("epsilon_rdp", f"{self.epsilon_rdp.epsilon.decimal(6)} (certified upper bound; RDP at TF Privacy's "
                                "orders)"),
                ("planned epsilon", f"{self.planned_epsilon.decimal(6)} (certified upper bound)"),
                ("delta", exact_text(self.delta)), ("model", MODEL)]

    def to_dict(self) -> dict:
        return {"rounds": self.rounds, "restarts": list(self.restarts), "clients": self.clients,
                "realized_max_participations": self.realized_max_participations,
                "realized_min_separation": self.realized_min_separation,
                "sensitivity_squared": self.sensitivity_squared, "worst_client": self.worst_client,
                "worst_rounds": list(self.worst_rounds),
                "planned_sensitivity_squared": self.planned_sensitivity_squared,
                "noise_multiplier": frac(self.noise_multiplier), "rho": frac(self.rho),
                "epsilon": self.epsilon.to_dict(), "epsilon_rdp": self.epsilon_rdp.to_dict(),
                "planned_epsilon": self.planned_epsilon.to_dict(), "delta": frac(self.delta), "model": MODEL}


def _check_client(client: str, rounds: Sequence[int], forest: Forest, max_participations: int,
                  min_separation: int, per_epoch: int | None) -> tuple[int, ...]:
    ordered = tuple(sorted(rounds))
    name = excerpt(client)
    if len(set(ordered)) != len(ordered):
        twice = next(r for r, s in zip(ordered, ordered[1:]) if r == s)
        raise InvalidOption(f"participation log: client {name} is logged twice in round {twice}")
    if ordered[-1] >= forest.rounds:
        raise InvalidOption(f"participation log: client {name} takes part in round {ordered[-1]}, outside the "
                            f"plan's rounds 0..{forest.rounds - 1}")
    if len(ordered) > max_participations:
        raise InvalidOption(f"participation log: client {name} takes part in {len(ordered)} rounds, more than the "
                            f"planned max participations {max_participations}: the plan's guarantee does not cover it")
    for r, s in zip(ordered, ordered[1:]):
        if s - r - 1 < min_separation:
            raise InvalidOption(f"participation log: client {name} takes part in rounds {r} and {s}, {s - r - 1} "
                                f"rounds apart, fewer than the planned min separation {min_separation}: the plan's "
                                "guarantee does not cover it")
    if per_epoch is not None:
        epochs = [forest.trees[forest.tree_of(r)].segment for r in ordered]
        crowded = next((e for e in set(epochs) if epochs.count(e) > per_epoch), None)
        if crowded is not None:
            raise InvalidOption(f"participation log: client {name} takes part in {epochs.count(crowded)} rounds of "
                                f"epoch {crowded}, more than the planned {per_epoch} per epoch")
    return ordered


def realized(log: ParticipationLog, *, max_participations: int, min_separation: int, rounds: int | None = None,
             noise_multiplier, delta, restarts: Sequence[int] | None = None, per_epoch: int | None = None,
             time_limit: float | None = None) -> RealizedAccounting:
    """Certify the ε of the schedule a run followed; refuse a log that breaks the planned schedule.

    Parameters
    ----------
    log : ParticipationLog
        The participations (:func:`read_log`).
    max_participations, min_separation, rounds, restarts, per_epoch
        The planned schedule (as :func:`~itsa.privacy.matrix.tree`'s).
    noise_multiplier : number
        ``z``, read exactly.
    delta : number
        ``δ``.
    time_limit : float, optional
        Seconds for the planned worst case.

    Returns
    -------
    RealizedAccounting

    Notes
    -----
    The plan's guarantee holds for every client that keeps the schedule
    (Kairouz et al. 2021, Appendix D); the realized one takes the maximum over
    the clients of the log only, which is the guarantee of each of them (a
    client absent from the log contributes nothing).
    """
    schedule = check_schedule(max_participations, min_separation, per_epoch)
    total, segments = check_restarts(rounds, restarts)
    z = fraction("noise multiplier", noise_multiplier, low=0)
    d = check_delta(delta)
    forest = Forest.of(total, None if len(segments) == 1 else segments)
    checked = {c: _check_client(c, r, forest, max_participations, min_separation, per_epoch)
               for c, r in log.rounds_of.items() if r}
    if not checked:
        raise InvalidOption("participation log: no client took part in any round")
    values = {c: forest.sensitivity_squared(r) for c, r in checked.items()}
    worst = max(values, key=lambda c: (values[c], c))
    gaps = [s - r - 1 for r_all in checked.values() for r, s in zip(r_all, r_all[1:])]
    planned, _ = worst_case(forest, schedule.max_participations, schedule.min_separation, schedule.per_segment,
                            Deadline(time_limit))
    eps, rdp = tree_epsilons(values[worst], z, d)
    planned_eps, _ = tree_epsilons(planned, z, d)
    return RealizedAccounting(rounds=total, restarts=segments, clients=len(checked),
                              realized_max_participations=max(len(r) for r in checked.values()),
                              realized_min_separation=min(gaps) if gaps else None,
                              sensitivity_squared=values[worst], worst_client=worst, worst_rounds=checked[worst],
                              planned_sensitivity_squared=planned, noise_multiplier=z,
                              rho=Fraction(values[worst]) / (2 * z * z), epsilon=eps, epsilon_rdp=rdp,
                              planned_epsilon=planned_eps, delta=d)
