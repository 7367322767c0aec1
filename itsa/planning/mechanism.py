"""The noise mechanism of a flat plan: which event the accountant composes, at which sensitivity.

Each mechanism is one module of :mod:`itsa.planning.mechanisms`, registered
there by its file word; this module asks the registry (:func:`room_of`) for
one round's event, its words and its premises, and never names a mechanism.

``σ`` is always the standard deviation of one share (integer units), so the
aggregate's is ``σ √K_eff`` (distributed) or ``σ`` (central) whatever the
mechanism. The sensitivity is the privacy part's one
(:func:`~itsa.privacy.neighbours.sensitivity_ball`) in the dimension the
update is rounded in (the rotation's ``d'``), with the deployment's rounding
(the tight bound for rounding to nearest).

A mechanism whose Rényi bound is at least the Gaussian's at the same ratio of
aggregate noise to sensitivity (its premise ``rdp_at_least_gaussian``, stated
by its module) has the Gaussian's calibrated multiplier as a lower bound on
its own: :func:`gaussian_floor` starts its calibration there (and at 0 for a
mechanism without the premise).

Every function here takes the numbers it needs as a :class:`NoiseInputs`
(built once by the planner from a deployment, :func:`itsa.planning.planner.noise_inputs`),
never the deployment itself.

Examples
--------
>>> from fractions import Fraction
>>> n = NoiseInputs(clients=100, dimension=10, clip=Fraction(1), epsilon=Fraction(2), kind=NoiseKind.CENTRAL)
>>> type(round_event(n, sensitivity(n, Fraction(64)))(Fraction(40))).__name__, describe(n)
('DiscreteGaussianEvent', 'discrete Gaussian')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import dropout_fraction, whole_number
from itsa.exceptions import InvalidOption, excerpt
from itsa.planning.mechanisms import DEFAULT, Mechanism, NoiseMechanism, mechanism
from itsa.planning.rotation import Rotation, rotated_dimension
from itsa.planning.vocabulary import NoiseKind, Sampling
from itsa.privacy.calibration import calibrate
from itsa.privacy.conversion import DEFAULT_DELTA
from itsa.privacy.coupled import CoupledShift, conditional_shift, coupled_shift
from itsa.privacy.events import (
    Event,
)
from itsa.privacy.neighbours import DEFAULT_BETA, Adjacency, ExpBeta, Rounding, sensitivity_ball
from itsa.privacy.sampled_cohort import Cohort, fixed_cohort, poisson_cohort
from itsa.privacy.sampled_pair import sampled_gaussian_epsilon
from itsa.privacy.shares import noise_shares, survivors_under
from itsa.privacy.tight import gaussian_exact_multiplier

__all__ = ["NoiseInputs", "mechanism_of", "room_of", "sensitivity", "sensitivity_text", "round_event", "gaussian_multiplier", "gaussian_floor",
           "gaussian_limit", "limit_multiplier", "describe", "noise_dimension", "coupled", "estimate_sensitivity",
           "coupling_beta", "cohort_inputs", "sampled_limit", "COUPLED_SHARE", "BETA_CHOSEN"]


@dataclass(frozen=True, kw_only=True)
class NoiseInputs:
    """The numbers and choices a plan's noise depends on: who adds it, how the update is encoded before it
    is added, and the privacy target (numbers and enums, checked on construction; hashable, so that a
    calibration is remembered per question).

    ``clients`` and ``dropout`` give the fewest survivors (:attr:`survivors`); ``sigma`` is the file's share
    (``None``: calibrated); ``radix`` and ``layers`` a PSA layering's (``None``: a flat word); ``population``
    the clients a round's are Poisson-sampled from (``None``: no sampling); ``cohort`` the sampled cohort of
    distributed shares the inputs are sized for (:func:`cohort_inputs`; ``None``: none).
    """

    clients: int
    dimension: int
    clip: Fraction
    dropout: Fraction = Fraction(0)
    adjacency: Adjacency = Adjacency.REPLACE_ONE
    kind: NoiseKind = NoiseKind.DISTRIBUTED
    mechanism: Mechanism | None = None
    sigma: Fraction | None = None
    rotation: Rotation = Rotation.NONE
    rounding: Rounding = Rounding.NEAREST
    beta: Fraction | ExpBeta = DEFAULT_BETA
    epsilon: Fraction | None = None
    delta: Fraction = DEFAULT_DELTA
    rounds: int = 1
    population: int | None = None
    sampling: Sampling = Sampling.POISSON
    radix: int | None = None
    layers: int | None = None
    cohort: Cohort | None = None

    def __post_init__(self):
        whole_number("clients", self.clients, minimum=1)
        whole_number("dimension", self.dimension, minimum=1)
        whole_number("rounds", self.rounds, minimum=1)
        if not isinstance(self.clip, Fraction) or self.clip <= 0:
            raise InvalidOption(f"clip: must be a positive Fraction, not {excerpt(self.clip)}")
        object.__setattr__(self, "dropout", dropout_fraction(self.dropout))
        if (self.radix is None) != (self.layers is None):
            raise InvalidOption("radix and layers: a layering has both, a flat word neither")

    @property
    def survivors(self) -> int:
        """The fewest clients whose shares arrive: ``⌈(1 − dropout) K⌉`` (:func:`itsa.privacy.survivors_under`)."""
        return survivors_under(self.clients, self.dropout)

    @property
    def layered(self) -> bool:
        return self.radix is not None


def cohort_inputs(inputs: NoiseInputs) -> NoiseInputs:
    """Distributed shares over a sampled population: the inputs sized for its cohort (else as they are).

    The words summed are at most the cohort's largest count ``k_hi`` (``clients``), the shares ε counts the
    fewest survivors of its smallest ``k_lo`` (the ``dropout`` made ``1 − survivors/k_hi``), and ``cohort`` says
    how it is drawn (:mod:`itsa.privacy.sampled_cohort`): a fixed size ``K``, or a Poisson count of mean ``K``.

    >>> n = cohort_inputs(NoiseInputs(clients=5000, dimension=10, clip=Fraction(1), epsilon=Fraction(2),
    ...                               population=10**6, dropout=Fraction(1, 10)))
    >>> n.clients == n.cohort.high > 5000, n.survivors == n.cohort.low - n.cohort.low // 10
    (True, True)
    """
    if inputs.population is None or inputs.kind is not NoiseKind.DISTRIBUTED or inputs.cohort is not None:
        return inputs
    if inputs.sampling is Sampling.FIXED:
        cohort = fixed_cohort(population=inputs.population, size=inputs.clients)
    else:
        cohort = poisson_cohort(population=inputs.population, expected=inputs.clients, rounds=inputs.rounds,
                                delta=inputs.delta)
    cohort = replace(cohort, dropout=inputs.dropout)
    fewest = survivors_under(cohort.low, inputs.dropout)
    return replace(inputs, clients=cohort.high, dropout=1 - Fraction(fewest, cohort.high), cohort=cohort)


def mechanism_of(inputs: NoiseInputs) -> Mechanism:
    """The mechanism (``dgauss`` when the file leaves it to the plan and none was picked yet)."""
    return Mechanism(inputs.mechanism or DEFAULT)


def room_of(inputs: NoiseInputs) -> NoiseMechanism:
    """The registered mechanism that answers for :func:`mechanism_of` (:mod:`itsa.planning.mechanisms`)."""
    return mechanism(mechanism_of(inputs))


def sensitivity(inputs: NoiseInputs, gamma: Fraction) -> flint.arb:
    """The integer sum's l2 sensitivity at scale ``γ``: the privacy part's, in the rotated dimension ``d'``,
    with the encoding's rounding (tight for rounding to nearest) and ``β``."""
    return sensitivity_ball(gamma=gamma, clip=inputs.clip,
                            dimension=rotated_dimension(inputs.dimension, inputs.rotation),
                            adjacency=inputs.adjacency, rounding=inputs.rounding,
                            tight=inputs.rounding is Rounding.NEAREST, beta=inputs.beta)


def sensitivity_text(inputs: NoiseInputs) -> str:
    """How :func:`sensitivity` is bounded, in words."""
    e = inputs
    d_rot = rotated_dimension(inputs.dimension, e.rotation)
    where = "" if d_rot == inputs.dimension else f" in the rotated dimension d' = {d_rot}"
    how = {Rounding.NEAREST: "min(gamma S + sqrt(d)/2, 2 gamma S), rounding to nearest",
           Rounding.STOCHASTIC: "gamma S + sqrt(d), stochastic rounding",
           Rounding.CONDITIONAL: f"min(gamma S + sqrt(d), sqrt(gamma^2 S^2 + d/4 + sqrt(2 ln(1/beta)) (gamma S + "
                                 f"sqrt(d)/2))), conditional rounding at beta = {e.beta} (retried: holds surely)"}
    return "factor x " + how[e.rounding] + where


def noise_dimension(inputs: NoiseInputs) -> int:
    """The dimension the noise is added in: the rotated one ``d'`` (the update's after its rotation)."""
    return rotated_dimension(inputs.dimension, inputs.rotation)


#: The largest mismatch per round composed as a Bin(T, q) mixture (its terms grow with it; beyond, the worst case).
MIXTURE_MOST = Fraction(1, 100)
#: The share of δ the coupled shift's failure may take over the rounds (``T p = δ/COUPLED_SHARE``).
COUPLED_SHARE = 1000


def coupled(inputs: NoiseInputs, gamma: Fraction | None, rounds: int) -> CoupledShift | None:
    """Randomized rounding's coupled shift at scale ``gamma``: stochastic rounding's
    (:func:`itsa.privacy.coupled.coupled_shift`: ``D = c γ S``, failure ``p = δ/(1000 T)`` per round), or
    conditional rounding's (:func:`itsa.privacy.coupled.conditional_shift`) where its mismatch ``q`` is at most
    ``2p`` (a ``β`` small enough, :func:`coupling_beta`), or up to :data:`MIXTURE_MOST` with the mismatch
    kept apart (``mixture``: the rounds compose as a Bin(T, q) mixture with the worst case, a named ``β``); at a
    larger ``β`` the worst case stands; ``None``
    for rounding to nearest, a layering or no γ."""
    if gamma is None or inputs.rounding is Rounding.NEAREST or inputs.layered:
        return None
    c = 2 if inputs.adjacency is Adjacency.REPLACE_ONE else 1
    p = inputs.delta / (COUPLED_SHARE * rounds)
    if inputs.rounding is Rounding.CONDITIONAL:
        shift = conditional_shift(gamma=gamma, clip=inputs.clip, dimension=noise_dimension(inputs),
                                  beta=inputs.beta, adjacency=inputs.adjacency, failure=p)
        if shift.mismatch <= 2 * p:
            return shift
        if shift.mismatch <= MIXTURE_MOST and shift.failure < 1:       # the mismatch composed as a mixture
            return replace(shift, failure=shift.failure - shift.mismatch, mixture=True)
        return None
    return coupled_shift(difference=c * gamma * inputs.clip, dimension=noise_dimension(inputs), failure=p)


#: How a plan's ``β`` of conditional rounding is chosen when the file names none (:func:`coupling_beta`).
BETA_CHOSEN = ("chosen, no beta in the file: the largest exp(-lambda), lambda whole, whose coupling mismatch "
               "2 beta/(1 - beta) (beta for add-remove) is at most the coupled shift's failure delta/(1000 T) "
               "per round; a smaller beta lowers the error (fewer retries, less bias) and costs the coupled "
               "sensitivity nothing")


def coupling_beta(inputs: NoiseInputs) -> ExpBeta:
    """The ``β`` a plan gives conditional rounding when the file names none: ``exp(−λ)``, the smallest whole
    ``λ`` at which the coupling's mismatch (``2β/(1 − β)`` replace-one, ``β`` add-remove, ``β`` at its rational
    upper bound) is at most the coupled shift's failure ``p = δ/(1000 T)`` per round (:func:`coupled` takes
    the coupling up to ``2p``, room for the rejection bound's margin).

    A smaller ``β`` only lowers the error (fewer retries: a smaller second moment and bias) and the coupling's
    failure; it raises the cap ``√(2 ln(1/β))``-slowly, which the coupled shift does not use. At this ``β``
    the mismatch costs at most as much δ as the coupled shift's failure.

    >>> n = NoiseInputs(clients=10, dimension=4, clip=Fraction(1), epsilon=Fraction(8), delta=Fraction(1, 10**7),
    ...                 rounds=2000, rounding=Rounding.CONDITIONAL)
    >>> str(coupling_beta(n))
    'exp(-32)'
    """
    p = inputs.delta / (COUPLED_SHARE * inputs.rounds)
    replace_one = inputs.adjacency is Adjacency.REPLACE_ONE
    lam = max(1, math.floor(math.log(p.denominator) - math.log(p.numerator)))      # ln(1/p), p past a float too
    while True:
        r = ExpBeta(Fraction(lam)).upper()
        if (2 * r / (1 - r) if replace_one else r) <= p:
            return ExpBeta(Fraction(lam))
        lam += 1


def estimate_sensitivity(inputs: NoiseInputs, gamma: Fraction) -> flint.arb:
    """The sensitivity the searches estimate the noise from: :func:`sensitivity`, or stochastic rounding's
    coupled shift (:func:`coupled`) where smaller (an estimate only: each plan is certified afterwards)."""
    worst = sensitivity(inputs, gamma)
    shift = coupled(inputs, gamma, inputs.rounds)
    return worst if shift is None or not shift.norm.arb() < worst else shift.norm.arb()


def round_event(inputs: NoiseInputs, delta_int, *, layered: bool = False) -> Callable[[Fraction], Event]:
    """One round's event as a function of the share's ``σ`` (a layering keeps the linear conservative bound
    its layers compose with)."""
    central = inputs.kind is NoiseKind.CENTRAL
    n = noise_shares(inputs.clients, inputs.dropout, distributed=not central).privacy       # 1 central
    d_rot = inputs.dimension if layered else rotated_dimension(inputs.dimension, inputs.rotation)
    room = room_of(inputs)

    def event(sigma: Fraction) -> Event:
        return room.event(sigma, survivors=n, sensitivity=delta_int, dimension=d_rot, central=central,
                          layered=layered)
    return event


@functools.lru_cache(maxsize=64)
def gaussian_multiplier(epsilon: Fraction, delta: Fraction, rounds: int) -> Fraction:
    """The Gaussian mechanism's calibrated multiplier (``cks``, rounded up to 6 digits) at the targets."""
    return calibrate(epsilon, delta, rounds=rounds, conversion="cks",
                     relative_tolerance=Fraction(1, 10**6)).noise_multiplier.upper()


def gaussian_floor(inputs: NoiseInputs, delta_int, *, exact: bool = False) -> Fraction:
    """A share ``σ`` below which no mechanism meets the target ε by its Rényi bound: the Gaussian's calibrated
    multiplier (lowered by one part in 10⁴, below its printed rounding up) times ``Δ``, per share; ``exact``:
    by any bound at least the exact Gaussian curve's (the continuous Gaussian's exact multiplier,
    :func:`gaussian_limit`'s); ``0`` for a mechanism that does not hold the premise (its Rényi bound at least
    the Gaussian's)."""
    p = inputs
    if not room_of(inputs).premises.rdp_at_least_gaussian:
        return Fraction(0)
    z = (limit_multiplier(p.epsilon, p.delta, p.rounds) if exact else
         gaussian_multiplier(p.epsilon, p.delta, p.rounds)) * Fraction(9999, 10000)
    delta = Certified.from_arb("sensitivity", to_arb(delta_int), Direction.LOWER, "").lower()
    share = z * delta
    if inputs.kind is NoiseKind.DISTRIBUTED:
        with precision():
            root = flint.arb(noise_shares(inputs.clients, inputs.dropout).privacy).sqrt()
        share = share / Certified.from_arb("root", root, Direction.UPPER, "").upper()
    return share


def describe(inputs: NoiseInputs) -> str:
    """The mechanism in words, as the noise section names it."""
    return room_of(inputs).describe(central=inputs.kind is NoiseKind.CENTRAL)


def sampled_limit(inputs: NoiseInputs) -> tuple[Fraction, Fraction]:
    """``(z, MSE)`` of a sampled cohort's limit: the Poisson-sampled continuous Gaussian at the cohort's rate
    ``K/N`` (sensitivity ``c S``), ``z`` the largest multiplier (bisected in ``ln z``) whose certified lower
    bound on ε (:func:`itsa.privacy.sampled_pair.sampled_gaussian_epsilon`, its lower side) is above the target:
    every ``z`` at or below it misses the target, so ``z`` and the MSE ``d (z c S/K_eff)²`` are lower bounds on
    the limit's (0 where no such ``z`` is found)."""
    assert inputs.cohort is not None and inputs.epsilon is not None
    rate = Fraction(inputs.cohort.expected, inputs.cohort.population)
    z = _sampled_multiplier(rate, inputs.rounds, inputs.epsilon, inputs.delta)
    c = 2 if inputs.adjacency is Adjacency.REPLACE_ONE else 1
    return z, inputs.dimension * (z * c * inputs.clip / inputs.survivors) ** 2


#: Steps of the bisection of :func:`sampled_limit` (each one grid's lower side).
LIMIT_STEPS = 11


@functools.lru_cache(maxsize=32)
def _sampled_multiplier(rate: Fraction, rounds: int, epsilon: Fraction, delta: Fraction) -> Fraction:
    def misses(z: Fraction) -> bool:
        found = sampled_gaussian_epsilon(mu=1 / z, rate=rate, rounds=rounds, delta=delta, side="lower")
        return found is not None and found.lower() > epsilon

    high = limit_multiplier(epsilon, delta, rounds) * 2       # at or above the unsampled limit: sampling never hurts
    low = high / 2**14
    if not misses(low):
        return Fraction(0)
    for _ in range(LIMIT_STEPS):
        mid = Fraction(safe_decimal(Fraction(math.sqrt(low * high)), 8))
        if not low < mid < high:
            break
        low, high = (mid, high) if misses(mid) else (low, mid)
    return low


def gaussian_limit(inputs: NoiseInputs) -> tuple[Fraction, Fraction]:
    """``(z, MSE)``: the continuous Gaussian mechanism calibrated by its exact privacy curve to the targets
    (:func:`~itsa.privacy.tight.gaussian_exact_multiplier`: ``T`` rounds at ``μ = √T/z``, Balle-Wang 2018)
    and its error summed over the ``d`` coordinates, ``d (z c S/K_eff)²`` (sensitivity ``c S``, ``c`` 2 for
    replace-one and 1 for add-remove, over the fewest survivors; no rounding). ``z`` is the enclosure's lower
    end, so the MSE is a lower bound on the limit (within ``2^−50`` of it) and a ratio to it an upper bound."""
    z = limit_multiplier(inputs.epsilon, inputs.delta, inputs.rounds)
    c = 2 if inputs.adjacency is Adjacency.REPLACE_ONE else 1
    return z, inputs.dimension * (z * c * inputs.clip / inputs.survivors) ** 2


@functools.lru_cache(maxsize=64)
def limit_multiplier(epsilon: Fraction, delta: Fraction, rounds: int) -> Fraction:
    """The continuous Gaussian's exact multiplier at the targets, the enclosure's lower end
    (:func:`~itsa.privacy.tight.gaussian_exact_multiplier`): no mechanism needs less by any certified bound,
    so the searches estimate the noise from it."""
    return gaussian_exact_multiplier(epsilon, delta, rounds).lower()
