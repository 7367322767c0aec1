"""Integer-domain private aggregation and certified privacy accounting (itsa privacy).

Every verb of ``itsa privacy`` is a function of the same name here:

    account(noise_multiplier, rounds, delta=DEFAULT_DELTA, ...) -> Accounting     # every accountant, same events
    calibrate(epsilon, delta=DEFAULT_DELTA, *, rounds=1, conversion="cks", ...) -> Calibration
    noise(sigma, count, seed, engine="exact", *, expected=None, ...) -> NoiseDraw  # draws and their commitment
    sample(law, parameter, count, seed, *, workers=1) -> SampleRun                # exact draws, timed (samplers)
    fair_coins(coins, count, seed) -> int64 array; DiscreteGaussianLaw(sigma_squared)   # itsa.privacy.samplers
    release(updates, data_weights=None, *, alpha=256, gamma=256, clip=1, ...) -> Release
    sensitivity(*, max_weight=None, alpha=256, clip=1, dimension, gamma=256, clients=None, ...) -> Sensitivity
    weights(data_weights, alpha, ids=None) -> HamiltonWeights                      # Hamilton's rule
    binomial(epsilon, delta, *, max_coins=MAX_COINS) -> BinomialCoins             # fewest fair coins, exact profile

The accountant, for other parts of itsa to call (every number is a
:class:`~itsa._util.certified.Certified` arb interval with its method)::

    Accountant().compose(event, count).epsilon(delta) -> Entry; .delta(epsilon) -> Certified;
        .bound(delta) -> EpsilonBound: the one path to epsilon, for every event of itsa.privacy.events:
        GaussianEvent, DiscreteGaussianEvent (central), DistributedDiscreteGaussianEvent (n shares, tau;
        bound "conservative" or "sharp"), PsaLayersEvent, SkellamEvent, PoissonSampledEvent, ZcdpEvent, CurveEvent
    accountants for Gaussian events, one class each, registered in ACCOUNTANTS:
        mironov, cks, tight, basic, advanced, sqrt_rounds_heuristic
    itsa.privacy.neighbours
        Adjacency, Rounding, rounded_norm(*, gamma, clip, dimension, rounding, tight),
        encoded_sensitivity(*, gamma, clip, dimension, adjacency, rounding, tight) -> Certified
    itsa.privacy.shares
        noise_shares(clients, dropout, *, distributed) -> NoiseShareCount(wrap=K, privacy=fewest survivors)
        survivors_under(clients, dropout) -> int
    itsa.privacy.tails
        subgaussian_tail(threshold, proxy, *, poisson=0, coordinates=1) -> arb   # 2 d exp(-t^2/(2v)) (Chernoff with
            a Poisson-type part of variance poisson): every wrap and carry bound's tail
        certified_tail(*, room, proxy, poisson=0, coordinates) -> Certified     # the same, capped at 1
    itsa.privacy.rdp
        gaussian_rdp(order, noise_multiplier) -> arb
        gaussian_curve(noise_multiplier, sensitivity=1, count=1) -> RdpCurve
        psa_tau(survivors, scaled_scale) -> arb                                   # PSA eq. 30
        psa_layer_rdp(order, *, sensitivity, scale, survivors, dimension, step) -> arb   # PSA eq. 31
        psa_layer_curve(*, sensitivity, scale, survivors, dimension, step, label=...) -> RdpCurve
        psa_layer(*, ..., step) -> PsaLayer   (leading term, tau, tau*d, .vacuous, .curve())
            (step = h radix^(l-1) is required, keyword-only: no default of 1)
        psa_block_sensitivity(h, radix, layer, dimension) -> arb                # PSA eq. 28
        compose(curves) -> RdpCurve; curve * count; curve + curve
        compose_authorized(layers: {layer: RdpCurve}, authorized) -> RdpCurve  # PSA Theorem 3, eq. 29
    itsa.privacy.conversion
        Conversion.MIRONOV | Conversion.CKS  ("mironov", "cks")
        to_epsilon(curve, delta, conversion=Conversion.CKS, orders=None) -> EpsilonBound
        convert_at(coefficient, order, delta, conversion) -> arb
    itsa.privacy.tight
        gaussian_tight_epsilon(noise_multiplier, rounds, delta) -> Certified   # exact Gaussian curve
        dp_accounting_epsilon(noise_multiplier, rounds, delta, accountant="rdp"|"pld") -> float
    itsa.privacy.binomial_count
        binomial_delta(coins, epsilon) -> Certified      # the exact privacy profile of Bin(N, 1/2) on a count
        draft_coins(epsilon, delta, *, dimension=1, l1=1, l2=1, linf=1, scale=1) -> int   # cpSGD Theorem 1
    itsa.privacy.composition
        classical_sigma(epsilon, delta), classical_epsilon(noise_multiplier, delta),
        basic_composition(epsilon, delta, rounds), advanced_composition(epsilon, delta, rounds, delta_slack=None),
        sqrt_rounds_heuristic(epsilon, rounds)   # a heuristic, never a bound

``hamilton_weights`` (the old name of :func:`weights`) and ``sensitivity_report``
(of :func:`sensitivity`) still import from here.

Examples
--------
>>> from itsa.privacy import gaussian_curve, to_epsilon
>>> to_epsilon(gaussian_curve(1) * 10, "1e-5", "mironov").epsilon.decimal(3)
'20.2'
"""

from itsa._util.certified import Certified, Direction, Provenance, safe_decimal
from itsa.privacy.accounting import (
    ACCOUNTANTS,
    Accountant,
    Accounting,
    AdvancedAccountant,
    BasicAccountant,
    CksAccountant,
    Entry,
    GaussianEvent,
    MironovAccountant,
    PerRound,
    RdpAccountant,
    SqrtRoundsHeuristic,
    TightAccountant,
    account,
    one_round_epsilon,
)
from itsa.privacy.binomial_count import BinomialCoins, binomial, binomial_delta, draft_coins
from itsa.privacy.calibration import Calibration, calibrate
from itsa.privacy.composition import (
    advanced_composition,
    basic_composition,
    classical_epsilon,
    classical_sigma,
    sqrt_rounds_heuristic,
)
from itsa.privacy.conversion import DEFAULT_DELTA, Conversion, EpsilonBound, convert_at, to_epsilon
from itsa.privacy.events import (
    CurveEvent,
    DdgBound,
    DiscreteGaussianEvent,
    DistributedDiscreteGaussianEvent,
    Event,
    PsaLayersEvent,
    SkellamEvent,
    ZcdpEvent,
)
from itsa.privacy.hamilton import HamiltonWeights, sensitivity_bound, weights
from itsa.privacy.neighbours import Adjacency, Rounding, encoded_sensitivity, rounded_norm
from itsa.privacy.profile import RdpProfile
from itsa.privacy.rdp import (
    PsaLayer,
    RdpCurve,
    RdpTerm,
    compose,
    compose_authorized,
    gaussian_curve,
    gaussian_rdp,
    psa_block_sensitivity,
    psa_layer,
    psa_layer_curve,
    psa_layer_rdp,
    psa_tau,
)
from itsa.privacy.releasing import Release, release
from itsa.privacy.sampler import NoiseDraw, SamplerEngine, noise
from itsa.privacy.samplers import DiscreteGaussianLaw, SampleRun, fair_coins, sample
from itsa.privacy.shares import NoiseShareCount, noise_shares, survivors_under
from itsa.privacy.sizing import Sensitivity, sensitivity
from itsa.privacy.subsampled import PoissonSampledEvent
from itsa.privacy.tails import certified_tail, subgaussian_tail

#: The old names (kept importable from here only).
hamilton_weights = weights
sensitivity_report = sensitivity

__all__ = [
    "account", "binomial", "calibrate", "noise", "release", "sample", "sensitivity", "weights", "SampleRun", "DiscreteGaussianLaw", "fair_coins",
    "BinomialCoins", "binomial_delta", "draft_coins",
    "DEFAULT_DELTA", "Accounting", "Entry", "PerRound", "one_round_epsilon", "GaussianEvent", "Accountant",
    "ACCOUNTANTS", "RdpAccountant", "MironovAccountant", "CksAccountant", "TightAccountant", "BasicAccountant",
    "AdvancedAccountant", "SqrtRoundsHeuristic",
    "Calibration", "NoiseDraw", "SamplerEngine", "Release", "Sensitivity", "HamiltonWeights", "sensitivity_bound",
    "Certified", "Direction", "Provenance", "safe_decimal",
    "advanced_composition", "basic_composition", "classical_epsilon", "classical_sigma", "sqrt_rounds_heuristic",
    "Conversion", "EpsilonBound", "convert_at", "to_epsilon",
    "PsaLayer", "RdpCurve", "RdpTerm", "compose", "compose_authorized", "gaussian_curve", "gaussian_rdp",
    "psa_block_sensitivity", "psa_layer", "psa_layer_curve", "psa_layer_rdp", "psa_tau",
    "hamilton_weights", "sensitivity_report",
    "Event", "DiscreteGaussianEvent", "DistributedDiscreteGaussianEvent", "DdgBound", "PsaLayersEvent", "SkellamEvent",
    "PoissonSampledEvent", "ZcdpEvent", "CurveEvent", "RdpProfile",
    "Adjacency", "Rounding", "encoded_sensitivity", "rounded_norm",
    "NoiseShareCount", "noise_shares", "survivors_under", "subgaussian_tail", "certified_tail",
]
