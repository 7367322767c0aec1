"""The noise of a plan: the privacy part's accountant applied to one deployment (no second copy of it).

Updates are encoded as ``round(γ x)``; an update of ``ℓ2`` norm at most ``S``
then has an integer vector of norm at most ``γ S + √d/2`` (each coordinate
moves by at most 1/2). The integer sensitivity ``Δ`` is that bound for
``add-remove`` and twice it for ``replace-one``.

- ``distributed``: each of the ``K_eff = ⌈(1 − dropout) K⌉`` surviving clients
  adds a discrete Gaussian share of scale ``σ_client`` per coordinate; one
  round costs the distributed discrete Gaussian bound with its τ term
  (:class:`itsa.privacy.DistributedDiscreteGaussianEvent`, its conservative form,
  on the integer lattice): ``ε(q) ≤ q Δ²/(2 K_eff σ_client²) + q τ d``.
- ``central``: one discrete Gaussian of scale σ is added to the sum:
  ``ε(q) ≤ q Δ²/(2 σ²)`` (:class:`itsa.privacy.DiscreteGaussianEvent`).

The privacy part's :class:`~itsa.privacy.Accountant` composes the rounds (RDP
adds) and converts (``cks``) to ε at δ; a missing σ is calibrated
(:func:`itsa.privacy.calibrate`) to the target ε. The sensitivity is the
privacy part's (:func:`itsa.privacy.neighbours.sensitivity_ball`).

Every function here takes the numbers it needs as a
:class:`~itsa.planning.mechanism.NoiseInputs` (the planner builds it once from
a deployment), never the deployment itself.

Examples
--------
>>> from fractions import Fraction
>>> inputs = NoiseInputs(clients=10, dimension=4, clip=Fraction(1), kind=NoiseKind.CENTRAL, epsilon=Fraction(2),
...                      delta=Fraction(1, 10**6))
>>> n = size_noise(inputs, Fraction(8))
>>> n.epsilon.upper() <= 2, n.chosen.startswith('calibrated: the smallest sigma whose certified epsilon meets the target')
(True, True)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.planning.mechanism import (
    NoiseInputs,
    coupled,
    describe,
    gaussian_floor,
    noise_dimension,
    room_of,
    sensitivity_text,
)
from itsa.planning.mechanism import round_event as event_for
from itsa.planning.mechanism import sensitivity as encoded
from itsa.planning.vocabulary import NoiseKind
from itsa.privacy.accounting import Accountant
from itsa.privacy.calibration import calibrate
from itsa.privacy.conversion import EpsilonBound
from itsa.privacy.events import Event, PsaLayersEvent
from itsa.privacy.neighbours import Adjacency
from itsa.privacy.neighbours import layer_sensitivity as privacy_layer_sensitivity
from itsa.privacy.sampled_cohort import CohortEvent
from itsa.privacy.shares import noise_shares
from itsa.privacy.subsampled import PoissonSampledEvent
from itsa.privacy.tightest import calibrate_tightest, pld_epsilon

__all__ = ["NoiseInputs", "NoisePlan", "size_noise", "size_layered_noise", "layer_sensitivity", "sensitivity", "epsilon_at",
           "calibrated_sigma", "round_event", "full_round", "rdp_bound", "tightest", "FULL_ROUND", "CALIBRATION_TOLERANCE"]

#: Relative width to which σ is calibrated (then rounded up to 6 digits and certified there).
CALIBRATION_TOLERANCE = Fraction(1, 10**6)


def sampling_rate(inputs: NoiseInputs) -> Fraction | None:
    """``K/N``, the probability each of the population's clients is in a round (``None``: no population)."""
    return None if inputs.population is None else Fraction(inputs.clients, inputs.population)


def sampled(inputs: NoiseInputs, make: Callable[[Fraction], Event]) -> Callable[[Fraction], Event]:
    """One round's event maker, run on the population's Poisson sample when there is one (distributed shares:
    on the inputs' sampled cohort, :class:`~itsa.privacy.sampled_cohort.CohortEvent`)."""
    if inputs.cohort is not None:
        cohort = inputs.cohort

        def on_cohort(sigma: Fraction) -> Event:
            return CohortEvent(event=make(sigma), cohort=cohort)
        return on_cohort
    rate = sampling_rate(inputs)
    if rate is None or rate == 1:
        return make

    def on_sample(sigma: Fraction) -> Event:
        return PoissonSampledEvent(event=make(sigma), rate=rate)
    return on_sample


#: What the full round's bound says when it bounds a Poisson-sampled round (:func:`full_round`).
FULL_ROUND = ("the full (unsampled) round's bound, which holds for its Poisson sample too (add-remove, noise "
              "added once whatever the sample's size: sampling never hurts): ")


def full_round(inputs: NoiseInputs, event: Event) -> tuple[NoiseInputs, Event] | None:
    """The full round behind a Poisson-sampled one, where its bounds hold for the sampled round too.

    With add-remove neighbours and noise added once to the sum (its law independent of the sample), the
    sampled round on ``D`` and on ``D ∪ {x}`` is a mixture over the sample ``S`` of ``Q_S`` (the round on
    ``S``) and of ``q P_S + (1 − q) Q_S`` (``P_S``: ``Q_S`` shifted by ``x``'s encoded update). Every
    hockey-stick divergence ``H_a`` (``a ≥ 0``) is jointly convex, and ``H_a(Q‖Q) = max(0, 1 − a) ≤
    H_a(P‖Q)``, so ``H_a(q P + (1 − q) Q ‖ Q) ≤ q H_a(P‖Q) + (1 − q) H_a(Q‖Q) ≤ H_a(P‖Q)`` and, by the same
    convexity, ``H_a(Q ‖ q P + (1 − q) Q) ≤ H_a(Q‖P)``; averaging over ``S`` keeps both. The full round's
    dominating pair (any shift of norm at most the sensitivity) therefore dominates the sampled round in both
    directions, and its composed privacy-loss bound holds for the sampled rounds; so does its Rényi curve
    (``∫ P^α Q^(1−α)`` is an f-divergence, jointly convex, equal to 1 at ``P = Q``). Distributed shares are
    not covered (their sum's law depends on the sample's size); the deployment allows a population with
    central noise only.

    Returns
    -------
    tuple or None
        The inputs without the population and the full round's event; ``None`` where ``event`` is not a
        Poisson-sampled round of central noise.
    """
    if event.sampled_from is None or inputs.kind is not NoiseKind.CENTRAL:
        return None
    return replace(inputs, population=None), event.sampled_from


def rdp_bound(inputs: NoiseInputs, event: Event, rounds: int | None = None) -> EpsilonBound:
    """The Rényi accountant's ε of ``rounds`` (default: the inputs') rounds of ``event``; for a
    Poisson-sampled round of central noise, the smaller of its own and its full round's (:func:`full_round`),
    whose method then says so."""
    t = inputs.rounds if rounds is None else rounds
    bound = Accountant().compose(event, t).bound(inputs.delta)
    full = full_round(inputs, event)
    if full is None:
        return bound
    other = Accountant().compose(full[1], t).bound(inputs.delta)
    if other.epsilon.upper() >= bound.epsilon.upper():
        return bound
    return replace(other, epsilon=replace(other.epsilon, method=f"{FULL_ROUND}{other.epsilon.method}"))


def sensitivity(inputs: NoiseInputs, gamma: Fraction) -> flint.arb:
    """``Δ = c (γ S + √d/2)``, ``c = 2`` for replace-one and 1 for add-remove (integer units, a ball).

    The privacy part's :func:`~itsa.privacy.neighbours.sensitivity_ball` at the inputs' clip,
    dimension and adjacency (:func:`itsa.planning.mechanism.sensitivity`).
    """
    return encoded(inputs, gamma)


def _curve_for(inputs: NoiseInputs, delta_int: flint.arb, layered: bool = False):
    """One round's privacy event as a function of the noise scale (:func:`itsa.planning.mechanism.round_event`),
    on the population's Poisson sample when there is one (:func:`sampled`)."""
    return sampled(inputs, event_for(inputs, delta_int, layered=layered))


def round_event(inputs: NoiseInputs, gamma: Fraction, sigma: Fraction) -> Event:
    """One round's privacy event as the plan accounts it at scale γ and noise σ (its noise section composes
    it over the rounds): a flat word's :func:`epsilon_at` event, or a layering's ``L`` layers
    (:func:`size_layered_noise`)."""
    if inputs.radix is not None and inputs.layers is not None:
        one = _curve_for(inputs, layer_sensitivity(inputs, inputs.radix), layered=True)
        return PsaLayersEvent(layers={1: one(sigma)}, copies=inputs.layers)
    return _curve_for(inputs, sensitivity(inputs, gamma))(sigma)


def epsilon_at(inputs: NoiseInputs, gamma: Fraction, sigma: Fraction):
    """The certified ε (an :class:`~itsa.privacy.EpsilonBound`) at scale γ and noise σ (:func:`rdp_bound`)."""
    return rdp_bound(inputs, _curve_for(inputs, sensitivity(inputs, gamma))(sigma))


@dataclass(frozen=True, kw_only=True, repr=False)
class NoisePlan(Displayable):
    """The noise: σ per client and of the sum (integer units), the multiplier, the certified ε and its method."""

    kind: NoiseKind
    adjacency: Adjacency
    survivors: int
    sensitivity: Certified
    sigma_client: Fraction
    sigma_aggregate: Certified
    noise_multiplier: Certified
    epsilon: Certified
    delta: Fraction
    rounds: int
    target_epsilon: Fraction | None
    chosen: str
    warnings: tuple[str, ...] = ()
    unit: str = "integer units"
    #: the bracket, per-round epsilon, rounds affordable and population (:mod:`itsa.planning.accounting`)
    accounting: Displayable | None = None
    #: the mechanism in words (:func:`itsa.planning.mechanism.describe`)
    mechanism: str = "discrete Gaussian"

    @property
    def meets_target(self) -> bool:
        return self.target_epsilon is None or self.epsilon.upper() <= self.target_epsilon

    def headline(self) -> str:
        return (f"{self.kind} {self.mechanism}, sigma per client {safe_decimal(self.sigma_client, 6)}: "
                f"eps <= {self.epsilon.decimal()} at delta {safe_decimal(self.delta, 4)} over {self.rounds} rounds")

    def rows(self) -> list[tuple[str, str]]:
        who = "per client" if self.kind is NoiseKind.DISTRIBUTED else "added once"
        return [("noise", f"{self.kind} {self.mechanism} ({who}); {self.chosen}"),
                ("sensitivity", f"{self.sensitivity.decimal(6)} {self.unit}, {self.adjacency} (upper bound)"),
                ("sigma per client" if self.kind is NoiseKind.DISTRIBUTED else "sigma",
                 f"{safe_decimal(self.sigma_client, 8)} {self.unit} (exact, as used)"),
                ("sigma of the sum", f"{self.sigma_aggregate.decimal(6)} {self.unit} for the fewest "
                                     f"{self.survivors} survivors ({self.sigma_aggregate.direction})"),
                ("noise multiplier", f"{self.noise_multiplier.decimal(6)} = sigma of the sum / sensitivity, the "
                                     f"worst-case shift ({self.noise_multiplier.direction})"
                                     + ("" if getattr(self.accounting, "certified_shift", None) is None else
                                        "; the epsilon is certified at the smaller certified shift (below)")),
                ("epsilon", f"{self.epsilon.decimal(6)} ({self.epsilon.direction}) at delta "
                            f"{safe_decimal(self.delta, 6)} over {self.rounds} rounds"),
                ("epsilon method", str(self.epsilon.method))] + (
            [] if self.accounting is None else self.accounting.rows()) + [("warning", w) for w in self.warnings]

    def to_dict(self) -> dict:
        return {"kind": str(self.kind), "adjacency": str(self.adjacency), "survivors": self.survivors,
                "sensitivity": self.sensitivity.to_dict(), "sigma_client": frac(self.sigma_client),
                "sigma_aggregate": self.sigma_aggregate.to_dict(), "noise_multiplier": self.noise_multiplier.to_dict(),
                "epsilon": self.epsilon.to_dict(), "delta": frac(self.delta), "rounds": self.rounds,
                "target_epsilon": frac(self.target_epsilon), "meets_target": self.meets_target, "chosen": self.chosen,
                "warnings": list(self.warnings), "unit": self.unit, "mechanism": self.mechanism,
                **({} if self.accounting is None else self.accounting.to_dict())}


def calibrated_sigma(inputs: NoiseInputs, gamma: Fraction, progress=None) -> Fraction:
    """The smallest σ (to :data:`CALIBRATION_TOLERANCE`, rounded up, certified) meeting the target ε at γ.

    Remembered for the last :data:`REMEMBERED` questions (the inputs and γ: nothing else enters), so that
    plans differing only in their word, as a sweep of ``word_bits`` makes, calibrate each γ once.
    """
    if progress is not None:
        delta_int = sensitivity(inputs, gamma)
        return _calibrate(inputs, _curve_for(inputs, delta_int), progress, delta_int, gamma)
    return _remembered(inputs, Fraction(gamma))


#: How many calibrations :func:`calibrated_sigma` remembers.
REMEMBERED = 256


@functools.lru_cache(maxsize=REMEMBERED)
def _remembered(inputs: NoiseInputs, gamma: Fraction) -> Fraction:
    delta_int = sensitivity(inputs, gamma)
    return _calibrate(inputs, _curve_for(inputs, delta_int), delta_int=delta_int, gamma=gamma)


def _calibrate(inputs: NoiseInputs, curve_for, progress=None, delta_int=None, gamma=None) -> Fraction:
    """The calibrated σ; with a population, the smaller of the sampled round's (its Rényi calibration, then its
    privacy-loss bound below it: :func:`_calibrate_one`) and, for central noise, the full round's (whose bounds
    hold for the sampled round, :func:`full_round`): the first whose certified ε meets the target, as
    :func:`rdp_bound` or the accounting (:mod:`itsa.planning.accounting`) counts it."""
    sigma = _calibrate_one(inputs, curve_for, progress, delta_int, gamma)
    if full_round(inputs, curve_for(sigma)) is None:
        return sigma
    full = replace(inputs, population=None)
    try:
        other = _calibrate_one(full, _full_curve(curve_for), progress, delta_int, gamma)
    except InvalidOption:           # no full-round σ in the calibrated range: the sampled one stands
        return sigma
    return min(sigma, other)


def _full_curve(curve_for: Callable[[Fraction], Event]) -> Callable[[Fraction], Event]:
    """The full round's event maker behind a sampled one's."""
    def full(sigma: Fraction) -> Event:
        event = curve_for(sigma)
        return event if event.sampled_from is None else event.sampled_from
    return full


def _calibrate_one(inputs: NoiseInputs, curve_for, progress=None, delta_int=None, gamma=None) -> Fraction:
    room_floor = room_of(inputs).minimum_share if inputs.kind is NoiseKind.DISTRIBUTED else None
    floor = room_floor
    if delta_int is not None and inputs.population is None:     # a flat word: from the Gaussian's, a lower bound
        floor = max(floor or Fraction(0), gaussian_floor(inputs, delta_int)) or None
    cal = calibrate(inputs.epsilon, inputs.delta, rounds=inputs.rounds, conversion="cks", event_for=curve_for,
                    minimum_scale=floor, relative_tolerance=CALIBRATION_TOLERANCE, progress=progress)
    renyi = cal.noise_multiplier.upper()
    assert inputs.epsilon is not None           # calibrate refuses no target
    low = renyi / 2
    if delta_int is not None:
        low = gaussian_floor(inputs, delta_int, exact=True) or low      # 0: the room holds no Gaussian premise
    if room_floor is not None:
        low = max(low, room_floor)
    return calibrate_tightest(curve_for, epsilon=inputs.epsilon, delta=inputs.delta, rounds=inputs.rounds,
                              high=renyi, low=low, dimension=noise_dimension(inputs),
                              relative_tolerance=CALIBRATION_TOLERANCE, shift=coupled(inputs, gamma, inputs.rounds),
                              interpolate=sampling_rate(inputs) not in (None, 1))


def tightest(inputs: NoiseInputs, event: Event, rounds: int | None = None,
             gamma: Fraction | None = None) -> Certified | None:
    """The privacy-loss-distribution bound of ``rounds`` (default: the inputs') rounds of ``event`` where
    one applies (:func:`itsa.privacy.tightest.pld_epsilon`, in the noise's dimension), else ``None``; at
    scale ``gamma``, stochastic rounding's shift coupled (:func:`coupled`)."""
    t = inputs.rounds if rounds is None else rounds
    return pld_epsilon(event, rounds=t, delta=inputs.delta, dimension=noise_dimension(inputs),
                       shift=coupled(inputs, gamma, t))


CALIBRATED = "calibrated: the smallest sigma whose certified epsilon meets the target"
#: Which bound the calibration met the target with.
ON_PLD = ("; on the privacy-loss-distribution bound (tighter than the Renyi bound, the fallback where no such "
          "bound applies)")
ON_RENYI = "; on the Renyi bound (no privacy-loss-distribution bound meets the target at a smaller sigma here)"


def _calibrated_on(inputs: NoiseInputs, renyi: EpsilonBound) -> str:
    """What the calibrated σ's line says: which bound met the target there."""
    target = inputs.epsilon
    return CALIBRATED + (ON_PLD if target is not None and renyi.epsilon.upper() > target else ON_RENYI)


def size_noise(inputs: NoiseInputs, gamma: Fraction, sigma: Fraction | None = None,
               progress=None) -> NoisePlan:
    """The noise section at scale ``gamma``: the file's σ, the given ``sigma``, or σ calibrated to the target."""
    delta_int = sensitivity(inputs, gamma)
    return _noise_plan(inputs, delta_int, _curve_for(inputs, delta_int), sigma, progress,
                       sensitivity_text(inputs))


def layer_sensitivity(inputs: NoiseInputs, radix: int) -> flint.arb:
    """A full-range layer's sensitivity in its digit units: ``(ρ − 1) √d`` (PSA eq. 28; half for add-remove)."""
    return privacy_layer_sensitivity(radix=radix, dimension=inputs.dimension, adjacency=inputs.adjacency)


def size_layered_noise(inputs: NoiseInputs, radix: int, layers: int, progress=None) -> NoisePlan:
    """The noise of a PSA layering: every layer gets shares of the same scaled scale ``s~`` (digit units),
    and a server authorized for the finest resolution sees all ``L`` layers (PSA Theorem 3)."""
    delta_layer = layer_sensitivity(inputs, radix)
    one = _curve_for(inputs, delta_layer, layered=True)

    def all_layers(sigma: Fraction) -> Event:
        return PsaLayersEvent(layers={1: one(sigma)}, copies=layers)
    return _noise_plan(inputs, delta_layer, all_layers, None, progress,
                       f"(rho - 1) sqrt(d) per layer in its digit units (PSA eq. 28, full-range digits); "
                       f"{layers} layers composed (PSA Theorem 3)", unit="digit units of each layer")


def _noise_plan(inputs: NoiseInputs, delta_int: flint.arb, curve_for, sigma: Fraction | None, progress,
                how_sensitivity: str, unit: str = "integer units") -> NoisePlan:
    given = inputs.sigma
    chosen = "given in the deployment file"
    if sigma is None and given is not None:
        sigma = given
    elif sigma is None:
        sigma = _calibrate(inputs, curve_for, progress)
    bound = rdp_bound(inputs, curve_for(sigma))
    if given is None:
        chosen = _calibrated_on(inputs, bound)
    central = inputs.kind is NoiseKind.CENTRAL
    shares = noise_shares(inputs.clients, inputs.dropout, distributed=not central).privacy   # 1 central
    with precision():
        aggregate = to_arb(sigma) if central else to_arb(sigma) * flint.arb(shares).sqrt()
        multiplier = aggregate / delta_int
    how = "sigma" if central else f"sigma per client x sqrt({shares})"
    return NoisePlan(kind=inputs.kind, adjacency=inputs.adjacency, survivors=inputs.survivors,
                     mechanism="discrete Gaussian" if unit != "integer units" else describe(inputs),
                     sensitivity=Certified.from_arb("sensitivity", delta_int, Direction.UPPER, how_sensitivity),
                     sigma_client=sigma,
                     sigma_aggregate=Certified.exact("sigma_aggregate", sigma, how) if central else
                     Certified.from_arb("sigma_aggregate", aggregate, Direction.ENCLOSURE, how),
                     noise_multiplier=Certified.from_arb("noise_multiplier", multiplier, Direction.ENCLOSURE,
                                                         "sigma of the sum / sensitivity"),
                     epsilon=bound.epsilon, delta=inputs.delta, rounds=inputs.rounds,
                     target_epsilon=inputs.epsilon, chosen=chosen, warnings=bound.curve.warnings, unit=unit)
