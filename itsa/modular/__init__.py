"""Overflow margins, payload and the converse of layered modular sums (PSA, arXiv 2610.00695), exactly.

Each verb of ``itsa modular`` is the function of the same name here:
:func:`margins`, :func:`rules`, :func:`digits`, :func:`payload`,
:func:`converse`, :func:`distortion`, :func:`privacy`, :func:`audit` and
:func:`clip_rate` (the verb ``clip-rate``); each
returns a result with ``headline()``, ``rows()`` and ``to_dict()``. Every
irrational number and every carry probability is an
:class:`itsa._util.certified.Certified` (exact, or a certified interval with its
method); exact values that are not probabilities are Fractions. The
implementation modules are private; the former names (``staircase``,
``compare``, ``compatibility``, ``release_privacy``, ``Staircase``, ``Method``,
``CarryBound``) are kept here as aliases.
"""

from itsa._util.certified import Certified
from itsa.modular._audit import Audit, audit, reading_split
from itsa.modular._cliprate import ClipRate, ClipRotation, clip_rate
from itsa.modular._converse import (
    Converse,
    ConverseMargin,
    DecoderSuccess,
    converse,
    converse_margin,
    decoder_success,
    paper_bound,
)
from itsa.modular._digits import (
    Chain,
    Compatibility,
    LayerCount,
    balanced_digits,
    compatibility,
    digits,
    from_digits,
    layer_symbols,
)
from itsa.modular._distortion import (
    Distortion,
    MonteCarlo,
    Source,
    distortion,
    monte_carlo,
    theorem4_bounds,
    uniform_residue_T,
)
from itsa.modular._domain import FillSensitivities, decade_fill, fill_sensitivities
from itsa.modular._laws import DigitLaw, check_radix
from itsa.modular._margins import (
    Margin,
    Margins,
    NoMargin,
    Reading,
    Staircase,
    margins,
    parse_clients,
    smallest_margin,
    staircase,
)
from itsa.modular._noisy import ExactNoise, SubGaussianNoise
from itsa.modular._payload import MarginRule, Payload, corollary1_premium, parse_stages, payload
from itsa.modular._printed import Check, Status
from itsa.modular._privacy import (
    ReleasePrivacy,
    authorized_suffix,
    fill_leading_ratio,
    leading_ratio,
    privacy,
    release_privacy,
)
from itsa.modular._rules import (
    RuleComparison,
    Rules,
    compare,
    compare_rules,
    concentration_margin,
    noise_tail,
    rules,
    worst_case_margin,
)
from itsa.modular._sums import Arithmetic, CertifiedSum, ExactSum, Method, sum_law

#: The former name of a carry probability's type: it is the one :class:`Certified`.
CarryBound = Certified

__all__ = [
    "margins", "rules", "digits", "payload", "converse", "distortion", "privacy", "audit", "clip_rate",
    "ClipRate", "ClipRotation",
    "Audit", "Check", "Status", "reading_split",
    "Converse", "ConverseMargin", "DecoderSuccess", "converse_margin", "decoder_success", "paper_bound",
    "Chain", "Compatibility", "LayerCount", "balanced_digits", "from_digits", "layer_symbols",
    "Distortion", "MonteCarlo", "Source", "monte_carlo", "theorem4_bounds", "uniform_residue_T",
    "FillSensitivities", "decade_fill", "fill_sensitivities",
    "DigitLaw", "check_radix",
    "Margin", "Margins", "Reading", "parse_clients", "smallest_margin", "NoMargin", "SubGaussianNoise", "ExactNoise",
    "MarginRule", "Payload", "corollary1_premium", "parse_stages",
    "ReleasePrivacy", "fill_leading_ratio", "leading_ratio", "authorized_suffix",
    "RuleComparison", "Rules", "compare_rules", "concentration_margin", "noise_tail", "worst_case_margin",
    "Arithmetic", "CertifiedSum", "ExactSum", "sum_law", "Certified",
    # former names
    "staircase", "Staircase", "compare", "compatibility", "release_privacy", "Method", "CarryBound",
]
