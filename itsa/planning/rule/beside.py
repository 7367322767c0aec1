"""The k-standard-deviations rule beside a plan, fairly, and the rule made honest.

:func:`beside_plan` hands the rule (:mod:`itsa.planning.rule.heuristic`) the plan's
noise in the rule's own units (the distributed-DP aggregator's
``noise_multiplier``: the central σ in data units over the clip,
:data:`itsa.planning.frameworks_units.RULE_UNITS`), scores its pick with its own
rotation and stochastic rounding, the deployment's adjacency and the fewest
survivors, and puts its refusals on the plan's line. :class:`HonestRule`
keeps the rule's scale and raises its noise until it meets the same certified
ε and wrap target as the plan: the error of that configuration is what the
rule would cost if it were made safe, and the plan's own error is never above
it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from itsa._util.certified import Certified, Direction, exact_text, safe_decimal
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.planning.frameworks_units import (
    RULE_MAX_BITS,
    RULE_UNITS,
    RULE_UNITS_KEY,
    rule_extrapolated,
    rule_noise_multiplier,
)
from itsa.planning.mechanism import NoiseInputs
from itsa.planning.noise import round_event
from itsa.planning.rotation import FLATNESS, SHORT_NAMES
from itsa.planning.rule.heuristic import (
    MAX_RULE_WORD_BITS,
    HeuristicConfig,
    HeuristicRisk,
    _dec,
    certify_heuristic,
    integer_sensitivity,
    k_stddevs_rule,
    wrap_bound,
)
from itsa.planning.vocabulary import NoiseKind
from itsa.privacy.accounting import Accountant
from itsa.privacy.calibration import calibrate
from itsa.privacy.events import DdgBound, DistributedDiscreteGaussianEvent
from itsa.privacy.neighbours import Adjacency
from itsa.privacy.tightest import calibrate_tightest, pld_epsilon

__all__ = ["RuleBeside", "HonestRule", "beside_plan", "size_heuristic"]


# -- the rule beside a plan, and the rule made honest --------------------------------------------

@dataclass(frozen=True, kw_only=True, repr=False)
class HonestRule(Displayable):
    """The rule's scale with its noise raised to meet the plan's certified ε and wrap target, and its error.

    ``mse_total`` is ``None`` when no such configuration exists (``reason`` says why).
    """

    sigma: Fraction | None
    epsilon: Certified | None
    wrap: Certified | None
    mse_total: Certified | None
    reason: str | None = None

    def headline(self) -> str:
        if self.mse_total is None:
            return f"the honest rule: none ({self.reason})"
        return f"the honest rule: MSE <= {self.mse_total.decimal(6)}"

    def rows(self) -> list[tuple[str, str]]:
        if self.mse_total is None or self.sigma is None or self.epsilon is None or self.wrap is None:
            return [("honest rule", f"none: {self.reason}")]
        return [("honest rule", f"the rule's scale, sigma per client raised to {_dec(self.sigma)} integer units: "
                                f"eps <= {self.epsilon.decimal(6)}, wrap <= {self.wrap.decimal(3)}; MSE of the "
                                f"released mean <= {self.mse_total.decimal(6)} summed over the coordinates "
                                "(upper bound)")]

    def to_dict(self) -> dict:
        return {"sigma_client": None if self.sigma is None else exact_text(self.sigma),
                "epsilon": None if self.epsilon is None else self.epsilon.to_dict(),
                "wrap_probability": None if self.wrap is None else self.wrap.to_dict(),
                "mse_total": None if self.mse_total is None else self.mse_total.to_dict(), "reason": self.reason}


@dataclass(frozen=True, kw_only=True, repr=False)
class RuleBeside(Displayable):
    """The k-standard-deviations rule beside a plan: handed the plan's noise in the rule's units, scored with its own
    rotation and stochastic rounding and the deployment's adjacency and survivors, and made honest."""

    noise_multiplier: Certified
    risk: HeuristicRisk | None
    mse_total: Certified | None
    honest: HonestRule
    reason: str | None = None

    @property
    def config(self) -> HeuristicConfig | None:
        return None if self.risk is None else self.risk.config

    @property
    def epsilon(self) -> Certified | None:
        return None if self.risk is None else self.risk.epsilon

    @property
    def wrap_probability(self) -> Certified | None:
        return None if self.risk is None else self.risk.wrap_round

    def _refusal(self) -> str | None:
        c = self.config
        if c is None:
            return self.reason
        if c.refusal:
            return f"the rule picks nothing: {c.refusal}"
        if c.word_bits > RULE_MAX_BITS:
            return rule_extrapolated(c.word_bits)
        return None

    def headline(self) -> str:
        eps = "none" if self.epsilon is None else self.epsilon.decimal()
        return f"the k-standard-deviations rule: eps <= {eps}; {self.honest.headline()}"

    def rows(self) -> list[tuple[str, str]]:
        z = f"{self.noise_multiplier.decimal(6)} ({RULE_UNITS})"
        rows = [("heuristic noise multiplier", z)]
        refusal = self._refusal()
        if refusal:
            rows.append(("heuristic refuses", refusal))
        c, r = self.config, self.risk
        if c is not None and c.gamma is not None and r is not None and r.wrap_round is not None:
            eps = "none certified" if r.epsilon is None else f"{r.epsilon.decimal(6)} ({r.epsilon.direction})"
            rows += [("heuristic scale", f"{safe_decimal(c.gamma, 8)} (the rule's choice, k = "
                                         f"{safe_decimal(c.k_stddevs, 4)}, {SHORT_NAMES[c.rotation]} rotation, stochastic rounding)"),
                     ("heuristic sigma per client", f"{safe_decimal(Fraction(c.sigma or 0), 8)} integer units "
                                                    "(the rule's choice)"),
                     ("heuristic epsilon", f"{eps}, itsa's accountant, {r.adjacency}, the fewest {r.survivors} "
                                           "survivors"),
                     ("heuristic wrap probability", f"{r.wrap_round.decimal(6)} per round ({r.wrap_round.direction}, "
                                                    "over the rotation's random signs)")]
            if self.mse_total is not None:
                rows.append(("heuristic error", f"MSE <= {self.mse_total.decimal(6)} summed over the coordinates "
                                                "(upper bound)"))
        elif not refusal and self.reason:
            rows.append(("heuristic", f"no certified risk: {self.reason}"))
        return rows + self.honest.rows()

    def to_dict(self) -> dict:
        risk = self.risk
        return {"computed": True, "noise_multiplier": self.noise_multiplier.to_dict(),
                "noise_multiplier_units": RULE_UNITS_KEY,
                "config": None if risk is None else risk.config.to_dict(), "refusal": self._refusal(),
                "reason": self.reason,
                "epsilon": None if self.epsilon is None else self.epsilon.to_dict(),
                "wrap_probability": None if self.wrap_probability is None else self.wrap_probability.to_dict(),
                "mse_total": None if self.mse_total is None else self.mse_total.to_dict(),
                "honest": self.honest.to_dict()}


def _mse_total(config: HeuristicConfig, sigma: Fraction, survivors: int) -> Certified:
    """``d_pad γ² (1/4 + σ²)/K_eff``: stochastic rounding's variance at most 1/4 per client and coordinate, the
    discrete Gaussian's below σ², over the fewest survivors; the rotation back is an isometry."""
    step = config.picks()[1]
    value = config.padded_dimension * step**2 * (Fraction(1, 4) + sigma**2) / survivors
    return Certified("mse_total", value, value, Direction.UPPER,
                     "d_pad step^2 (1/4 + sigma^2)/K_eff: rounding at most 1/4, the noise below sigma^2, per client")


#: Relative width of the honest rule's noise (rounded up to 8 digits, then certified).
HONEST_TOLERANCE = Fraction(1, 10**6)


def _calibrated(event, epsilon: Fraction, delta: Fraction, rounds: int, floor: Fraction):
    """``(σ, ε)``: the smallest σ ≥ ``floor`` (to :data:`HONEST_TOLERANCE`) whose certified ε meets ``epsilon``.

    The conservative (linear) bound is calibrated first (:func:`itsa.privacy.calibrate`); the event's own bound
    is then bisected below it at the orders near the best one there (any order gives a valid bound), and the
    σ found certified with the accountant's full order search; then the privacy-loss-distribution bound
    (:func:`itsa.privacy.tightest.calibrate_tightest`) below that, where it applies (the plan's own tightest).
    """
    linear = replace(event(Fraction(1)), bound=DdgBound.CONSERVATIVE)
    cal = calibrate(epsilon, delta, rounds=rounds, relative_tolerance=HONEST_TOLERANCE, minimum_scale=Fraction(1, 2),
                    event_for=lambda s: replace(linear, scale=s, _cache={}))
    high = max(cal.noise_multiplier.upper(), floor)

    def bound(s: Fraction, orders=None):
        return Accountant().compose(event(s), rounds).bound(delta, orders)

    top = bound(high)
    if top.epsilon.upper() > epsilon:            # cannot happen: the event's bound is below the conservative one
        raise InvalidOption("the event's bound is above its conservative form")
    q = top.order
    orders = sorted({q, q * Fraction(9, 10), q * Fraction(11, 10), q * Fraction(4, 5), q * Fraction(5, 4)} - {1})
    orders = [o for o in orders if o > 1]
    low = max(floor, Fraction(1, 2))
    if low < high and bound(low, orders).epsilon.upper() <= epsilon:
        high = low
    while high - low > HONEST_TOLERANCE * high:
        mid = (low + high) / 2
        if bound(mid, orders).epsilon.upper() <= epsilon:
            high = mid
        else:
            low = mid
    sigma = Fraction(safe_decimal(high, 8, up=True))
    # the privacy-loss-distribution bound (the dominating pair's), where it meets the target at a smaller sigma
    tight = calibrate_tightest(event, epsilon=epsilon, delta=delta, rounds=rounds, high=sigma,
                               low=max(floor, Fraction(1, 2)), relative_tolerance=HONEST_TOLERANCE)
    found = pld_epsilon(event(tight), rounds=rounds, delta=delta) if tight < sigma else None
    if found is not None and found.upper() <= epsilon:
        return tight, found
    return sigma, bound(sigma).epsilon


def _honest(config: HeuristicConfig, *, survivors: int, rounds: int, delta: Fraction, adjacency: Adjacency,
            epsilon: Fraction, overflow: Fraction, per_round: bool, bound: DdgBound) -> HonestRule:
    if config.refusal or config.sigma is None:
        return HonestRule(sigma=None, epsilon=None, wrap=None, mse_total=None,
                          reason=f"the rule picks no scale ({config.refusal})")
    sens = integer_sensitivity(config, adjacency).arb()

    def event(s: Fraction) -> DistributedDiscreteGaussianEvent:
        return DistributedDiscreteGaussianEvent(sensitivity=sens, scale=s, survivors=survivors,
                                                dimension=config.padded_dimension, bound=bound, name="honest rule")
    try:
        sigma, eps = _calibrated(event, epsilon, delta, rounds, config.sigma)
    except InvalidOption as exc:
        return HonestRule(sigma=None, epsilon=None, wrap=None, mse_total=None,
                          reason=f"no noise at the rule's scale meets eps {_dec(epsilon)}: {exc}")
    scale = config.picks()[0]
    proxy = FLATNESS[config.rotation] * (config.clients * config.clip * scale) ** 2 / config.padded_dimension
    coord, whole = wrap_bound(clients=config.clients, dimension=config.padded_dimension, data_proxy=proxy,
                              sigma=sigma, word_bits=config.word_bits)
    wrap = whole if per_round else coord
    if wrap.upper() > overflow:
        return HonestRule(sigma=sigma, epsilon=eps, wrap=wrap, mse_total=None,
                          reason=f"at the rule's scale, the noise raised to meet eps {_dec(epsilon)} (sigma "
                                 f"{_dec(sigma)} per client) wraps with probability up to {wrap.decimal(3)} per "
                                 f"{'round' if per_round else 'coordinate'}, above the target {_dec(overflow)}")
    return HonestRule(sigma=sigma, epsilon=eps, wrap=wrap, mse_total=_mse_total(config, sigma, survivors))


def beside_plan(inputs: NoiseInputs, noise, encoding, event=None, *, overflow: Fraction,
                per_round: bool) -> RuleBeside:
    """The rule beside a flat plan: handed the plan's noise as the rule's ``noise_multiplier`` (the central σ in
    data units over the clip, :func:`itsa.planning.frameworks_units.rule_noise_multiplier`), its pick scored by
    :func:`certify_heuristic` with the inputs' adjacency and fewest survivors, its error, and the rule made
    honest (its scale, the noise raised to meet the plan's ε target, or the plan's certified ε without one, and
    the wrap target ``overflow``, per round or per coordinate).
    """
    d = inputs
    z = rule_noise_multiplier(sigma=noise.sigma_client, distributed=noise.kind is NoiseKind.DISTRIBUTED,
                              clients=d.clients, gamma=encoding.gamma, clip=d.clip)
    bits = encoding.word_bits
    if bits > MAX_RULE_WORD_BITS:
        reason = f"the rule is not evaluated above a {MAX_RULE_WORD_BITS}-bit word, not {bits} bits"
        none = HonestRule(sigma=None, epsilon=None, wrap=None, mse_total=None, reason=reason)
        return RuleBeside(noise_multiplier=z, risk=None, mse_total=None, honest=none, reason=reason)
    config = k_stddevs_rule(d.clients, d.dimension, d.clip, bits, Fraction(safe_decimal(z.upper(), 10, up=True)))
    p = d
    risk = certify_heuristic(config, survivors=d.survivors, rounds=p.rounds, delta=p.delta, adjacency=d.adjacency)
    target = p.epsilon if p.epsilon is not None else noise.epsilon.upper()
    bound = getattr(event, "bound", DdgBound.CONSERVATIVE)
    if d.population is not None:
        honest = HonestRule(sigma=None, epsilon=None, wrap=None, mse_total=None,
                            reason="the rule's shares would come from a Poisson sample of random size, which no "
                                   "bound here certifies (the plan's noise over a population is central)"
                            if d.cohort is None else
                            "the rule sizes its shares for the expected clients of a sampled cohort, which no bound "
                            "here certifies (the plan sizes them for the fewest survivors of its smallest count)")
    else:
        honest = _honest(config, survivors=d.survivors, rounds=p.rounds, delta=p.delta, adjacency=d.adjacency,
                         epsilon=target, overflow=overflow, per_round=per_round,
                         bound=bound)
    mse = None if config.refusal or config.sigma is None else _mse_total(config, config.sigma, d.survivors)
    return RuleBeside(noise_multiplier=z, risk=risk, mse_total=mse, honest=honest,
                      reason=None if config.refusal is None else config.refusal)


def size_heuristic(inputs: NoiseInputs, noise, encoding, *, overflow: Fraction, per_round: bool) -> Displayable:
    """The rule beside the plan (:func:`beside_plan`): handed the plan's noise in the rule's units, scored with the
    inputs' adjacency and survivors, and made honest against the ``overflow`` target (per round or per
    coordinate)."""
    event = round_event(inputs, encoding.gamma, noise.sigma_client)
    return beside_plan(inputs, noise, encoding, event, overflow=overflow, per_round=per_round)
