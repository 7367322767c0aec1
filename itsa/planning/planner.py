"""``plan(deployment) -> Plan``: noise, encoding, payload, keys, error, heuristic and gate for one deployment.

What the file leaves out is chosen, and the plan says how:

- **the noise** (no ``noise.sigma``): the smallest σ whose certified ε meets
  the target at the chosen γ (:func:`itsa.privacy.calibrate`);
- **the scale γ** (no ``encoding.gamma``), a power of two: with a word, the
  largest γ whose certified wrap probability meets the overflow target (the
  finest grid the word holds); without one, the smallest γ at which the
  rounding's share of the error is at most :data:`QUANTIZATION_SHARE` of the
  noise's;
- **the word** (no ``encoding.word_bits``): the fewest bits whose wrap
  probability meets the overflow target at that γ and σ.

A deployment that cannot meet its targets is ``infeasible``, with the
smallest word (at the plan's γ and σ) and the smallest noise (at its γ) that
fix it; never a wrap left silent.

Examples
--------
>>> from itsa.planning.deployment import parse_deployment
>>> d = parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "noise": "central",
...                       "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10},
...                       "encoding": {"word_bits": 32, "gamma": 256}})
>>> p = plan(d)
>>> p.verdict.feasible, p.encoding.word_bits, p.noise.epsilon.upper() <= 2
(True, 32, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Protocol

from itsa._util.certified import Certified, Direction, safe_decimal
from itsa._util.checks import run_seed
from itsa._util.deadline import DEFAULT_TIME_LIMIT as LIBRARY_TIME_LIMIT
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.files import atomic_writer, check_output_file
from itsa._util.plain import frac
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidDeployment, InvalidInput, InvalidOption, excerpt
from itsa.keys.examples import resolve
from itsa.keys.model.io import load_instance
from itsa.planning.accounting import GaussianPair, account_noise, round_pair
from itsa.planning.deployment import Deployment
from itsa.planning.encoding import EncodingPlan, gamma_candidates
from itsa.planning.flat import FlatInputs, accuracy_reasons, certified_word, size_flat_rounding
from itsa.planning.frameworks_units import frameworks_section
from itsa.planning.gate import GatePlan, size_gate
from itsa.planning.layered import DIGIT_PRIOR, LayeredEncodingPlan, layered_accuracy, layered_encoding
from itsa.planning.matrix.sections import MatrixErrorPlan, MatrixFrameworks, MatrixNoisePlan
from itsa.planning.matrix.size import size_matrix
from itsa.planning.mechanism import BETA_CHOSEN, NoiseInputs, cohort_inputs, coupling_beta, gaussian_limit, room_of
from itsa.planning.mechanisms import never_wrap_fix
from itsa.planning.noise import NoisePlan, calibrated_sigma, epsilon_at, round_event, sensitivity, size_layered_noise
from itsa.planning.protocols import protocol_reasons
from itsa.planning.rotation import Rotation
from itsa.planning.rule.beside import size_heuristic
from itsa.planning.scale import smallest_word_at, wrap_at
from itsa.planning.sections import (
    NOT_COMPUTED,
    ErrorPlan,
    KeysPlan,
    PayloadPlan,
    Verdict,
    mean_square_error,
    size_deployment_keys,
)
from itsa.planning.vocabulary import MAX_WORD_BITS, NoiseKind, Overflow
from itsa.privacy.calibration import MAX_DOUBLINGS, MAX_SCALE
from itsa.privacy.events import Event
from itsa.privacy.neighbours import DEFAULT_BETA, Rounding
from itsa.privacy.releasing import MAX_EPSILON
from itsa.privacy.shares import noise_shares

__all__ = ["Plan", "Verdict", "plan", "plan_deadline", "noise_inputs", "flat_inputs", "QUANTIZATION_SHARE", "DEFAULT_TIME_LIMIT"]

#: Without a word or a γ, γ is the smallest power of two whose rounding error is at most this share of the noise's.
QUANTIZATION_SHARE = Fraction(1, 100)
#: Seconds a plan may take by default (the key-rate solve takes most of it): the library's one default.
DEFAULT_TIME_LIMIT = LIBRARY_TIME_LIMIT


@dataclass(frozen=True, kw_only=True, repr=False)
class Plan(Displayable):
    """Everything one deployment needs, each number exact or certified and labelled."""

    deployment: Deployment
    noise: NoisePlan | MatrixNoisePlan
    encoding: EncodingPlan | LayeredEncodingPlan
    payload: PayloadPlan
    keys: KeysPlan | Displayable | None
    error: ErrorPlan | MatrixErrorPlan
    heuristic: Displayable | None
    gate: GatePlan | None
    verdict: Verdict
    #: the plan in each framework's parameters (:mod:`itsa.planning.frameworks_units`)
    frameworks: Displayable | None = None
    inputs: NoiseInputs | None = field(default=None, compare=False)     # its sections' numbers (None: by hand)

    def round_event(self) -> Event:
        """One round's event as the plan accounts it, from its own inputs (:func:`itsa.planning.noise.round_event`)."""
        if self.deployment.matrix is not None:
            raise InvalidOption("round_event: a matrix mechanism's rounds are not independent: its worst participation "
                                "pattern is one Gaussian mechanism (the frameworks section's pair)")
        return round_event(self.inputs or noise_inputs(self.deployment), self.encoding.gamma, self.noise.sigma_client)

    def sections(self) -> dict[str, Displayable | None]:
        return {"noise": self.noise, "encoding": self.encoding, "payload": self.payload, "keys": self.keys,
                "error": self.error, "heuristic": self.heuristic, "gate": self.gate, "frameworks": self.frameworks,
                "verdict": self.verdict}

    def headline(self) -> str:
        return (f"{self.deployment.name}: {self.verdict.headline()}; eps <= {self.noise.epsilon.decimal()}; "
                f"{self.encoding.headline()}")

    def rows(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = [("deployment", self.deployment.headline())]
        for name, section in self.sections().items():
            if section is None:
                rows.append((name, self._absent(name)))
                continue
            rows.extend(section.rows())
        return rows

    def _absent(self, name: str) -> str:
        if name == "heuristic" and self.deployment.matrix is not None:
            return "not computed (the k-standard-deviations rule sizes independent noise, not a matrix mechanism's)"
        if name == "heuristic" and self.deployment.encoding.layered:
            return "not computed (the k-standard-deviations rule sizes a flat word, not a layering)"
        return _ABSENT[name]

    def to_dict(self) -> dict:
        return {"deployment": self.deployment.to_dict(),
                **{k: None if s is None else s.to_dict() for k, s in self.sections().items()}}

    def markdown(self) -> str:
        """The plan as a Markdown report: one table per section."""
        lines = [f"# Plan: {self.deployment.name}", "", self.headline(), ""]
        for name, section in {"deployment": self.deployment, **self.sections()}.items():
            lines += [f"## {name}", ""]
            if section is None:
                lines += [self._absent(name), ""]
                continue
            lines += ["| | |", "|---|---|"]
            lines += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in section.rows()] + [""]
        return "\n".join(lines)


#: What the plan says of a section it does not have.
_ABSENT = {"keys": "not asked for (no protocol, no servers)", "gate": "not asked for (no gate)", "heuristic": NOT_COMPUTED,
           "frameworks": "not computed (no framework sums a PSA layering)"}


def noise_inputs(deployment: Deployment) -> NoiseInputs:
    """The numbers and choices of ``deployment`` its noise depends on (the adapter: the sections take these,
    never the deployment).

    >>> from itsa.planning.deployment import parse_deployment
    >>> n = noise_inputs(parse_deployment({"clients": 1000, "dropout": "1/10", "dimension": 10, "clip": 1,
    ...                                    "privacy": {"epsilon": 2}}))
    >>> n.clients, n.survivors, n.epsilon
    (1000, 900, Fraction(2, 1))
    """
    d, e, p = deployment, deployment.encoding, deployment.privacy
    n = NoiseInputs(clients=d.clients, dimension=d.dimension, clip=d.clip, dropout=d.dropout,
                    adjacency=d.adjacency, kind=d.noise.kind, mechanism=d.noise.mechanism, sigma=d.noise.sigma,
                    rotation=e.rotation, rounding=e.rounding, beta=e.beta, epsilon=p.epsilon, delta=p.delta,
                    rounds=p.rounds, population=d.population, sampling=d.sampling, radix=e.radix,
                    layers=e.layers)
    if e.rounding is Rounding.CONDITIONAL and not e.beta_named:        # the file leaves beta to the plan
        n = replace(n, beta=coupling_beta(n))
    return cohort_inputs(n)         # distributed shares over a sampled population: sized for its cohort


def flat_inputs(deployment: Deployment) -> FlatInputs:
    """What a flat word's plan of ``deployment`` depends on (:class:`itsa.planning.flat.FlatInputs`): its noise's
    inputs (:func:`noise_inputs`), the file's word and scale, the overflow and accuracy targets."""
    e = deployment.encoding
    return FlatInputs(noise=noise_inputs(deployment), word_bits=e.word_bits, gamma=e.gamma,
                      overflow=deployment.overflow, per_round=_per_round(deployment), accuracy=deployment.accuracy)


def _per_round(deployment: Deployment) -> bool:
    """Whether the overflow target bounds a whole round (else one coordinate)."""
    return deployment.overflow_per is Overflow.ROUND


def _flat_wrap(f: FlatInputs, bits: int, gamma: Fraction, sigma: Fraction) -> Certified:
    return wrap_at(f.noise, bits, gamma, sigma, per_round=f.per_round)


def _word(f: FlatInputs, gamma: Fraction, sigma: Fraction, deadline: Deadline | None = None) -> int | None:
    return smallest_word_at(f.noise, gamma, sigma, overflow=f.overflow, per_round=f.per_round, deadline=deadline)


def _noise_variance(n: NoiseInputs, sigma: Fraction) -> Fraction:
    """``Var Z`` bound: ``K_eff v`` for distributed shares of the fewest survivors, ``v`` central
    (:func:`itsa.privacy.noise_shares`), ``v`` the mechanism's bound on a share's variance (``σ²`` for a
    mechanism whose premise says so)."""
    shares = noise_shares(n.clients, n.dropout, distributed=n.kind is NoiseKind.DISTRIBUTED).privacy
    return room_of(n).variance_bound(sigma) * shares


#: How γ is chosen in a given word.
FINEST = ("the largest power of two whose certified wrap probability meets the overflow target with the noise "
          "scaled from the smallest scale's (an upper bound on the noise calibrated there), checked with the noise "
          "calibrated at it")


#: How γ is chosen when the file's σ misses the target ε at every scale (ε only grows with γ).
NOT_PRIVATE = ("the file's sigma misses the target epsilon even at the smallest scale (epsilon grows with gamma): "
               "the smallest with gamma S >= 1")


class _Sizer:
    """The γ, σ and word search of one flat word (the file's choices, the rest chosen)."""

    def __init__(self, inputs: FlatInputs, report: Reporter, deadline: Deadline):
        self.d, self.report, self.deadline = inputs, report, deadline
        #: the noise's numbers
        self.inputs = inputs.noise
        self.memo: dict[Fraction, Fraction] = {}
        self.reach: dict[Fraction, bool] = {}

    def sigma(self, gamma: Fraction) -> Fraction:
        """σ at γ: the file's, or calibrated (once per γ)."""
        if self.inputs.sigma is not None:
            return self.inputs.sigma
        if gamma not in self.memo:
            self.deadline.check("plan: calibrating the noise")
            self.report("calibrate", note=f"gamma = {frac(gamma)}")
            self.memo[gamma] = calibrated_sigma(self.inputs, gamma)
        return self.memo[gamma]

    def estimate(self, gamma: Fraction, base: Fraction) -> Fraction:
        """A σ meeting the target at γ ≥ base without calibrating: σ(base) Δ(γ)/Δ(base) (τ only falls as σ grows)."""
        if self.inputs.sigma is not None:
            return self.inputs.sigma
        ratio = Certified.from_arb("r", sensitivity(self.inputs, gamma) / sensitivity(self.inputs, base), Direction.UPPER,
                                   "").upper()
        return Fraction(safe_decimal(self.sigma(base) * ratio, 8, up=True))

    def private_enough(self, gamma: Fraction) -> bool:
        """With the file's σ, whether ε at γ meets the target (a calibrated σ meets it by construction)."""
        target = self.inputs.epsilon
        if self.inputs.sigma is None or target is None:
            return True
        return epsilon_at(self.inputs, gamma, self.inputs.sigma).epsilon.upper() <= target

    def reachable(self, gamma: Fraction) -> bool:
        """Whether a σ can be calibrated at γ: the target ε is met at the calibration's largest noise scale
        (the file's σ: always). Past it, γ is too fine a scale for the target."""
        if self.inputs.sigma is not None or self.inputs.epsilon is None:
            return True
        if gamma not in self.reach:
            self.reach[gamma] = epsilon_at(self.inputs, gamma, MAX_SCALE).epsilon.upper() <= self.inputs.epsilon
        return self.reach[gamma]

    def quantization_ok(self, gamma: Fraction, sigma: Fraction) -> bool:
        e = mean_square_error(dimension=1, gamma=gamma, noise_variance=_noise_variance(self.inputs, sigma),
                              survivors=self.inputs.survivors)
        return e.quantization <= QUANTIZATION_SHARE * e.noise

    def choose(self) -> tuple[Fraction, int, str, str]:
        """``(γ, word bits, how γ was chosen, how the word was chosen)``."""
        e = self.d
        if e.gamma is not None:
            gamma, how_gamma = e.gamma, "given in the deployment file"
            if not self.reachable(gamma):
                raise InvalidDeployment(f"encoding.gamma: {_short(gamma)} is too fine a scale for the target "
                                        f"epsilon {frac(self.inputs.epsilon)}: the sensitivity grows with gamma, "
                                        f"and even noise of {_max_scale()} integer units (the most calibrated) "
                                        "does not meet it; give a smaller gamma, or none")
        elif e.word_bits is not None:
            gamma, how_gamma = self._finest_in_word(e.word_bits)
        else:
            gamma, how_gamma = self._coarsest_accurate()
        if e.word_bits is not None:
            return gamma, e.word_bits, how_gamma, "given in the deployment file"
        bits = _word(self.d, gamma, self.sigma(gamma), self.deadline)
        return (gamma, MAX_WORD_BITS if bits is None else bits, how_gamma,
                "the fewest bits whose certified wrap probability meets the overflow target")

    def _finest_in_word(self, bits: int) -> tuple[Fraction, str]:
        all_ = gamma_candidates(self.inputs.clip, self.inputs.clients, None, deadline=self.deadline)
        fitting = gamma_candidates(self.inputs.clip, self.inputs.clients, bits, deadline=self.deadline)
        if not fitting:
            return all_[0], ("no power of two fits the word (K floor(gamma S + 1/2) reaches 2^(b-1) at "
                             "gamma S = 1): the smallest with gamma S >= 1")
        base = fitting[0]
        if not self.private_enough(base):
            return base, NOT_PRIVATE
        for gamma in reversed(fitting):
            self.deadline.check(f"plan: the scale gamma = {_short(gamma)}")
            self.report("scale", note=f"gamma = {frac(gamma)}")
            if _flat_wrap(self.d, bits, gamma, self.estimate(gamma, base)).upper() <= self.d.overflow:
                if not self.reachable(gamma):
                    continue        # a scale too fine for any calibrated noise: the word holds it, the target not
                if (_flat_wrap(self.d, bits, gamma, self.sigma(gamma)).upper() <= self.d.overflow
                        and self.private_enough(gamma)):
                    return gamma, FINEST + self._capped(gamma, fitting)
        return base, "no power of two meets the overflow target in this word: the smallest with gamma S >= 1"

    def _capped(self, gamma: Fraction, fitting: list[Fraction]) -> str:
        """What a wide word's γ says when a finer γ in the word was too fine for any calibrated noise."""
        finer = [g for g in fitting if g > gamma]
        if not finer or self.reachable(finer[0]):
            return ""
        return (f" (a finer scale, gamma = {_short(finer[0])}, would need noise beyond {_max_scale()} integer units "
                "to meet the target epsilon: the most calibrated)")

    def _coarsest_accurate(self) -> tuple[Fraction, str]:
        cands = gamma_candidates(self.inputs.clip, self.inputs.clients, None, deadline=self.deadline)
        base = cands[0]
        if not self.private_enough(base):
            return base, NOT_PRIVATE
        for gamma in cands:
            self.deadline.check(f"plan: the scale gamma = {_short(gamma)}")
            if gamma != base and not self.reachable(gamma):
                break
            self.report("scale", note=f"gamma = {frac(gamma)}")
            if (self.quantization_ok(gamma, self.estimate(gamma, base)) and self.quantization_ok(gamma, self.sigma(gamma))
                    and self.private_enough(gamma)):
                return gamma, (f"the smallest power of two whose rounding error is at most "
                               f"{frac(QUANTIZATION_SHARE)} of the noise's (no word given)")
        return cands[-1], "no power of two makes the rounding error small beside the noise: the largest tried"


def _short(gamma: Fraction) -> str:
    """A power of two (or any γ) in a few characters: ``2^222``."""
    if gamma > 0 and gamma.denominator == 1 and gamma.numerator & (gamma.numerator - 1) == 0:
        return f"2^{gamma.numerator.bit_length() - 1}"
    if gamma > 0 and gamma.numerator == 1 and gamma.denominator & (gamma.denominator - 1) == 0:
        return f"2^-{gamma.denominator.bit_length() - 1}"
    return safe_decimal(gamma, 6)


def _max_scale() -> str:
    return f"2^{MAX_DOUBLINGS}"


def _gate_reasons(gate, reasons: list[str], fixes: dict, deadline: Deadline | None = None) -> None:
    """A gate whose certified probability of shutting out more honest clients than the dropout allowance is
    above the target breaks the plan."""
    if gate is None or not gate.breaks_allowance:
        return
    reasons.append(f"the gate shuts out more than the dropout allowance of {gate.allowance} honest clients by round "
                   f"{gate.rounds} with probability up to {gate.exceeds.decimal(3)}, above the target "
                   f"{safe_decimal(gate.overflow_target, 6)}: fewer than the {gate.survivors} survivors the epsilon holds "
                   "for would remain")
    budget = gate.smallest_budget(deadline)
    fixes["gate_budget"] = {"budget": budget, "text": f"a trust budget of {budget} points (at flag rate "
                            f"{frac(gate.flag_rate)}) keeps that probability within the target"}


def _privacy_reasons(d: Deployment, noise: NoisePlan, reasons: list[str]) -> None:
    """Without an ε target, an ε past :data:`~itsa.privacy.releasing.MAX_EPSILON` (where a guarantee says
    nothing, and ``privacy release`` refuses) is no privacy: the verdict says so."""
    if d.privacy.epsilon is None and noise.epsilon.upper() > MAX_EPSILON:
        reasons.append(f"no privacy target, and eps <= {noise.epsilon.decimal()} is above {MAX_EPSILON}, where a "
                       "guarantee says nothing (the noise is too small to be private)")


def _verdict(d: Deployment, inputs: FlatInputs | None, noise: NoisePlan, enc, gate=None,
             deadline: Deadline | None = None, keys=None) -> Verdict:
    """The verdict; ``inputs`` the flat word's (built once by :func:`plan`), ``None`` for a layering."""
    reasons, fixes = protocol_reasons(keys)       # the protocol's own (a SecAgg+ graph short of the dropout)
    _gate_reasons(gate, reasons, fixes, deadline)
    _privacy_reasons(d, noise, reasons)
    if d.encoding.layered:
        if not noise.meets_target:
            reasons.append(f"eps <= {noise.epsilon.decimal()} is above the target {frac(noise.target_epsilon)}")
        if not enc.meets_target:
            reasons.append(f"the wrap probability {enc.wrap_probability.decimal()} per {enc.per} is above the "
                           f"overflow target {safe_decimal(d.overflow, 6)} (a stage needs a margin above the "
                           "most tried)")
        return Verdict(feasible=not reasons, reasons=tuple(reasons), fixes=fixes, premises=(DIGIT_PRIOR,))
    assert inputs is not None                       # a flat word's verdict has its inputs
    if not noise.meets_target:
        sigma = calibrated_sigma(inputs.noise, enc.gamma)
        reasons.append(f"eps <= {noise.epsilon.decimal()} is above the target {frac(noise.target_epsilon)}")
        fixes["noise"] = {"sigma_client": frac(sigma), "text": f"sigma {safe_decimal(sigma, 8)} (integer units, at "
                          f"gamma {frac(enc.gamma)}) is the smallest meeting the target"}
    if not enc.meets_target:
        zero = f" ({never_wrap_fix(room_of(inputs.noise))})" if d.overflow == 0 else ""
        reasons.append(f"the wrap probability {enc.wrap_probability.decimal()} per {enc.per} is above the overflow "
                       f"target {safe_decimal(d.overflow, 6)}{zero}")
        bits = _word(inputs, enc.gamma, noise.sigma_client, deadline)
        fixes["word_bits"] = {"word_bits": bits, "text": (f"a {bits}-bit word (at gamma {frac(enc.gamma)}, this noise)"
                                                          if bits else f"no word up to {MAX_WORD_BITS} bits")}
    return Verdict(feasible=not reasons, reasons=tuple(reasons), fixes=fixes)


def plan(deployment: Deployment, *, time_limit: float | Deadline | None = DEFAULT_TIME_LIMIT, seed: int = 0,
         progress: Callback | None = None) -> Plan:
    """Size ``deployment``: every section of the plan, and its verdict.

    Parameters
    ----------
    deployment : Deployment
        What to size (:func:`itsa.planning.load_deployment` reads one from a file).
    time_limit : float, Deadline or None
        Seconds for the whole plan (the key-rate solve gets what is left); ``0`` or ``None``: no limit, as
        ``--time-limit 0`` on the command line. Every search of the plan looks at it. A
        :class:`~itsa._util.deadline.Deadline` is a clock already running (a plan inside a longer run).
    seed : int
        Seed of the key-rate solve's scheme constructions and searches (the only randomness of a plan).
    progress : callable, optional
        Called with an :class:`~itsa._util.progress.Event` at each calibration and scale tried.
    """
    if not isinstance(deployment, Deployment):
        raise InvalidDeployment(f"plan: needs a Deployment, not {type(deployment).__name__}")
    deadline, report = plan_deadline(time_limit), Reporter(progress, prefix="plan")
    run_seed(seed)
    instance = _servers(deployment.servers)
    if deployment.encoding.layered:
        return _plan_layered(deployment, instance, report, deadline, seed)
    if deployment.matrix is not None:               # DP-FTRL's correlated noise after SecAgg: the matrix room
        return _plan_matrix(deployment, instance, report, deadline, seed)
    flat = size_flat_rounding(flat_inputs(deployment), lambda f: _Sizer(f, report, deadline), deadline,
                              rounding_named=deployment.encoding.rounding_named)
    if deployment.noise.mechanism is None:          # the mechanism picked for the error: the plan's deployment says it
        deployment = replace(deployment, noise=replace(deployment.noise, mechanism=flat.inputs.noise.mechanism))
    if flat.inputs.noise.rounding is not deployment.encoding.rounding:      # the rounding picked for the error
        deployment = replace(deployment, encoding=replace(deployment.encoding, rounding=flat.inputs.noise.rounding))
    inputs = flat.inputs                            # the sections' inputs, built once (the mechanism resolved)
    noise, enc, payload, error = flat.noise, flat.encoding, flat.payload, flat.error
    if inputs.noise.beta != deployment.encoding.beta:                       # beta chosen by the plan
        deployment = replace(deployment, encoding=replace(deployment.encoding, beta=inputs.noise.beta))
        enc = replace(enc, beta=f"{enc.beta} ({BETA_CHOSEN})")
    gamma = enc.gamma
    report("keys", note=deployment.servers or ("protocol" if deployment.protocol else "none"))
    keys = _keys(deployment, instance, payload, deadline, seed, report, inputs.noise.clients)
    report("epsilon", note="its lower bound, the Renyi bound beside it")
    noise = _accounted(inputs.noise, noise, gamma, error)
    payload = payload.with_floor(inputs.noise, noise, enc.word_bits)

    deadline.check("plan: the k-standard-deviations rule")
    report("rule", note="the k-standard-deviations rule beside the plan")
    heuristic = size_heuristic(inputs.noise, noise, enc, overflow=deployment.overflow, per_round=inputs.per_round)
    return Plan(deployment=deployment, noise=noise, encoding=enc, payload=payload, keys=keys, error=error,
                heuristic=heuristic, gate=(gate := _gate(deployment)),
                frameworks=_frameworks(deployment, inputs.noise, noise, enc), inputs=inputs.noise,
                verdict=_with_accuracy(deployment, inputs.noise, inputs,
                                       _verdict(deployment, inputs, noise, enc, gate, deadline, keys), enc, error,
                                       deadline))


def _with_accuracy(d: Deployment, n: NoiseInputs, inputs: FlatInputs | None, verdict: Verdict,
                   enc: EncodingPlan | LayeredEncodingPlan, error: ErrorPlan, deadline: Deadline) -> Verdict:
    """The verdict with the accuracy target (:func:`itsa.planning.flat.accuracy_reasons`, a layering's
    :func:`itsa.planning.layered.layered_accuracy`) and the fewest bits that work for a word that wraps."""
    def sizer_for(f: FlatInputs) -> _Sizer:
        return _Sizer(f, Reporter(None, prefix="plan"), deadline)

    if isinstance(enc, LayeredEncodingPlan):      # the deployment made flat: no layering, the default encoding
        flat = FlatInputs(noise=replace(n, radix=None, layers=None, rotation=Rotation.NONE, rounding=Rounding.NEAREST,
                                        beta=DEFAULT_BETA), overflow=d.overflow, per_round=_per_round(d))
        reasons, added = layered_accuracy(
            target=d.accuracy, error=error, limit=None if n.epsilon is None else gaussian_limit(n)[1],
            survivors=n.survivors, flat_word=lambda target: certified_word(flat, deadline, sizer_for, accuracy=target),
            max_bits=MAX_WORD_BITS)
        fixes = {**verdict.fixes, **added}
    else:
        assert inputs is not None                   # a flat word's inputs, built once by plan
        reasons, fixes = accuracy_reasons(inputs, enc, error, deadline, dict(verdict.fixes), sizer_for)
    if not reasons and fixes == verdict.fixes:
        return verdict
    allr = verdict.reasons + tuple(reasons)
    return Verdict(feasible=not allr, reasons=allr, fixes=fixes, premises=verdict.premises)


def _gate(deployment: Deployment) -> GatePlan | None:
    """The gate section of a deployment with a ``gate`` (:func:`itsa.planning.gate.size_gate`), else ``None``."""
    gate = deployment.gate
    if gate is None:
        return None
    return size_gate(budget=gate.budget, flag_rate=gate.flag_rate, rounds=deployment.privacy.rounds,
                     clients=deployment.clients, survivors=deployment.survivors, overflow=deployment.overflow)


def _keys(deployment: Deployment, instance: str | None, payload: PayloadPlan, deadline: Deadline, seed: int,
          report: Reporter, clients: int):
    """The keys section (:func:`itsa.planning.sections.size_deployment_keys`) at the deployment's numbers, for
    ``clients`` (the inputs': a sampled cohort's largest count, :func:`noise_inputs`)."""
    return size_deployment_keys(protocol=deployment.protocol, instance=instance, clients=clients,
                                dropout=deployment.dropout, dimension=deployment.dimension, name=deployment.name,
                                payload=payload, time_limit=deadline.left(), seed=seed, report=report)


def _accounted(inputs: NoiseInputs, noise: NoisePlan, gamma: Fraction, error: ErrorPlan) -> NoisePlan:
    """The noise section with its bracket, ε per round, rounds affordable and population
    (:func:`itsa.planning.accounting.account_noise`)."""
    return account_noise(inputs, noise, round_event(inputs, gamma, noise.sigma_client), gamma, error.noise)


def _frameworks(deployment: Deployment, inputs: NoiseInputs, noise: NoisePlan, enc) -> Displayable | None:
    """The plan in each framework's parameters with its Gaussian pair (:mod:`itsa.planning.frameworks_units`)."""
    if deployment.encoding.layered:         # no framework sums a layering
        return None
    event = round_event(inputs, enc.gamma, noise.sigma_client)
    pair = round_pair(inputs, noise, event, enc.gamma)
    return frameworks_section(inputs, noise, enc, pair, event)


def plan_deadline(time_limit: float | Deadline | None) -> Deadline:
    """The clock of a plan: a :class:`~itsa._util.deadline.Deadline` as it is, ``0`` or ``None`` no limit
    (the command line's ``--time-limit 0``), else that many seconds from now.

    >>> plan_deadline(0).time_limit is None, plan_deadline(None).time_limit is None, plan_deadline(5).time_limit
    (True, True, 5)
    """
    if isinstance(time_limit, Deadline):
        return time_limit
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit >= 0):
        raise InvalidOption(f"time_limit: must be a number of seconds >= 0 (0 or None: no limit), not "
                            f"{excerpt(time_limit)}")
    return Deadline(time_limit)


def _plan_layered(deployment: Deployment, instance: str | None, report: Reporter, deadline: Deadline,
                  seed: int) -> Plan:
    """A PSA layering: the noise of all L layers, each stage's noisy exact margin, payload against flat."""
    radix, layers = deployment.encoding.radix, deployment.encoding.layers
    assert radix is not None and layers is not None            # a layered encoding has both (the reader's check)
    report("calibrate", note="the layers' shares")
    n = noise_inputs(deployment)                    # the sections' inputs, built once
    noise = size_layered_noise(n, radix, layers)
    report("margins", note=f"stages {deployment.encoding.stages}")
    e = deployment.encoding
    assert e.stages is not None                                # a layered encoding has its stages (the reader's)
    enc, payload = layered_encoding(n, noise.sigma_client, stages=e.stages, gamma=e.gamma,
                                    overflow=deployment.overflow, per_round=_per_round(deployment),
                                    deadline=deadline)
    keys = _keys(deployment, instance, payload, deadline, seed, report, n.clients)
    spread = sum((Fraction(radix) ** (2 * j) for j in range(layers)), Fraction(0))
    error = mean_square_error(dimension=deployment.dimension, gamma=enc.gamma,
                              noise_variance=_noise_variance(n, noise.sigma_client) * spread,
                              survivors=deployment.survivors)
    noise = _accounted(n, noise, enc.gamma, error)
    return Plan(deployment=deployment, noise=noise, encoding=enc, payload=payload, keys=keys, error=error,
                heuristic=None, gate=(gate := _gate(deployment)), frameworks=_frameworks(deployment, n, noise, enc),
                inputs=n, verdict=_with_accuracy(deployment, n, None, _verdict(deployment, None, noise, enc, gate, deadline, keys),
                                       enc, error, deadline))


def _plan_matrix(d: Deployment, instance: str | None, report: Reporter, deadline: Deadline, seed: int) -> Plan:
    """A matrix mechanism's plan (:func:`itsa.planning.matrix.size.size_matrix`), with the keys and the gate."""
    assert d.matrix is not None
    m = size_matrix(flat_inputs(d), d.matrix, deadline=deadline, report=report)
    keys = _keys(d, instance, m.word.payload, deadline, seed, report, d.clients)
    reasons, fixes = protocol_reasons(keys)
    _gate_reasons(gate := _gate(d), reasons, fixes, deadline)
    reasons += m.reasons
    pair = GaussianPair(mu=m.mu, slack=Fraction(0), rate=None, rounds=1, delta=m.noise.delta, certifies=True,
                        method=str(m.noise.epsilon.method))          # the worst pattern: one Gaussian mechanism
    return Plan(deployment=d, noise=m.noise, encoding=m.word.encoding, payload=m.word.payload, keys=keys,
                error=m.error, heuristic=None, gate=gate, frameworks=MatrixFrameworks(pair=pair),
                verdict=Verdict(feasible=not reasons, reasons=tuple(reasons), fixes={**fixes, **m.fixes}))


def check_report_path(path) -> None:
    """Refuse, before any work, a report path itsa may not write (one line): empty, not a regular file, in a
    folder that is missing or not writable (:func:`itsa._util.files.check_output_file`)."""
    check_output_file(path)


class Report(Protocol):
    """What :func:`write_report` writes: a result with a Markdown form (a plan, or a plan with its runs)."""

    def markdown(self) -> str: ...


def write_report(result: Report, path) -> None:
    """Write the plan's Markdown report to ``path`` (atomically)."""
    with atomic_writer(path) as fh:
        fh.write(result.markdown() + "\n")


def _servers(servers: str | None) -> str | None:
    """The instance's path, checked to load before any work (one line if it does not)."""
    if servers is None:
        return None
    try:
        found = resolve(servers)
        load_instance(found)
    except OSError as exc:          # a name the file system refuses (too long, ...): one line
        raise InvalidDeployment(f"servers: cannot read {servers[:60]!r}: {exc.strerror or exc}") from None
    except InvalidInput as exc:     # the instance's own refusal, said as the deployment's key
        raise InvalidDeployment(f"servers: {exc}") from None
    return str(found)
