"""A DP-FTRL plan's own sections: the correlated noise and its ε, the prefix sums' error beside the tree's, and
dp-accounting's Gaussian event.

Each is a frozen result that carries its evidence and prints as the plan's
other sections do (:class:`~itsa._util.display.Displayable`); the numbers come
from :func:`itsa.planning.matrix.size.size_matrix`.

Examples
--------
>>> e = MatrixErrorPlan(dimension=10, noise=Fraction(4), rounding_bound=Fraction(1, 8),
...                     equal_privacy=Certified.exact("e", Fraction(3), ""), tree_equal_privacy=Fraction(6),
...                     mechanism="banded")
>>> e.total, e.ratio.upper(), e.headline()
(Fraction(40, 1), Fraction(1, 2), "prefix sums' noise MSE <= 40 (sum over d coordinates); banded/tree at equal privacy 0.5")
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from itsa._util.certified import Certified, Direction, exact_text, safe_decimal
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.privacy.conversion import EpsilonBound

__all__ = ["MatrixNoisePlan", "MatrixErrorPlan", "MatrixFrameworks", "MatrixAccounting", "CONVENTION"]

#: What ``z`` is, in words (every section says it).
CONVENTION = ("the server adds N(0, (z Delta_1)^2) to every coordinate of the release C x (for the tree: every "
              "node), Delta_1 the l2 bound of one client's rounded update in the data's units, after SecAgg has "
              "unmasked the round's noiseless sum")


def _shown(number: Certified, digits: int) -> str:
    """An exact number to ``digits`` digits (rounded up), else its bound (``decimal``)."""
    return safe_decimal(number.upper(), digits) if number.direction is Direction.EXACT else number.decimal(digits)


@dataclass(frozen=True)
class MatrixAccounting:
    """The method of the plan's ε, as an export reads it (``noise.accounting.upper_method``)."""

    upper_method: str


@dataclass(frozen=True, kw_only=True, repr=False)
class MatrixNoisePlan(Displayable):
    """The correlated noise of a matrix mechanism under its participation schedule, and its certified ε.

    Parameters
    ----------
    mechanism : str
        ``tree``, ``banded`` or ``blt``.
    rounds, max_participations, min_separation : int
        ``T``, ``E``, ``ξ``.
    sensitivity_squared : Certified
        ``Δ²`` of the worst participation pattern, in units of ``Δ_1²``: exact (the tree's integer; a banded or
        BLT's closed form where its conditions were checked), or a certified upper bound.
    pattern : tuple of int
        A pattern attaining it (the earliest pattern when ``Δ²`` is only bounded).
    noise_multiplier : Certified
        ``z``: exact when given; calibrated, an enclosure whose upper end (shown, used) meets the target.
    rho : Fraction
        ``Δ²/(2 z²)`` at ``Δ²``'s upper end: zCDP, exact for an exact ``Δ²``.
    epsilon : Certified
        Tight: the exact Gaussian curve at ``μ = √Δ²/z``, certified upper bound (its interval brackets the exact ε).
    epsilon_rdp : EpsilonBound
        TF Privacy's Rényi route (CKS at its orders), a certified upper bound.
    clip_rounded : Certified
        ``Δ_1``, one client's rounded update's ℓ2 bound in the data's units (the clip and the rounding).
    sigma_client : Fraction
        The server's deviation on each released coordinate in the sum's integer units, ``z Δ_1 γ`` rounded up.
    """

    mechanism: str
    rounds: int
    max_participations: int
    min_separation: int
    sensitivity_squared: Certified
    pattern: tuple[int, ...]
    noise_multiplier: Certified
    rho: Fraction
    epsilon: Certified
    epsilon_rdp: EpsilonBound
    delta: Fraction
    target_epsilon: Fraction | None
    clip_rounded: Certified
    sigma_client: Fraction
    chosen: str

    @property
    def meets_target(self) -> bool:
        return self.target_epsilon is None or self.epsilon.upper() <= self.target_epsilon

    @property
    def accounting(self) -> MatrixAccounting:
        return MatrixAccounting(upper_method=str(self.epsilon.method))

    def headline(self) -> str:
        return (f"{self.mechanism}, z = {self.noise_multiplier.decimal(6)}: eps <= {self.epsilon.decimal()} at delta "
                f"{safe_decimal(self.delta, 4)} over {self.rounds} rounds (worst pattern of {self.max_participations} "
                f"participations, {self.min_separation} apart)")

    def rows(self) -> list[tuple[str, str]]:
        s = self.sensitivity_squared
        shown = exact_text(s.upper()) if s.direction is Direction.EXACT and s.upper().denominator == 1 else _shown(s, 12)
        rows = [("noise", f"central Gaussian, correlated across rounds by the {self.mechanism} mechanism: {CONVENTION}"),
                ("schedule", f"T = {self.rounds} rounds, at most {self.max_participations} per client, at least "
                             f"{self.min_separation} rounds strictly between two of them"),
                ("sensitivity squared", f"{shown} ({s.direction}; the worst participation pattern, in units of "
                                        f"Delta_1^2; {s.method})"),
                ("worst pattern", ", ".join(map(str, self.pattern)) + " (rounds from 0)"),
                ("noise multiplier z", f"{self.noise_multiplier.decimal(8)} ({self.noise_multiplier.direction}; "
                                       f"{self.chosen})"),
                ("Delta_1", f"{self.clip_rounded.decimal(8)} in the data's units ({self.clip_rounded.direction}; "
                            "the clip with rounding to nearest's inflation)"),
                ("sigma", f"{safe_decimal(self.sigma_client, 8)} integer units = z Delta_1 gamma on every released "
                          "coordinate (rounded up, as used)"),
                ("rho (zCDP)", f"{safe_decimal(self.rho, 8)} = Delta^2/(2 z^2) (exact at Delta^2's upper end)"),
                ("epsilon", f"{self.epsilon.decimal(6)} at delta {exact_text(self.delta)} (certified upper bound, "
                            f"interval [{safe_decimal(self.epsilon.lower(), 8, up=False)}, "
                            f"{safe_decimal(self.epsilon.upper(), 8)}]; {self.epsilon.method})"),
                ("epsilon_rdp", f"{self.epsilon_rdp.epsilon.decimal(6)} (certified upper bound; RDP, CKS at TF "
                                f"Privacy's orders, order {safe_decimal(self.epsilon_rdp.order, 4)})")]
        if self.target_epsilon is not None:
            rows.append(("target epsilon", exact_text(self.target_epsilon)))
        return rows

    def to_dict(self) -> dict:
        return {"kind": "central", "mechanism": self.mechanism, "correlated": True, "rounds": self.rounds,
                "max_participations": self.max_participations, "min_separation": self.min_separation,
                "sensitivity_squared": self.sensitivity_squared.to_dict(), "pattern": list(self.pattern),
                "noise_multiplier": self.noise_multiplier.to_dict(), "rho": frac(self.rho),
                "rho_decimal": safe_decimal(self.rho, 6), "epsilon": self.epsilon.to_dict(),
                "epsilon_rdp": self.epsilon_rdp.to_dict(), "delta": frac(self.delta),
                "target_epsilon": frac(self.target_epsilon), "meets_target": self.meets_target,
                "clip_rounded": self.clip_rounded.to_dict(), "sigma_client": frac(self.sigma_client),
                "chosen": self.chosen, "convention": CONVENTION}


@dataclass(frozen=True, kw_only=True, repr=False)
class MatrixErrorPlan(Displayable):
    """The error of the released prefix sums: the noise's at the plan's ``z``, and the factorization's beside
    tree aggregation's at equal privacy.

    Parameters
    ----------
    dimension : int
        ``d``.
    noise : Fraction
        Mean over the ``T`` prefix sums of the noise's variance per coordinate, in the data's units:
        ``z² Δ_1² ‖A C⁻¹‖_F² / T`` (the tree: ``z² Δ_1² Σ_t popcount(t+1)/T``), an upper bound.
    rounding_bound : Fraction
        ``K/(2γ)``: the most rounding to nearest moves a coordinate of a round's sum (exact).
    equal_privacy : Certified
        The mechanism's ``Δ² ‖A C⁻¹‖_F² / T`` per ``z²`` at ``μ = 1/z`` (its noise scaled by its own sensitivity).
    tree_equal_privacy : Fraction
        Tree aggregation's on the same schedule, ``s Σ_t popcount(t+1)/T``, exact.
    """

    dimension: int
    noise: Fraction
    rounding_bound: Fraction
    equal_privacy: Certified
    tree_equal_privacy: Fraction
    mechanism: str

    @property
    def per_coordinate(self) -> Fraction:
        return self.noise

    @property
    def total(self) -> Fraction:
        return self.dimension * self.noise

    @property
    def ratio(self) -> Certified:
        """The factorization's error over the tree's at equal privacy."""
        t = self.tree_equal_privacy
        return Certified("ratio", self.equal_privacy.lower() / t, self.equal_privacy.upper() / t,
                         self.equal_privacy.direction, "the mechanism's error per z^2 over the tree's")

    def headline(self) -> str:
        return (f"prefix sums' noise MSE <= {safe_decimal(self.total, 6)} (sum over d coordinates); "
                f"{self.mechanism}/tree at equal privacy {_shown(self.ratio, 4)}")

    def rows(self) -> list[tuple[str, str]]:
        return [("prefix sums' noise", f"{safe_decimal(self.noise, 6)} per coordinate, {safe_decimal(self.total, 6)} "
                                       f"summed over {self.dimension} coordinates (mean over the T prefix sums; exact "
                                       "upper bound; the plain estimator)"),
                ("rounding", f"each coordinate of a round's sum off by at most K/(2 gamma) = "
                             f"{safe_decimal(self.rounding_bound, 6)} (exact, rounding to nearest)"),
                ("error per z^2 at equal privacy", f"{self.mechanism}: {_shown(self.equal_privacy, 8)} "
                                                   f"({self.equal_privacy.direction}); tree aggregation: "
                                                   f"{safe_decimal(self.tree_equal_privacy, 8)} (exact); Delta^2 "
                                                   "||A C^-1||_F^2 / T on the same schedule"),
                ("factorization / tree", f"{_shown(self.ratio, 6)} ({self.ratio.direction}): what the factorization "
                                         "adds (above 1) or saves (below 1) beside tree aggregation")]

    def to_dict(self) -> dict:
        total = Certified("mse_total", self.total, self.total, Direction.UPPER,
                          "d x the prefix sums' noise per coordinate (mean over the T prefix sums)")
        return {"kind": "prefix sums", "mse_per_coordinate": frac(self.noise), "mse_total": total.to_dict(),
                "noise_per_coordinate": frac(self.noise), "rounding_per_round_sum": frac(self.rounding_bound),
                "equal_privacy_per_z2": self.equal_privacy.to_dict(),
                "tree_equal_privacy_per_z2": frac(self.tree_equal_privacy), "ratio_to_tree": self.ratio.to_dict()}


@dataclass(frozen=True, kw_only=True, repr=False)
class MatrixFrameworks(Displayable):
    """The plan in the frameworks' terms: the worst pattern as dp-accounting's one Gaussian event (``pair``, an
    export's :func:`~itsa.frameworks.dp_accounting.events_from_pair` reads it)."""

    pair: Any

    def headline(self) -> str:
        return self.pair.describe()

    def rows(self) -> list[tuple[str, str]]:
        return [("dp-accounting", f"GaussianDpEvent(noise_multiplier = z/sqrt(Delta^2) = "
                                  f"{safe_decimal(self.pair.noise_multiplier, 8, up=False)}) once: the worst "
                                  "participation pattern is exactly this Gaussian mechanism")]

    def to_dict(self) -> dict:
        return {"dp_accounting": {"event": "GaussianDpEvent(noise_multiplier)", **self.pair.to_dict()}}
