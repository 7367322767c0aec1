"""What a run of the planned deployment observed: wrap (carry) rates, exact recovery, error, masks.

The results of :func:`itsa.planning.simulate.simulate`; every number here is
empirical (counted, or a float statistic) and says so, beside the certified
bound or the prediction it is compared with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from itsa._util.certified import fraction_text, safe_decimal
from itsa._util.display import Displayable

if TYPE_CHECKING:
    from itsa.planning.simulate import SimulationSetup

__all__ = ["LayerRate", "Simulation", "TOLERANCE"]


#: Standard errors an empirical rate may lie above its certified bound and still be called consistent.
TOLERANCE = 4


@dataclass(frozen=True)
class LayerRate:
    """Wraps (carries) counted on one summed symbol (``layer``: the stage's index, finest first; 1 flat):
    ``wraps`` of ``trials`` coordinates, ``rounds_hit`` of the rounds."""

    layer: int
    modulus: int
    wraps: int
    trials: int
    rounds_hit: int
    rounds: int
    certified: Fraction | None = None

    @property
    def rate(self) -> Fraction:
        return Fraction(self.wraps, self.trials)

    @property
    def standard_error(self) -> Fraction:
        """``√(p̂(1−p̂)/n)`` as the rational of its float (binomial; coordinates counted as independent)."""
        p = self.rate
        return Fraction(math.sqrt(float(p * (1 - p)) / self.trials))

    @property
    def consistent(self) -> bool | None:
        """The empirical rate is at most the certified bound plus :data:`TOLERANCE` standard errors (``None``
        without one)."""
        if self.certified is None:
            return None
        return self.rate <= self.certified + TOLERANCE * self.standard_error

    def text(self) -> str:
        out = (f"{self.wraps}/{self.trials} = {safe_decimal(self.rate, 4)} +- "
               f"{safe_decimal(self.standard_error, 2)} (empirical); {self.rounds_hit}/{self.rounds} rounds")
        if self.certified is not None:
            out += f"; certified <= {safe_decimal(self.certified, 4)} ({'consistent' if self.consistent else 'EXCEEDED'})"
        return out

    def to_dict(self) -> dict:
        return {"stage": self.layer, "modulus": self.modulus, "wraps": self.wraps, "trials": self.trials,
                "rate": fraction_text(self.rate), "rate_decimal": safe_decimal(self.rate, 6),
                "standard_error": safe_decimal(self.standard_error, 4), "rounds_hit": self.rounds_hit,
                "rounds": self.rounds, "certified": None if self.certified is None else fraction_text(self.certified),
                "certified_decimal": None if self.certified is None else safe_decimal(self.certified, 6, up=True),
                "consistent": self.consistent}


@dataclass(frozen=True, kw_only=True, repr=False)
class Simulation(Displayable):
    """What a run of the deployment showed: wrap rates, exact recovery, error, and what the servers saw."""

    setup: SimulationSetup
    rounds: int
    seed: int
    updates: str
    layers: tuple[LayerRate, ...]
    resolutions: tuple[tuple[int, int, int], ...]     # (l0, coordinates decoded wrong, coordinates a carry touched)
    exact_recovery: bool
    mse: Fraction
    mse_standard_error: Fraction
    predicted_mse: Fraction
    planned_mse: Fraction
    masks_cancel: bool
    uniformity: tuple[float, int, float] | None        # (chi-square statistic, degrees of freedom, p-value)
    seconds: float = field(compare=False)

    def headline(self) -> str:
        worst = max(self.layers, key=lambda r: r.rate)
        return (f"{self.rounds} rounds: wrap {safe_decimal(worst.rate, 3)} per coordinate (empirical), exact recovery "
                f"{'held' if self.exact_recovery else 'FAILED'}, masks {'cancel' if self.masks_cancel else 'FAIL'}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("setup", self.setup.describe()), ("rounds, seed, updates", f"{self.rounds}, {self.seed}, {self.updates}")]
        blocks = self.setup.blocks()
        for r, (_, ls) in zip(self.layers, blocks):
            where = ",".join(map(str, reversed(ls)))
            rows.append(("wrap" if len(self.layers) == 1 else f"carry, stage of layers {where}", r.text()))
        for l0, wrong, touched in self.resolutions:
            rows.append((f"decode from layer {l0} up", f"{wrong} coordinates wrong, {touched} touched by a carry"))
        rows += [("exact recovery where no carry", "held" if self.exact_recovery else "FAILED"),
                 ("error of the released mean (MSE)", f"{safe_decimal(self.mse, 4)} +- "
                  f"{safe_decimal(self.mse_standard_error, 2)} (empirical)"),
                 ("predicted MSE", f"{safe_decimal(self.predicted_mse, 4)} (for these updates and this rounding, "
                  "with the discrete Gaussian's exact variance)"),
                 ("planned MSE", f"{safe_decimal(self.planned_mse, 4)} (the plan's upper bound, per coordinate)"),
                 ("masks", "cancel: the servers decoded the survivors' sum and nothing else" if self.masks_cancel
                  else "DO NOT CANCEL")]
        if self.uniformity is not None:
            stat, dof, p = self.uniformity
            rows.append(("a masked upload", f"chi-square {stat:.1f} on {dof} degrees of freedom, p = {p:.3g} "
                         "(uniform if p is not tiny; a float test)"))
        return rows + [("time", f"{self.seconds:.1f} s")]

    def to_dict(self) -> dict:
        return {"setup": self.setup.to_dict(),
                "rounds": self.rounds, "seed": self.seed, "updates": self.updates,
                "wrap": [r.to_dict() | {"layers": list(reversed(ls))}
                         for r, (_, ls) in zip(self.layers, self.setup.blocks())],
                "resolutions": [{"from_layer": a, "wrong": b, "touched_by_carry": c} for a, b, c in self.resolutions],
                "exact_recovery": self.exact_recovery,
                "error": {"mse": safe_decimal(self.mse, 6), "standard_error": safe_decimal(self.mse_standard_error, 4),
                          "predicted": safe_decimal(self.predicted_mse, 6), "planned": safe_decimal(self.planned_mse, 6),
                          "kind": "empirical (float)"},
                "masks_cancel": self.masks_cancel,
                "uniformity": None if self.uniformity is None else
                {"chi_square": f"{self.uniformity[0]:.4g}", "degrees_of_freedom": self.uniformity[1],
                 "p_value": f"{self.uniformity[2]:.3g}", "kind": "chi-square test of one masked upload (float)"},
                "seconds": round(self.seconds, 3)}
