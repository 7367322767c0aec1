"""A plan's accounting as practitioners read it: the ε bracket, ε per round, the rounds affordable, the sample.

- **the bracket**: beside the accountant's (Rényi) upper bound, a certified
  *lower* bound on the deployment's ε (:func:`itsa.privacy.pld.epsilon_bracket`):
  the ε of one neighbouring pair the deployment can produce (one client's
  update ``±(⌊γS⌋/γ) e_1``, so that the rounded sums differ by ``c ⌊γS⌋`` on
  one coordinate, ``c = 2`` replace-one, 1 add-remove), composed over the
  rounds through its privacy-loss distribution; and the smallest *proven*
  upper bound at hand: the Rényi one, the Gaussian pair dominating every
  shift (``d > 1``) or the pair's own (``d = 1``, where the axis pair is the
  worst). The plan prints that upper bound as its ε, and their ratio.
- **ε per round**: one round's ε at the same δ (the same bounds);
- **rounds affordable**: the most rounds whose certified ε meets the target
  (bisection on the rounds, each step certified);
- **population**: the round's ``clients`` drawn from ``N`` by Poisson
  sampling at rate ``K/N`` (each client in with that probability, so ``K``
  is the expected count), amplification certified at whole Rényi orders
  (:class:`~itsa.privacy.subsampled.PoissonSampledEvent`, add-remove
  neighbours); the guarantee is per user (each client's whole update is
  clipped: one user is one record). With noise added once, the full round's
  bounds (Rényi, privacy-loss distribution) hold for the sampled round too
  (:func:`itsa.planning.noise.full_round`): ε is the smallest of them all.

Examples
--------
>>> from itsa.planning import parse_deployment, plan
>>> p = plan(parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "noise": "central",
...                            "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10},
...                            "encoding": {"word_bits": 32, "gamma": 256}}))
>>> a = p.noise.accounting
>>> a.epsilon_lower.upper() <= p.noise.epsilon.upper() <= 2, a.rounds_affordable >= 10
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, cast

from itsa._util.certified import Certified, Direction, exact_text, precision, safe_decimal, to_arb
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.planning.mechanism import NoiseInputs, coupled, noise_dimension
from itsa.planning.noise import FULL_ROUND, NoisePlan, full_round, sampling_rate, tightest
from itsa.planning.rotation import Rotation, rotated_dimension
from itsa.planning.vocabulary import NoiseKind
from itsa.privacy.accounting import Accountant
from itsa.privacy.cohort_lower import cohort_lower
from itsa.privacy.coupled import CoupledShift
from itsa.privacy.events import Event
from itsa.privacy.lattice import MIXTURE, dominating_pair
from itsa.privacy.neighbours import Adjacency, Rounding
from itsa.privacy.pld import epsilon_bracket
from itsa.privacy.sampled_cohort import Cohort
from itsa.privacy.sampled_lower import sampled_discrete_lower
from itsa.privacy.shares import noise_shares
from itsa.privacy.subsampled import PoissonSampledEvent
from itsa.privacy.tightest import COHORT_KEY, SAMPLED_KEY

__all__ = ["GaussianPair", "round_pair", "PAIR_METHOD", "NoiseAccounting", "account_noise", "rounds_affordable", "pair_shift", "sampled_lower",
           "GUARANTEE", "NOISE_NORM_WARNING"]

#: Whose privacy the guarantee protects.
GUARANTEE = ("per user: a neighbouring round adds, removes or replaces one client's whole update (clipped to S), "
             "whatever number of examples it was computed from")
#: The noise's norm in the released mean above this many clips draws a warning.
NOISE_NORM_WARNING = 10
#: Most rounds searched for the rounds affordable (the deployment file's own limit).
MAX_SEARCHED = 10**7


def pair_shift(inputs: NoiseInputs, gamma: Fraction) -> int | None:
    """The integer shift of a neighbouring pair the deployment can produce, on one coordinate: ``c ⌊γ S⌋``.

    The update ``(⌊γS⌋/γ) e_1`` has norm at most ``S`` and rounds (to nearest, exactly) to ``⌊γS⌋ e_1``; its
    neighbour is no update (add-remove, ``c = 1``) or its opposite (replace-one, ``c = 2``). ``None`` where the
    encoding is not a flat word rounded to nearest without rotation (no such pair is certified here).
    """
    if inputs.layered or inputs.rotation is not Rotation.NONE or inputs.rounding is not Rounding.NEAREST:
        return None
    k = math.floor(gamma * inputs.clip)
    return (2 if inputs.adjacency is Adjacency.REPLACE_ONE else 1) * k if k >= 1 else None


def _mechanism(inputs: NoiseInputs, event: Event) -> str | None:
    """Why the bracket does not apply (``None``: it does: a discrete Gaussian, central or in shares, unsampled,
    on an unrotated flat word)."""
    if inputs.cohort is not None:
        return ("the sampled cohort's pair is the combined pair of its largest rate and fewest shares (its lower "
                "bound: a threshold test)")
    if event.sampled_from is not None or sampling_rate(inputs) not in (None, 1):
        return "the Poisson-sampled mechanism's pair is the sampled one (its lower bound: a threshold test)"
    if inputs.layered:
        return ("a layering's pairs are not certified here (a layer's sensitivity bounds every digit pattern, "
                "not one update's)")
    if not event.pld_bracket:
        return f"the bracket covers the discrete Gaussian only, not {event.label}"
    return None


@dataclass(frozen=True, kw_only=True, repr=False)
class NoiseAccounting(Displayable):
    """The bracket around the plan's ε, the per-round ε, the rounds affordable, the population and the guarantee."""

    epsilon: Certified
    epsilon_rdp: Certified
    upper_method: str
    epsilon_lower: Certified | None
    ratio: Certified | None
    lower_note: str
    epsilon_per_round: Certified
    rounds_affordable: int | None
    rounds_note: str
    delta: Fraction
    rounds: int
    population: int | None = None
    sampling: str | None = None
    rate: Fraction | None = None
    #: what the noise section warns of beside (the noise-norm warning), also in the section's ``warnings``
    warnings: tuple[str, ...] = ()
    #: randomized rounding's coupled shift the ε is certified at, where it is below the sensitivity and the
    #: upper bound's method takes it (a :class:`~itsa.privacy.coupled.CoupledShift`; ``None``: the worst case)
    certified_shift: CoupledShift | None = None
    #: distributed shares over a sampled cohort (``None``: none)
    cohort: Cohort | None = None

    def headline(self) -> str:
        low = "none" if self.epsilon_lower is None else self.epsilon_lower.decimal(6)
        return f"eps in [{low}, {self.epsilon.decimal(6)}] ({self.upper_method})"

    def rows(self) -> list[tuple[str, str]]:
        if self.epsilon_lower is None:
            lower = f"none: {self.lower_note}"
        else:
            ratio = "" if self.ratio is None else f"; upper/lower <= {self.ratio.decimal(5)}"
            lower = f"{self.epsilon_lower.decimal(6)} (lower bound; {self.lower_note}){ratio}"
        rows = [("epsilon lower", lower),
                ("epsilon upper", f"{self.epsilon.decimal(6)} (upper bound, {_METHODS[self.upper_method]}); "
                                  f"Renyi {self.epsilon_rdp.decimal(6)}"),
                ("epsilon per round", f"{self.epsilon_per_round.decimal(6)} ({self.epsilon_per_round.direction}) "
                                      f"at delta {safe_decimal(self.delta, 6)}, one round"),
                ("rounds affordable", (f"{self.rounds_affordable} " if self.rounds_affordable is not None else "")
                 + f"({self.rounds_note})")]
        if self.certified_shift is not None:
            rows.append(("certified shift", shift_text(self.certified_shift)))
        if self.cohort is not None:
            rows.append(("population", f"{self.cohort.describe()} (amplification: {COHORT_TEXT})"))
        elif self.population is not None:
            rows.append(("population", f"{self.population} clients, {self.sampling} sampling of the round's clients "
                                       f"at rate {frac(self.rate)} (amplification: the Poisson-sampled dominating pair's privacy-loss "
                                       "distribution where it applies, Zhu-Wang 2019 Thm 6 at whole orders for the Renyi bound; add-remove; "
                                       "the full round's bounds hold too: sampling never hurts)"))
        return rows + [("guarantee", GUARANTEE)]

    def to_dict(self) -> dict:
        return {"epsilon_lower": None if self.epsilon_lower is None else self.epsilon_lower.to_dict(),
                "epsilon_lower_note": self.lower_note, "epsilon_upper_method": self.upper_method,
                "epsilon_rdp": self.epsilon_rdp.to_dict(),
                "epsilon_ratio": None if self.ratio is None else self.ratio.to_dict(),
                "epsilon_per_round": self.epsilon_per_round.to_dict(),
                "rounds_affordable": self.rounds_affordable, "rounds_affordable_note": self.rounds_note,
                "population": self.population, "sampling": self.sampling,
                "sampling_rate": frac(self.rate), "guarantee": GUARANTEE,
                "certified_shift": shift_dict(self.certified_shift),
                **({} if self.cohort is None else {"cohort": cohort_dict(self.cohort)})}


#: How a sampled cohort of distributed shares is accounted, in words.
COHORT_TEXT = ("neighbours replace one member's record in a population of fixed size (zeroing out one member's "
               "update is a case), the cohort's count public; given its count a round is a fixed-size cohort, "
               "dominated by the combined pair of the largest rate and the fewest survivors' shares (privacy-loss "
               "distribution), or the full round's Renyi bound; the count's tails in delta. The server of the "
               "secure aggregation must not learn who was sampled: against one that does, the guarantee is the "
               "unsampled round's")


def cohort_dict(cohort: Cohort) -> dict:
    """A sampled cohort as plain data."""
    return {"sampling": cohort.sampling, "population": cohort.population, "expected": cohort.expected,
            "rate": frac(Fraction(cohort.expected, cohort.population)), "low": cohort.low, "high": cohort.high,
            "rate_bounded": frac(cohort.rate), "tails_per_round": frac(cohort.failure),
            "tails_direction": "upper bound", "neighbours": "replace-one over the population (zero-out a case), "
            "the count public", "note": COHORT_TEXT}


def shift_text(shift: CoupledShift) -> str:
    """The certified (coupled) shift in words: its norm and what it costs."""
    kept = ("its mismatch kept apart, the rounds a Bin(T, q) mixture with the sensitivity" if shift.mixture
            else "its failure taken off delta over the rounds")
    return (f"{shift.norm.decimal(6)} integer units ({shift.norm.direction}): randomized rounding's coupled shift, "
            f"the l2 norm the epsilon upper bound is certified at, outside probability {safe_decimal(shift.failure, 4)}"
            f" per round ({kept}); the noise multipliers divide by the sensitivity, the worst-case shift")


def shift_dict(shift: CoupledShift | None) -> dict | None:
    """The certified (coupled) shift as plain data (``None``: the ε is certified at the sensitivity)."""
    if shift is None:
        return None
    return {**shift.norm.to_dict(), "failure_per_round": frac(shift.failure), "mismatch": frac(shift.mismatch),
            "mixture": shift.mixture, "unit": "integer units",
            "note": "the shift the epsilon upper bound is certified at; noise_multiplier divides by sensitivity"}


#: The upper bounds a plan's ε may come from, in words.
_METHODS = {"rdp": "the Renyi accountant", "dominating": "the Gaussian pair dominating every shift of l2 norm up "
            "to the sensitivity (or to the coupled shift the method names), through its privacy-loss distribution",
            "pld": "the worst pair's privacy-loss distribution (one dimension: the axis shift is the worst)",
            "mixture": "a Bin(T, q)-weighted mixture of the Gaussian pairs dominating the coupled shift and the sensitivity "
                       "(conditional rounding's retries coupled), through its privacy-loss distribution",
            SAMPLED_KEY: "the Poisson-sampled Gaussian pair dominating every sampled round, through its "
                         "privacy-loss distribution on a certified grid",
            COHORT_KEY: "the combined pair of a fixed-size cohort at the cohort's largest rate and its fewest "
                        "survivors' shares (the count public, replace-one), through its privacy-loss distribution on "
                        "a certified grid"}
#: A Poisson-sampled round's ε from its full round's bound (``<key>-full``): it holds for the sampled round.
_METHODS.update({f"{key}-full": f"{text}, of the full (unsampled) round, which bounds its Poisson sample too "
                                "(add-remove, noise added once: sampling never hurts)"
                 for key, text in list(_METHODS.items()) if key not in (SAMPLED_KEY, COHORT_KEY)})


class _Bounds:
    """The proven ε of the plan's noise at any number of rounds: the Rényi bound and, where it applies, the
    privacy-loss distribution's (the smaller).

    A Poisson-sampled round of central noise also has its full round's bounds (Rényi, and the privacy-loss
    distribution's where it applies): they hold for the sampled round too (sampling never hurts under
    add-remove neighbours with noise added once, :func:`itsa.planning.noise.full_round`), and the smallest
    of all is taken.
    """

    def __init__(self, inputs: NoiseInputs, noise: NoisePlan, event: Event, gamma: Fraction | None = None):
        self.d, self.noise, self.event, self.gamma = inputs, noise, event, gamma
        self.why_not = _mechanism(inputs, event)
        #: a Poisson-sampled round of central noise: its own privacy-loss bound, the sampled dominating pair's
        self.sampled = (event.sampled_from is not None and inputs.kind is NoiseKind.CENTRAL
                        and not inputs.layered and event.sampled_from.pld_bracket) or inputs.cohort is not None
        self.shares = noise_shares(self.d.clients, self.d.dropout, distributed=str(noise.kind) == "distributed").privacy
        #: where the noise lives: the rotated (padded) dimension
        self.dimension = noise_dimension(inputs)
        full = full_round(inputs, event)
        #: the full round's bounds, which hold for this Poisson-sampled round (``None``: not sampled)
        self.full = None if full is None else _Bounds(full[0], noise, full[1], gamma)

    def rdp(self, rounds: int) -> Certified:
        return Accountant().compose(self.event, rounds).bound(self.d.delta).epsilon

    def pld(self, rounds: int) -> tuple[Certified, str] | None:
        """The proven PLD upper bound at ``rounds`` (``None`` where it does not apply or fails): the worst
        pair's own in one dimension, the dominating pair's in more (:func:`itsa.planning.noise.tightest`)."""
        if self.why_not is not None and not self.sampled:
            return None
        found = tightest(self.d, self.event, rounds, self.gamma)
        if found is None:
            return None
        key = (COHORT_KEY if self.d.cohort is not None else SAMPLED_KEY if self.sampled else
               "pld" if self.dimension == 1 else "mixture" if str(found.method).startswith(MIXTURE) else "dominating")
        return found, key

    def best(self, rounds: int) -> tuple[Certified, str]:
        """The smallest proven upper bound at ``rounds`` and its method's key (:data:`_METHODS`)."""
        rdp = self.rdp(rounds)
        try:
            other = self.pld(rounds)
        except InvalidOption:               # the enclosure finds no bracket at this noise: the Renyi bound stands
            other = None
        best = rdp, "rdp"
        if other is not None and other[0].direction is Direction.UPPER and other[0].upper() < rdp.upper():
            best = other
        if self.full is not None:
            full, how = self.full.best(rounds)
            if full.upper() < best[0].upper():
                best = replace(full, method=f"{FULL_ROUND}{full.method}"), f"{how}-full"
        return best

    @property
    def kinds(self) -> str:
        """The bounds :meth:`best` takes the smallest of, in words."""
        if self.full is not None:
            return ("the smallest of the sampled round's " + ("Renyi and PLD bounds" if self.sampled else "Renyi bound")
                    + " and the full round's "
                    + ("Renyi bound" if self.full.why_not is not None else "Renyi and PLD bounds"))
        return ("the smaller of the Renyi and PLD bounds" if self.why_not is None or self.d.cohort is not None
                else "Renyi")


def rounds_affordable(epsilon_at: Callable[[int], Fraction], epsilon: Fraction, start: int,
                      most: int = MAX_SEARCHED) -> int:
    """The most rounds ``T ≤ most`` with ``epsilon_at(T) ≤ epsilon`` (``epsilon_at`` nondecreasing; 0 if none).

    The search starts at ``start`` (a guess, e.g. from ε growing like ``√T``), brackets the answer by steps
    that double from 1/16 of it, then bisects: every answer is checked by ``epsilon_at`` itself.

    >>> rounds_affordable(lambda t: Fraction(t, 10), Fraction(3), 5)
    30
    >>> rounds_affordable(lambda t: Fraction(t, 10), Fraction(3), 10**6)
    30
    """
    if epsilon_at(1) > epsilon:
        return 0
    guess = min(max(1, start), most)
    step = max(1, guess // 16)
    if epsilon_at(guess) <= epsilon:
        low, high = guess, guess + step
        while high <= most and epsilon_at(high) <= epsilon:
            low, step = high, 2 * step
            high = low + step
        if high > most:
            if epsilon_at(most) <= epsilon:
                return most
            high = most
    else:
        high, low = guess, max(1, guess - step)
        while low > 1 and epsilon_at(low) > epsilon:
            high, step = low, 2 * step
            low = max(1, low - step)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if epsilon_at(mid) <= epsilon else (low, mid)
    return low


def account_noise(inputs: NoiseInputs, noise: NoisePlan, event: Event, gamma: Fraction,
                  error_noise: Fraction | None = None) -> NoisePlan:
    """The noise section with its accounting: ε the smallest proven upper bound, the bracket, per round, rounds.

    Parameters
    ----------
    inputs : NoiseInputs
        The numbers the noise depends on (the planner's, from the deployment).
    noise : NoisePlan
        The noise section as sized (its ε the Rényi accountant's).
    event : Event
        One round's event of the plan's noise (composed over the rounds by the accountant).
    gamma : Fraction
        The plan's scale.
    error_noise : Fraction, optional
        The noise's share of the released mean's MSE per coordinate (for the noise-norm warning).
    """
    bounds = _Bounds(inputs, noise, event, gamma)
    rounds, delta = noise.rounds, noise.delta
    rdp = noise.epsilon
    lower, ratio, epsilon, how = None, None, rdp, "rdp"
    note = bounds.why_not or ""
    shift = pair_shift(inputs, gamma) if bounds.why_not is None else None
    if bounds.why_not is None and shift is None:
        note = "no neighbouring pair of this encoding is certified here (rotation or stochastic rounding)"
    if bounds.why_not is None or bounds.full is not None or inputs.cohort is not None:
        epsilon, how = best = bounds.best(rounds)
    if shift is not None:
        top = math.floor(noise.sensitivity.upper())
        try:
            bracket = epsilon_bracket(sigma=noise.sigma_client, sensitivity=noise.sensitivity, rounds=rounds,
                                      delta=delta, survivors=bounds.shares, dimension=bounds.dimension,
                                      shift=min(shift, top), upper=best[0])
        except InvalidOption as exc:
            shift, note = None, f"the pair's privacy-loss enclosure fails at this noise ({exc})"
        except OverflowError:       # sensitivity/sigma past 10^154: the enclosure's float start overflows
            shift, note = None, ("the pair's privacy-loss enclosure is not computed at this noise (sensitivity / "
                                 "sigma is past the float range: the Renyi bound alone is given)")
    if shift is not None:
        lower = bracket.epsilon_lower
        ratio = bracket.ratio if lower.lower() > 0 else None
        note = (f"one client's update +-(floor(gamma S)/gamma) e_1: the sums differ by {shift} on one coordinate, "
                f"{rounds} rounds through the pair's privacy-loss distribution")
        if lower.lower() == 0:
            note += "; the shares are too narrow for the enclosure: the lower bound is trivial"
    if bounds.sampled:
        lower, ratio, note = sampled_lower(inputs, noise, gamma, epsilon)
    per_round = bounds.best(1)[0]
    target = inputs.epsilon
    if target is None:
        affordable, rounds_note = None, "no target epsilon: the rounds are as given"
    else:
        now = epsilon.upper()
        guess = rounds if now <= 0 else max(1, math.floor(rounds * min(target / now, Fraction(10**4)) ** 2))
        affordable = rounds_affordable(lambda t: bounds.best(t)[0].upper(), target, guess)
        rounds_note = (f"the most rounds whose certified epsilon ({bounds.kinds}) "
                       f"meets the target {frac(target)} at delta {safe_decimal(delta, 6)}, at this noise")
    certified_shift = None
    if how.split("-")[0] in ("dominating", "mixture"):      # the coupled shift these methods take where smaller
        found = coupled(inputs, gamma, rounds)
        if found is not None and found.norm.arb() < noise.sensitivity.arb():
            certified_shift = found
    warnings = noise_norm_warnings(dimension=inputs.dimension, clip=inputs.clip, error_noise=error_noise)
    acc = NoiseAccounting(epsilon=epsilon, epsilon_rdp=rdp, upper_method=how, epsilon_lower=lower, ratio=ratio,
                          lower_note=note, epsilon_per_round=per_round, rounds_affordable=affordable,
                          rounds_note=rounds_note, delta=delta, rounds=rounds,
                          population=inputs.population,
                          sampling=None if inputs.population is None else str(inputs.sampling),
                          rate=sampling_rate(inputs) if inputs.cohort is None else
                          Fraction(inputs.cohort.expected, inputs.cohort.population), warnings=warnings,
                          certified_shift=certified_shift, cohort=inputs.cohort)
    return replace(noise, epsilon=epsilon, accounting=acc, warnings=noise.warnings + warnings)


def sampled_lower(inputs: NoiseInputs, noise: NoisePlan, gamma: Fraction, epsilon: Certified
                  ) -> tuple[Certified | None, Certified | None, str]:
    """A Poisson-sampled central round's lower bound (:func:`itsa.privacy.sampled_lower.sampled_discrete_lower`,
    the pair of :func:`pair_shift`), the ratio of ``epsilon`` to it and the note; ``None`` where no pair is
    certified."""
    if inputs.cohort is not None:
        return _cohort_lower(inputs, noise, gamma, epsilon)
    rate = sampling_rate(inputs)
    # stochastic rounding keeps the pair exact too: floor(gamma S) and 0 are integers, their own roundings
    exact = replace(inputs, rounding=Rounding.NEAREST) if inputs.rounding is Rounding.STOCHASTIC else inputs
    shift = pair_shift(exact, gamma)
    if shift is None or rate is None:
        return None, None, ("no neighbouring pair of this encoding is certified here (a rotation, or conditional "
                            "rounding)")
    top = math.floor(noise.sensitivity.upper())
    k = min(shift, top)
    lower = sampled_discrete_lower(sigma=noise.sigma_client, shift=k, rate=rate, rounds=noise.rounds,
                                   delta=noise.delta)
    note = (f"one client's update +-(floor(gamma S)/gamma) e_1 in the sample with probability {frac(rate)}: the "
            f"sums differ by {k} on one coordinate when it is; {noise.rounds} rounds through {lower.method}")
    return _with_ratio(lower, epsilon, note)


def _with_ratio(lower: Certified, epsilon: Certified, note: str
                ) -> tuple[Certified, Certified | None, str]:
    """``(lower, the plan's ε over it, note)``; no ratio where the lower bound is trivial (0)."""
    if not lower.lower() > 0:
        return lower, None, note + "; no test beats delta here: the lower bound is trivial"
    with precision():
        ratio = Certified.from_arb("ratio", to_arb(epsilon.upper()) / to_arb(lower.lower()), Direction.UPPER,
                                   "the plan's epsilon over the lower bound")
    return lower, ratio, note


def _cohort_lower(inputs: NoiseInputs, noise: NoisePlan, gamma: Fraction, epsilon: Certified
                  ) -> tuple[Certified | None, Certified | None, str]:
    """A sampled cohort's lower bound (:func:`itsa.privacy.cohort_lower.cohort_lower`): one member's update
    whose encoding is whole, rounded to nearest or stochastically: ``±⌊γS⌋ e_1`` without a rotation; after the
    Hadamard rotation ``±a e_1`` (``m = ⌊γS/√d'⌋`` on all ``d'`` coordinates) or ``±a (e_1 + e_2)/√2``
    (``2u``, ``u = ⌊γS/√(2d')⌋``, on the ``d'/2`` coordinates where two columns of ``H`` agree, 0 elsewhere),
    the larger shift over the noise; ``None`` for another encoding."""
    assert inputs.cohort is not None
    rotated = rotated_dimension(inputs.dimension, inputs.rotation)
    top = gamma * inputs.clip
    if inputs.rounding not in (Rounding.NEAREST, Rounding.STOCHASTIC) or inputs.rotation not in (
            Rotation.NONE, Rotation.HADAMARD):
        return None, None, ("no neighbouring pair of this encoding is certified here (a DFT rotation, or "
                            "conditional rounding)")
    copies = 1 if inputs.rotation is Rotation.NONE else rotated
    m = math.isqrt(math.floor(top * top / copies))          # m^2 d' <= (gamma S)^2: the update fits the clip
    pair = "+-a e_1"
    if copies > 1 and inputs.dimension >= 2:                # two columns of H: 2u on half the coordinates
        u = math.isqrt(math.floor(top * top / (2 * copies)))
        if 2 * u * u > m * m:
            m, copies, pair = 2 * u, copies // 2, "+-a (e_1 + e_2)/sqrt(2)"
    if m < 1:
        return None, None, "the clip is below one step of the rotated encoding: no whole-valued pair"
    lower = cohort_lower(sigma=noise.sigma_client, shift=m, copies=copies, cohort=inputs.cohort,
                         rounds=noise.rounds, delta=noise.delta, dropout=inputs.cohort.dropout)
    where = ("on one coordinate" if copies == 1 else
             f"on {copies} rotated coordinates, 0 elsewhere (their signed sum the statistic)")
    note = (f"one member's update {pair} whose encoding is {m} {where}, every other 0; {noise.rounds} rounds "
            f"through {lower.method}")
    return _with_ratio(lower, epsilon, note)


def noise_norm_warnings(*, dimension: int, clip: Fraction, error_noise: Fraction | None) -> tuple[str, ...]:
    """A warning when the noise's root-mean-square norm in the released mean is more than
    :data:`NOISE_NORM_WARNING` clips (the mean itself has norm at most the clip)."""
    if error_noise is None:
        return ()
    norm2 = dimension * error_noise
    if norm2 <= (NOISE_NORM_WARNING * clip) ** 2:
        return ()
    ratio = Fraction(math.isqrt(math.floor(norm2 / clip**2)))
    return (f"the noise dwarfs the mean: its root-mean-square norm in the released mean is at least "
            f"{safe_decimal(ratio, 4, up=False)} clips, the mean's at most 1 clip (more clients per round, "
            "fewer rounds, a larger epsilon or a smaller dimension)",)


#: The plan's ε method keys (:attr:`itsa.planning.accounting.NoiseAccounting.upper_method`) that are the pair's:
#: this word, then nothing or ``-`` and a variant (``-full``: the full round's pair, unsampled).
PAIR_METHOD = "dominating"
#: The variant of a sampled round's ε that is its full (unsampled) round's.
FULL = "-full"


@dataclass(frozen=True, kw_only=True)
class GaussianPair:
    """One round's dominating Gaussian pair, composed over the rounds: what an accountant of Gaussian events takes.

    Each round is dominated by the Gaussian pair of ``μ`` (noise multiplier ``z = 1/μ``) beside a pair of
    hockey stick ``δ₀`` (:func:`itsa.privacy.lattice.dominating_pair`), Poisson-sampled at ``rate`` when the
    round runs on a sample of a population. Over ``T`` rounds, ``δ(ε) ≤ δ_T(ε) + T δ₀`` with ``δ_T`` the curve
    of the Gaussian events alone (the mixture is jointly convex in its parts, and sampling a mixture samples
    each part): an accountant asked for ``ε`` at :attr:`accountant_delta` ``= δ − T δ₀`` answers for ``δ``.

    Parameters
    ----------
    mu, slack : Fraction
        ``μ`` and ``δ₀`` per round, upper ends (safe upwards).
    rate : Fraction or None
        The Poisson sampling rate of each round (``None``: every client, every round).
    rounds : int
        ``T``.
    delta : Fraction
        The plan's δ.
    certifies : bool
        Whether the plan's ε is this pair's (its method :data:`PAIR_METHOD` or a variant of it); otherwise the pair
        still dominates every round, but the plan's ε comes from another bound.
    method : str
        The plan's ε method's key.
    """

    mu: Fraction
    slack: Fraction
    rate: Fraction | None
    rounds: int
    delta: Fraction
    certifies: bool
    method: str

    @property
    def noise_multiplier(self) -> Fraction:
        """``z = 1/μ``, exact (a smaller ``z`` is a pair that dominates too)."""
        return 1 / self.mu

    @property
    def accountant_delta(self) -> Fraction:
        """``δ − T δ₀``: the δ to ask an accountant of the Gaussian events alone for."""
        return self.delta - self.rounds * self.slack

    def describe(self) -> str:
        sampled = "" if self.rate is None else f", Poisson-sampled at rate {exact_text(self.rate)}"
        whose = ("the pair the plan's epsilon is certified through" if self.certifies else
                 f"a pair dominating every round; the plan's epsilon is certified through another bound ({self.method})")
        return (f"GaussianDpEvent(noise_multiplier {safe_decimal(self.noise_multiplier, 8, up=False)}){sampled} "
                f"over {self.rounds:,} rounds, at delta {safe_decimal(self.accountant_delta, 6, up=False)} "
                f"(delta - T delta0, delta0 {safe_decimal(self.slack, 3)} per round): {whose}")

    def to_dict(self) -> dict[str, Any]:
        return {"noise_multiplier": frac(self.noise_multiplier), "mu": frac(self.mu), "slack_per_round":
                frac(self.slack), "sampling_probability": frac(self.rate), "count": self.rounds,
                "accountant_delta": frac(self.accountant_delta), "certifies_plan_epsilon": self.certifies,
                "plan_epsilon_method": self.method}


def round_pair(inputs: NoiseInputs, noise, event: Event, gamma: Fraction | None = None) -> GaussianPair | None:
    """The plan's dominating Gaussian pair per round, or ``None`` where its noise has none.

    The pair is :func:`itsa.privacy.lattice.dominating_pair`'s for the round's discrete Gaussian (central, or
    the fewest survivors' shares) on a flat word, at the plan's ``σ`` and sensitivity in the event's
    (padded) dimension: the pair the plan's ε is certified through when its method is ``dominating``. A
    Poisson-sampled round of central noise has its full round's pair, unsampled when the plan's ε is that
    pair's (``dominating-full``), sampled otherwise. A mechanism other than the discrete Gaussian, a layering and a central noise after a rotation
    have none.

    Parameters
    ----------
    inputs : NoiseInputs
        The plan's noise inputs.
    noise : NoisePlan
        Its noise section, accounted (its ``accounting`` names the ε's method).
    event : Event
        One round's event as the plan accounts it (:func:`itsa.planning.noise.round_event`).
    gamma : Fraction, optional
        The plan's scale: with randomized rounding, the coupled shift's norm and failure
        (:func:`itsa.planning.mechanism.coupled`) in place of the sensitivity where smaller, as the plan's ε.
    """
    if inputs.layered:
        return None
    accounting = getattr(noise, "accounting", None)
    method = getattr(accounting, "upper_method", "rdp")
    certifies = method == PAIR_METHOD or method.startswith(PAIR_METHOD + "-")
    rate: Fraction | None = None
    full = full_round(inputs, event)
    if full is not None and event.sampled_from is not None:
        rate = None if certifies and method.endswith(FULL) else cast(PoissonSampledEvent, event).rate
        inputs, event = full
    if _mechanism(inputs, event) is not None:
        return None
    shares = noise_shares(inputs.clients, inputs.dropout, distributed=inputs.kind is NoiseKind.DISTRIBUTED).privacy
    dimension = int(getattr(event, "dimension", inputs.dimension))
    sensitivity, failure = noise.sensitivity.arb(), Fraction(0)
    shift = coupled(inputs, gamma, inputs.rounds) if dimension > 1 else None
    if shift is not None and not shift.mixture and shift.norm.arb() < sensitivity:      # as pld_epsilon
        sensitivity, failure = shift.norm.arb(), shift.failure
    try:
        pair = dominating_pair(sigma=noise.sigma_client, sensitivity=sensitivity, survivors=shares,
                               dimension=dimension, failure=failure, slack_limit=inputs.delta / inputs.rounds)
    except InvalidOption:           # a noise the enclosures cannot take (too large to carry): no pair
        return None
    if pair is None or not inputs.rounds * pair[1] < inputs.delta:       # no delta left for the Gaussian events
        return None
    return GaussianPair(mu=pair[0], slack=pair[1], rate=rate, rounds=inputs.rounds, delta=inputs.delta,
                        certifies=certifies, method=method)
