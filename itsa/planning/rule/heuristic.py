"""The k-standard-deviations rule practitioners use today, and itsa's certified risk of what it picks.

The distributed discrete Gaussian's aggregator (Kairouz, Liu, Steinke 2021,
and the frameworks' distributed-DP aggregators that ship it, :mod:`itsa.frameworks`) picks the scale of the integer encoding from one equation: ``k``
standard deviations of the (rotated, clipped, rounded) sum plus its noise
fill the modulus ``2^b``, with ``k = √2·erfcinv(p)`` for a target wrap
probability ``p`` per coordinate, and the noise sized for the *expected*
number of clients:

``scale = 1/γ = √(2^(2b) − n k²) / (2k √(ρ c² n²/d + n σ²))``,  ``σ = z c/√n``,

capped at ``10⁶``. :func:`k_stddevs_rule` reproduces that choice in the floats the
rule computes (kept exactly as the rationals of those floats);
:func:`certify_heuristic` then gives itsa's certified ε (the distributed
discrete Gaussian's Rényi bound with its τ term, for the fewest survivors
under the dropout) and a certified wrap probability for it, so a deployment
sees where the rule is safe, wasteful or wrong.

Examples
--------
>>> h = k_stddevs_rule(clients=1000, dimension=1290, clip=1, word_bits=16, noise_multiplier=1)
>>> float(h.gamma) > 300, h.refusal is None
(True, True)
>>> r = certify_heuristic(h, dropout="1/10", rounds=150, delta="1e-6")
>>> r.wrap_coordinate.direction.value, r.survivors
('upper bound', 900)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import scipy  # scipy.special loads on first use (SciPy's lazy submodules): 0.25 s that import itsa.planning skips

from itsa._util.certified import Certified, Direction, exact_text, fraction_text, safe_decimal
from itsa._util.checks import choice, conflict, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.planning.frameworks_units import MAX_SCALE_FACTOR, RULE_MAX_BITS
from itsa.planning.rotation import FLATNESS, SHORT_NAMES, Rotation, flattening_rotation, rotated_dimension
from itsa.planning.vocabulary import MAX_MODULUS
from itsa.privacy import DEFAULT_DELTA
from itsa.privacy.accounting import Accountant
from itsa.privacy.events import DistributedDiscreteGaussianEvent
from itsa.privacy.neighbours import Adjacency, Rounding, sensitivity_ball
from itsa.privacy.shares import noise_shares, survivors_under
from itsa.privacy.tails import certified_tail
from itsa.privacy.tightest import pld_epsilon

__all__ = ["Adjacency", "HeuristicConfig", "HeuristicRisk", "k_stddevs_rule", "certify_heuristic",
           "stddevs_for", "padded_dimension", "survivors_under", "MODCLIP_PROB"]

#: The rule's default target wrap probability per coordinate (``modclip_prob``).
MODCLIP_PROB = Fraction(1, 10**4)
#: Largest word the rule is evaluated at here (the simulation's int64 arithmetic: its largest modulus 2^62);
#: a plan's own word may be wider (:data:`itsa.planning.deployment.MAX_WORD_BITS`).
MAX_RULE_WORD_BITS = MAX_MODULUS.bit_length() - 1
#: The rule's leeway on the scaled norm bound.
NORM_LEEWAY = 1e-5


def stddevs_for(modclip_prob) -> float:
    """``k = √2·erfcinv(p)``: the Gaussian's two-sided ``k`` with ``P(|N| > k) = p`` (a float, as the rule has it).

    >>> round(stddevs_for("1e-4"), 4)
    3.8906
    """
    p = fraction("modclip_prob", modclip_prob, low=0, high=1)
    return math.sqrt(2) * float(scipy.special.erfcinv(float(p)))


def padded_dimension(dimension: int, rotation: Rotation | str = Rotation.DFT) -> int:
    """The dimension the rotation works in: even for the DFT, the next power of two for Hadamard.

    >>> padded_dimension(1290), padded_dimension(1290, "hd")
    (1290, 2048)
    """
    d = whole_number("dimension", dimension, minimum=1)
    return rotated_dimension(d, flattening_rotation(rotation))


@dataclass(frozen=True, kw_only=True, repr=False)
class HeuristicConfig(Displayable):
    """What the k-standard-deviations rule picks, exactly as the rationals of its floats, and what it assumes.

    ``gamma`` is the rule's scale factor (the aggregator's ``scale``; itsa's γ: an
    update ``x`` encodes to ``round(gamma x)``) and ``step`` is ``1/gamma`` (what
    the aggregator's code calls ``gamma``); ``sigma`` is the local discrete-Gaussian standard
    deviation in integer units (``gamma · z c/√n``); ``sensitivity`` is the
    rule's own scaled norm bound ``(c + step·√d + 10⁻⁵)·gamma``. When the rule
    refuses the inputs, ``refusal`` says why and the picks are ``None``.
    """

    clients: int
    dimension: int
    padded_dimension: int
    clip: Fraction
    word_bits: int
    noise_multiplier: Fraction
    k_stddevs: Fraction
    modclip_prob: Fraction
    rotation: Rotation
    flatness: Fraction
    gamma: Fraction | None
    step: Fraction | None
    sigma: Fraction | None
    sensitivity: Fraction | None
    capped: bool
    refusal: str | None
    notes: tuple[str, ...] = ()

    def picks(self) -> tuple[Fraction, Fraction, Fraction]:
        """``(scale, gamma, sigma)``; refused inputs have none (an :class:`~itsa.exceptions.InvalidOption`)."""
        if self.gamma is None or self.step is None or self.sigma is None:
            raise InvalidOption(f"k-sd rule: picked nothing ({self.refusal})")
        return self.gamma, self.step, self.sigma

    @property
    def assumptions(self) -> tuple[str, ...]:
        return ("the noise is sized for the expected clients, with no allowance for dropouts",
                f"the rotated sum is sub-Gaussian with flatness rho = {self.flatness} "
                "(its norm bounded by n c: all updates aligned)",
                f"k = {_dec(self.k_stddevs)} standard deviations of a Gaussian leave probability "
                f"{_dec(self.modclip_prob)} per coordinate outside the modulus",
                "stochastic rounding adds variance gamma^2/4 per client and coordinate",
                f"the scale is capped at {MAX_SCALE_FACTOR}")

    def headline(self) -> str:
        if self.refusal:
            return f"k-sd rule at {self.word_bits} bits: refused ({self.refusal})"
        return (f"k-sd rule at {self.word_bits} bits: gamma {_dec(self.gamma)} (step {_dec(self.step)}), "
                f"local sigma {_dec(self.sigma)} (heuristic)")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("inputs", f"K = {self.clients}, d = {self.dimension} (padded {self.padded_dimension}), "
                 f"clip {fraction_text(self.clip)}, z = {fraction_text(self.noise_multiplier)}, "
                 f"{self.word_bits} bits, {SHORT_NAMES[self.rotation]} rotation"),
                ("k (standard deviations)", f"{_dec(self.k_stddevs)} = sqrt(2) erfcinv({_dec(self.modclip_prob)})")]
        if self.refusal:
            rows.append(("refused", self.refusal))
        else:
            rows += [("gamma (scale, 1/step)", f"{_dec(self.gamma)} (heuristic{', capped' if self.capped else ''})"),
                     ("step", f"{_dec(self.step)} (heuristic)"),
                     ("local sigma (integer units)", f"{_dec(self.sigma)} (heuristic)"),
                     ("rule's scaled norm bound", f"{_dec(self.sensitivity)} (heuristic)")]
        return rows + [("assumes", a) for a in self.assumptions] + [("note", n) for n in self.notes]

    def to_dict(self) -> dict:
        def num(x):
            return None if x is None else {"value": _dec(x), "exact": exact_text(x)}

        return {"rule": "k standard deviations (distributed-DP aggregator)", "clients": self.clients,
                "dimension": self.dimension, "padded_dimension": self.padded_dimension,
                "clip": fraction_text(self.clip), "word_bits": self.word_bits,
                "noise_multiplier": fraction_text(self.noise_multiplier), "k_stddevs": num(self.k_stddevs),
                "modclip_prob": num(self.modclip_prob), "rotation": SHORT_NAMES[self.rotation],
                "flatness": fraction_text(self.flatness), "gamma": num(self.gamma), "step": num(self.step),
                "sigma_client": num(self.sigma), "rule_sensitivity": num(self.sensitivity), "capped": self.capped,
                "refusal": self.refusal, "kind": "heuristic (not a bound)",
                "assumptions": list(self.assumptions), "notes": list(self.notes)}


def _dec(x, digits: int = 6) -> str:
    return safe_decimal(Fraction(x), digits, up=True)


def _refusal(clients: int, bits: int, k: float) -> str | None:
    """The rule's own input checks: ``b ≥ log2 n`` and ``2^(2b) ≥ n k²``."""
    if bits < math.log2(clients):
        return f"2^{bits} < K = {clients}: the rule needs bits >= log2(K)"
    if 2.0 ** (2 * bits) < clients * k * k:
        return f"2^(2 b) < K k^2 at b = {bits}: no scale fits k standard deviations of the sum"
    return None


def k_stddevs_rule(clients: int, dimension: int, clip, word_bits: int, noise_multiplier, k_stddevs=None, *,
             modclip_prob=MODCLIP_PROB, rotation: Rotation | str = Rotation.DFT, flatness=1) -> HeuristicConfig:
    """The scale and local noise the k-standard-deviations rule picks for these inputs.

    Parameters
    ----------
    clients : int
        ``n``, the *expected* clients per round (the rule sizes the noise for them).
    dimension : int
        ``d`` before padding (the rule pads it for its rotation).
    clip, noise_multiplier
        The ℓ2 clip ``c`` and ``z`` (central noise ``z c``, split into ``n`` local shares).
    word_bits : int
        ``b``: the modulus is ``2^b``.
    k_stddevs : number, optional
        ``k`` itself; by default ``√2·erfcinv(modclip_prob)``.
    modclip_prob, rotation, flatness
        The rule's wrap target per coordinate, its rotation, and its ``ρ``.

    Returns
    -------
    HeuristicConfig
        Every pick as the exact rational of the float the rule computes; a
        refusal (``refusal``) where the rule's own checks reject the inputs.
    """
    n = whole_number("clients", clients, minimum=1)
    whole_number("dimension", dimension, minimum=1)
    bits = whole_number("word_bits", word_bits, minimum=1, maximum=MAX_RULE_WORD_BITS)
    c = fraction("clip", clip, low=0)
    z = fraction("noise_multiplier", noise_multiplier, low=0, closed=True)
    rho = fraction("flatness", flatness, low=0)
    rot = flattening_rotation(rotation)
    if k_stddevs is None:
        p = fraction("modclip_prob", modclip_prob, low=0, high=1)
        k = stddevs_for(p)
    else:
        k = float(fraction("k_stddevs", k_stddevs, low=0))
        p = Fraction(math.erfc(k / math.sqrt(2)))       # the rule's own Gaussian tail P(|N| > k), a float: not a bound
    d_pad = padded_dimension(dimension, rot)
    notes: tuple[str, ...] = (() if bits <= RULE_MAX_BITS else
             (f"the rule refuses more than {RULE_MAX_BITS} bits (its arithmetic is float32); the formula is extrapolated",))
    base: dict[str, Any] = dict(clients=n, dimension=dimension, padded_dimension=d_pad, clip=c, word_bits=bits, noise_multiplier=z,
                k_stddevs=Fraction(k), modclip_prob=p, rotation=rot, flatness=rho)
    refusal = _refusal(n, bits, k)
    if refusal:
        return HeuristicConfig(**base, gamma=None, step=None, sigma=None, sensitivity=None, capped=False,
                               refusal=refusal, notes=notes)
    local = raw = math.nan
    try:
        cf, local = float(c), float(z) * float(c) / math.sqrt(n)
        numer = math.sqrt(2.0 ** (2 * bits) - n * k * k)
        denom = 2.0 * k * math.sqrt(float(rho) / d_pad * cf * cf * n * n + n * local * local)
        raw = numer / denom
    except (OverflowError, ZeroDivisionError):
        raw = math.nan
    if not (math.isfinite(raw) and raw > 0 and math.isfinite(local * raw)):
        refusal = (f"its float arithmetic overflows at noise multiplier z = {_dec(z)} and clip {_dec(c)}: the "
                   "rule's equation gives no scale")
        return HeuristicConfig(**base, gamma=None, step=None, sigma=None, sensitivity=None, capped=False,
                               refusal=refusal, notes=notes)
    scale = min(raw, float(MAX_SCALE_FACTOR))
    gamma = 1.0 / scale
    if scale <= 1:
        notes += (f"the scale {scale:.4g} <= 1: the rule warns of large quantization errors",)
    return HeuristicConfig(**base, gamma=Fraction(scale), step=Fraction(gamma), sigma=Fraction(local * scale),
                           sensitivity=Fraction((cf + gamma * math.sqrt(d_pad) + NORM_LEEWAY) * scale),
                           capped=raw > MAX_SCALE_FACTOR, refusal=None, notes=notes)


# -- itsa's certified risk of the rule's pick -----------------------------------------------------

@dataclass(frozen=True, kw_only=True, repr=False)
class HeuristicRisk(Displayable):
    """itsa's certified ε and wrap probability for a :class:`HeuristicConfig`, and the verdict on it."""

    config: HeuristicConfig
    survivors: int
    rounds: int
    delta: Fraction
    adjacency: Adjacency
    sensitivity: Certified | None
    epsilon: Certified | None
    wrap_coordinate: Certified | None
    wrap_round: Certified | None
    verdict: str | None
    reasons: tuple[str, ...] = ()

    def headline(self) -> str:
        if self.wrap_round is None:
            return f"k-sd rule at {self.config.word_bits} bits: refused"
        eps = "none certified" if self.epsilon is None else f"{self.epsilon.decimal()} ({self.epsilon.direction})"
        return (f"k-sd rule at {self.config.word_bits} bits: eps {eps}, wrap per round "
                f"{self.wrap_round.decimal(3)} (upper bound)" + (f": {self.verdict}" if self.verdict else ""))

    def rows(self) -> list[tuple[str, str]]:
        rows = list(self.config.rows())
        if self.sensitivity is None or self.wrap_coordinate is None or self.wrap_round is None:
            return rows
        rows += [("survivors (fewest)", f"{self.survivors} of {self.config.clients} (exact)"),
                 ("integer sensitivity", f"{self.sensitivity.decimal()} ({self.sensitivity.direction}, {self.adjacency})"),
                 ("epsilon", "none certified" if self.epsilon is None else
                  f"{self.epsilon.decimal()} ({self.epsilon.direction}) at delta {fraction_text(self.delta)} "
                  f"over {self.rounds} rounds"),
                 ("wrap per coordinate", f"{self.wrap_coordinate.decimal(3)} ({self.wrap_coordinate.direction}); "
                  f"the rule aims at {_dec(self.config.modclip_prob)}"),
                 ("wrap per round", f"{self.wrap_round.decimal(3)} ({self.wrap_round.direction})")]
        if self.verdict:
            rows.append(("verdict", self.verdict))
        return rows + [("why", r) for r in self.reasons]

    def to_dict(self) -> dict:
        def cert(x):
            return None if x is None else x.to_dict()

        return {"config": self.config.to_dict(), "survivors": self.survivors, "rounds": self.rounds,
                "delta": fraction_text(self.delta), "adjacency": str(self.adjacency),
                "sensitivity": cert(self.sensitivity), "epsilon": cert(self.epsilon),
                "wrap_probability": {"per_coordinate": cert(self.wrap_coordinate), "per_round": cert(self.wrap_round)},
                "verdict": self.verdict, "reasons": list(self.reasons)}


def integer_sensitivity(config: HeuristicConfig, adjacency: Adjacency | str = Adjacency.ADD_REMOVE) -> Certified:
    """``‖x̃‖₂ ≤ c·scale + √d``: stochastic rounding moves each coordinate by less than 1 (twice, replace-one)."""
    adj = choice("adjacency", adjacency, Adjacency)
    ball = sensitivity_ball(gamma=config.picks()[0], clip=config.clip, dimension=config.padded_dimension,
                            adjacency=adj, rounding=Rounding.STOCHASTIC)
    return Certified.from_arb("integer sensitivity", ball, Direction.UPPER,
                              "c scale + sqrt(d): unconditional stochastic rounding moves each coordinate by < 1"
                              + ("; twice for replace-one" if adj is Adjacency.REPLACE_ONE else ""))


def wrap_bound(*, clients: int, dimension: int, data_proxy, sigma, word_bits: int) -> tuple[Certified, Certified]:
    """Certified ``P(the coordinate's sum leaves [−2^(b−1), 2^(b−1)))`` per coordinate and per round.

    The sum is sub-Gaussian with variance proxy ``v = data_proxy + K/4 + K σ²``
    (the rotated data over the rotation's random signs or phases, for
    updates chosen independently of them, each
    client's rounding error by Hoeffding's lemma, each discrete Gaussian
    share being σ²-sub-Gaussian, Canonne–Kamath–Steinke 2020), so
    ``P(|S| ≥ t) ≤ 2 exp(−t²/(2v))`` at ``t = 2^(b−1)``; per round the
    union bound over the ``d`` coordinates.
    """
    v = Fraction(data_proxy) + Fraction(clients, 4) + clients * Fraction(sigma) ** 2
    method = ("sub-Gaussian tail 2 exp(-t^2/(2 v)), v = data + K/4 + K sigma^2 (Hoeffding; the discrete Gaussian "
              "is sigma^2-sub-Gaussian)")

    def capped(name, coordinates, how):          # the tail's one home: itsa.privacy.tails
        bound = certified_tail(room=2 ** (word_bits - 1), proxy=v, coordinates=coordinates)
        if bound.upper() >= 1:
            return Certified(name, Fraction(1), Fraction(1), Direction.UPPER, "trivial: the tail bound reaches 1")
        return Certified(name, bound.low, bound.high, Direction.UPPER, how)

    return (capped("wrap per coordinate", 1, method),
            capped("wrap per round", dimension, method + f"; union bound over d = {dimension}"))


def _epsilon(config: HeuristicConfig, sensitivity: Certified, survivors: int, rounds: int, delta: Fraction,
             conversion: str) -> tuple[Certified | None, str | None]:
    if config.noise_multiplier == 0:
        return None, "no noise (z = 0): no epsilon"
    sigma = config.picks()[2]
    if sigma < Fraction(1, 2):
        return None, (f"local sigma {_dec(sigma)} < 1/2 integer units: the tau bound of the distributed "
                      "discrete Gaussian does not apply")
    event = DistributedDiscreteGaussianEvent(sensitivity=sensitivity.arb(), scale=sigma, survivors=survivors,
                                             dimension=config.padded_dimension, name="k-sd rule")
    bound = Accountant(conversion=conversion).compose(event, rounds).bound(delta)
    note = None if not bound.warnings else "the tau term is not below the leading term: the bound is loose"
    tight = pld_epsilon(event, rounds=rounds, delta=delta)      # the dominating pair's, where it applies
    if tight is not None and tight.upper() < bound.epsilon.upper():
        return tight, None
    return bound.epsilon, note


def certify_heuristic(config: HeuristicConfig, *, dropout=0, survivors: int | None = None, rounds: int = 1,
                      delta=None, adjacency: Adjacency | str = Adjacency.ADD_REMOVE, conversion: str = "cks",
                      epsilon=None, overflow=None) -> HeuristicRisk:
    """itsa's certified ε and wrap probability for what the rule picked, for the fewest survivors.

    Parameters
    ----------
    config : HeuristicConfig
        From :func:`k_stddevs_rule`.
    dropout, survivors
        The fraction that may drop out (the fewest survivors ``K − ⌊dropout K⌋``), or the survivors directly.
    rounds, delta, adjacency, conversion
        The accounting: ε after ``rounds`` at ``delta`` (default ``itsa.privacy``'s δ).
    epsilon, overflow : number, optional
        The deployment's targets (ε, and the wrap probability per round);
        with both the verdict reads ``safe``, ``wasteful`` (one bit fewer
        would meet both too) or ``wrong`` (a target is missed).
    """
    rounds = whole_number("rounds", rounds, minimum=1)
    d = fraction("delta", DEFAULT_DELTA if delta is None else delta, low=0, high=1)
    adj = choice("adjacency", adjacency, Adjacency)
    if survivors is not None and dropout != 0:
        raise conflict(f"survivors {survivors}", f"dropout {dropout}", "each names the fewest survivors")
    left = (noise_shares(config.clients, dropout).privacy if survivors is None
            else whole_number("survivors", survivors, minimum=1, maximum=config.clients))
    eps_target = None if epsilon is None else fraction("epsilon", epsilon, low=0)
    wrap_target = None if overflow is None else fraction("overflow", overflow, low=0, high=1)
    if config.refusal:
        return HeuristicRisk(config=config, survivors=left, rounds=rounds, delta=d, adjacency=adj, sensitivity=None,
                             epsilon=None, wrap_coordinate=None, wrap_round=None,
                             verdict="wrong" if eps_target is not None else None, reasons=(config.refusal,))
    sens = integer_sensitivity(config, adj)
    eps, eps_note = _epsilon(config, sens, left, rounds, d, conversion)
    scale, _, sigma = config.picks()
    proxy = FLATNESS[config.rotation] * (config.clients * config.clip * scale) ** 2 \
        / config.padded_dimension
    coord, per_round = wrap_bound(clients=config.clients, dimension=config.padded_dimension, data_proxy=proxy,
                                  sigma=sigma, word_bits=config.word_bits)
    reasons = tuple(r for r in (eps_note, _inflation(config)) if r)
    risk = HeuristicRisk(config=config, survivors=left, rounds=rounds, delta=d, adjacency=adj, sensitivity=sens,
                         epsilon=eps, wrap_coordinate=coord, wrap_round=per_round, verdict=None, reasons=reasons)
    if eps_target is None or wrap_target is None:
        return risk
    verdict, why = _verdict(risk, eps_target, wrap_target, dropout=dropout, survivors=survivors,
                            conversion=conversion)
    return replace(risk, verdict=verdict, reasons=reasons + why)


def _meets(risk: HeuristicRisk, eps_target: Fraction, wrap_target: Fraction) -> list[str]:
    missed = []
    if risk.wrap_round is None:
        return [str(risk.config.refusal)]
    if risk.epsilon is None or risk.epsilon.upper() > eps_target:
        missed.append(f"certified eps {'none' if risk.epsilon is None else risk.epsilon.decimal()} "
                      f"is above the target {fraction_text(eps_target)}")
    if risk.wrap_round.upper() > wrap_target:
        missed.append(f"certified wrap per round {risk.wrap_round.decimal(3)} is above the target "
                      f"{fraction_text(wrap_target)}")
    return missed


def _verdict(risk, eps_target, wrap_target, **accounting) -> tuple[str, tuple[str, ...]]:
    missed = _meets(risk, eps_target, wrap_target)
    if missed:
        return "wrong", tuple(missed)
    c = risk.config
    if c.word_bits > 1:
        fewer = k_stddevs_rule(c.clients, c.dimension, c.clip, c.word_bits - 1, c.noise_multiplier, c.k_stddevs,
                         rotation=c.rotation, flatness=c.flatness)
        smaller = certify_heuristic(fewer, rounds=risk.rounds, delta=risk.delta, adjacency=risk.adjacency,
                                    **accounting)
        if not _meets(smaller, eps_target, wrap_target):
            return "wasteful", (f"the rule at {c.word_bits - 1} bits meets both targets too",)
    return "safe", ()


def _inflation(config: HeuristicConfig) -> str | None:
    """Rounding's share of the sensitivity: ``1 + γ√d/c``, where low word sizes break the rule."""
    ratio = 1 + config.picks()[1] * Fraction(math.isqrt(config.padded_dimension)) / config.clip
    if ratio < Fraction(11, 10):
        return None
    return (f"rounding inflates the sensitivity by at least {safe_decimal(ratio, 3, up=False)}x "
            "(gamma sqrt(d) against the clip) while the noise is sized for the clip alone")
