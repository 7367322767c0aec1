"""The SecAgg+ failure bounds of the neighbourhoods Flower builds, in the SecAgg+ paper's convention.

Flower's neighbourhood of ``s`` clients holds the client itself: its graph
degree is ``k = s − 1`` (a random Harary graph: the ring of ``k/2`` clients
on each side, shuffled). A dropped client's mask key is rebuilt from ``t``
shares of its ``k`` neighbours, as in the SecAgg+ paper (Bell, Bonawitz,
Gascón, Lepoint, Raykova 2020); a live client's self-mask from ``t`` shares
of which one may be its own, so Flower's correctness is at least the paper's
at ``(k, t)``, and its security is the paper's at ``(k, t)`` (an honest
client's own share never leaves it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from itsa.exceptions import InvalidInput, ItsaError
from itsa.frameworks._flower_rules import ShareLayout
from itsa.keys.secagg import secagg_bounds, secagg_parameters
from itsa.keys.secagg.parameters import LARGEST_CLIENTS

__all__ = ["SecaggRow", "secagg_row"]


@dataclass(frozen=True, kw_only=True)
class SecaggRow:
    """The SecAgg+ bounds of one Flower layout, or why they are not given.

    Parameters
    ----------
    text : str
        One line for the report.
    bounds : dict or None
        The bounds' plain data (``None`` when not computed).
    problems : tuple of str
        Targets the bounds miss.
    fix : dict or None
        Flower keyword arguments that meet the targets, when the bounds miss them.
    """

    text: str
    bounds: dict[str, Any] | None = None
    problems: tuple[str, ...] = ()
    fix: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"computed": self.bounds is not None, "text": self.text, "bounds": self.bounds,
                "problems": list(self.problems), "fix": self.fix}


def _flower_keywords(degree: int, threshold: int, clients: int) -> dict[str, Any]:
    """Flower's ``num_shares`` and ``reconstruction_threshold`` for a degree and threshold of the paper's convention."""
    return {"num_shares": 1.0 if degree >= clients - 1 else degree + 1, "reconstruction_threshold": threshold}


def secagg_row(layout: ShareLayout, *, corrupt: Fraction, dropout: Fraction, adversary: str) -> SecaggRow:
    """The SecAgg+ security and correctness failure bounds at Flower's ``(k, t)`` for this cohort."""
    k, t = layout.degree, layout.threshold
    if t > k:
        text = (f"k = {k}, t = {t}: a dropped client's mask key needs {t} shares from its {k} neighbours and can "
                "never be rebuilt: any dropout halts the round")
        return SecaggRow(text=text, problems=(text,) if dropout > 0 else ())
    if t < 1:       # pragma: no cover - Flower's threshold is at least 2
        return SecaggRow(text=f"not computed: threshold {t}")
    if layout.clients > LARGEST_CLIENTS:
        return SecaggRow(text=f"not computed: the SecAgg+ bounds stop at {LARGEST_CLIENTS:,} clients")
    result = secagg_bounds(layout.clients, k, t, corrupt, dropout, adversary)     # bad rates: InvalidOption
    problems: tuple[str, ...] = ()
    fix = None
    if not result.meets_targets:
        problems = (f"SecAgg+ at k = {k}, t = {t} misses its targets: {result.headline()}",)
        try:
            choice = secagg_parameters(layout.clients, corrupt, dropout, adversary)
            fix = _flower_keywords(choice.degree, choice.threshold, layout.clients)
        except InvalidInput:    # outside the finder's domain (corrupt + dropout > 9/10): no fix to offer
            fix = None
        except ItsaError:       # no degree meets the targets
            fix = None
    return SecaggRow(text=result.headline(), bounds=result.to_dict(), problems=problems, fix=fix)
