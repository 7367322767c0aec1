"""A plan in each framework's own parameters: TensorFlow Federated, dp-accounting and Opacus, a central DP wrapper.

The plan's noise is ``σ`` per client (distributed: every client adds a share;
central: added once) in integer units at scale ``γ``; each framework names
its noise differently:

- **TensorFlow Federated** reads ``noise_multiplier`` as the *central*
  standard deviation in the data's units over the clip (add-remove): its
  distributed-DP aggregator splits ``z S`` into ``expected_clients_per_round``
  shares of ``z S/√K`` (times its scale), so the plan's shares are
  ``z = σ √K/(γ S)``; its central Gaussian (``gaussian_fixed``) adds ``z S``
  once, so ``z = σ/(γ S)``. TFF refuses more than 22 bits.
- **dp-accounting and Opacus** read the noise multiplier as the standard
  deviation over the sensitivity: ``σ_sum/Δ`` (the plan's ``noise
  multiplier``), with the sensitivity ``Δ/γ`` in data units (the rounding
  and, for replace-one, the factor 2 included).
- **A framework's central DP wrapper** reads its own numbers, from plain
  numbers (:func:`central_wrappers`, their one home: the export writes the
  same ones). Flower's DP wrappers add ``N(0, (z C/N)²)`` to the mean
  (``C = clipping_norm``, ``N = num_sampled_clients``) and release a round
  only when every sampled client reported (any failure drops it): on the sum
  of those ``K`` clients, ``z = σ/(γ S)`` (:func:`flower_noise_multiplier`,
  rounded up to a double) puts at least the plan's ``σ/γ``. Flower has no
  distributed noise of its own (:mod:`itsa.frameworks.flower_dp` adds it).

Examples
--------
>>> from itsa.planning import parse_deployment, plan
>>> p = plan(parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "noise": "central",
...                            "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10},
...                            "encoding": {"word_bits": 32, "gamma": 256}}))
>>> f = p.frameworks
>>> f.tff_noise_multiplier.lower() <= p.noise.sigma_client / 256 <= f.tff_noise_multiplier.upper()
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import flint
import numpy as np

from itsa._util.certified import Certified, Direction, float_down, float_up, precision, safe_decimal, to_arb
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.planning.mechanism import NoiseInputs, room_of
from itsa.planning.mechanisms import registered
from itsa.planning.rotation import flattening_rotation, rotated_dimension
from itsa.planning.vocabulary import NoiseKind
from itsa.privacy.events import DdgBound
from itsa.privacy.neighbours import ExpBeta, Rounding
from itsa.privacy.subsampled import PoissonSampledEvent

__all__ = ["FrameworkUnits", "TffSettings", "frameworks_section", "tff_settings", "rule_noise_multiplier",
           "RULE_MAX_BITS", "MAX_SCALE_FACTOR", "RULE_UNITS", "RULE_UNITS_KEY", "rule_extrapolated", "TFF_MECHANISMS",
           "TF_PRIVACY_QUERIES", "TFF_DEFAULT_MECHANISM", "TFF_MAX_BITS", "TFF_SCALE_MARGIN", "TFF_FACTORY", "TFF_INTEGER_DEVIATION", "flower_noise_multiplier",
           "central_wrappers", "wrapper_rows", "CENTRAL_NOTE", "population_note", "dp_accounting_refusal",
           "cohort_premise", "clients_note"]

#: The k-standard-deviations rule refuses word sizes above this: TFF's distributed-DP aggregator, which runs it,
#: computes in float32 (beyond, the rule's formula is extrapolated).
RULE_MAX_BITS = 22
#: The rule caps the scale here (larger ones overflow TFF's int32 norm bounds).
MAX_SCALE_FACTOR = 10**6
#: TFF's distributed-DP aggregator refuses wider words (its arithmetic is float32).
TFF_MAX_BITS = RULE_MAX_BITS
#: The units of the rule's noise multiplier (TFF's), as the rule beside a plan prints them and as its JSON names them.
RULE_UNITS = "TFF's units: the plan's central sigma in data units over the clip"
RULE_UNITS_KEY = "TFF: central sigma in data units over the clip (add-remove)"
#: Each registered mechanism's name in TFF's ``DistributedDpSumFactory(mechanism=...)``, by the plan's name of it
#: (absent: TFF has none), and TF Privacy's module of its query.
TFF_MECHANISMS = {"dgauss": "distributed_dgauss", "skellam": "distributed_skellam"}
TF_PRIVACY_QUERIES = {"dgauss": "distributed_discrete_gaussian_query.py", "skellam": "distributed_skellam_query.py"}
#: The plan's name of ``DistributedDpSumFactory``'s default mechanism.
TFF_DEFAULT_MECHANISM = "skellam"
#: The distributed-DP aggregator's name.
TFF_FACTORY = "tff.aggregators.DistributedDpSumFactory"
#: TFF is steered to the scale ``γ (1 − margin)``: its float32 steps (``modclip_prob``, ``erfcinv``, the state's
#: scale) move it by a few parts in ``10⁸``, never above the plan's ``γ`` from there.
TFF_SCALE_MARGIN = Fraction(1, 2**20)
#: A share TF Privacy draws at its float32 deviation is aimed this far above the plan's.
FLOAT_DEVIATION_MARGIN = Fraction(1, 2**18)
#: The mechanism (its TFF name) whose TF Privacy query draws each share at its deviation rounded up to an integer
#: (``DistributedDiscreteGaussianSumQuery``); TFF's other mechanism draws at the float32 deviation.
TFF_INTEGER_DEVIATION = "distributed_dgauss"


def dp_accounting_refusal(*, population: int | None, distributed: bool, event=None, pair=None) -> str | None:
    """Why ``--export dp-accounting`` refuses a plan (``None``: it exports), the one home of that decision: the
    export's check (the deployment alone: ``event`` and ``pair`` left out) and its writer ask it, and the plan's
    dp-accounting row prints it.

    A distributed plan over a sampled cohort is refused; else a plan with a dominating Gaussian ``pair`` exports
    it; else one round's ``event`` (Poisson-sampled or not) must have a zCDP form ``ξ + ρ q`` at every order
    (a linear curve, or the sharp distributed discrete Gaussian's first branch).

    >>> dp_accounting_refusal(population=None, distributed=True) is None
    True
    >>> dp_accounting_refusal(population=10**6, distributed=True).startswith("distributed shares over a sampled")
    True
    """
    if population is not None and distributed:
        return ("distributed shares over a sampled cohort are accounted by the combined pair of a fixed-size cohort "
                "at its largest rate, the count public, which no dp-accounting event expresses (its "
                "SampledWithoutReplacementDpEvent is Renyi-only): the plan's own epsilon is the bound; export a plan "
                "without a population, or to tff (whose export states the cohort's premise)")
    if pair is not None or event is None:
        return None
    inner = event.event if isinstance(event, PoissonSampledEvent) else event
    if getattr(inner, "bound", None) is DdgBound.SHARP:      # the sharp distributed discrete Gaussian's
        return None
    if inner.linear() is None:
        return (f"{inner.label}: no bound of the form xi + rho q at every order > 1, so no ZCDpEvent stands "
                "for it")
    return None


def cohort_premise(cohort) -> str:
    """What a plan over a sampled cohort needs of the run (its epsilon counts who took part as hidden)."""
    return (f"the plan's epsilon counts {cohort.describe()}, its count public and who took part hidden from the "
            "server: the server must not learn who was sampled (only how many), or the epsilon does not hold")


def clients_note(*, clients: int, survivors: int, cohort=None, epsilon: str | None = None) -> str:
    """Who TFF sizes the shares for (its ``expected_clients_per_round``, ``clients``) against whom the plan's
    epsilon (``epsilon``: its value, printed beside it) counts; over a sampled cohort, ``clients`` is its largest
    certified count.

    >>> clients_note(clients=10, survivors=9, epsilon="1.5")
    "TFF sizes the shares for the expected 10 clients; the plan's eps <= 1.5 counts the fewest 9 survivors' shares"
    """
    eps = "epsilon" if epsilon is None else f"eps <= {epsilon}"
    if cohort is None or cohort.high == cohort.expected:
        return (f"TFF sizes the shares for the expected {clients} clients; the plan's {eps} counts the fewest "
                f"{survivors} survivors' shares")
    return (f"expected_clients_per_round is {clients}, the cohort's largest certified count, not its expected "
            f"{cohort.expected}: the largest count sizes the words and keys (the sum and its wrap); the plan's "
            f"{eps} counts the fewest {survivors} survivors of its smallest count {cohort.low}")


def rule_noise_multiplier(*, sigma: Fraction, distributed: bool, clients: int, gamma: Fraction, clip: Fraction
                          ) -> Certified:
    """The plan's noise as the k-standard-deviations rule's noise multiplier, TFF's ``noise_multiplier``:
    ``σ √K/(γ S)`` (distributed shares over the expected ``K`` clients) or ``σ/(γ S)`` (central), an enclosure.

    >>> rule_noise_multiplier(sigma=Fraction(8), distributed=False, clients=4, gamma=Fraction(2), clip=Fraction(1)
    ...                       ).decimal()
    '4'
    """
    with precision():
        ball = to_arb(sigma) / to_arb(gamma * clip)
        if distributed:
            ball *= flint.arb(clients).sqrt()
    return Certified.from_arb("noise_multiplier", ball, Direction.ENCLOSURE,
                              "sigma sqrt(K) / (gamma S): TFF splits z S into K shares of z S/sqrt(K)" if distributed
                              else "sigma / (gamma S): TFF's central z")


def rule_extrapolated(bits: int) -> str:
    """Why the rule's pick at ``bits`` past :data:`RULE_MAX_BITS` is extrapolated (TFF refuses the word)."""
    return f"TFF refuses {bits} bits (at most {RULE_MAX_BITS}, its float32 arithmetic): the formula is extrapolated"


def _float32_down(x: float) -> float:
    """The largest float32 value ``≤ x ≥ 0`` (TFF reads its float arguments as float32)."""
    f = np.float32(x)
    return float(f if float(f) <= x else np.nextafter(f, np.float32(0)))


def _float32_up(x: float) -> float:
    """The least float32 value ``≥ x ≥ 0``."""
    f = np.float32(x)
    return float(f if float(f) >= x else np.nextafter(f, np.float32(np.inf)))


@dataclass(frozen=True, kw_only=True)
class TffSettings:
    """Every argument of ``DistributedDpSumFactory`` the plan depends on, and where TFF would not run it as planned.

    Parameters
    ----------
    kwargs : dict
        ``noise_multiplier``, ``expected_clients_per_round``, ``bits``, ``l2_clip``, ``modclip_prob``,
        ``beta``, ``mechanism``, ``rotation_type``, ``auto_l2_clip``: pasted, TFF computes the scale
        ``γ (1 − TFF_SCALE_MARGIN)`` (within its float32 steps, at most ``γ``) and the shares' deviation
        (the plan's ``σ`` rounded up to an integer: TF Privacy's sampler draws at ``ceil(local stddev)``).
    dimension : int
        ``d'``, TFF's padded dimension for the rotation (what its heuristic divides by).
    scale, sigma : Fraction
        The plan's ``γ`` and ``σ`` (integer units): what TFF should compute.
    refused : tuple of str
        Each of TFF's own checks the settings fail ("refused by TFF").
    not_as_planned : tuple of str
        Where TFF would run, but not the plan's encoding (its ε would not be certified for TFF's run).
    """

    kwargs: dict[str, Any]
    dimension: int
    scale: Fraction
    sigma: Fraction
    refused: tuple[str, ...] = ()
    not_as_planned: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"kwargs": self.kwargs, "padded_dimension": self.dimension, "plan_scale": frac(self.scale),
                "plan_sigma_client": frac(self.sigma), "refused_by_tff": list(self.refused),
                "not_as_planned": list(self.not_as_planned)}


def tff_settings(inputs: NoiseInputs, noise, gamma: Fraction, word_bits: int | None) -> TffSettings:
    """``DistributedDpSumFactory``'s arguments that make TFF compute the plan's scale and noise.

    TFF picks its scale ``s = √(2^(2b) − n k²) / (2k √(c² n²/d' + n σ_l²))`` (``n`` the expected clients,
    ``σ_l = z c/√n``, ``k = √2 erfcinv(modclip_prob)``; :func:`itsa.planning.rule.heuristic.k_stddevs_rule`), so
    ``modclip_prob`` is solved for ``s = γ (1 − TFF_SCALE_MARGIN)``: ``k² = 2^(2b)/(n + 4 s² (c² n²/d' + n σ_l²))``,
    rounded down to a float32 (a larger ``k``, a smaller scale). ``noise_multiplier`` puts the shares'
    deviation at that scale in the middle of the integers TF Privacy's sampler rounds up to ``⌈σ⌉`` (the
    discrete Gaussian) or just above ``σ`` (a share drawn at its float32 deviation). ``beta`` is the plan's for conditional rounding (rounded up to a float32, a
    smaller norm bound), 0 for stochastic; ``auto_l2_clip`` is off (adaptive clipping spends privacy the plan does not count).

    Parameters
    ----------
    inputs : NoiseInputs
        The plan's noise inputs (distributed noise on a flat word).
    noise : NoisePlan
        The plan's noise (its ``σ`` per client and its mechanism).
    gamma : Fraction
        The plan's ``γ``.
    word_bits : int or None
        The plan's word.
    """
    K, c, sigma = inputs.clients, inputs.clip, noise.sigma_client
    tff_name = TFF_MECHANISMS.get(room_of(inputs).name)      # the mechanism's own name in TFF (None: not there)
    at_float = tff_name is not None and tff_name != TFF_INTEGER_DEVIATION     # TF Privacy draws at the float
    rotation = {"hadamard": "hd", "dft": "dft"}.get(str(inputs.rotation))
    d_pad = rotated_dimension(inputs.dimension, flattening_rotation(rotation or "dft"))
    refused: list[str] = []
    wrong: list[str] = []
    bits = word_bits if word_bits is not None else 0
    if tff_name is None:
        names = ", ".join(TFF_MECHANISMS[m.name] for m in registered() if m.name in TFF_MECHANISMS)
        refused.append(f"TFF has no {inputs.mechanism} mechanism (DistributedDpSumFactory: {names})")
    if not 1 <= bits <= TFF_MAX_BITS:
        refused.append(f"bits {bits}: TFF takes 1 to {TFF_MAX_BITS} (its arithmetic is float32)")
    if rotation is None:
        wrong.append("TFF always rotates (rotation_type dft or hd); the plan has no rotation: plan with "
                     "encoding rotation dft or hadamard")
    if inputs.rounding is Rounding.NEAREST:
        wrong.append("TFF rounds stochastically; the plan rounds to nearest, whose sensitivity does not cover "
                     "TFF's rounding: plan with encoding rounding stochastic or conditional")
    beta = 0.0
    if inputs.rounding is Rounding.CONDITIONAL:
        b = inputs.beta         # rounded up to a float32 (TFF's width): a larger beta, a smaller norm bound
        beta = _float32_up(float(Certified.from_arb("beta", b.ball(), Direction.UPPER, "").upper())
                           if isinstance(b, ExpBeta) else float_up(b))
    scale = gamma * (1 - TFF_SCALE_MARGIN)
    if scale > MAX_SCALE_FACTOR:
        refused.append(f"the plan's scale gamma = {safe_decimal(gamma, 6)}: TFF caps its scale at "
                       f"{MAX_SCALE_FACTOR:g} and would quantize coarser than planned")
    want = (Fraction(math.ceil(sigma)) - Fraction(1, 2) if not at_float else sigma * (1 + FLOAT_DEVIATION_MARGIN))
    if not at_float and math.ceil(sigma) < 1:
        want = Fraction(1, 2)
    z = float_up(want * _sqrt_up(K) / (scale * c))
    local = Fraction(z) * c / _sqrt_down(K)                   # TFF's local stddev (data units), for its heuristic
    with precision():
        denominator = K + 4 * to_arb(scale) ** 2 * (to_arb(c) ** 2 * K * K / d_pad + K * to_arb(local) ** 2)
        k_ball = (flint.arb(2) ** (2 * bits) / denominator).sqrt() if bits else flint.arb(0)
        p_ball = (k_ball / flint.arb(2).sqrt()).erfc()
    modclip = _float32_down(float(Certified.from_arb("p", p_ball, Direction.LOWER, "").lower()))
    if 1 <= bits <= TFF_MAX_BITS and modclip == 0 and p_ball > 0:
        # TFF reads modclip_prob as a float32: below its least positive value no argument gives the plan's scale;
        # the least one gives TFF's largest k and smallest scale, still above the plan's (a wider word TFF
        # refuses first)
        modclip = float(np.nextafter(np.float32(0), np.float32(1)))
        k_tff = math.sqrt(2) * _erfcinv(modclip)
        wrong.append(f"TFF's scale heuristic gives the plan's scale only at modclip_prob ~ "
                     f"{p_ball.str(3, radius=False)} (k = {k_ball.str(4, radius=False)} standard deviations), "
                     f"below the least positive float32 TFF reads it as, {modclip!r} (k = {k_tff:.4g}): no "
                     "modclip_prob TFF takes gives the plan's scale at this word; at that least one TFF picks a "
                     "larger scale than the plan's gamma, whose wrap the plan does not certify")
    elif bits and not 0 < modclip < 1:
        refused.append("no modclip_prob in (0, 1) gives the plan's scale at this word")
    elif bits and modclip >= 0.5:
        wrong.append(f"modclip_prob {modclip:g} >= 1/2: near 1 TFF's float32 steps carry the plan's scale only "
                     "to within about 1 % (below it, never above)")
    if bits and 2 ** bits < K:
        refused.append(f"bits {bits} < log2(expected_clients_per_round {K}): TFF refuses it")
    kwargs = {"noise_multiplier": z, "expected_clients_per_round": K, "bits": bits or None,
              "l2_clip": float_down(c), "modclip_prob": modclip, "beta": beta,
              "mechanism": tff_name,
              "rotation_type": rotation or "dft", "auto_l2_clip": False}
    return TffSettings(kwargs=kwargs, dimension=d_pad, scale=gamma, sigma=sigma, refused=tuple(refused),
                       not_as_planned=tuple(wrong))


def _erfcinv(p: float) -> float:
    """``erfcinv(p)`` for a tiny ``p > 0`` (a float, for the refusal's text): ``−Φ⁻¹(p/2)/√2``."""
    return -NormalDist().inv_cdf(p / 2) / math.sqrt(2)


def _sqrt_up(n: int) -> Fraction:
    with precision():
        return Certified.from_arb("r", flint.arb(n).sqrt(), Direction.UPPER, "").upper()


def _sqrt_down(n: int) -> Fraction:
    with precision():
        return Certified.from_arb("r", flint.arb(n).sqrt(), Direction.LOWER, "").lower()


#: What the frameworks' central noise is, beside the plan's.
CENTRAL_NOTE = "TFF's and Flower's central noise is a float Gaussian, not the plan's discrete Gaussian"


def flower_noise_multiplier(*, sigma: Fraction, gamma: Fraction, clip: Fraction) -> float:
    """Flower's ``noise_multiplier`` for central noise ``σ`` (integer units): the least double ``≥ σ/(γ S)``.

    Flower's wrapper adds ``z S/K`` to the mean of the ``K`` clients of a round it releases (every sampled
    client reported), ``z S`` on their sum: at least the plan's ``σ/γ``.

    >>> flower_noise_multiplier(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1))
    1.5
    """
    return float_up(Fraction(sigma) / (Fraction(gamma) * Fraction(clip)))


def central_wrappers(*, sigma: Fraction, gamma: Fraction, clip: Fraction, clients: int, distributed: bool
                     ) -> dict[str, dict[str, Any] | None]:
    """Each framework's DP wrapper for the plan's central noise, by the framework's key in the plan's frameworks
    section (``None``: distributed noise, which no wrapper adds).

    >>> central_wrappers(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1), clients=10, distributed=False
    ...                  )["flower"]["noise_multiplier"]
    '1.5'
    >>> central_wrappers(sigma=Fraction(3), gamma=Fraction(2), clip=Fraction(1), clients=10, distributed=True)
    {'flower': None}
    """
    if distributed:
        return {"flower": None}
    return {"flower": {"noise_multiplier": repr(flower_noise_multiplier(sigma=sigma, gamma=gamma, clip=clip)),
                       "clipping_norm": frac(clip),
                       "num_sampled_clients": clients,
                       "wrapper": "DifferentialPrivacyClientSideFixedClipping (with SecAgg+; the server-side one "
                                  "clips on the server)"}}


def wrapper_rows(wrappers: dict[str, dict[str, Any] | None]) -> list[tuple[str, str]]:
    """The plan's rows for :func:`central_wrappers`'s result."""
    f = wrappers.get("flower")
    return [("Flower DP wrapper", "none for distributed noise (--export flower writes the client mods that add it)"
             if f is None else
             f"noise_multiplier {f['noise_multiplier']} (the least double >= sigma/(gamma S); Flower releases "
             f"rounds with every client), clipping_norm {f['clipping_norm']}, "
             f"num_sampled_clients {f['num_sampled_clients']}; certified only with equal client weights "
             "(num_examples = 1: Flower's mean weighs clients by it, see --export flower's premise)")]


def population_note(*, clients: int, population: int) -> str:
    """The plan's note when its clients are a Poisson sample of a population (the frameworks sample otherwise)."""
    return (f"the plan's epsilon counts the {clients} clients as a Poisson sample of the population of "
            f"{population:,}; Flower samples a fixed cohort of num_sampled_clients, for which this epsilon is not "
            "certified (the export refuses it)")


@dataclass(frozen=True, kw_only=True, repr=False)
class FrameworkUnits(Displayable):
    """The plan in TFF's, dp-accounting's and Opacus's parameters, and each central DP wrapper's
    (:func:`central_wrappers`: by framework, ``None`` for distributed noise)."""

    tff_noise_multiplier: Certified
    tff: dict[str, Any]
    gaussian_noise_multiplier: Certified
    sensitivity_data: Certified
    wrappers: dict[str, dict[str, Any] | None]
    notes: tuple[str, ...] = ()
    #: the dominating Gaussian pair dp-accounting's accountants take (``None``: the noise has none)
    pair: Any = None
    #: the mechanism's event is a Rényi bound dp-accounting's RdpAccountant can take (its zCDP form)
    renyi_events: bool = True
    #: every argument of TFF's distributed-DP aggregator (``None``: central noise or a layering)
    tff_settings: TffSettings | None = None
    #: why ``--export dp-accounting`` refuses this plan (:func:`dp_accounting_refusal`; ``None``: it exports)
    dp_accounting_refusal: str | None = None

    def headline(self) -> str:
        return f"TFF noise_multiplier {self.tff_noise_multiplier.decimal(6)}"

    def rows(self) -> list[tuple[str, str]]:
        t = self.tff
        bits = "none (no word)" if t["bits"] is None else str(t["bits"]) + (
            f" (TFF refuses more than {TFF_MAX_BITS})" if t["bits"] > TFF_MAX_BITS else "")
        settings = self.tff_settings
        if settings is None:
            rows = [("TFF", f"{t['factory']}: noise_multiplier {self.tff_noise_multiplier.decimal(6)} "
                            f"({self.tff_noise_multiplier.direction}; central sigma in data units over the clip), "
                            f"clients_per_round {t['expected_clients_per_round']}, bits {bits}, l2_clip {t['l2_clip']}")]
        else:
            verdict = ("refused by TFF" if settings.refused else "not as planned in TFF" if settings.not_as_planned
                       else "TFF computes the plan's scale and noise")
            rows = [("TFF", f"{t['factory']}(" + ", ".join(f"{k}={v!r}" for k, v in settings.kwargs.items())
                            + f"): {verdict}"),
                    ("TFF noise", f"the plan's sigma is noise_multiplier {self.tff_noise_multiplier.decimal(6)} "
                                  f"({self.tff_noise_multiplier.direction}) in TFF's units; TF Privacy draws each "
                                  "share at the deviation rounded up to an integer, which the argument above aims "
                                  "at")]
        none = ("no Gaussian pair dominates this noise: the zCDP events of --export dp-accounting (Renyi "
                "accountant only)" if self.renyi_events else "none: no dp-accounting event holds this noise's bound")
        dp = (f"none: {self.dp_accounting_refusal}" if self.dp_accounting_refusal is not None
              else none if self.pair is None else self.pair.describe())
        rows += [("dp-accounting", dp),
                 ("Opacus", f"noise_multiplier {self.gaussian_noise_multiplier.decimal(6)} "
                            f"({self.gaussian_noise_multiplier.direction}) = sigma of the sum / sensitivity (the "
                            f"worst-case shift, not the certified one), the "
                            f"sensitivity {self.sensitivity_data.decimal(6)} in data units (max_grad_norm): the noise "
                            "Opacus adds")]
        rows += wrapper_rows(self.wrappers)
        return rows + [("frameworks note", n) for n in self.notes]

    def to_dict(self) -> dict:
        settings = {} if self.tff_settings is None else self.tff_settings.to_dict()
        return {"tff": {**self.tff, "noise_multiplier": self.tff_noise_multiplier.to_dict(), **settings},
                "dp_accounting": None if self.pair is None else {
                    **self.pair.to_dict(), "event": "SelfComposedDpEvent(GaussianDpEvent(noise_multiplier), count)"
                    if self.pair.rate is None else
                    "SelfComposedDpEvent(PoissonSampledDpEvent(sampling_probability, GaussianDpEvent("
                    "noise_multiplier)), count)", "get_epsilon": "at accountant_delta"},
                "opacus": {"noise_multiplier": self.gaussian_noise_multiplier.to_dict(),
                           "max_grad_norm": self.sensitivity_data.to_dict()},
                **self.wrappers, "notes": list(self.notes)}


def frameworks_section(inputs: NoiseInputs, noise, encoding, pair, event=None) -> FrameworkUnits:
    """The plan's noise, clip, clients and word in each framework's parameters (see the module's text), with the
    plan's dominating Gaussian pair (:func:`itsa.planning.accounting.round_pair`; ``None``: its noise has none)
    and one round's ``event`` (what ``--export dp-accounting`` writes without a pair)."""
    distributed = noise.kind is NoiseKind.DISTRIBUTED
    gamma, clip, K = encoding.gamma, inputs.clip, inputs.clients
    z = rule_noise_multiplier(sigma=noise.sigma_client, distributed=distributed, clients=K, gamma=gamma, clip=clip)
    bits = None if inputs.layered else encoding.word_bits
    try:
        settings = tff_settings(inputs, noise, gamma, bits) if distributed and not inputs.layered else None
    except (InvalidOption, OverflowError):       # numbers beyond a double: no argument TFF could take
        settings = None
    tff: dict[str, Any] = {"factory": TFF_FACTORY if distributed
                           else "tff.aggregators.DifferentiallyPrivateFactory.gaussian_fixed",
                           "expected_clients_per_round": K, "l2_clip": frac(clip)}
    if settings is not None:
        tff.update(bits=bits, mechanism=settings.kwargs["mechanism"], rotation_type=settings.kwargs["rotation_type"])
    else:
        tff.update(bits=None, mechanism=None, rotation_type=None, clients_per_round=K)
    with precision():
        sens = noise.sensitivity.arb() / to_arb(gamma)
    sensitivity = Certified.from_arb("sensitivity", sens, Direction.UPPER, "Delta / gamma: the integer sensitivity "
                                     "in data units (rounding and adjacency included)")
    notes = []
    if distributed:
        notes.append(clients_note(clients=K, survivors=inputs.survivors, cohort=inputs.cohort))
        if settings is not None:
            notes += [f"refused by TFF: {r}" for r in settings.refused]
            notes += [f"not as planned in TFF: {r}" for r in settings.not_as_planned]
    else:
        notes.append(CENTRAL_NOTE)
    if inputs.population is not None:
        notes.append(population_note(clients=K, population=inputs.population) if inputs.cohort is None else
                     f"the plan's epsilon counts {inputs.cohort.describe()}, its count public")
    wrappers = central_wrappers(sigma=noise.sigma_client, gamma=gamma, clip=clip, clients=K, distributed=distributed)
    return FrameworkUnits(tff_noise_multiplier=z, tff=tff, gaussian_noise_multiplier=noise.noise_multiplier,
                          sensitivity_data=sensitivity, wrappers=wrappers, notes=tuple(notes), pair=pair,
                          tff_settings=settings, renyi_events=room_of(inputs).renyi,
                          dp_accounting_refusal=dp_accounting_refusal(population=inputs.population,
                                                                      distributed=distributed, event=event, pair=pair))
