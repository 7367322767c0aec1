"""A deployment's DP-FTRL schedule: ``mechanism:`` and ``participation:``, read exactly, and what they refuse.

A deployment that trains with noise correlated across rounds names its
matrix mechanism and the participation schedule its accounting assumes::

    mechanism: tree                          # or {kind: banded, coefficients: [1, 1/2, 1/4]}
                                             # or {kind: blt, output_scale: [...], buf_decay: [...]}
    participation: {max_participations: 6, min_separation: 313}
    privacy: {delta: 1e-10, rounds: 2000}    # rounds: T, required
    noise: {placement: central, noise_multiplier: 7}

The noise is added once by the server after SecAgg has unmasked the round's
noiseless sum (Gboard's setup), so the placement is ``central``; ``z``
(``noise.noise_multiplier``) is the server's Gaussian deviation over the
clip on every coordinate of the release ``C x`` (TF Privacy's convention:
for the tree, on every node), or it is calibrated for ``privacy.epsilon``.

Examples
--------
>>> m = parse_matrix("tree", {"max_participations": 6, "min_separation": 313}, 7)
>>> str(m.kind), m.max_participations, m.noise_multiplier
('tree', 6, Fraction(7, 1))
>>> parse_matrix({"kind": "banded"}, {"max_participations": 1, "min_separation": 0}, None)
Traceback (most recent call last):
...
itsa.exceptions.InvalidDeployment: mechanism.coefficients: a banded mechanism needs its coefficients c_0, c_1, ... (the first column of C)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Kind
from itsa._util.plain import frac
from itsa.exceptions import InvalidDeployment, excerpt
from itsa.privacy.matrix import MAGNITUDE_BITS

__all__ = ["MatrixKind", "MatrixMechanism", "parse_matrix", "matrix_refusal", "MAX_BANDS"]

_ERR = InvalidDeployment
#: Most coefficients of a banded mechanism, or buffers of a BLT, a deployment may name.
MAX_BANDS = 10_000


class MatrixKind(Kind):
    """The matrix mechanisms a deployment may name."""

    TREE = "tree"
    BANDED = "banded"
    BLT = "blt"


def _numbers(name: str, raw) -> tuple[Fraction, ...]:
    if not isinstance(raw, (list, tuple)) or not raw or len(raw) > MAX_BANDS:
        raise _ERR(f"{name}: must be a list of 1 to {MAX_BANDS} numbers, not {excerpt(raw)}")
    out = tuple(fraction(f"{name}[{i}]", x, error=_ERR) for i, x in enumerate(raw))
    for i, x in enumerate(out):
        if x and not Fraction(1, 2**MAGNITUDE_BITS) <= abs(x) <= 2**MAGNITUDE_BITS:
            raise _ERR(f"{name}[{i}]: a magnitude outside [2^-{MAGNITUDE_BITS}, 2^{MAGNITUDE_BITS}] (0 aside) is not "
                       f"accepted, not {excerpt(raw[i])}")
    return out


@dataclass(frozen=True, kw_only=True)
class MatrixMechanism:
    """The matrix mechanism, its participation schedule and its noise multiplier (``None``: calibrated).

    Checked on construction, as the file's ``mechanism:`` and ``participation:`` are.
    """

    kind: MatrixKind
    max_participations: int
    min_separation: int
    noise_multiplier: Fraction | None = None
    #: a banded mechanism's first column of ``C``
    coefficients: tuple[Fraction, ...] | None = None
    #: a BLT's ``ω`` and ``θ`` (jax-privacy's ``output_scale`` and ``buf_decay``)
    output_scale: tuple[Fraction, ...] | None = None
    buf_decay: tuple[Fraction, ...] | None = None

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "kind", choice("mechanism", self.kind, MatrixKind, error=_ERR))
        set_(self, "max_participations", whole_number("participation.max_participations", self.max_participations,
                                                      minimum=1, maximum=10**7, error=_ERR))
        set_(self, "min_separation", whole_number("participation.min_separation", self.min_separation, minimum=0,
                                                  maximum=10**7, error=_ERR))
        if self.noise_multiplier is not None:
            z = fraction("noise.noise_multiplier", self.noise_multiplier, low=0, error=_ERR)
            if z > 10**6 or max(z.numerator, z.denominator) >= 10**40:
                raise _ERR(f"noise.noise_multiplier: a number in (0, 10^6] of at most 40 digits, not "
                           f"{excerpt(self.noise_multiplier)}")
            set_(self, "noise_multiplier", z)
        banded, blt = self.kind is MatrixKind.BANDED, self.kind is MatrixKind.BLT
        if banded != (self.coefficients is not None):
            raise _ERR("mechanism.coefficients: a banded mechanism needs its coefficients c_0, c_1, ... (the first "
                       "column of C)" if banded else f"mechanism.coefficients: only a banded mechanism has them, "
                       f"not {self.kind}")
        if blt != (self.output_scale is not None and self.buf_decay is not None) or (
                not blt and (self.output_scale is not None or self.buf_decay is not None)):
            raise _ERR("mechanism: a BLT needs output_scale and buf_decay (as many of each), and only a BLT has them")
        if banded:
            coefficients = _numbers("mechanism.coefficients", self.coefficients)
            if coefficients[0] == 0:
                raise _ERR("mechanism.coefficients: the first must not be 0 (C must be invertible)")
            set_(self, "coefficients", coefficients)
        if blt:
            scales, decays = _numbers("mechanism.output_scale", self.output_scale), _numbers("mechanism.buf_decay",
                                                                                             self.buf_decay)
            set_(self, "output_scale", scales)
            set_(self, "buf_decay", decays)
            if len(scales) != len(decays):
                raise _ERR("mechanism: a BLT needs as many output_scale as buf_decay values")

    def to_dict(self) -> dict:
        def listed(values):
            return None if values is None else [frac(v) for v in values]
        return {"kind": str(self.kind), "max_participations": self.max_participations,
                "min_separation": self.min_separation, "noise_multiplier": frac(self.noise_multiplier),
                "coefficients": listed(self.coefficients), "output_scale": listed(self.output_scale),
                "buf_decay": listed(self.buf_decay)}


def parse_matrix(mechanism, participation, noise_multiplier) -> MatrixMechanism | None:
    """The file's ``mechanism:`` (a name, or a mapping with ``kind``) and ``participation:`` as a
    :class:`MatrixMechanism`; ``None`` when the file names neither."""
    if mechanism is None and participation is None:
        if noise_multiplier is not None:
            raise _ERR("noise.noise_multiplier: the multiplier of a matrix mechanism's correlated noise; give "
                       "mechanism: tree, banded or blt with participation: (or noise.sigma for independent noise)")
        return None
    if mechanism is None:
        raise _ERR("participation: limits a client's rounds for a matrix mechanism's accounting; give mechanism: "
                   "tree, banded or blt")
    if participation is None:
        raise _ERR("participation: missing (a matrix mechanism is accounted for a schedule: give participation: "
                   "{max_participations: E, min_separation: XI})")
    if not isinstance(participation, dict):
        raise _ERR(f"participation: must be a mapping {{max_participations, min_separation}}, not "
                   f"{excerpt(participation)}")
    extra = sorted(set(map(str, participation)) - {"max_participations", "min_separation"})
    if extra or len(participation) != 2:
        raise _ERR("participation: needs max_participations and min_separation, and nothing else"
                   + (f" (unknown key {extra[0]!r})" if extra else ""))
    if isinstance(mechanism, str):
        mechanism = {"kind": mechanism}
    if not isinstance(mechanism, dict) or "kind" not in mechanism:
        raise _ERR(f"mechanism: must be tree, banded or blt, or a mapping with kind, not {excerpt(mechanism)}")
    extra = sorted(set(map(str, mechanism)) - {"kind", "coefficients", "output_scale", "buf_decay"})
    if extra:
        raise _ERR(f"mechanism: unknown key {extra[0]!r} (known: buf_decay, coefficients, kind, output_scale)")
    return MatrixMechanism(kind=mechanism["kind"], max_participations=participation["max_participations"],
                           min_separation=participation["min_separation"], noise_multiplier=noise_multiplier,
                           coefficients=mechanism.get("coefficients"), output_scale=mechanism.get("output_scale"),
                           buf_decay=mechanism.get("buf_decay"))


def matrix_refusal(*, central: bool, sigma, noise_mechanism, layered: bool, nearest: bool, population,
                   add_remove: bool, accuracy, epsilon, noise_multiplier) -> str | None:
    """What a deployment with a matrix mechanism may not also say, in one line (``None``: nothing).

    >>> matrix_refusal(central=False, sigma=None, noise_mechanism=None, layered=False, nearest=True,
    ...                population=None, add_remove=True, accuracy=None, epsilon=1, noise_multiplier=None)[:40]
    'noise: a matrix mechanism is DP-FTRL wit'
    """
    if not central:
        return ("noise: a matrix mechanism is DP-FTRL with central noise, added once by the server after SecAgg "
                "(Gboard's setup); distributed shares of correlated noise are not accounted here: give noise: "
                "{placement: central}")
    if sigma is not None or noise_mechanism is not None:
        return ("noise: a matrix mechanism's server adds continuous Gaussian noise of deviation z times the clip; "
                "give noise.noise_multiplier (z), not sigma or mechanism")
    if layered:
        return "encoding: a matrix mechanism sums one flat word (word_bits), not a PSA layering"
    if not nearest:
        return ("encoding.rounding: a matrix mechanism's sensitivity is the rounded update's norm bound (rounding "
                "to nearest); the coupled roundings are accounted per independent round only")
    if population is not None:
        return ("population: a matrix mechanism is accounted for a participation schedule (max_participations, "
                "min_separation), not for Poisson sampling")
    if not add_remove:
        return ("adjacency: DP-FTRL's accounting (TF Privacy's) takes neighbours that zero out one client's "
                "contributions: give adjacency: add-remove (the default with a matrix mechanism)")
    if accuracy is not None:
        return ("accuracy: sized for independent noise's released mean; a matrix mechanism's error is its prefix "
                "sums' (the plan prints it beside tree aggregation's)")
    if epsilon is None and noise_multiplier is None:
        return "privacy.epsilon: missing (give a target epsilon, or noise.noise_multiplier to compute epsilon for)"
    return None
