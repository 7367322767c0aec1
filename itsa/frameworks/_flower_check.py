"""``itsa check flower``: a Flower SecAgg+ configuration certified for a cohort (the public face is :mod:`itsa.frameworks.flower`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from itsa._util.certified import exact_text, safe_decimal
from itsa._util.checks import MAX_WHOLE, choice, fraction, whole_number
from itsa._util.display import Displayable, Kind
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption, excerpt
from itsa.frameworks._flower_rules import (
    DEFAULT_CLIPPING_RANGE,
    DEFAULT_MAX_WEIGHT,
    DEFAULT_MODULUS_RANGE,
    DEFAULT_NUM_SHARES,
    DEFAULT_QUANTIZATION_RANGE,
    DEFAULT_RECONSTRUCTION_THRESHOLD,
    FLOWER_VERSION,
    INT32_MAX,
    MASK_MODULUS_LIMIT,
    MIN_THRESHOLD,
    Levels,
    ShareLayout,
    check_keywords,
    flower_number,
    quantizer_levels,
    resolve_shares,
)
from itsa.frameworks._flower_secagg import SEED_NOTE, SecaggRow, secagg_row
from itsa.keys.secagg import Adversary

__all__ = ["FlowerCheck", "FlowerVerdict", "check_flower", "FLOAT_ROUNDING", "ADVERSARIES", "INT64_MAX"]

#: The float64 rounding of Flower's quantize and dequantize steps, per client and per coordinate, is below
#: ``FLOAT_ROUNDING · c`` in data units (about 16 roundings of relative size ``2^-53`` on values ``≤ 2c``).
FLOAT_ROUNDING = Fraction(1, 2**48)
#: The adversary classes of the SecAgg+ bounds (``itsa.keys.secagg.Adversary``: the one home of their names).
ADVERSARIES = tuple(str(kind) for kind in Adversary)
#: Below this distance from zero every coordinate of a near-zero update quantizes to at least the offset less
#: one level, less the float64 rounding of ``pre`` (at most ``3 · 2^-53 · Q ≤ 2^-20`` for ``Q < 2^31``).
PRE_ROUNDING = Fraction(1, 2**20)
#: The SecAgg+ server sums ``n`` masked vectors below ``M`` in ``int64``.
INT64_MAX = 2**63 - 1


class FlowerVerdict(Kind):
    """What the check concludes: the configuration passes, its sum can wrap, or it fails otherwise."""

    PASSES = "passes"
    WRAPS = "wraps"
    FAILS = "fails"


def _clients(count: int) -> str:
    return f"{count:,} client" + ("" if count == 1 else "s")


def _pow2_text(value: int) -> str:
    return f"2^{value.bit_length() - 1}" if value > 0 and value & (value - 1) == 0 else f"{value:,}"


@dataclass(frozen=True, kw_only=True, repr=False)
class FlowerCheck(Displayable):
    """A Flower SecAgg+ configuration checked for a cohort of ``clients``: every number exact or a stated bound.

    Parameters
    ----------
    clients : int
        ``n``, the cohort.
    keywords : dict
        The ``SecAggPlusWorkflow`` keyword arguments checked (Flower's defaults filled in).
    layout : ShareLayout
        The shares, neighbourhoods and threshold Flower builds for ``n`` clients.
    levels : Levels
        One client's quantized values (top, zero) and the step, from Flower's float64 steps.
    max_cohort : int
        The largest cohort whose sum never wraps, whatever the data: ``⌊(M − 1)/top⌋``.
    can_wrap : bool
        The sum of ``n`` clients can reach ``M`` (``n · top ≥ M``).
    zero_wrap : str
        ``always``, ``can`` or ``no``: the sum of ``n`` coordinates at zero reaches ``M``.
    zero_wrap_cohort : int
        The smallest cohort whose sum of zeros always wraps: ``⌈M / zero_low⌉``.
    int32_ok : bool
        ``top ≤ 2^31 − 1``: Flower's ``int32`` cast keeps every value.
    clip : Fraction or None
        The ``ℓ2`` clip of the clients' updates asked about, if any.
    secagg : SecaggRow
        The SecAgg+ failure bounds of Flower's neighbourhoods (or why they are not given).
    verdict : FlowerVerdict
        ``passes``, ``wraps`` or ``fails``.
    problems : tuple of str
        Each reason the configuration fails, in words.
    fixes : dict
        The smallest change for each problem (keyword -> value, or ``clients``).
    notes : tuple of str
        What Flower does on the way (warnings it logs, shares it rounds).
    """

    clients: int
    keywords: dict[str, Any]
    layout: ShareLayout
    levels: Levels
    max_cohort: int
    can_wrap: bool
    zero_wrap: str
    zero_wrap_cohort: int
    int32_ok: bool
    clip: Fraction | None
    secagg: SecaggRow
    verdict: FlowerVerdict
    problems: tuple[str, ...] = ()
    fixes: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def modulus(self) -> int:
        return int(self.keywords["modulus_range"])

    @property
    def coordinate_clip(self) -> Fraction:
        """``c``, the per-coordinate clip, exactly (the float's value)."""
        return Fraction(float(self.keywords["clipping_range"]))

    def largest_sum(self) -> int:
        """The largest value a coordinate of the sum of ``n`` clients (or their weights) can take, exactly."""
        return self.clients * max(self.levels.top, self.levels.weight_top)

    def error_bound(self) -> Fraction:
        """A bound on the error of one coordinate of the de-quantized sum: ``n Δ`` plus the float64 rounding.

        Each client's stochastic rounding moves its value by less than one step
        ``Δ = 2c/Q``; Flower's float64 steps add less than ``FLOAT_ROUNDING · c``
        per client.
        """
        return self.clients * (self.levels.step + FLOAT_ROUNDING * self.coordinate_clip)

    def variance_bound(self) -> Fraction:
        """The variance of one coordinate's rounding error in the sum: ``n Δ²/4`` (exact bound: ``p(1 − p) ≤ 1/4``)."""
        return self.clients * self.levels.step ** 2 / 4

    def fix(self) -> str:
        """The smallest fix, in words (empty when the configuration passes)."""
        if not self.fixes:
            return ""
        text = ", ".join(f"{key}={_pow2_text(value).replace('^', '**')}" if key == "modulus_range"
                         else f"{key}={value!r}" for key, value in self.fixes.items())
        if self.can_wrap and "clients" not in self.fixes:
            q = self.largest_quantization()
            coarser = f"quantization_range <= {q:,}, a coarser step; or " if q > 0 else ""
            text += f" (or {coarser}at most {_clients(self.max_cohort)})"
        return text

    def largest_quantization(self) -> int:
        """The largest ``quantization_range`` whose ``n`` clients never wrap at this modulus (0: none)."""
        return _largest_quantization(self.keywords["clipping_range"], self.clients, self.modulus)

    def zero_wrap_margin(self) -> Fraction:
        """The largest ``η`` such that an update whose every scaled coordinate is within ``η`` of zero always wraps.

        A coordinate ``x`` quantizes to at least ``zero_low − |x| Q/(2c) − 1`` (less
        the float64 rounding of ``pre``), so the sum of ``n`` reaches ``M`` when
        ``n (zero_low − 1 − PRE_ROUNDING − η Q/(2c)) ≥ M``; 0 when even zeros may not wrap.
        """
        lv = self.levels
        eta = (lv.zero_low - 1 - PRE_ROUNDING - Fraction(self.modulus, self.clients)) * lv.step
        return max(eta, Fraction(0))

    def headline(self) -> str:
        wraps = "can wrap" if self.can_wrap else "never wraps"
        return (f"{self.verdict}: {self.clients:,} clients, the sum {wraps} "
                f"(largest cohort that never wraps: {self.max_cohort:,})")

    def rows(self) -> list[tuple[str, str]]:
        kw = self.keywords
        lv = self.levels
        m, n = self.modulus, self.clients
        rows = [
            ("workflow", "SecAggPlusWorkflow(" + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + f") (Flower {FLOWER_VERSION})"),
            ("shares", f"{self.layout.neighbourhood} per neighbourhood (the client's own share included: degree "
                       f"{self.layout.degree}), threshold {self.layout.threshold}"),
            ("one client", f"each coordinate in 0..{lv.top:,} (zero at {lv.zero_low:,}"
                           + ("" if lv.zero_low == lv.zero_high else f" or {lv.zero_high:,}")
                           + f"), the weight entry at most {lv.weight_top:,} (exact)"),
            ("wrap (any data)", f"{'yes' if self.can_wrap else 'no'}: {n:,} x {max(lv.top, lv.weight_top):,} = "
                                f"{self.largest_sum():,} {'>=' if self.can_wrap else '<'} modulus {_pow2_text(m)} (exact)"),
            ("wrap (data at zero)", {"always": "always", "can": "can (stochastic rounding)", "no": "no"}[self.zero_wrap]
             + f": {n:,} x {lv.zero_low:,} {'>=' if self.zero_wrap == 'always' else 'vs'} {_pow2_text(m)}; every cohort "
               f"of {self.zero_wrap_cohort:,} or more wraps at zero (exact)"
             + (f"; so does every update within {safe_decimal(self.zero_wrap_margin(), 4, up=False)} of zero in "
                "each coordinate (exact bound)" if self.zero_wrap_margin() > 0 else "")),
            ("largest cohort", f"{_clients(self.max_cohort)} never wrap, whatever the data: floor((M - 1)/{max(lv.top, lv.weight_top):,}) (exact)"),
            ("int32 cast", f"{'fits' if self.int32_ok else 'OVERFLOWS'}: largest value {lv.top:,} "
                           f"{'<=' if self.int32_ok else '>'} 2^31 - 1 (quantization_range must stay below 2^31; exact)"),
            ("step", f"{exact_text(lv.step)} per level = 2 clipping_range / quantization_range (exact)"),
            ("error (sum)", f"|error| < {safe_decimal(self.error_bound(), 4)} per coordinate (bound: n steps plus "
                            f"float64 rounding); variance <= {safe_decimal(self.variance_bound(), 4)} (exact bound, "
                            "unbiased stochastic rounding)"),
            ("error (mean)", f"at full weights, |error| < {safe_decimal(self.error_bound() / n, 4)}, standard deviation "
                             f"<= {safe_decimal(lv.step / 2 / Fraction(math.isqrt(n)), 4)} per coordinate (bound)"),
            ("l2 clip", self._l2_text()),
            ("premise", "every weight (num_examples) is at most max_weight: Flower only warns above it, and a larger "
                        "weight entry can wrap on its own"),
            ("secagg+", self.secagg.text),
            ("mask seeds", SEED_NOTE),
            ("verdict", str(self.verdict) + (": " + "; ".join(self.problems) if self.problems else "")
             + self._judged()),
        ]
        if self.fixes:
            rows.append(("fix", self.fix()))
        elif self.problems:
            rows.append(("fix", "none found: no SecAgg+ degree meets the targets at this corruption and dropout"))
        rows += [("note", note) for note in self.notes]
        return rows

    def _judged(self) -> str:
        """What the verdict assumed of SecAgg+ (the rates), or that SecAgg+ was not judged."""
        if self.secagg.problems:
            return ""                       # the problem itself names the rates
        if self.secagg.assumed:
            return f" (SecAgg+ judged {self.secagg.assumed})"
        return f" (SecAgg+ not judged: {self.secagg.text.removeprefix('not computed: ')})"

    def _l2_text(self) -> str:
        c = exact_text(self.coordinate_clip)
        base = (f"clipping_range {c} clips coordinates after the weight scaling: an update of l2 norm <= {c} "
                f"(at weight max_weight) is never clamped")
        if self.clip is None:
            return base + "; a larger l2 clip is clamped per coordinate, silently"
        if self.clip <= self.coordinate_clip:
            return base + f"; the l2 clip {exact_text(self.clip)} is never clamped"
        return base + f"; the l2 clip {exact_text(self.clip)} EXCEEDS it: coordinates above {c} are clamped silently"

    def to_dict(self) -> dict:
        lv = self.levels
        return {
            "can_wrap": self.can_wrap,
            "max_cohort": self.max_cohort,
            "verdict": str(self.verdict),
            "clients": self.clients,
            "flower_version": FLOWER_VERSION,
            "keywords": dict(self.keywords),
            "shares": {"sent": self.layout.shares_sent, "neighbourhood": self.layout.neighbourhood,
                       "degree": self.layout.degree, "threshold": self.layout.threshold,
                       "convention": "Flower's num_shares counts the client's own share: degree = neighbourhood - 1"},
            "levels": {"top": lv.top, "zero": [lv.zero_low, lv.zero_high], "weight_top": lv.weight_top,
                       "step": frac(lv.step)},
            "wrap": {"any_data": self.can_wrap, "largest_sum": self.largest_sum(), "modulus": self.modulus,
                     "at_zero": self.zero_wrap, "zero_wrap_cohort": self.zero_wrap_cohort,
                     "zero_wrap_margin": frac(self.zero_wrap_margin())},
            "int32": {"fits": self.int32_ok, "largest_value": lv.top, "limit": INT32_MAX},
            "error": {"sum_bound": frac(self.error_bound()), "sum_variance_bound": frac(self.variance_bound()),
                      "step": frac(lv.step), "direction": "upper bound"},
            "clip": {"largest_unclamped": frac(self.coordinate_clip), "asked": frac(self.clip),
                        "clamped": None if self.clip is None else self.clip > self.coordinate_clip},
            "secagg": self.secagg.to_dict(),
            "problems": list(self.problems),
            "fixes": dict(self.fixes),
            "notes": list(self.notes),
        }


def _rate(name: str, value) -> Fraction:
    rate = fraction(name, value)
    if not 0 <= rate < 1:
        raise InvalidOption(f"{name}: must lie in [0, 1), not {excerpt(value)}")
    return rate


def _keywords(num_shares, reconstruction_threshold, max_weight, clipping_range, quantization_range,
              modulus_range) -> dict[str, Any]:
    return {"num_shares": flower_number("num_shares", num_shares),
            "reconstruction_threshold": flower_number("reconstruction_threshold", reconstruction_threshold),
            "max_weight": flower_number("max_weight", max_weight, real=True),
            "clipping_range": flower_number("clipping_range", clipping_range, real=True),
            "quantization_range": flower_number("quantization_range", quantization_range),
            "modulus_range": flower_number("modulus_range", modulus_range)}


def _largest_quantization(clip: float, clients: int, modulus: int) -> int:
    """The largest ``Q`` (below ``2^31``) whose ``n`` clients never wrap modulo ``M``, by Flower's own values."""
    q = min((modulus - 1) // clients, INT32_MAX)
    lowest = max(q - 64, 0)        # Flower's float steps move the top by one level at most: a few tries suffice
    while q > lowest:
        levels = quantizer_levels(clip, q)
        if clients * max(levels.top, levels.weight_top) <= modulus - 1 and levels.top <= INT32_MAX:
            return q
        q -= 1
    return 0


def _fixes(check: dict[str, Any], layout: ShareLayout, levels: Levels, clients: int, int32_ok: bool,
           secagg: SecaggRow) -> dict[str, Any]:
    """The smallest change of each failing keyword: shares first, then the int32 range, then the modulus."""
    fixes: dict[str, Any] = {}
    if layout.neighbourhood > layout.shares_sent:
        fixes["num_shares"] = layout.shares_sent + 1
    elif layout.threshold > layout.neighbourhood:
        fixes["reconstruction_threshold"] = max(2, layout.neighbourhood - 1)
    elif layout.threshold < MIN_THRESHOLD:
        fixes["reconstruction_threshold"] = MIN_THRESHOLD
    if not int32_ok:
        fixes["quantization_range"] = _largest_quantization(check["clipping_range"], 1, 2 * (INT32_MAX + 1))
        levels = quantizer_levels(check["clipping_range"], fixes["quantization_range"])
    top = max(levels.top, levels.weight_top)
    if clients * top >= check["modulus_range"]:
        bits = (clients * top).bit_length()          # 2^bits > n top
        if clients * ((1 << bits) - 1) <= INT64_MAX:
            fixes["modulus_range"] = 1 << bits
        else:
            q = _largest_quantization(check["clipping_range"], clients, min(check["modulus_range"], MASK_MODULUS_LIMIT))
            if q > 0:
                fixes["quantization_range"] = q
            else:                                   # no quantization fits this cohort: a smaller cohort does
                fixes["clients"] = (check["modulus_range"] - 1) // top
    elif check["modulus_range"] > MASK_MODULUS_LIMIT:   # the largest modulus Flower draws masks for and sums
        bits = MASK_MODULUS_LIMIT.bit_length() - 1
        while clients * ((1 << bits) - 1) > INT64_MAX:
            bits -= 1
        fixes["modulus_range"] = 1 << bits
    if secagg.fix is not None and "num_shares" not in fixes:
        fixes.update(secagg.fix)
    return fixes


def check_flower(*, clients: int, num_shares=DEFAULT_NUM_SHARES,
                 reconstruction_threshold=DEFAULT_RECONSTRUCTION_THRESHOLD, max_weight=DEFAULT_MAX_WEIGHT,
                 clipping_range=DEFAULT_CLIPPING_RANGE, quantization_range=DEFAULT_QUANTIZATION_RANGE,
                 modulus_range=DEFAULT_MODULUS_RANGE, dropout=0, corrupt=0,
                 adversary: str = str(Adversary.SEMI_HONEST), clip=None) -> FlowerCheck:
    """Certify a Flower SecAgg+ configuration for a cohort of ``clients``.

    Parameters
    ----------
    clients : int
        ``n``, from 2 to ``10^18`` (:data:`~itsa._util.checks.MAX_WHOLE`), the clients sampled in a round.
    num_shares, reconstruction_threshold : int, float or text, optional
        As ``SecAggPlusWorkflow`` reads them (a float is a fraction of the cohort, resp. of the shares; an
        int counts shares, the client's own included). Default: Flower's example app's 3 and 2.
    max_weight, clipping_range, quantization_range, modulus_range : optional
        Flower's defaults (1000.0, 8.0, 2^22, 2^32) when not given.
    dropout, corrupt : number
        The fractions of clients that drop out and that are corrupt (for the SecAgg+ bounds).
    adversary : str
        ``semi-honest`` (the server follows the protocol), ``semi-malicious`` (it may ask different
        neighbours about the same client differently: Flower's unmask stage has no consistency round)
        or ``none`` (no corrupt party).
    clip : number, optional
        The ``ℓ2`` clip the clients apply to their updates: reported clamped or not by ``clipping_range``.

    Returns
    -------
    FlowerCheck

    Raises
    ------
    InvalidOption
        A configuration Flower itself refuses (with its reason), or a bad number.

    Examples
    --------
    >>> r = check_flower(clients=2000)
    >>> r.can_wrap, r.zero_wrap, r.zero_wrap_cohort
    (True, 'no', 2048)
    >>> check_flower(clients=2100).zero_wrap
    'always'
    """
    n = whole_number("clients", clients, minimum=2, maximum=MAX_WHOLE)
    kw = _keywords(num_shares, reconstruction_threshold, max_weight, clipping_range, quantization_range,
                   modulus_range)
    warnings = check_keywords(kw["num_shares"], kw["reconstruction_threshold"], max_weight=kw["max_weight"],
                              clipping_range=kw["clipping_range"], quantization_range=kw["quantization_range"],
                              modulus_range=kw["modulus_range"])
    drop, bad = _rate("dropout", dropout), _rate("corrupt", corrupt)
    adversary = str(choice("adversary", adversary, Adversary))
    clip2 = None if clip is None else fraction("clip", clip, low=0)
    layout = resolve_shares(kw["num_shares"], kw["reconstruction_threshold"], clients=n)
    levels = quantizer_levels(kw["clipping_range"], kw["quantization_range"])
    m = kw["modulus_range"]
    top = max(levels.top, levels.weight_top)
    can_wrap = n * top >= m
    zero_wrap = "always" if n * levels.zero_low >= m else "can" if n * levels.zero_high >= m else "no"
    zero_cohort = -(-m // levels.zero_low) if levels.zero_low > 0 else 0
    int32_ok = levels.top <= INT32_MAX
    secagg = secagg_row(layout, corrupt=bad, dropout=drop, adversary=adversary)
    problems = list(layout.problems)
    if not int32_ok:
        problems.append(f"quantization_range {kw['quantization_range']:,} overflows Flower's int32 cast "
                        f"(values up to {levels.top:,} > 2^31 - 1)")
    if m > MASK_MODULUS_LIMIT:
        problems.append(f"modulus_range {_pow2_text(m)} > 2^63: Flower draws each mask with randint(0, M - 1, "
                        "dtype=int64), which raises past 2^63, so every round fails")
    if can_wrap:
        problems.append(f"the sum of {n:,} clients can reach {n * top:,} >= modulus {_pow2_text(m)} and wraps silently")
    problems += list(secagg.problems)
    if layout.problems or not int32_ok or secagg.problems or m > MASK_MODULUS_LIMIT:
        verdict = FlowerVerdict.FAILS
    elif can_wrap:
        verdict = FlowerVerdict.WRAPS
    else:
        verdict = FlowerVerdict.PASSES
    fixes = _fixes(kw, layout, levels, n, int32_ok, secagg) if problems else {}
    notes = list(warnings) + list(layout.notes)
    return FlowerCheck(clients=n, keywords=kw, layout=layout, levels=levels, max_cohort=(m - 1) // top,
                       can_wrap=can_wrap, zero_wrap=zero_wrap, zero_wrap_cohort=zero_cohort, int32_ok=int32_ok,
                       clip=clip2, secagg=secagg, verdict=verdict, problems=tuple(problems), fixes=fixes,
                       notes=tuple(notes))

