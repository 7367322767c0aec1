"""Overflow margins, payload and the converse of layered modular sums (PSA, arXiv 2610.00695), exactly."""

from itsa.modular.audit import Audit, audit
from itsa.modular.checks import Check, Status
from itsa.modular.converse import ConverseMargin, DecoderSuccess, converse_margin, decoder_success, paper_bound
from itsa.modular.digits import (
    Chain,
    Compatibility,
    LayerCount,
    balanced_digits,
    compatibility,
    from_digits,
    layer_symbols,
)
from itsa.modular.distortion import MonteCarlo, Source, monte_carlo, theorem4_bounds, uniform_residue_T
from itsa.modular.domain import FillSensitivities, decade_fill, fill_sensitivities
from itsa.modular.laws import DigitLaw, check_radix
from itsa.modular.margins import Margin, Reading, Staircase, parse_clients, smallest_margin, staircase
from itsa.modular.numbers import Certified, round_down, round_up
from itsa.modular.payload import MarginRule, Payload, corollary1_premium, parse_stages, payload
from itsa.modular.privacy import ReleasePrivacy, fill_leading_ratio, leading_ratio, release_privacy
from itsa.modular.rules import RuleComparison, compare, concentration_margin, noise_tail, worst_case_margin
from itsa.modular.sums import CarryBound, CertifiedSum, ExactSum, Method, sum_law

__all__ = [
    "Audit", "Check", "Status", "audit",
    "ConverseMargin", "DecoderSuccess", "converse_margin", "decoder_success", "paper_bound",
    "Chain", "Compatibility", "LayerCount", "balanced_digits", "compatibility", "from_digits", "layer_symbols",
    "FillSensitivities", "decade_fill", "fill_sensitivities",
    "MonteCarlo", "Source", "monte_carlo", "theorem4_bounds", "uniform_residue_T",
    "DigitLaw", "check_radix",
    "Margin", "Reading", "Staircase", "parse_clients", "smallest_margin", "staircase",
    "Certified", "round_down", "round_up",
    "MarginRule", "Payload", "corollary1_premium", "parse_stages", "payload",
    "ReleasePrivacy", "fill_leading_ratio", "leading_ratio", "release_privacy",
    "RuleComparison", "compare", "concentration_margin", "noise_tail", "worst_case_margin",
    "CarryBound", "CertifiedSum", "ExactSum", "Method", "sum_law",
]
