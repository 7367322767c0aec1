"""A flat word's plan: the mechanism (picked for the error when the file names none), γ, σ, the word, the error.

:func:`size_flat` is what :func:`itsa.planning.plan` runs for a flat word:

- the **mechanism**: the file's, or each the registry offers the plan
  (:mod:`itsa.planning.mechanisms`, ``auto``) sized in full and the one with
  the smaller certified error kept (the plan says so);
- the **scale** and **word** (:mod:`itsa.planning.scale`): in a given word the
  largest γ whose certified wrap bound meets the target with the calibrated
  noise, the smallest error there; without a word a γ chosen for the error
  and then the fewest bits;
- the **error** (:class:`~itsa.planning.sections.ErrorPlan`): the rounding's
  and the noise's mean-square error summed over the coordinates, beside the
  unconstrained limit (the tight continuous Gaussian mechanism, fewest
  survivors' noise, no rounding) and their ratio; a warning when the noise's
  root-mean-square per coordinate exceeds the clip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from itsa._util.certified import Certified, Direction, precision, safe_decimal
from itsa._util.deadline import Deadline
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption, excerpt
from itsa.planning.encoding import EncodingPlan, gamma_candidates
from itsa.planning.mechanism import (
    NoiseInputs,
    gaussian_limit,
    limit_multiplier,
    mechanism_of,
    sampled_limit,
    sensitivity,
)
from itsa.planning.mechanisms import DEFAULT, Mechanism, mechanism, registered
from itsa.planning.noise import NoisePlan, size_noise
from itsa.planning.rotation import Rotation, erasure_probability, rotated_dimension, rounded_sum
from itsa.planning.scale import (
    coarsest_accurate,
    largest_gamma,
    mse_parts,
    multiplier_of,
    sigma_estimate,
    smallest_word_at,
    wrap_at,
)
from itsa.planning.sections import ErrorPlan, PayloadPlan, accuracy_missed
from itsa.planning.vocabulary import MAX_WORD_BITS, NoiseKind, Overflow
from itsa.privacy.calibration import MAX_SCALE
from itsa.privacy.neighbours import Adjacency, Rounding

__all__ = ["FlatInputs", "FlatPlan", "size_flat", "size_flat_rounding", "best_word_for", "certified_word", "accuracy_reasons",
           "BEST_IN_WORD", "NoiselessWord", "noiseless_word"]

#: How γ is chosen in a given word.
BEST_IN_WORD = ("the largest scale (to 5 digits) whose certified wrap probability meets the overflow target with "
                "the noise calibrated there: the smallest error in this word (the error falls as gamma grows)")
#: Most times the noise estimate is corrected from a calibration before γ is stepped down.
ROUNDS = 4


@dataclass(frozen=True, kw_only=True)
class FlatInputs:
    """What a flat word's plan depends on, as numbers and choices (built once by the planner from a
    deployment, :func:`itsa.planning.planner.flat_inputs`): the noise's inputs, the file's word and scale
    (``None``: chosen), the overflow target (per round, or per coordinate) and the accuracy target."""

    noise: NoiseInputs
    word_bits: int | None = None
    gamma: Fraction | None = None
    overflow: Fraction = Fraction(1, 10**6)
    per_round: bool = True
    accuracy: Fraction | None = None

    def __post_init__(self):
        if not isinstance(self.noise, NoiseInputs) or self.noise.layered:
            raise InvalidOption(f"noise: must be the NoiseInputs of a flat word, not {excerpt(self.noise)}")
        if not 0 <= self.overflow <= 1:
            raise InvalidOption(f"overflow: must lie in [0, 1], not {excerpt(self.overflow)}")


@dataclass(frozen=True, kw_only=True)
class FlatPlan:
    """The sized parts of a flat plan (its inputs with the mechanism resolved)."""

    inputs: FlatInputs
    sizer: Any
    noise: NoisePlan
    encoding: EncodingPlan
    payload: PayloadPlan
    error: ErrorPlan


def _best_in_word(d: FlatInputs, sizer, bits: int, deadline: Deadline) -> tuple[Fraction, str]:
    n, per_round = d.noise, d.per_round
    target = n.epsilon
    if n.sigma is not None:
        def private(gamma: Fraction) -> bool:
            return target is None or sizer.private_enough(gamma)
        gamma = largest_gamma(n, bits, Fraction(0), overflow=d.overflow, per_round=per_round, deadline=deadline,
                              fits=private)
        if gamma is None:
            return 1 / n.clip, "no scale meets the overflow target (and the target epsilon) in this word: gamma S = 1"
        return gamma, BEST_IN_WORD.replace("calibrated there", "of the file")
    assert target is not None           # no σ in the file: a target ε (the Deployment's check)
    z = limit_multiplier(target, n.delta, n.rounds)

    def reachable(gamma: Fraction) -> bool:
        return sigma_estimate(n, gamma, z) < MAX_SCALE / 4

    gamma = None
    for _ in range(ROUNDS):
        gamma = largest_gamma(n, bits, z, overflow=d.overflow, per_round=per_round, deadline=deadline,
                              fits=reachable)
        if gamma is None:
            return 1 / n.clip, "no scale meets the overflow target in this word: gamma S = 1"
        sigma = sizer.sigma(gamma)
        if wrap_at(n, bits, gamma, sigma, per_round=per_round).upper() <= d.overflow:
            return gamma, BEST_IN_WORD + _capped(d, bits, gamma, z, reachable)
        z = max(z * Fraction(100001, 100000), multiplier_of(n, gamma, sigma))
    assert gamma is not None
    for _ in range(100):
        deadline.check("plan: stepping the scale down")
        gamma = Fraction(safe_decimal(gamma * Fraction(99, 100), 5, up=False))
        if gamma < 1 / n.clip:
            break
        if wrap_at(n, bits, gamma, sizer.sigma(gamma), per_round=per_round).upper() <= d.overflow:
            return gamma, BEST_IN_WORD
    return 1 / n.clip, "no scale meets the overflow target in this word: gamma S = 1"


def _capped(d: FlatInputs, bits: int, gamma: Fraction, z: Fraction, reachable) -> str:
    """What a wide word's γ says when a finer γ would fit the word but need more noise than is calibrated."""
    finer = gamma * Fraction(101, 100)
    if reachable(finer) or wrap_at(d.noise, bits, finer, sigma_estimate(d.noise, finer, z),
                                   per_round=d.per_round).upper() > d.overflow:
        return ""
    return (" (a finer scale would need noise beyond 2^200 integer units to meet the target epsilon: the most "
            "calibrated)")


def _choose(d: FlatInputs, sizer, deadline: Deadline) -> tuple[Fraction, int, str, str]:
    n = d.noise
    if d.gamma is not None or (d.word_bits is None and n.sigma is not None):
        return sizer.choose()
    if d.word_bits is not None:
        gamma, how = _best_in_word(d, sizer, d.word_bits, deadline)
        return gamma, d.word_bits, how, "given in the deployment file"
    assert n.epsilon is not None        # no σ in the file: a target ε (the Deployment's check)
    z = limit_multiplier(n.epsilon, n.delta, n.rounds)
    gamma, how = coarsest_accurate(n, z, deadline)
    bits = smallest_word_at(n, gamma, sizer.sigma(gamma), overflow=d.overflow, per_round=d.per_round,
                            deadline=deadline)
    return (gamma, MAX_WORD_BITS if bits is None else bits, how,
            "the fewest bits whose certified wrap probability meets the overflow target")


#: The sampled cohort's limit, in words (:func:`itsa.planning.mechanism.sampled_limit`).
SAMPLED_LIMIT = ("the Poisson-sampled continuous Gaussian at the cohort's rate K/N, sensitivity c S over the fewest "
                 "survivors, no rounding: z the largest multiplier whose certified lower bound on epsilon misses the "
                 "target (a lower bound on the limit's z, within a few per cent at a fine grid)")


def _error(d: NoiseInputs, gamma: Fraction, sigma: Fraction) -> ErrorPlan:
    quant, noise = mse_parts(d, gamma, sigma)
    limit = None
    z = None
    if d.epsilon is not None and d.population is None:
        z, limit = gaussian_limit(d)
    elif d.epsilon is not None and d.cohort is not None:
        z, limit = sampled_limit(d)
        limit = limit or None
    warnings: tuple[str, ...] = ()
    if noise > d.dimension * d.clip**2:
        rms = Fraction(safe_decimal(noise / d.dimension, 6, up=False))
        warnings = (f"the noise's root-mean-square per coordinate, sqrt({safe_decimal(rms, 6)}), exceeds the clip "
                    f"{frac(d.clip)}: a released coordinate is mostly noise",)
    how = f"{d.rounding} rounding" + ("" if d.rotation is Rotation.NONE else f" after a {d.rotation} rotation")
    return ErrorPlan(dimension=d.dimension, quantization=quant / d.dimension, noise=noise / d.dimension,
                     limit_total=limit, limit_multiplier=z, rounding=how, warnings=warnings,
                     limit_method=None if d.cohort is None else SAMPLED_LIMIT)


def _size_one(d: FlatInputs, sizer_for, deadline: Deadline) -> FlatPlan:
    sizer = sizer_for(d)
    n = e = d.noise
    gamma, bits, how_gamma, how_word = _choose(d, sizer, deadline)
    noise = size_noise(n, gamma, None if n.sigma is not None else sizer.sigma(gamma))
    rs = rounded_sum(clients=n.clients, gamma=gamma, clip=n.clip, dimension=n.dimension, rotation=e.rotation,
                     rounding=e.rounding)
    d_rot = rotated_dimension(n.dimension, e.rotation)
    enc = EncodingPlan(gamma=gamma, word_bits=bits, data_range=math.ceil(rs.exact),
                       wrap_probability=wrap_at(n, bits, gamma, noise.sigma_client, per_round=d.per_round),
                       overflow_target=d.overflow, per=str(Overflow.ROUND if d.per_round else Overflow.COORDINATE),
                       chosen=f"{how_gamma}; word: {how_word}", quantization_bound=1 / (2 * gamma),
                       rotation=str(e.rotation), rounding=str(e.rounding), rotated_dimension=d_rot,
                       beta=str(e.beta) if e.rounding is Rounding.CONDITIONAL else None)
    padded = "" if d_rot == n.dimension else f"; the {e.rotation} rotation pads d = {n.dimension} to {d_rot} words"
    payload = PayloadPlan(bits_per_coordinate=Certified.exact("bits_per_coordinate", bits, "the word"),
                          dimension=d_rot, note="a flat word: one resolution, no layering" + padded)
    return FlatPlan(inputs=d, sizer=sizer, noise=noise, encoding=enc, payload=payload,
                    error=_error(n, gamma, noise.sigma_client))


def size_flat(inputs: FlatInputs, sizer_for, deadline: Deadline) -> FlatPlan:
    """Size a flat word (``sizer_for(inputs)`` gives the planner's γ/σ search for the cases it keeps:
    a given γ, or a given σ without a word)."""
    if inputs.noise.mechanism is not None:
        return _size_one(inputs, sizer_for, deadline)
    first, *others = [m for m in registered() if m.auto]       # the registry's candidates, the first the default
    base = _size_one(_with(inputs, first.name), sizer_for, deadline)
    plans, skipped = [base], []
    gamma = base.encoding.gamma
    for room in others:
        candidate = _with(inputs, room.name)
        if (inputs.noise.sigma is None and inputs.gamma is None and first is mechanism(DEFAULT)
                and room.premises.no_better_than_default_at_equal_sigma):
            # its tail and its epsilon are each at least the default's at equal noise: with no less noise at
            # the default's scale it cannot reach a smaller error at any scale
            sigma = sizer_for(candidate).sigma(gamma)
            if sigma >= base.noise.sigma_client:
                skipped.append((room, Fraction(sum(mse_parts(candidate.noise, gamma, sigma))), sigma))
                continue
        plans.append(_size_one(candidate, sizer_for, deadline))
    if len(plans) == 1 and len(skipped) == 1:
        room, theirs, sigma = skipped[0]
        why = (f"the mechanism with the smaller error at the targets ({first.name} "
               f"{safe_decimal(base.error.total, 6)} against {room.name} {safe_decimal(theirs, 6)} at the same "
               f"scale, where {room.title} needs sigma {safe_decimal(sigma, 8)}, no less; no mechanism in the file)")
        return replace(base, noise=replace(base.noise, chosen=f"{base.noise.chosen}; {why}"))
    best = min(plans, key=lambda p: (p.error.total, p is not plans[0]))
    rest = [p for p in plans if p is not best]
    against = ", ".join(f"{mechanism_of(p.inputs.noise)} {safe_decimal(p.error.total, 6)}" for p in rest)
    against += "".join(f", {room.name} {safe_decimal(theirs, 6)} (at its scale)" for room, theirs, _ in skipped)
    why = (f"the mechanism with the smaller error at the targets ({mechanism_of(best.inputs.noise)} "
           f"{safe_decimal(best.error.total, 6)} against {against}, MSE summed over the coordinates; "
           "no mechanism in the file)")
    return replace(best, noise=replace(best.noise, chosen=f"{best.noise.chosen}; {why}"))


def _with(d: FlatInputs, mechanism: str) -> FlatInputs:
    return replace(d, noise=replace(d.noise, mechanism=Mechanism(mechanism)))


def best_word_for(n: NoiseInputs, deadline: Deadline, accuracy: Fraction | None = None,
                  start: int = 2, *, overflow: Fraction, per_round: bool) -> tuple[int, Fraction] | None:
    """The fewest bits (from ``start``) at which some γ meets the ``overflow`` target (and, with ``accuracy``,
    whose best γ's error meets it), at the noise estimated from the Gaussian's multiplier: ``(bits, γ)``."""
    z = limit_multiplier(n.epsilon, n.delta, n.rounds) if n.epsilon is not None else Fraction(0)
    for bits in range(max(2, start), MAX_WORD_BITS + 1):
        gamma = largest_gamma(n, bits, z, overflow=overflow, per_round=per_round, deadline=deadline)
        if gamma is None:
            continue
        if accuracy is None or sum(mse_parts(n, gamma, sigma_estimate(n, gamma, z))) <= accuracy:
            return bits, gamma
    return None


def certified_word(d: FlatInputs, deadline: Deadline, sizer_for, accuracy: Fraction | None = None,
                   start: int = 2) -> tuple[int, Fraction] | None:
    """:func:`best_word_for` checked with the noise calibrated at its γ (the next word when the check fails)."""
    while True:
        found = best_word_for(d.noise, deadline, accuracy, start, overflow=d.overflow, per_round=d.per_round)
        if found is None:
            return None
        bits, _ = found
        sized = _size_one(replace(d, word_bits=bits, gamma=None), sizer_for, deadline)
        if sized.encoding.meets_target and (accuracy is None or sized.error.total <= accuracy):
            return bits, sized.encoding.gamma
        start = bits + 1



def accuracy_reasons(d: FlatInputs, enc: EncodingPlan, error: ErrorPlan, deadline: Deadline,
                     fixes: dict, sizer_for) -> tuple[list[str], dict]:
    """What the accuracy target adds to the verdict (a reason and the smallest change that meets it), and the
    word fix of a word that wraps made the fewest bits at which some scale meets the overflow target."""
    reasons: list[str] = []
    n = d.noise
    erased = erasure_probability(gamma=enc.gamma, clip=n.clip, dimension=n.dimension, rotation=n.rotation,
                                 rounding=n.rounding)
    if erased is not None and erased.lower() >= ERASED:
        reasons.append(f"rounding to nearest at gamma {safe_decimal(enc.gamma, 8)} after the {n.rotation} rotation "
                       f"erases every update within the clip with probability at least {erased.decimal(6)} (each "
                       "rotated coordinate below 1/2 rounds to 0): the round sends nothing, a bias its error does "
                       "not average out")
        unbiased = replace(d, noise=replace(n, rounding=Rounding.STOCHASTIC), word_bits=None, gamma=None)
        found = certified_word(unbiased, deadline, sizer_for, start=enc.word_bits) if n.epsilon is not None else None
        where = ("" if found is None else f" in a {found[0]}-bit word (gamma {safe_decimal(found[1], 8)}), the "
                 "fewest bits at which it meets the overflow target")
        fixes["rounding"] = {"rounding": str(Rounding.STOCHASTIC), **({} if found is None else {
                             "word_bits": found[0], "gamma": frac(found[1])}),
                             "text": "stochastic rounding (unbiased: a coordinate rounds up with probability its "
                                     f"fraction, so the mean keeps the update){where}"}
    if "word_bits" in fixes and d.noise.epsilon is not None:
        found = certified_word(d, deadline, sizer_for, start=enc.word_bits + 1)
        if found is not None:
            bits, gamma = found
            fixes["word_bits"] = {"word_bits": bits, "gamma": frac(gamma),
                                  "text": f"a {bits}-bit word: the fewest bits at which a scale meets the overflow "
                                          f"target with the calibrated noise (gamma {safe_decimal(gamma, 8)} there)"}
    target = d.accuracy
    if target is None or error.total <= target:
        return reasons, fixes
    reason, more = accuracy_missed(total=error.total, target=target, limit=error.limit_total,
                                   survivors=d.noise.survivors)
    reasons.append(reason)
    if more is not None:
        fixes["accuracy"] = more
        return reasons, fixes
    start = (enc.word_bits + 1) if d.word_bits is not None else 2
    found = certified_word(replace(d, accuracy=None), deadline, sizer_for, accuracy=target, start=start)
    if found is None:
        fixes["accuracy"] = {"text": f"no word up to {MAX_WORD_BITS} bits meets it"}
    else:
        bits, gamma = found
        fixes["accuracy"] = {"word_bits": bits, "gamma": frac(gamma),
                             "text": f"a {bits}-bit word (gamma {safe_decimal(gamma, 8)}) meets it"}
    return reasons, fixes


#: A rotated word rounded to nearest that erases every update with at least this probability is not feasible.
ERASED = Fraction(1, 2)
#: Rounding to nearest inflating the sensitivity past this ratio to the updates' own ``c γ S`` makes a rotated
#: word whose file names no rounding try stochastic rounding too (:func:`size_flat_rounding`).
ROUNDING_INFLATION = Fraction(101, 100)


def size_flat_rounding(inputs: FlatInputs, sizer_for, deadline: Deadline, *, rounding_named: bool) -> FlatPlan:
    """:func:`size_flat`; where the file names no rounding and rounding to nearest costs (a rotated word whose
    sensitivity it inflates past :data:`ROUNDING_INFLATION` times the updates' own, or a word whose error its
    bias takes more than 1 % of), stochastic rounding (unbiased; its shift coupled) is sized too and the one
    with the smaller error kept, the noise line saying why."""
    nearest = size_flat(inputs, sizer_for, deadline)
    n = inputs.noise
    if rounding_named or n.rounding is not Rounding.NEAREST or n.sigma is not None or n.epsilon is None:
        return nearest
    c = 2 if n.adjacency is Adjacency.REPLACE_ONE else 1
    inflated = nearest.noise.sensitivity.upper() > ROUNDING_INFLATION * c * nearest.encoding.gamma * n.clip
    biased = nearest.error.quantization > (ROUNDING_INFLATION - 1) * nearest.error.per_coordinate
    if not ((inflated and n.rotation is not Rotation.NONE) or biased) or not nearest.encoding.meets_target:
        return nearest              # an infeasible word keeps the default (its fix is the word's)
    stochastic = size_flat(replace(inputs, noise=replace(n, rounding=Rounding.STOCHASTIC)), sizer_for, deadline)
    better = stochastic.encoding.meets_target and stochastic.error.total < nearest.error.total
    best, other = (stochastic, nearest) if better else (nearest, stochastic)
    why = (f"the rounding with the smaller error at the targets ({best.inputs.noise.rounding} "
           f"{safe_decimal(best.error.total, 6)} against {other.inputs.noise.rounding} "
           f"{safe_decimal(other.error.total, 6)}, MSE summed over the coordinates; no rounding in the file)")
    return replace(best, noise=replace(best.noise, chosen=f"{best.noise.chosen}; {why}"))


@dataclass(frozen=True, kw_only=True)
class NoiselessWord:
    """The flat word of a noiseless sum, the server adding its noise after unmasking it
    (:func:`noiseless_word`): the inputs at no noise, the encoding and payload, and ``ball``, the rounded
    update's ``ℓ2`` bound in integer units (an arb ball)."""

    noise: NoiseInputs
    encoding: EncodingPlan
    payload: PayloadPlan
    ball: Any

    def word_fix(self, inputs: FlatInputs, deadline: Deadline) -> dict:
        """The fewest bits whose certified wrap probability of the noiseless sum meets the target at this γ."""
        bits = smallest_word_at(self.noise, self.encoding.gamma, Fraction(0), overflow=inputs.overflow,
                                per_round=inputs.per_round, deadline=deadline)
        return {"word_bits": bits, "text": (f"a {bits}-bit word (at gamma {frac(self.encoding.gamma)})" if bits
                                            else f"no word up to {MAX_WORD_BITS} bits")}


def _noiseless_scale(f: FlatInputs, n: NoiseInputs, deadline: Deadline) -> tuple[Fraction, int, str]:
    """``(γ, word bits, how they were chosen)`` for the noiseless sum."""
    if f.gamma is not None:
        gamma, how = f.gamma, "given in the deployment file"
    elif f.word_bits is not None:
        found = largest_gamma(n, f.word_bits, Fraction(0), overflow=f.overflow, per_round=f.per_round,
                              deadline=deadline)
        gamma, how = ((1 / n.clip, "no scale meets the overflow target in this word: gamma S = 1") if found is None
                      else (found, "the largest scale (to 5 digits) whose certified wrap probability of the noiseless "
                                   "sum meets the overflow target: the finest rounding this word holds"))
    else:
        cands = gamma_candidates(n.clip, n.clients, None, deadline=deadline)
        gamma, how = cands[-1], "no power of two keeps the rounding's inflation small: the largest tried"
        for g in cands:
            deadline.check(f"plan: the scale gamma = {safe_decimal(g, 6)}")
            if Certified.from_arb("s", sensitivity(n, g), Direction.UPPER, "").upper() <= ROUNDING_INFLATION * g * n.clip:
                gamma, how = g, (f"the smallest power of two at which rounding to nearest inflates the update's "
                                 f"l2 bound by at most {frac(ROUNDING_INFLATION - 1)} (no word given)")
                break
    if f.word_bits is not None:
        return gamma, f.word_bits, how + "; word: given in the deployment file"
    bits = smallest_word_at(n, gamma, Fraction(0), overflow=f.overflow, per_round=f.per_round, deadline=deadline)
    return (gamma, MAX_WORD_BITS if bits is None else bits,
            how + "; word: the fewest bits whose certified wrap probability of the noiseless sum meets the target")


def noiseless_word(f: FlatInputs, deadline: Deadline, *, note: str) -> NoiselessWord:
    """The word of a sum that carries no noise (a matrix mechanism's: the server adds its noise after
    unmasking): the file's scale, or the largest scale the file's word holds, or without either the smallest
    power of two at which rounding to nearest inflates the update's ``ℓ2`` bound by at most
    ``ROUNDING_INFLATION − 1``; then the fewest bits whose certified wrap probability meets the target
    (:func:`itsa.planning.scale.wrap_at` at noise 0: exactly 0 or no randomness beyond the rotation's).
    ``note`` is the payload's."""
    n = replace(f.noise, kind=NoiseKind.CENTRAL, mechanism=Mechanism(DEFAULT), sigma=Fraction(0))
    gamma, bits, chosen = _noiseless_scale(f, n, deadline)
    rs = rounded_sum(clients=n.clients, gamma=gamma, clip=n.clip, dimension=n.dimension, rotation=n.rotation,
                     rounding=n.rounding)
    d_rot = rotated_dimension(n.dimension, n.rotation)
    per = str(Overflow.ROUND if f.per_round else Overflow.COORDINATE)
    enc = EncodingPlan(gamma=gamma, word_bits=bits, data_range=math.ceil(rs.exact),
                       wrap_probability=wrap_at(n, bits, gamma, Fraction(0), per_round=f.per_round),
                       overflow_target=f.overflow, per=per, chosen=chosen, quantization_bound=1 / (2 * gamma),
                       rotation=str(n.rotation), rounding=str(n.rounding), rotated_dimension=d_rot)
    payload = PayloadPlan(bits_per_coordinate=Certified.exact("bits_per_coordinate", bits, "the word"),
                          dimension=d_rot, note=note)
    with precision():
        ball = sensitivity(n, gamma)
    return NoiselessWord(noise=n, encoding=enc, payload=payload, ball=ball)
