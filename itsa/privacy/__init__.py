"""Integer-domain private aggregation and certified privacy accounting (itsa privacy).

The accountant, for other parts of itsa to call (every number is a
:class:`~itsa._util.certified.Certified` arb interval with its method)::

    itsa.privacy.rdp
        gaussian_rdp(order, noise_multiplier) -> arb
        gaussian_curve(noise_multiplier, sensitivity=1, count=1) -> RdpCurve
        psa_tau(k_eff, scaled_scale) -> arb                                   # PSA eq. 30
        psa_layer_rdp(order, *, sensitivity, scale, k_eff, dimension, step) -> arb   # PSA eq. 31
        psa_layer_curve(*, sensitivity, scale, k_eff, dimension, step, label=...) -> RdpCurve
        psa_layer(*, ..., step) -> PsaLayer   (leading term, tau, tau*d, .vacuous, .curve())
            (step = h rho^(l-1) is required, keyword-only: no default of 1)
        psa_block_sensitivity(h, rho, layer, dimension) -> arb                # PSA eq. 28
        compose(curves) -> RdpCurve; curve * count; curve + curve
        compose_authorized(layers: {layer: RdpCurve}, authorized) -> RdpCurve  # PSA Theorem 3, eq. 29
    itsa.privacy.conversion
        Conversion.MIRONOV | Conversion.CKS  ("mironov", "cks")
        to_epsilon(curve, delta, conversion=Conversion.CKS, orders=None) -> EpsilonBound
        convert_at(coefficient, order, delta, conversion) -> arb
    itsa.privacy.calibrate
        calibrate(epsilon, delta, *, rounds=1, conversion=CKS, curve_for=None, minimum_scale=None,
                  relative_tolerance=1e-9, progress=None) -> Calibration
            (curve_for: scale -> one round's RdpCurve, e.g. a psa_layer_curve closure)
    itsa.privacy.tight
        gaussian_tight_epsilon(noise_multiplier, rounds, delta) -> Certified   # exact Gaussian curve
        dp_accounting_epsilon(noise_multiplier, rounds, delta, accountant="rdp"|"pld") -> float
    itsa.privacy.composition
        classical_sigma(epsilon, delta), classical_epsilon(noise_multiplier, delta),
        basic_composition(epsilon, delta, rounds), advanced_composition(epsilon, delta, rounds, delta_slack=None),
        sqrt_rounds_heuristic(epsilon, rounds)   # a heuristic, never a bound

Examples
--------
>>> from itsa.privacy import gaussian_curve, to_epsilon
>>> to_epsilon(gaussian_curve(1) * 10, "1e-5", "mironov").epsilon.decimal(3)
'20.2'
"""

from fractions import Fraction

from itsa._util.certified import Certified, Direction, safe_decimal
from itsa.privacy.calibrate import Calibration, calibrate
from itsa.privacy.composition import (
    advanced_composition,
    basic_composition,
    classical_epsilon,
    classical_sigma,
    sqrt_rounds_heuristic,
)
from itsa.privacy.conversion import Conversion, EpsilonBound, convert_at, to_epsilon
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

#: The δ of both parts (privacy and modular) unless one is given.
DEFAULT_DELTA = Fraction(1, 10**5)

__all__ = [
    "Calibration", "calibrate", "Certified", "Direction", "safe_decimal",
    "advanced_composition", "basic_composition", "classical_epsilon", "classical_sigma", "sqrt_rounds_heuristic",
    "Conversion", "EpsilonBound", "convert_at", "to_epsilon",
    "PsaLayer", "RdpCurve", "RdpTerm", "compose", "compose_authorized", "gaussian_curve", "gaussian_rdp", "psa_block_sensitivity",
    "psa_layer", "psa_layer_curve", "psa_layer_rdp", "psa_tau",
]
