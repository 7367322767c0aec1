"""The admission gate of the integer-DP release: a trust budget of B points, one lost per flagged round.

Each client starts with ``B`` points and loses one in each round its threat
score is flagged; a client at 0 points is skipped from then on (the budget
never refills). An honest client flagged independently with probability
``p`` in each of ``T`` rounds is shut out within the rounds exactly when it is
flagged at least ``B`` times: ``P = P[Bin(T, p) ≥ B]``, an exact
Fraction (past :data:`MAX_EXACT_BITS`, the regularized incomplete beta function
``I_p(B, T − B + 1)``, its closed form, certified in ball arithmetic). An
offender flagged every round spends its last point in round ``B`` and is
excluded from round ``B + 1`` on.

The verdict is a certified bound, not an expectation: the ``K`` clients
flagged independently, the number ``X`` of honest clients shut out by the
last round is ``Bin(K, P)``, and the survivors' count the ε holds for
fails, even before any ordinary dropout, when ``X`` exceeds the dropout
allowance ``A = K − K_eff`` (excluded and dropped clients share it).
:func:`exceed_probability` bounds ``P[X > A] = I_P(A + 1, K − A)`` from above
(at the safe end of ``P``, in ball arithmetic); the gate breaks the plan when
that bound is above the target (the plan's overflow target), and its fix is
the smallest budget that meets the target. The room the gate leaves for
ordinary dropouts is ``A − x``, ``x`` the smallest count with
``P[X > x]`` within the target.

Examples
--------
>>> from fractions import Fraction
>>> shut_out_probability(budget=2, rounds=3, flag_rate=Fraction(1, 2)).value()
Fraction(1, 2)
>>> shut_out_probability(budget=4, rounds=3, flag_rate=Fraction(1, 2)).value()
Fraction(0, 1)
>>> p = shut_out_probability(budget=10, rounds=100, flag_rate=Fraction(2, 25))
>>> round(float(p.value()), 3), float(1000 * p.value()) < 300         # K P below the allowance of 300 ...
(0.278, True)
>>> exceed_probability(clients=1000, allowance=300, shut_out=p).decimal(2)   # ... yet exceeded this often
'0.058'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.plain import frac

__all__ = ["GatePlan", "shut_out_probability", "exceed_probability", "size_gate", "MAX_EXACT_BITS"]

#: Largest estimated size (bits) of the exact sum of Bin(T, p)'s terms; beyond, it is certified in ball arithmetic (the
#: exact sum's cost grows with the budget times the square of this size: at 2^20 bits it took minutes).
MAX_EXACT_BITS = 2**14


def shut_out_probability(*, budget: int, rounds: int, flag_rate: Fraction) -> Certified:
    """``P[Bin(rounds, flag_rate) ≥ budget]``: exact, or a certified enclosure when too large."""
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
                         "P[Bin(T, p) >= B] in [0, 1]: the incomplete beta function did not converge")
    c = Certified.from_arb("shut_out_probability", ball, Direction.ENCLOSURE,
                           "I_p(B, T - B + 1), the regularized incomplete beta function (= P[Bin(T, p) >= B]), "
                           "ball arithmetic")
    return Certified(c.name, max(c.low, Fraction(0)), min(c.high, Fraction(1)), c.direction, c.method)


def _beta_tail(budget: int, rounds: int, flag_rate: Fraction):
    """``P[Bin(T, p) ≥ B] = I_p(B, T − B + 1)`` as a finite ball (``1 − I_(1−p)(T − B + 1, B)`` for
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


#: Significant digits of the shut-out probability's safe end handed to the tail of Bin(K, P) (rounded up).
TAIL_DIGITS = 30

EXCEED_METHOD = ("P[Bin(K, P) > A] = I_P(A + 1, K - A), at the upper end of P rounded up, ball arithmetic "
                 "(honest clients flagged independently)")


def exceed_probability(*, clients: int, allowance: int, shut_out: Certified) -> Certified:
    """An upper bound on ``P[X > allowance]``, ``X ~ Bin(clients, P)`` the honest clients shut out.

    ``P`` is taken at the safe end of ``shut_out`` (rounded up to
    :data:`TAIL_DIGITS` digits: the tail grows with ``P``).
    """
    if allowance >= clients:
        return Certified.exact("exceed_probability", 0, "the allowance covers every client")
    rate = Fraction(safe_decimal(min(shut_out.upper(), Fraction(1)), TAIL_DIGITS, up=True))
    if rate == 0:
        return Certified.exact("exceed_probability", 0, "no honest client is shut out")
    if rate >= 1:
        return Certified("exceed_probability", Fraction(0), Fraction(1), Direction.UPPER,
                         "trivial: every honest client may be shut out")
    ball = _beta_tail(allowance + 1, clients, rate)
    if ball is None:
        return Certified("exceed_probability", Fraction(0), Fraction(1), Direction.UPPER,
                         "trivial: the incomplete beta function did not converge")
    c = Certified.from_arb("exceed_probability", ball, Direction.UPPER, EXCEED_METHOD)
    return Certified(c.name, max(c.low, Fraction(0)), min(c.high, Fraction(1)), Direction.UPPER, c.method)


@dataclass(frozen=True, kw_only=True, repr=False)
class GatePlan(Displayable):
    """The gate's exact risks over the rounds, and what exclusion does to the survivors and the sensitivity."""

    budget: int
    flag_rate: Fraction
    rounds: int
    clients: int
    survivors: int
    shut_out: Certified
    #: the largest probability of shutting out more than the allowance the plan accepts (its overflow target)
    overflow_target: Fraction = Fraction(1, 10**6)
    #: an upper bound on the probability that the honest clients shut out exceed the allowance
    exceed: Certified | None = None

    def __post_init__(self):
        if self.exceed is None:
            object.__setattr__(self, "exceed", exceed_probability(clients=self.clients, allowance=self.allowance,
                                                                  shut_out=self.shut_out))

    @property
    def exceeds(self) -> Certified:
        """The certified upper bound on ``P[X > A]`` (:func:`exceed_probability`)."""
        assert self.exceed is not None
        return self.exceed

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
        """Whether the certified probability that the gate alone shuts out more than the allowance is above
        the target: then the survivors' count the ε holds for fails too often, and the verdict is infeasible."""
        return self.exceeds.upper() > self.overflow_target

    def room(self) -> int:
        """Clients the gate leaves the ordinary dropouts, with probability at least ``1 −`` target:
        ``A − x`` for the smallest ``x`` with ``P[X > x]`` within the target (negative: none).

        A bisection over ``x`` (the tail falls as ``x`` grows).
        """
        low, high = 0, self.clients
        while low < high:
            mid = (low + high) // 2
            tail = exceed_probability(clients=self.clients, allowance=mid, shut_out=self.shut_out)
            if tail.upper() <= self.overflow_target:
                high = mid
            else:
                low = mid + 1
        return self.allowance - low

    def smallest_budget(self, deadline: Deadline | None = None) -> int:
        """The smallest budget whose certified probability of shutting out more than the allowance meets the target.

        ``rounds + 1`` always does (no honest client can lose more points
        than there are rounds); the search is a bisection, as the shut-out
        probability falls as the budget grows. ``deadline`` is looked at each step.
        """
        low, high = self.budget, self.rounds + 1
        while low < high:
            if deadline is not None:
                deadline.check(f"gate: the smallest budget in {low}..{high}")
            mid = (low + high) // 2
            p = shut_out_probability(budget=mid, rounds=self.rounds, flag_rate=self.flag_rate)
            tail = exceed_probability(clients=self.clients, allowance=self.allowance, shut_out=p)
            if tail.upper() <= self.overflow_target:
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
                ("more shut out than the allowance", f"probability {self.exceeds.decimal(6)} "
                                                     f"({self.exceeds.direction}) that over {self.allowance} honest "
                                                     f"clients are shut out by round {self.rounds}; target "
                                                     f"{safe_decimal(self.overflow_target, 6)}"),
                ("room for dropouts", self._room_text()),
                ("effect on the accounting", f"excluded clients count against the dropout allowance of "
                                             f"{self.allowance} per round: privacy holds while at least "
                                             f"{self.survivors} are admitted and survive; each client's "
                                             "sensitivity is unchanged (an unweighted sum); with Hamilton weights "
                                             "w_max = ceil(alpha/M)/alpha grows as the admitted M shrinks")]

    def _room_text(self) -> str:
        room = self.room()
        if room < 0:
            return (f"none: the gate alone shuts out more than the allowance of {self.allowance} with probability "
                    f"above the target")
        return (f"{room} of the allowance of {self.allowance} per round left for ordinary dropouts, with probability "
                f"at least 1 - {safe_decimal(self.overflow_target, 6)}")

    def to_dict(self) -> dict:
        return {"budget": self.budget, "flag_rate": frac(self.flag_rate), "rounds": self.rounds,
                "shut_out_probability": self.shut_out.to_dict(), "earliest_exclusion_round": self.earliest_exclusion,
                "expected_honest_excluded": frac(self.expected_honest_excluded), "allowance_per_round": self.allowance,
                "exceeds_allowance_probability": self.exceeds.to_dict(),
                "overflow_target": frac(self.overflow_target),
                "room_for_dropouts": self.room()}


def size_gate(*, budget: int, flag_rate: Fraction, rounds: int, clients: int, survivors: int,
              overflow: Fraction) -> GatePlan:
    """The gate section: a trust budget of ``budget`` points at ``flag_rate`` over ``rounds`` rounds, for
    ``clients`` clients of whom ``survivors`` must remain; its target is the plan's ``overflow`` target."""
    return GatePlan(budget=budget, flag_rate=flag_rate, rounds=rounds, clients=clients, survivors=survivors,
                    overflow_target=overflow,
                    shut_out=shut_out_probability(budget=budget, rounds=rounds, flag_rate=flag_rate))
