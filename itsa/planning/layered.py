"""The encoding of a PSA layering: per stage, the smallest margin whose carry, noise included, meets the target.

Each client's coordinate ``round(γ x)`` is written in ``L`` balanced
radix-``ρ`` digits (``|round(γ x)| ≤ (ρ^L − 1)/2`` is needed, so γ is at most
``(ρ^L − 1)/(2 S)``). A stage of ``w`` layers sums the clients' stage symbols
(uniform on ``ρ^w`` values under the digit prior of the modular part) modulo
``M = ρ^(w+m)``, and each of its layers carries every client's noise share of
scaled scale ``s~`` (in that layer's digit units). In the stage's units the
noise is ``N = Σ_(j<w) ρ^j Z_j``, ``Z_j`` a sum of ``n`` shares, so ``N`` is
``n s~² Σ_j ρ^(2j)``-subgaussian.

A coordinate of a stage carries when ``|S + N| > (M − 1)/2 = c``. The margin
is the modular part's one margin search (:func:`itsa.modular.smallest_margin`)
with the noise as its parameter (:class:`itsa.modular.SubGaussianNoise`): for
every ``t``, ``P[|S + N| > c] ≤ P[|S| > c − t] + P[|N| ≥ t + 1]``, the first
term the modular part's exact (or certified) law of the noise-free sum, the
second the subgaussian tail; ``t`` is picked from a grid and the bound
certified there: the noise enters the exact margin.

Examples
--------
>>> from fractions import Fraction
>>> from itsa.modular import DigitLaw, sum_law
>>> law = sum_law(DigitLaw.uniform(3), 8)
>>> noisy_carry(law, 13, Fraction(0)).high == law.carry(13).high     # no noise: the exact carry
True
>>> noisy_carry(law, 13, Fraction(8, 4)).high > law.carry(13).high
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption, excerpt
from itsa.modular import DigitLaw, NoMargin, Reading, SubGaussianNoise, parse_stages, smallest_margin
from itsa.planning.mechanism import NoiseInputs
from itsa.planning.sections import PayloadPlan, accuracy_missed
from itsa.planning.vocabulary import NoiseKind, Overflow
from itsa.privacy.shares import noise_shares

__all__ = ["StagePlan", "LayeredEncodingPlan", "noisy_carry", "any_data_carry", "size_stage", "largest_gamma", "layered_encoding", "bits", "MAX_MARGIN", "layered_accuracy"]

#: The most margin digits a stage may take before the plan calls the layering infeasible.
MAX_MARGIN = 40
#: How a stage's carry is bounded (the modular part's sub-Gaussian noise term).
CARRY_METHOD = SubGaussianNoise.carry_method

#: The premise of every carry bound of a layering (the data's digits are not certified to follow it).
DIGIT_PRIOR = "the layers' digits are uniform and independent (the modular part's prior; the clip does not imply it)"


def noisy_carry(law, half: int, proxy: Fraction) -> Certified:
    """An upper bound on ``P[|S + N| > half]`` for the sum law ``law`` and noise of variance proxy ``proxy``
    (:meth:`itsa.modular.SubGaussianNoise.carry`)."""
    return SubGaussianNoise(proxy=proxy).carry(law, half)


@dataclass(frozen=True, kw_only=True)
class StagePlan:
    """One modulus: the layers it sums, its margin and modulus, and its per-coordinate carry bound."""

    layers: tuple[int, ...]
    margin: int | None
    radix: int
    carry: Certified
    #: the carry bound for any data (no digit prior): every client's symbol at its largest, ``(ρ^w − 1)/2``
    any_data: Certified | None = None

    @property
    def width(self) -> int:
        return len(self.layers)

    @property
    def modulus(self) -> int | None:
        return None if self.margin is None else self.radix ** (self.width + self.margin)

    def digits(self) -> int:
        return self.width + (MAX_MARGIN if self.margin is None else self.margin)

    def to_dict(self) -> dict:
        return {"layers": list(self.layers), "margin": self.margin,
                "modulus": None if self.modulus is None else str(self.modulus),
                "carry_per_coordinate": self.carry.to_dict(),
                "carry_per_coordinate_any_data": None if self.any_data is None else self.any_data.to_dict()}

    def text(self) -> str:
        where = ",".join(map(str, self.layers))
        if self.margin is None:
            return f"layers {where}: no margin up to {MAX_MARGIN} meets the target"
        worst = "" if self.any_data is None else f" ({self.any_data.decimal(4)} for any data)"
        return (f"layers {where}: margin {self.margin}, modulus {self.radix}^{self.width + self.margin}, carry <= "
                f"{self.carry.decimal(4)} per coordinate{worst}")


def size_stage(*, clients: int, radix: int, layers: tuple[int, ...], scaled_scale: Fraction, shares: int,
               target: Fraction, arithmetic: str = "auto", deadline=None) -> StagePlan:
    """The smallest margin of one stage whose noisy carry bound is ``<= target`` (per coordinate).

    The modular part's margin search (:func:`itsa.modular.smallest_margin`) on the stage's uniform symbols,
    with the ``shares`` noise shares of scaled scale ``scaled_scale`` (s̃, digit units) as a sub-Gaussian term.
    """
    width = len(layers)
    noise = SubGaussianNoise(proxy=shares * scaled_scale**2 * sum(Fraction(radix) ** (2 * j) for j in range(width)))
    try:
        found = smallest_margin(clients, radix, 1, target, Reading.PER_LAYER, DigitLaw.uniform(radix, width),
                                width=width, arithmetic=arithmetic, time_limit=deadline, noise=noise,
                                max_margin=MAX_MARGIN)
    except NoMargin as none:
        return StagePlan(layers=layers, margin=None, radix=radix, carry=none.carry)
    half = (radix ** (width + found.margin) - 1) // 2
    return StagePlan(layers=layers, margin=found.margin, radix=radix, carry=found.carry_probability,
                     any_data=noise.any_data(clients * (radix**width - 1) // 2, half))


def any_data_carry(largest: int, half: int, proxy: Fraction) -> Certified:
    """An upper bound on ``P[|S + N| > half]`` for any sum ``|S| ≤ largest`` (no digit prior;
    :meth:`itsa.modular.SubGaussianNoise.any_data`)."""
    return SubGaussianNoise(proxy=proxy).any_data(largest, half)


def largest_gamma(radix: int, layers: int, clip: Fraction, deadline=None) -> Fraction:
    """The largest power of two ``γ`` with ``⌊γ S + 1/2⌋ ≤ (ρ^L − 1)/2`` (the clip fits ``L`` digits).

    A clip that is not a positive number is refused (no such largest γ); each loop looks at ``deadline``.

    >>> largest_gamma(3, 4, Fraction(1)), largest_gamma(3, 4, Fraction(0))
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: clip: must be a number > 0 (a largest gamma needs one), not Fraction(0, 1)
    """
    if not isinstance(clip, (int, Fraction)) or isinstance(clip, bool) or not clip > 0:
        raise InvalidOption(f"clip: must be a number > 0 (a largest gamma needs one), not {excerpt(clip)}")
    capacity = (radix**layers - 1) // 2
    e = 0
    while math.floor(Fraction(2) ** e * clip + Fraction(1, 2)) > capacity:
        if deadline is not None:
            deadline.check("plan: the largest scale gamma")
        e -= 1
    while math.floor(Fraction(2) ** (e + 1) * clip + Fraction(1, 2)) <= capacity:
        if deadline is not None:
            deadline.check("plan: the largest scale gamma")
        e += 1
    return Fraction(2) ** e


@dataclass(frozen=True, kw_only=True, repr=False)
class LayeredEncodingPlan(Displayable):
    """γ, the stages with their margins and moduli, the flat executions beside them, and the wrap bound."""

    gamma: Fraction
    radix: int
    layers: int
    stages: tuple[StagePlan, ...]
    flat: tuple[StagePlan, ...]
    wrap_probability: Certified
    overflow_target: Fraction
    per: str
    chosen: str
    stage_target: Fraction

    @property
    def quantization_bound(self) -> Fraction:
        return 1 / (2 * self.gamma)

    @property
    def modulus(self) -> tuple[int | None, ...]:
        return tuple(s.modulus for s in self.stages)

    @property
    def meets_target(self) -> bool:
        return all(s.margin is not None for s in self.stages) and self.wrap_probability.upper() <= self.overflow_target

    def headline(self) -> str:
        return (f"gamma {frac(self.gamma)}, radix {self.radix}, {len(self.stages)} stage(s): wrap <= "
                f"{self.wrap_probability.decimal()} per {self.per}")

    def rows(self) -> list[tuple[str, str]]:
        return ([("scale gamma", f"{frac(self.gamma)} (exact; {self.chosen})"),
                 ("quantization", f"each coordinate of the released mean off by at most "
                                  f"{safe_decimal(self.quantization_bound, 6)} (exact bound; rounding to nearest)"),
                 ("digit prior", f"{DIGIT_PRIOR}: every carry and wrap bound below holds under it")]
                + [(f"stage {i + 1}", s.text()) for i, s in enumerate(self.stages)]
                + [("wrap probability", f"{self.wrap_probability.decimal(6)} per {self.per}"
                                        f"{' of one stage' if self.per == 'coordinate' else ''} "
                                        f"({self.wrap_probability.direction}; target "
                                        f"{safe_decimal(self.overflow_target, 6)}; each stage's "
                                        f"{safe_decimal(self.stage_target, 6)} per coordinate)"),
                   ("wrap method", str(self.wrap_probability.method))])

    def to_dict(self) -> dict:
        return {"kind": "layered", "gamma": frac(self.gamma), "radix": self.radix, "layers": self.layers,
                "modulus": [None if m is None else str(m) for m in self.modulus],
                "stages": [s.to_dict() for s in self.stages], "flat_executions": [s.to_dict() for s in self.flat],
                "quantization_bound": frac(self.quantization_bound),
                "wrap_probability": self.wrap_probability.to_dict(), "overflow_target": frac(self.overflow_target),
                "per": self.per, "stage_target": frac(self.stage_target), "meets_target": self.meets_target,
                "chosen": self.chosen, "digit_prior": "uniform"}


def bits(digits: int, radix: int) -> Certified:
    """``digits log2 ρ`` bits, certified."""
    with precision():
        ball = digits * flint.arb(radix).log() / flint.arb(2).log()
    return Certified.from_arb("bits_per_coordinate", ball, Direction.ENCLOSURE, f"{digits} x log2({radix})")


def layered_encoding(inputs: NoiseInputs, scaled_scale: Fraction, *, stages: str, gamma: Fraction | None,
                     overflow: Fraction, per_round: bool, deadline=None):
    """The encoding and payload sections of a layering (``inputs.radix``, ``inputs.layers``, the ``stages``
    schedule, the file's ``gamma`` or ``None``) at the noise shares' scaled scale ``scaled_scale`` (s̃, digit
    units), against the ``overflow`` target per round (``per_round``) or per coordinate of one stage."""
    clip, d = inputs.clip, inputs.dimension
    radix, layers = inputs.radix, inputs.layers
    assert radix is not None and layers is not None            # a layering has both (NoiseInputs' check)
    capacity = (radix**layers - 1) // 2
    if gamma is not None:              # the file's reader checked that it fits the digits
        how = "given in the deployment file"
    else:
        gamma = largest_gamma(radix, layers, clip, deadline)
        how = f"the largest power of two at which the clip fits the {layers} digits (|round(gamma S)| <= {capacity})"
    schedule = parse_stages(stages, layers)
    target = overflow / (len(schedule) * d) if per_round else overflow
    shares = noise_shares(inputs.clients, inputs.dropout, distributed=inputs.kind is NoiseKind.DISTRIBUTED).wrap

    def stage(ls: tuple[int, ...]) -> StagePlan:
        return size_stage(clients=inputs.clients, radix=radix, layers=ls, scaled_scale=scaled_scale, shares=shares,
                          target=target, deadline=deadline)
    sized = tuple(stage(tuple(s)) for s in schedule)
    flat = tuple(stage(tuple(range(layers, min(s) - 1, -1))) for s in schedule)
    total = sum((s.carry.upper() for s in sized), Fraction(0))
    wrap = (min(Fraction(1), d * total) if per_round else max(s.carry.upper() for s in sized))
    how_wrap = ("union bound over the stages and coordinates" if per_round
                else "the largest stage's bound (the target is per coordinate of one stage)")
    enc = LayeredEncodingPlan(gamma=gamma, radix=radix, layers=layers, stages=sized, flat=flat,
                              wrap_probability=Certified("wrap_probability", Fraction(0), wrap, Direction.CONDITIONAL,
                                                         f"{CARRY_METHOD}; {how_wrap}; premise: {DIGIT_PRIOR}"),
                              overflow_target=overflow, per=str(Overflow.ROUND if per_round else Overflow.COORDINATE),
                              chosen=how,
                              stage_target=target)
    payload = PayloadPlan(bits_per_coordinate=bits(sum(s.digits() for s in sized), radix), dimension=d,
                          flat_bits_per_coordinate=bits(sum(s.digits() for s in flat), radix),
                          note=f"{len(schedule)} resolution(s); flat: one execution per resolution, each with its "
                               "own noisy exact margin")
    return enc, payload


def layered_accuracy(*, target: Fraction | None, error, limit: Fraction | None, survivors: int,
                     flat_word: Callable[[Fraction], tuple[int, Fraction] | None],
                     max_bits: int) -> tuple[list[str], dict]:
    """What the accuracy target adds to a layering's verdict: the reason, and the smallest change that meets it.

    The layering's error (``error.total``, the mean-square error summed over the coordinates) above
    ``target`` makes the plan infeasible. The change, as the flat plan finds it: when even the unconstrained
    limit (the tight continuous Gaussian, the fewest survivors' noise, no rounding) is above the target, no
    encoding meets it and the fix is more survivors (the limit falls as ``1/survivors²``) or a larger ε;
    otherwise the fewest bits of a flat word (no layering) whose certified plan meets it, with the layering's
    error split into its noise and its quantization beside it (the noise is every layer's share scaled by the
    layer's radix power).

    Parameters
    ----------
    target : Fraction or None
        The deployment's ``accuracy`` (``None``: no target, nothing added).
    error : ErrorPlan
        The layering's error section.
    limit : Fraction or None
        The unconstrained limit's error summed over the coordinates (``None``: no target ε to compute it at).
    survivors : int
        The fewest survivors ``K_eff``.
    flat_word : callable
        An accuracy target to the fewest bits and the scale of a flat word whose certified plan meets it, or
        ``None`` (the flat planner's :func:`itsa.planning.flat.certified_word` on the deployment made flat).
    max_bits : int
        The widest word searched (said when none meets it).
    """
    if target is None or error.total <= target:
        return [], {}
    reason, more = accuracy_missed(total=error.total, target=target, limit=limit, survivors=survivors)
    reasons = [reason]
    if more is not None:
        return reasons, {"accuracy": more}
    found = flat_word(target)
    if found is None:
        return reasons, {"accuracy": {"text": f"no flat word up to {max_bits} bits meets it"}}
    bits, gamma = found
    d = error.dimension
    return reasons, {"accuracy": {"word_bits": bits, "gamma": frac(gamma), "text": (
        f"a flat {bits}-bit word (gamma {safe_decimal(gamma, 8)}, no layering) meets it; the layering's error is "
        f"noise {safe_decimal(d * error.noise, 6)} + quantization {safe_decimal(d * error.quantization, 6)}, "
        "summed over the coordinates")}}
