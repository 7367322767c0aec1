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

from itsa._util.certified import exact_text
from itsa.exceptions import InvalidInput, ItsaError
from itsa.frameworks._flower_rules import MASK_SEED_BITS, MIN_THRESHOLD, ShareLayout
from itsa.keys.secagg import secagg_bounds, secagg_parameters
from itsa.keys.secagg.parameters import LARGEST_CLIENTS

__all__ = ["SecaggRow", "secagg_row", "SEED_NOTE"]

#: What the certified security does not cover: Flower's masks come from a 32-bit seed.
SEED_NOTE = (f"Flower expands every mask from a {MASK_SEED_BITS}-bit seed (pseudo_rand_gen folds the agreed key by "
             f"XOR to {MASK_SEED_BITS} bits for np.random.RandomState): a party that tries all 2^{MASK_SEED_BITS} "
             f"seeds can strip a pairwise mask, so computational security is at most {MASK_SEED_BITS} bits, which "
             "the SecAgg+ bounds do not count")


@dataclass(frozen=True, kw_only=True)
class SecaggRow:
    """The SecAgg+ bounds of one Flower layout, or why they are not given.

    Parameters
    ----------
    text : str
        One line for the report, with the rates it assumes.
    assumed : str
        The corruption, dropout and adversary the bounds assume, in words.
    vacuous : tuple of str
        The bounds (``security``, ``correctness``) whose union bound exceeds 1: they bound nothing.
    bounds : dict or None
        The bounds' plain data (``None`` when not computed).
    problems : tuple of str
        Targets the bounds miss.
    fix : dict or None
        Flower keyword arguments that meet the targets, when the bounds miss them.
    """

    text: str
    assumed: str = ""
    bounds: dict[str, Any] | None = None
    vacuous: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    fix: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"computed": self.bounds is not None, "text": self.text, "assumed": self.assumed,
                "mask_seed_bits": MASK_SEED_BITS, "bounds": self.bounds, "vacuous": list(self.vacuous),
                "problems": list(self.problems), "fix": self.fix}


def _flower_keywords(degree: int, threshold: int, clients: int) -> dict[str, Any]:
    """Flower's ``num_shares`` and ``reconstruction_threshold`` for a degree and threshold of the paper's convention."""
    return {"num_shares": 1.0 if degree >= clients - 1 else degree + 1, "reconstruction_threshold": threshold}


def _assumed(corrupt: Fraction, dropout: Fraction, adversary: str) -> str:
    return (f"assuming corrupt {exact_text(corrupt)}, dropout {exact_text(dropout)}, a {adversary} server "
            "(--corrupt, --dropout, --adversary)")


def _bound(name: str, value) -> str:
    """``name <= x`` for a certified upper bound, or ``vacuous`` when the union bound exceeds 1."""
    if value.high > 1:
        return f"{name} vacuous (the union bound {value.decimal()} exceeds 1: it bounds nothing)"
    return f"{name} <= {value.decimal()} (certified bound)"


def secagg_row(layout: ShareLayout, *, corrupt: Fraction, dropout: Fraction, adversary: str) -> SecaggRow:
    """The SecAgg+ security and correctness failure bounds at Flower's ``(k, t)`` for this cohort.

    The row's text names the rates it assumes, prints a union bound above 1 as
    vacuous, and says what the bounds leave out (Flower's 32-bit mask seeds).
    """
    k, t = layout.degree, layout.threshold
    assumed = _assumed(corrupt, dropout, adversary)
    if t < MIN_THRESHOLD:
        return SecaggRow(text=f"not computed: threshold {t} < {MIN_THRESHOLD} keeps no secret (every share is it)")
    if t > k:
        text = (f"k = {k}, t = {t}: a dropped client's mask key needs {t} shares from its {k} neighbours and can "
                f"never be rebuilt: any dropout halts the round ({assumed})")
        return SecaggRow(text=text, assumed=assumed, problems=(text,) if dropout > 0 else ())
    if layout.clients > LARGEST_CLIENTS:
        return SecaggRow(text=f"not computed: the SecAgg+ bounds stop at {LARGEST_CLIENTS:,} clients")
    result = secagg_bounds(layout.clients, k, t, corrupt, dropout, adversary)     # bad rates: InvalidOption
    verdict = "meets" if result.meets_targets else "misses"
    text = (f"k = {k}, t = {t}: {_bound('security', result.security)}, {_bound('correctness', result.correctness)} "
            f"({verdict} 2^-40 / 2^-20), {assumed}; the protocol's bounds: Flower's {MASK_SEED_BITS}-bit mask seeds "
            "are not counted (see mask seeds)")
    problems: tuple[str, ...] = ()
    fix = None
    if not result.meets_targets:
        problems = (f"SecAgg+ at k = {k}, t = {t} misses its targets: {_bound('security', result.security)}, "
                    f"{_bound('correctness', result.correctness)}, {assumed}",)
        try:
            choice = secagg_parameters(layout.clients, corrupt, dropout, adversary)
            fix = _flower_keywords(choice.degree, choice.threshold, layout.clients)
        except InvalidInput:    # outside the finder's domain (corrupt + dropout > 9/10): no fix to offer
            fix = None
        except ItsaError:       # no degree meets the targets
            fix = None
    vacuous = tuple(name for name, value in (("security", result.security), ("correctness", result.correctness))
                    if value.high > 1)
    return SecaggRow(text=text, assumed=assumed, bounds=result.to_dict(), vacuous=vacuous, problems=problems, fix=fix)
