"""The admission gate of the integer-DP release: a trust budget of B points, one lost per flagged round.

Each client starts with ``B`` points and loses one in each round its threat
score is flagged; a client at 0 points is skipped from then on (the budget
never refills). An honest client flagged independently with probability
``p`` in each of ``T`` rounds is shut out within the rounds exactly when it is
flagged at least ``B`` times: ``P = P[Binomial(T, p) ≥ B]``, an exact
Fraction (past :data:`MAX_EXACT_BITS`, the regularized incomplete beta function
``I_p(B, T − B + 1)``, its closed form, certified in ball arithmetic). An
offender flagged every round spends its last point in round ``B`` and is
excluded from round ``B + 1`` on.

Examples
--------
>>> from fractions import Fraction
>>> shut_out_probability(budget=2, rounds=3, flag_rate=Fraction(1, 2)).value()
Fraction(1, 2)
>>> shut_out_probability(budget=4, rounds=3, flag_rate=Fraction(1, 2)).value()
Fraction(0, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.display import Displayable
from itsa._util.plain import frac

__all__ = ["GatePlan", "shut_out_probability", "size_gate", "MAX_EXACT_BITS"]

#: Largest estimated size (bits) of the exact binomial sum; beyond, it is certified in ball arithmetic (the
#: exact sum's cost grows with the budget times the square of this size: at 2^20 bits it took minutes).
MAX_EXACT_BITS = 2**14


def shut_out_probability(*, budget: int, rounds: int, flag_rate: Fraction) -> Certified:
    """``P[Binomial(rounds, flag_rate) ≥ budget]``: exact, or a certified enclosure when too large."""
    if budget > rounds or flag_rate == 0:
        return Certified.exact("shut_out_probability", 0, "fewer flags possible than the budget")
    if flag_rate == 1:
        return Certified.exact("shut_out_probability", 1, "flagged every round")
    size = rounds * (flag_rate.numerator.bit_length() + flag_rate.denominator.bit_length())
    if size <= MAX_EXACT_BITS:
        q = 1 - flag_rate
        below = sum(math.comb(rounds, k) * flag_rate**k * q ** (rounds - k) for k in range(budget))
        return Certified.exact("shut_out_probability", 1 - below, "1 - sum_(k<B) C(T,k) p^k (1-p)^(T-k), exact")
    ball = _beta_tail(budget, rounds, flag_rate)
    if ball is None:
        return Certified("shut_out_probability", Fraction(0), Fraction(1), Direction.ENCLOSURE,
                         "P[Binomial(T, p) >= B] in [0, 1]: the incomplete beta function did not converge")
    c = Certified.from_arb("shut_out_probability", ball, Direction.ENCLOSURE,
                           "I_p(B, T - B + 1), the regularized incomplete beta function (= P[Binomial(T, p) >= B]), "
                           "ball arithmetic")
    return Certified(c.name, max(c.low, Fraction(0)), min(c.high, Fraction(1)), c.direction, c.method)


def _beta_tail(budget: int, rounds: int, flag_rate: Fraction):
    """``P[Binomial(T, p) ≥ B] = I_p(B, T − B + 1)`` as a finite ball (``1 − I_(1−p)(T − B + 1, B)`` for
    ``p > 1/2``), at rising precision; ``None`` when no precision tried gives a finite one."""
    for bits in (256, 1024, 4096):
        with precision(bits):
            if flag_rate <= Fraction(1, 2):
                ball = to_arb(flag_rate).beta_lower(budget, rounds - budget + 1, regularized=True)
            else:
                ball = 1 - to_arb(1 - flag_rate).beta_lower(rounds - budget + 1, budget, regularized=True)
        if ball.is_finite():
            return ball
    return None


@dataclass(frozen=True, kw_only=True, repr=False)
class GatePlan(Displayable):
    """The gate's exact risks over the rounds, and what exclusion does to the survivors and the sensitivity."""

    budget: int
    flag_rate: Fraction
    rounds: int
    clients: int
    survivors: int
    shut_out: Certified

    @property
    def earliest_exclusion(self) -> int | None:
        """The first round an offender flagged every round is skipped in (``None``: not within the rounds)."""
        return self.budget + 1 if self.budget + 1 <= self.rounds else None

    @property
    def expected_honest_excluded(self) -> Fraction:
        """``K P``: the expected number of honest clients shut out by the last round (at the safe end of P)."""
        return self.clients * self.shut_out.upper()

    @property
    def allowance(self) -> int:
        """Clients the plan's survivors' count lets go per round (dropped or excluded): ``K − K_eff``."""
        return self.clients - self.survivors

    @property
    def breaks_allowance(self) -> bool:
        """Whether the honest clients expected to be shut out (at the interval's low end) exceed the allowance.

        Then the survivors' count the ε holds for is expected to fail before
        the last round: the verdict is infeasible.
        """
        return self.clients * self.shut_out.lower() > self.allowance

    def smallest_budget(self) -> int:
        """The smallest budget whose expected honest shut-outs (at the safe end) fit the allowance.

        ``rounds + 1`` always does (no honest client can lose more points
        than there are rounds); the search is a bisection, as the shut-out
        probability falls as the budget grows.
        """
        low, high = self.budget, self.rounds + 1
        while low < high:
            mid = (low + high) // 2
            p = shut_out_probability(budget=mid, rounds=self.rounds, flag_rate=self.flag_rate)
            if self.clients * p.upper() <= self.allowance:
                high = mid
            else:
                low = mid + 1
        return low

    def headline(self) -> str:
        return (f"budget {self.budget}: an honest client flagged at rate {frac(self.flag_rate)} is shut out within "
                f"{self.rounds} rounds with probability {self.shut_out.decimal(6)}")

    def rows(self) -> list[tuple[str, str]]:
        first = self.earliest_exclusion
        return [("trust budget", f"{self.budget} points, one lost per flagged round, never refilled"),
                ("honest shut-out probability", f"{self.shut_out.decimal(6)} ({self.shut_out.direction}) within "
                                                f"{self.rounds} rounds at flag rate {frac(self.flag_rate)}"),
                ("earliest exclusion", f"round {first} (an offender flagged every round)" if first
                 else f"none within {self.rounds} rounds (the budget outlasts them)"),
                ("expected honest clients shut out", f"{safe_decimal(self.expected_honest_excluded, 6)} of "
                                                     f"{self.clients} (upper bound)"),
                ("effect on the accounting", f"excluded clients count against the dropout allowance of "
                                             f"{self.allowance} per round: privacy holds while at least "
                                             f"{self.survivors} are admitted and survive; each client's "
                                             "sensitivity is unchanged (an unweighted sum); with Hamilton weights "
                                             "w_max = ceil(alpha/M)/alpha grows as the admitted M shrinks")]

    def to_dict(self) -> dict:
        return {"budget": self.budget, "flag_rate": frac(self.flag_rate), "rounds": self.rounds,
                "shut_out_probability": self.shut_out.to_dict(), "earliest_exclusion_round": self.earliest_exclusion,
                "expected_honest_excluded": frac(self.expected_honest_excluded), "allowance_per_round": self.allowance}


def size_gate(deployment) -> GatePlan | None:
    """The gate section of a deployment with a ``gate`` (``None`` without one)."""
    gate = deployment.gate
    if gate is None:
        return None
    rounds = deployment.privacy.rounds
    return GatePlan(budget=gate.budget, flag_rate=gate.flag_rate, rounds=rounds, clients=deployment.clients,
                    survivors=deployment.survivors,
                    shut_out=shut_out_probability(budget=gate.budget, rounds=rounds, flag_rate=gate.flag_rate))
