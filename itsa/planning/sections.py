"""The plan's other sections: payload, keys, error, the heuristic beside it, and the verdict.

- **payload**: the bits each client sends per coordinate and per round;
- **keys**: for a key-rate instance, ``itsa.solve``'s settled ``R*`` (source key
  symbols per input symbol, with its scope) and the source key it implies per
  round at this payload, ``R* × bits per client per round``;
- **error**: the mean-square error of the released mean
  ``(Σ e_i + Z)/(γ n)`` over the ``n ≥ K_eff`` survivors, in the data's units:
  ``d ((1/(2γ))² + Var Z/(γ n)²)``, an exact upper bound (rounding to nearest
  moves each coordinate of the mean by at most ``1/(2γ)``; the discrete
  Gaussian's variance is below σ², Canonne, Kamath, Steinke 2020; the noise
  has mean 0 and is independent of the data, so there is no cross term), for
  a round whose sum does not wrap;
- **heuristic**: the configuration the k-standard-deviations rule picks for
  the same inputs, with itsa's certified ε and wrap probability for it (the
  rule beside the plan is ``itsa.planning.rule.beside.size_heuristic``).

Examples
--------
>>> from fractions import Fraction
>>> e = mean_square_error(dimension=2, gamma=Fraction(4), noise_variance=Fraction(32), survivors=2)
>>> e.per_coordinate, e.quantization, e.noise
(Fraction(33, 64), Fraction(1, 64), Fraction(1, 2))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from itsa._util.certified import Certified, Direction, safe_decimal
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.keys.examples import resolve
from itsa.keys.model.io import load_instance
from itsa.planning.keysolve import bounded_solve
from itsa.planning.mechanism import NoiseInputs, room_of
from itsa.planning.protocols import AggregationProtocol, size_protocol_keys
from itsa.privacy.discrete_gaussian import entropy_bits

__all__ = ["PayloadPlan", "BitsFloor", "bits_floor", "CHEN_ORDER", "KeysPlan", "ErrorPlan", "HeuristicPlan", "mean_square_error", "accuracy_missed", "size_keys",
           "size_deployment_keys", "servers_warning",
           "NOT_COMPUTED", "Verdict"]


#: The order of the price of secure aggregation, in words (constants and logarithmic factors unknown).
CHEN_ORDER = ("order only: Chen, Choquette-Choo, Kairouz, Suresh (ICML 2022) show secure aggregation with central "
              "eps-DP needs and achieves O~(min(n^2 eps^2, d)) bits per client, n clients, d coordinates; its "
              "constants and logarithmic factors are not known here, so this is a scale, not a bound")


@dataclass(frozen=True, kw_only=True, repr=False)
class BitsFloor(Displayable):
    """What is known of the payload's floor: the exact entropy of the noise in a coordinate at the plan's step,
    and the order of secure aggregation's price under central DP (:data:`CHEN_ORDER`)."""

    entropy: Certified | None
    whose: str
    word_bits: int
    order_bits: Fraction
    clients: int
    epsilon: Fraction
    dimension: int
    payload_bits: Fraction

    def headline(self) -> str:
        return f"order {safe_decimal(self.order_bits, 6)} bits per client per round"

    def rows(self) -> list[tuple[str, str]]:
        if self.entropy is None:
            entropy = f"not computed for {self.whose} (the discrete Gaussian's alone here)"
        else:
            above = self.word_bits - self.entropy.upper()
            entropy = (f"{self.entropy.decimal(6)} bits per coordinate ({self.entropy.direction}): the entropy of "
                       f"{self.whose} at the step 1/gamma; a coordinate carrying that noise has at least this "
                       f"entropy (H(X + Z) >= H(Z), X independent of Z); the {self.word_bits}-bit word is "
                       f"{safe_decimal(above, 6, up=False)} bits above it")
        ratio = self.payload_bits / self.order_bits if self.order_bits > 0 else None
        order = (f"min(n^2 eps^2, d) = {safe_decimal(self.order_bits, 6)} bits per client per round, n = "
                 f"{self.clients}, eps {safe_decimal(self.epsilon, 6)} (the plan's per-round epsilon), d = "
                 f"{self.dimension}; the payload {safe_decimal(self.payload_bits, 8)} is "
                 + ("unbounded times it" if ratio is None else f"{safe_decimal(ratio, 4)} x it") + f" ({CHEN_ORDER})")
        return [("entropy floor", entropy), ("floor order", order)]

    def to_dict(self) -> dict:
        return {"entropy_bits_per_coordinate": None if self.entropy is None else self.entropy.to_dict(),
                "entropy_of": self.whose,
                "word_above_entropy": None if self.entropy is None else frac(self.word_bits - self.entropy.upper()),
                "order_bits_per_client_per_round": frac(self.order_bits), "order_clients": self.clients,
                "order_epsilon": frac(self.epsilon), "order_note": CHEN_ORDER,
                "payload_over_order": None if self.order_bits <= 0 else frac(self.payload_bits / self.order_bits)}


def bits_floor(inputs: NoiseInputs, noise, word_bits: int, payload_bits: Fraction) -> BitsFloor:
    """The plan's :class:`BitsFloor`: the entropy of the discrete Gaussian in the coordinate (the sum's, central;
    a client's own share, distributed) and ``min(n² ε², d)`` at the plan's per-round ε."""
    central = str(noise.kind) == "central"
    dgauss = room_of(inputs).name == "dgauss"
    whose = (f"the sum's noise N_Z(0, {safe_decimal(noise.sigma_client, 8)}^2)" if central else
             f"a client's share N_Z(0, {safe_decimal(noise.sigma_client, 8)}^2) in its own word")
    entropy = None
    if dgauss:
        entropy = Certified.from_arb("entropy", entropy_bits(noise.sigma_client), Direction.ENCLOSURE,
                                     "(ln Z + E[X^2]/(2 sigma^2)) / ln 2: the discrete Gaussian's normaliser and "
                                     "second moment")
    else:
        whose = f"the {room_of(inputs).name} noise"
    accounting = getattr(noise, "accounting", None)
    eps = (accounting.epsilon_per_round if accounting is not None else noise.epsilon).upper()
    d = inputs.dimension
    order = min(Fraction(inputs.clients) ** 2 * eps**2, Fraction(d))
    return BitsFloor(entropy=entropy, whose=whose, word_bits=word_bits, order_bits=order, clients=inputs.clients,
                     epsilon=eps, dimension=d, payload_bits=payload_bits)


@dataclass(frozen=True, kw_only=True, repr=False)
class PayloadPlan(Displayable):
    """Bits per coordinate and per client per round; for a layering, against a flat execution; what is known of
    the floor (:class:`BitsFloor`, a flat word's)."""

    bits_per_coordinate: Certified
    dimension: int
    flat_bits_per_coordinate: Certified | None = None
    note: str = ""
    floor: BitsFloor | None = None

    @property
    def bits_per_round(self) -> Certified:
        b = self.bits_per_coordinate
        return Certified("bits_per_client_per_round", b.low * self.dimension, b.high * self.dimension, b.direction,
                         f"bits per coordinate x d = {self.dimension}")

    def headline(self) -> str:
        return f"{self.bits_per_coordinate.decimal(6)} bits per coordinate, {self.bits_per_round.decimal(6)} per round"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("bits per coordinate", f"{self.bits_per_coordinate.decimal(6)} ({self.bits_per_coordinate.direction})"),
                ("bits per client per round", f"{self.bits_per_round.decimal(8)} ({self.bits_per_round.direction})")]
        if self.flat_bits_per_coordinate is not None:
            rows.append(("flat execution", f"{self.flat_bits_per_coordinate.decimal(6)} bits per coordinate "
                                           f"({self.flat_bits_per_coordinate.direction})"))
        return (rows + ([("payload note", self.note)] if self.note else [])
                + ([] if self.floor is None else self.floor.rows()))

    def with_floor(self, inputs: NoiseInputs, noise, word_bits: int) -> PayloadPlan:
        """The payload with its :class:`BitsFloor` (:func:`bits_floor`) at the accounted ``noise``."""
        return replace(self, floor=bits_floor(inputs, noise, word_bits, self.bits_per_round.upper()))

    def to_dict(self) -> dict:
        return {"bits_per_coordinate": self.bits_per_coordinate.to_dict(),
                "bits_per_client_per_round": self.bits_per_round.to_dict(),
                "flat_bits_per_coordinate": None if self.flat_bits_per_coordinate is None
                else self.flat_bits_per_coordinate.to_dict(), "note": self.note,
                **({} if self.floor is None else {"floor": self.floor.to_dict()})}


#: What the key-rate model's security covers (docs/model.md, constraint (7)), said beside the key material.
KEY_SECURITY = ("each single server, with the users of any one of the instance's collusion sets, learns nothing "
                "beyond the sum about its security sets' inputs; servers pooling their views, and dropouts, are "
                "outside the model")


@dataclass(frozen=True, kw_only=True, repr=False)
class KeysPlan(Displayable):
    """The settled key rate of the servers' instance and the source key per round at this payload."""

    instance: str
    verdict: str
    rate_low: Fraction
    rate_high: Fraction | None
    scope: str
    bits_per_round: Certified
    #: why the rate is an interval when a limit of the plan stopped the solve ("" when it ran to its end)
    note: str = ""
    #: said when the instance's users are not the deployment's clients ("" when they are as many)
    warning: str = ""

    def _key(self, rate: Fraction | None) -> str:
        if rate is None:
            return "unbounded (no verified scheme)"
        return safe_decimal(rate * self.bits_per_round.upper(), 8) + " bits"

    def headline(self) -> str:
        return f"{self.instance}: R* {self._rate()}, source key {self._key(self.rate_low)} per round at least"

    def _rate(self) -> str:
        if self.rate_high == self.rate_low:
            return f"= {frac(self.rate_low)}"
        return f"in [{frac(self.rate_low)}, {frac(self.rate_high) if self.rate_high is not None else 'inf'}]"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("instance", self.instance), ("key rate R*", f"{self._rate()} ({self.verdict}; exact)"),
                ("scope", self.scope), ("source key per round", f"{self._key(self.rate_low)} (R* x bits per client "
                                                              "per round; for the instance's users)")]
        if self.rate_high != self.rate_low:
            rows.append(("source key per round, verified scheme", self._key(self.rate_high)))
        if self.note:
            rows.append(("key solve", self.note))
        if self.warning:
            rows.append(("warning", self.warning))
        return rows + [("key security", KEY_SECURITY)]

    def to_dict(self) -> dict:
        return {"instance": self.instance, "verdict": self.verdict, "rate": frac(self.rate_low),
                "rate_upper": frac(self.rate_high), "scope": self.scope,
                "key_bits_per_round": frac(self.rate_low * self.bits_per_round.upper()),
                "key_bits_per_round_upper": None if self.rate_high is None
                else frac(self.rate_high * self.bits_per_round.upper()),
                "method": "R* (itsa solve) x bits per client per round", "security": KEY_SECURITY,
                "note": self.note, "warning": self.warning}


#: The share of what is left of a plan's time that its key solve may take (the rest: the heuristic, the verdict).
KEYS_SHARE = 0.5


def size_keys(servers: str | None, bits_per_round: Certified, time_limit: float | None,
              seed: int = 0, clients: int | None = None) -> KeysPlan | None:
    """The keys section: ``itsa.solve`` of the named instance (``None`` without ``servers``).

    The solve runs under the plan's limits (:func:`itsa.planning.keysolve.bounded_solve`):
    :data:`KEYS_SHARE` of what is left of its time, and a memory limit; one that a limit
    stops is an open interval. With ``clients`` (the deployment's), a ``warning`` says when the
    instance's users are not as many.
    """
    if servers is None:
        return None
    instance = load_instance(resolve(servers))
    solved = bounded_solve(instance, None if time_limit is None else KEYS_SHARE * time_limit, seed)
    return KeysPlan(instance=solved.name, verdict=solved.verdict, rate_low=solved.rate_low,
                    rate_high=solved.rate_high, scope=solved.scope, bits_per_round=bits_per_round, note=solved.note,
                    warning=servers_warning(instance.K, clients))


def servers_warning(users: int, clients: int | None) -> str:
    """What the keys section says when a ``servers`` instance's users are not the deployment's clients.

    >>> servers_warning(8, 8), servers_warning(8, None)
    ('', '')
    """
    if clients is None or users == clients:
        return ""
    return (f"the instance's {users} users are not the deployment's {clients} clients: its key rate is that of its "
            "own users (give protocol: multi-server to build the instance from the clients)")


def size_deployment_keys(*, protocol: AggregationProtocol | None, instance: str | None,
                         clients: int, dropout: Fraction, dimension: int, name: str, payload: PayloadPlan,
                         time_limit: float | None, seed: int = 0, report=None):
    """The keys section: the ``protocol`` for the ``clients`` (:mod:`itsa.planning.protocols`; ``dimension``
    the update's coordinates), else the ``servers`` instance at path ``instance`` (:func:`size_keys`, warned
    when its users are not the clients), else ``None``."""
    if protocol is not None:
        bits = math.ceil(payload.bits_per_coordinate.upper())
        return size_protocol_keys(protocol, clients=clients, dropout=dropout, dimension=dimension,
                                  name=name, bits_per_round=payload.bits_per_round, payload_bits=bits,
                                  time_limit=None if time_limit is None else KEYS_SHARE * time_limit, seed=seed,
                                  report=report)
    return size_keys(instance, payload.bits_per_round, time_limit, seed, clients=clients)


@dataclass(frozen=True, kw_only=True, repr=False)
class ErrorPlan(Displayable):
    """The mean-square error of the released mean, per coordinate and in total: quantization + noise."""

    dimension: int
    quantization: Fraction
    noise: Fraction
    #: the unconstrained limit: the continuous Gaussian's MSE, calibrated by its exact privacy curve (fewest
    #: survivors, no rounding; a lower bound) and its z
    limit_total: Fraction | None = None
    limit_multiplier: Fraction | None = None
    #: how the rounding was bounded
    rounding: str = "nearest rounding"
    warnings: tuple[str, ...] = ()
    #: how the limit's z was found where it is not the unsampled Gaussian's exact curve (``None``: it is)
    limit_method: str | None = None

    @property
    def ratio(self) -> Fraction | None:
        """The MSE over the unconstrained limit's."""
        return None if not self.limit_total else self.total / self.limit_total

    @property
    def per_coordinate(self) -> Fraction:
        return self.quantization + self.noise

    @property
    def total(self) -> Fraction:
        return self.dimension * self.per_coordinate

    def headline(self) -> str:
        return f"MSE of the released mean <= {safe_decimal(self.total, 6)} (sum over d coordinates)"

    def rows(self) -> list[tuple[str, str]]:
        return [("mean-square error", f"{safe_decimal(self.total, 6)} summed over {self.dimension} coordinates "
                                      "(exact upper bound, for a round that does not wrap)"),
                ("per coordinate", f"{safe_decimal(self.per_coordinate, 6)} = quantization "
                                   f"{safe_decimal(self.quantization, 6)} + noise {safe_decimal(self.noise, 6)}")] + (
            [] if self.limit_total is None or self.ratio is None else [
                ("unconstrained limit", f"{safe_decimal(self.limit_total, 6, up=False)} (a lower bound for Gaussian "
                                        "noise on the sum, not for every mechanism: the continuous "
                                        "Gaussian calibrated by its exact privacy curve to the target: z = "
                                        f"{safe_decimal(self.limit_multiplier or Fraction(0), 6, up=False)}, "
                                        "sensitivity c S over the fewest survivors, no rounding)"
                 if self.limit_method is None else
                 f"{safe_decimal(self.limit_total, 6, up=False)} (a lower bound for Gaussian noise on the sum: "
                 f"{self.limit_method}: z = {safe_decimal(self.limit_multiplier or Fraction(0), 6, up=False)})"),
                ("error / limit", f"{ratio_text(self.ratio)} (upper bound)")]) + [
            ("warning", w) for w in self.warnings]

    def to_dict(self) -> dict:
        bound = Direction.UPPER
        return {"mse_total": Certified("mse_total", self.total, self.total, bound, "d (quantization + noise)").to_dict(),
                "mse_per_coordinate": frac(self.per_coordinate), "quantization_per_coordinate": frac(self.quantization),
                "noise_per_coordinate": frac(self.noise), "exact": True,
                "limit_mse_total": None if self.limit_total is None else Certified(
                    "limit_mse_total", self.limit_total, self.limit_total, Direction.LOWER,
                    "d (z c S / survivors)^2, z the continuous Gaussian's multiplier from its exact privacy curve "
                    "(the enclosure's lower end): a lower bound for Gaussian noise on the sum, not for every "
                    "mechanism").to_dict(),
                "limit_ratio": None if self.ratio is None else frac(self.ratio), "rounding": self.rounding,
                "warnings": list(self.warnings),
                **({} if self.limit_method is None else {"limit_method": self.limit_method})}


def ratio_text(ratio: Fraction) -> str:
    """A ratio near 1 rounded up with the digits that show how far above 1 it is (three of its excess), else 4.

    >>> ratio_text(Fraction(10000296, 10**7)), ratio_text(Fraction(3, 2)), ratio_text(Fraction(1))
    ('1.0000296', '1.5', '1')
    """
    excess = ratio - 1
    if not 0 < excess < Fraction(1, 100):
        return safe_decimal(ratio, 4)
    shown = 4
    while Fraction(1, 10 ** (shown - 3)) > excess:      # the excess's first digit at place shown - 3
        shown += 1
    return safe_decimal(ratio, shown)


def accuracy_missed(*, total: Fraction, target: Fraction, limit: Fraction | None, survivors: int
                    ) -> tuple[str, dict | None]:
    """Why a plan's error ``total`` misses the accuracy ``target``, and the fix when no encoding can meet it.

    The unconstrained ``limit`` (the tight continuous Gaussian, no rounding) falls as ``1/survivors²``: when it is
    above the target, the fix is the fewest survivors that bring it down (else ``None``: a word may meet it).
    """
    reason = (f"the mean-square error {safe_decimal(total, 6)} (summed over the coordinates) is above the accuracy "
              f"target {safe_decimal(target, 6)}")
    if limit is None or not limit > target:
        return reason, None
    squared = math.ceil(Fraction(survivors) ** 2 * Fraction(limit) / Fraction(target))   # need^2 >= this, exactly
    need = math.isqrt(squared - 1) + 1
    count = f"{need}" if need <= 10**18 else f"about {safe_decimal(Fraction(need), 4)}"
    return reason, {"survivors": need if need <= 10**18 else None, "text": (
        f"no encoding meets it at this epsilon: the unconstrained limit of Gaussian noise on the sum (the tight "
        f"continuous Gaussian, no rounding) is {safe_decimal(limit, 6)}; it falls as 1/survivors^2: at least {count} "
        "survivors, or a larger epsilon")}


def mean_square_error(*, dimension: int, gamma: Fraction, noise_variance: Fraction, survivors: int) -> ErrorPlan:
    """``(1/(2γ))²`` (the rounding's worst bias) and ``Var Z/(γ K_eff)²`` per coordinate, exact."""
    return ErrorPlan(dimension=dimension, quantization=1 / (4 * gamma**2),
                     noise=noise_variance / (gamma * survivors) ** 2)


@dataclass(frozen=True, kw_only=True, repr=False)
class HeuristicPlan(Displayable):
    """The k-standard-deviations rule's configuration and itsa's certified risks for it.

    The rule's ``scale`` is the plan's ``gamma`` (integer units per unit of
    the update); ``epsilon`` and ``wrap_probability`` are ``None`` when the
    rule itself refuses the inputs (its ``refusal`` says why).
    """

    config: Any
    epsilon: Certified | None
    wrap_probability: Certified | None
    #: why there is no epsilon or wrap probability (the rule's own refusal, or a noise too small to account)
    reason: str | None = None

    def headline(self) -> str:
        if self.epsilon is None or self.wrap_probability is None:
            return f"the k-standard-deviations rule: no certified risk ({self.reason})"
        return (f"the k-standard-deviations rule: gamma {safe_decimal(self.config.gamma, 6)}, "
                f"eps <= {self.epsilon.decimal()}, wrap <= {self.wrap_probability.decimal()}")

    def rows(self) -> list[tuple[str, str]]:
        c = self.config
        if self.epsilon is None or self.wrap_probability is None:
            return [("heuristic", f"no certified risk: {self.reason}")]
        return [("heuristic gamma", f"{safe_decimal(c.gamma, 8)} (the rule's choice, k = {safe_decimal(c.k_stddevs, 4)})"),
                ("heuristic sigma per client", f"{safe_decimal(c.sigma, 8)} integer units (the rule's choice)"),
                ("heuristic epsilon", f"{self.epsilon.decimal(6)} ({self.epsilon.direction}, itsa's accountant)"),
                ("heuristic wrap probability", f"{self.wrap_probability.decimal(6)} ({self.wrap_probability.direction})")]

    def to_dict(self) -> dict:
        return {"computed": True, "config": None if self.config is None else self.config.to_dict(),
                "reason": self.reason,
                "epsilon": None if self.epsilon is None else self.epsilon.to_dict(),
                "wrap_probability": None if self.wrap_probability is None else self.wrap_probability.to_dict()}


#: What a plan says of the rule where it does not size the plan's encoding.
NOT_COMPUTED = "not computed (the k-standard-deviations rule sizes a flat word, not a PSA layering)"


@dataclass(frozen=True, kw_only=True, repr=False)
class Verdict(Displayable):
    """``feasible`` or ``infeasible``, why, and the smallest changes that fix an infeasible deployment."""

    feasible: bool
    reasons: tuple[str, ...] = ()
    fixes: dict = field(default_factory=dict)
    #: what the verdict assumes beyond the file (a layering's wrap bound: the digit prior)
    premises: tuple[str, ...] = ()

    def headline(self) -> str:
        text = "feasible" if self.feasible else "infeasible: " + "; ".join(self.reasons)
        return text + "".join(f" (if {p})" for p in self.premises)

    def rows(self) -> list[tuple[str, str]]:
        return [("verdict", "feasible" if self.feasible else "infeasible")] + [
            ("why", r) for r in self.reasons] + [(f"fix: {k}", v["text"]) for k, v in self.fixes.items()] + [
            ("premise", f"the wrap bound holds if {p}") for p in self.premises]

    def to_dict(self) -> dict:
        return {"verdict": "feasible" if self.feasible else "infeasible", "reasons": list(self.reasons),
                "premises": list(self.premises),
                "fixes": {k: {kk: vv for kk, vv in v.items()} for k, v in self.fixes.items()}}
