"""Distributed noise over a sampled cohort: a Poisson cohort or a fixed-size one, its count public, replace-one.

Each round draws a cohort from a population of ``N`` members: each member in
independently with probability ``q`` (**Poisson**, the cohort's count
``K ~ Bin(N, q)``), or exactly ``K`` of the ``N`` without replacement
(**fixed**). Every surviving member of the cohort sends its encoded update
and one noise share; the server of the secure aggregation learns the sum and
how many took part (the count ``K`` is public), not who. Neighbouring
populations replace one member's record ``x`` by ``x'`` (replace-one over a
population of fixed size ``N``; zeroing out one member's update, the relation
of DP-FTRL, is the case ``x' = 0``), so the cohort's count has the same law
in both worlds.

- **Fixed.** The round is a fixed-size cohort of rate ``γ = K/N`` whose full
  round (the unsampled distributed round of the fewest survivors' shares) is
  dominated by the Gaussian pair of ``μ''`` beside a slack ``δ₀``
  (:func:`itsa.privacy.lattice.dominating_pair`): the combined pair of
  :mod:`itsa.privacy.sampled_fixed` bounds ``T`` rounds at ``δ − T δ₀``.
- **Poisson.** Given ``K = k`` (public, the same law in both worlds) the
  target is in a uniformly random ``k``-subset: a fixed-size round of rate
  ``k/N`` with at least ``⌈(1 − dropout) k⌉`` shares. For ``k`` in
  ``[k_lo, k_hi]`` it is dominated by the combined pair at the largest rate
  ``k_hi/N`` and the ``μ''`` of the fewest shares (both monotone); the
  round's hockey stick is the ``K``-average of the conditional ones, and the
  rounds whose count leaves the range, of probability at most ``β`` each
  (exact binomial tails in balls), cost ``T β`` of δ.

Why not the Poisson pair of :mod:`itsa.privacy.sampled_pair` at the shift of
one update: with the count public, a round that draws the target and one
that does not differ, beside the target's update, by who else is summed
(the ``k`` others against ``k − 1`` of them), so the replace-one shift
``x − y`` of two members enters; a mechanism whose others all send ``−x``
exceeds the Poisson pair of the shift ``‖x‖`` (the tests compute it). The
proofs are in the privacy page of the docs.

Examples
--------
>>> from fractions import Fraction
>>> c = poisson_cohort(population=10**6, expected=5000, rounds=1000, delta=Fraction(1, 10**6))
>>> c.low < 5000 < c.high, c.failure * 1000 <= Fraction(1, 10**6) / 2**10
(True, True)
>>> fixed_cohort(population=10**6, size=5000).rate
Fraction(1, 200)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from itsa._util.certified import Certified, precision, safe_decimal, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.conversion import check_delta
from itsa.privacy.events import DistributedDiscreteGaussianEvent, Event
from itsa.privacy.lattice import dominating_pair
from itsa.privacy.sampled_fixed import fixed_sampled_epsilon
from itsa.privacy.sampled_lower import binomial_tail

__all__ = ["Cohort", "CohortEvent", "poisson_cohort", "fixed_cohort", "cohort_epsilon", "SAMPLINGS",
           "TAIL_SHARE_BITS", "METHOD"]

#: The two ways a round's cohort is drawn.
SAMPLINGS = ("poisson", "fixed")
#: The rounds whose Poisson count leaves ``[k_lo, k_hi]`` take at most ``δ 2^(−TAIL_SHARE_BITS)`` in all.
TAIL_SHARE_BITS = 10

METHOD = ("the cohort's count public, replace-one over the population: each round, given its count k, a fixed-size "
          "cohort of rate k/N (advanced joint convexity, Balle-Barthe-Gaboardi 2018), dominated by the combined pair "
          "of the largest rate and the fewest survivors' shares")


@dataclass(frozen=True, kw_only=True)
class Cohort:
    """How a round's cohort is drawn from ``population``: its count in ``[low, high]`` but for probabilities
    ``below`` (under ``low``) and ``above`` (over ``high``) per round, each an upper bound (0 for a fixed size).

    Parameters
    ----------
    sampling : str
        ``"poisson"`` or ``"fixed"``.
    population : int
        ``N``.
    expected : int
        The deployment's ``K``: a Poisson cohort's expected count (rate ``K/N``), or the fixed size.
    low, high : int
        ``k_lo ≤ k_hi``: the counts the round's bound holds for.
    below, above : Fraction
        ``P(0 < K < k_lo)`` and ``P(K > k_hi)``, upper bounds (exact rationals); an empty cohort releases nothing
        (the same law in both worlds), so it is not counted.
    dropout : Fraction
        The fraction of a cohort that may drop out.
    """

    sampling: str
    population: int
    expected: int
    low: int
    high: int
    below: Fraction = Fraction(0)
    above: Fraction = Fraction(0)
    #: the fraction of a cohort that may drop out (its survivors ``⌈(1 − dropout) k⌉``)
    dropout: Fraction = Fraction(0)

    def __post_init__(self):
        object.__setattr__(self, "sampling", choice("sampling", self.sampling, SAMPLINGS))
        n = whole_number("population", self.population, minimum=1)
        whole_number("expected", self.expected, minimum=1, maximum=n)
        whole_number("low", self.low, minimum=1, maximum=n)
        whole_number("high", self.high, minimum=self.low, maximum=n)
        for name in ("below", "above", "dropout"):
            object.__setattr__(self, name, fraction(name, getattr(self, name), low=0, high=1, closed=True))

    @property
    def rate(self) -> Fraction:
        """``k_hi/N``: the largest rate of a round the bound holds for."""
        return Fraction(self.high, self.population)

    @property
    def failure(self) -> Fraction:
        """``β``: the probability per round that the count leaves ``[k_lo, k_hi]`` (an upper bound)."""
        return self.below + self.above

    def describe(self) -> str:
        """The cohort in words (the plan's population line)."""
        if self.sampling == "fixed":
            return (f"a fixed-size cohort of {self.expected} drawn without replacement from {self.population} "
                    f"(rate {self.expected}/{self.population})")
        return (f"a Poisson cohort of expected size {self.expected} from {self.population} (rate "
                f"{Fraction(self.expected, self.population)}); its count in [{self.low}, {self.high}] but with "
                f"probability at most {safe_decimal(self.failure, 3)} per round (exact binomial tails, certified)")


def fixed_cohort(*, population: int, size: int) -> Cohort:
    """A fixed-size cohort: exactly ``size`` of ``population`` each round."""
    n = whole_number("population", population, minimum=1)
    k = whole_number("cohort size", size, minimum=1, maximum=n)
    return Cohort(sampling="fixed", population=n, expected=k, low=k, high=k)


def _tail(n: int, rate: Fraction, m: int, upper: bool) -> Fraction:
    """``P(Bin(n, q) ≥ m)`` (``upper``) or ``P(Bin(n, q) ≤ m)``, rounded up to an exact rational."""
    with precision(256):
        ball = binomial_tail(n, to_arb(rate), m, upper)
    top = ball.upper()
    if not top.is_finite():
        return Fraction(1)
    man, exp = (int(v) for v in top.man_exp())
    return min(Fraction(1), Fraction(man) * Fraction(2) ** exp)


def poisson_cohort(*, population: int, expected: int, rounds: int, delta) -> Cohort:
    """A Poisson cohort of rate ``expected/population``: ``[k_lo, k_hi]`` the narrowest range (found by floats,
    certified in balls) whose two tails are each at most ``δ 2^(−TAIL_SHARE_BITS − 1)/T`` per round.

    Parameters
    ----------
    population, expected : int
        ``N`` and ``K ≤ N`` (rate ``q = K/N``).
    rounds : int
        ``T``.
    delta : number
        The plan's δ (the tails take a ``2^(−TAIL_SHARE_BITS)`` share of it over the rounds).
    """
    n = whole_number("population", population, minimum=1)
    k = whole_number("expected", expected, minimum=1, maximum=n)
    t = whole_number("rounds", rounds, minimum=1)
    share = check_delta(delta) / (t * 2 ** (TAIL_SHARE_BITS + 1))
    q = Fraction(k, n)
    if q == 1:
        return Cohort(sampling="poisson", population=n, expected=k, low=n, high=n)
    from scipy.stats import binom  # scipy.stats loads slowly: only a Poisson cohort needs it

    sd = math.sqrt(n * float(q) * (1 - float(q)))
    low = max(1, int(binom.ppf(float(share), n, float(q))) - 1)
    high = min(n, int(binom.isf(float(share), n, float(q))) + 1)
    step = max(1, int(sd / 100))
    while low > 1 and _tail(n, q, low - 1, upper=False) > share:          # P(K < low) = P(K <= low - 1)
        low = max(1, low - step)
    while high < n and _tail(n, q, high + 1, upper=True) > share:          # P(K > high) = P(K >= high + 1)
        high = min(n, high + step)
    below = _tail(n, q, low - 1, upper=False) if low > 1 else Fraction(0)
    above = _tail(n, q, high + 1, upper=True) if high < n else Fraction(0)
    return Cohort(sampling="poisson", population=n, expected=k, low=low, high=high, below=below, above=above)


@dataclass(frozen=True, kw_only=True)
class CohortEvent(Event):
    """One round of distributed noise over a sampled cohort (:class:`Cohort`): ``event`` is the full round of
    the fewest survivors' shares (replace-one sensitivity), the cohort says how the round is drawn.

    Its Rényi bound is the full round's (sampling never hurts: the proof in the privacy page of the docs), with
    the Poisson count's tails as a slack ``β`` per round; its privacy-loss bound is :func:`cohort_epsilon`.

    >>> from itsa.privacy.events import DistributedDiscreteGaussianEvent
    >>> inner = DistributedDiscreteGaussianEvent(sensitivity=2, scale=10, survivors=100, dimension=10)
    >>> e = CohortEvent(event=inner, cohort=fixed_cohort(population=1000, size=100))
    >>> e.rdp(2).upper() == inner.rdp(2).upper(), e.slack
    (True, Fraction(0, 1))
    """

    event: Event
    cohort: Cohort
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.event, Event) or not isinstance(self.cohort, Cohort):
            raise InvalidOption("cohort event: needs the full round's Event and a Cohort")
        object.__setattr__(self, "integer_orders", self.event.integer_orders)

    @property
    def label(self) -> str:
        return f"{self.event.label} over a {self.cohort.sampling} cohort"

    @property
    def provenance(self) -> str:
        return (f"{self.event.provenance}; the full round's bound, which holds for its sampled cohort (joint "
                f"convexity, the count public), the count's tails a slack of {safe_decimal(self.cohort.failure, 3)} "
                "per round")

    def linear(self):
        return self.event.linear()

    def rdp(self, order) -> flint.arb:
        return self.event.rdp_at(order)

    @property
    def slack(self) -> Fraction:
        return self.event.slack + self.cohort.failure

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.event.warnings


def cohort_epsilon(event: CohortEvent, *, rounds: int, delta, dimension: int | None = None,
                   shift=None) -> Certified | None:
    """The privacy-loss upper bound on the ε of ``rounds`` rounds of ``event`` (distributed discrete Gaussian
    shares over a cohort), or ``None`` where it does not apply.

    The full round's dominating pair ``(μ'', δ₀)`` at the fewest survivors' shares (every shift of norm at most
    the sensitivity, or stochastic rounding's coupled shift with its failure in ``δ₀``), the combined pair of a
    fixed-size cohort at the largest rate :attr:`Cohort.rate`
    (:func:`itsa.privacy.sampled_fixed.fixed_sampled_epsilon`), at ``δ − T (δ₀ + β)``.

    Parameters
    ----------
    event : CohortEvent
        The round; ``None`` unless its full round is a :class:`DistributedDiscreteGaussianEvent`.
    rounds, delta : int, number
        ``T`` and δ.
    dimension : int, optional
        Where the noise lives (the event's own when ``None``).
    shift : CoupledShift, optional
        As in :func:`itsa.privacy.tightest.pld_epsilon` (a mixture's mismatch: the worst case is used).
    """
    inner = event.event
    if not isinstance(inner, DistributedDiscreteGaussianEvent):
        return None
    d = check_delta(delta)
    t = whole_number("rounds", rounds, minimum=1)
    dim = inner.dimension if dimension is None else dimension
    sens = to_arb(inner.sensitivity)
    failure: Fraction | int = 0
    note = ""
    if shift is not None and not shift.mixture and shift.norm.arb() < sens:
        sens, failure = shift.norm.arb(), shift.failure
        note = (f"; Delta the coupled shift {shift.norm.decimal(6)} (failure {safe_decimal(shift.failure, 3)} per "
                "round, in the slack)")
    pair = dominating_pair(sigma=fraction("sigma", inner.scale, low=0), sensitivity=sens, survivors=inner.survivors,
                           dimension=dim, failure=failure, slack_limit=d / t)
    if pair is None:
        return None
    mu, slack = pair
    total = t * (slack + event.cohort.failure)
    if not total < d:
        return None
    try:
        found = fixed_sampled_epsilon(mu=mu, rate=event.cohort.rate, rounds=t, delta=d, slack=total)
    except InvalidOption:
        return None
    if found is None:
        return None
    return Certified("epsilon", found.low, found.high, found.direction,
                     f"{METHOD}: {found.method}; mu = {safe_decimal(mu, 8)} at {inner.survivors} survivors' shares, "
                     f"rate {event.cohort.rate}, {event.cohort.sampling} cohort{note}")
