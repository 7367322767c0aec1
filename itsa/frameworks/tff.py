"""TensorFlow Federated's distributed-DP aggregator: its parameter arithmetic ported, and a plan written for it.

TFF's ``DistributedDpSumFactory`` (``tensorflow_federated/python/aggregators/distributed_dp.py``, from TFF 0.87
to the last version before TFF removed it in 2026) takes ``noise_multiplier``, ``expected_clients_per_round``,
``bits``, ``l2_clip``, ``modclip_prob``, ``beta``, ``mechanism``, ``rotation_type`` and ``auto_l2_clip`` and
computes everything else itself. :func:`tff_computes` does the same arithmetic, step by step, in the same
float widths, without TensorFlow:

- ``DistributedDpSumFactory.__init__``: its checks (``bits`` in ``[1, 22]``, ``2^b ≥ n``,
  ``2^(2b) ≥ n k²``, ``modclip_prob`` in ``(0, 1)``, ``beta`` in ``[0, 1)``, the mechanism and rotation
  names), any failure a refusal; ``_clip_prob_to_num_stddevs``: ``k = √2 · erfcinv(p)``, ``erfcinv`` of the
  float32 ``p`` in float32;
- ``_build_aggregation_factory``: the central deviation ``z c`` and the local ``z c/√n``; the padded
  dimension (``hd``: the next power of two, ``dft``: even); ``_heuristic_scale_factor`` in float64 (the
  plan's :func:`itsa.planning.rule.heuristic.k_stddevs_rule`, which this reuses), capped at ``10⁶``; the scale kept as a
  float32 in the aggregator's state (``DiscretizationFactory``);
- ``discretization.inflated_l2_norm_bound`` in float32: ``min(c + γ√d, √(c² + γ²d/4 + √(2 ln(1/β)) γ
  (c + γ√d/2)))`` (``γ = 1/scale``; the first alone at ``β = 0``), the norm after the rotation (which
  keeps it) and the rounding; the DP query's scaled bound ``(bound + 10⁻⁵) · scale`` and the
  Poisson-type query's ``ℓ1`` bound ``⌈b₂ · min(√d, b₂)⌉``;
- TF Privacy's ``DistributedDiscreteGaussianSumQuery`` draws each share at ``⌈local stddev · scale⌉`` (its
  ``_add_local_noise``); the other mechanism's query at the float32 ``local stddev · scale``.

The mechanisms' names (``DP_MECHANISMS``, the default one, TF Privacy's modules) are the plan's frameworks
section's, by the plan's name of each mechanism (:data:`itsa.planning.frameworks_units.TFF_MECHANISMS`).

Examples
--------
>>> c = tff_computes(noise_multiplier=1.0, expected_clients_per_round=100, bits=16, l2_clip=1.0,
...                  mechanism="distributed_dgauss", dimension=1000)
>>> c.refused, c.padded_dimension, round(c.scale, 3), c.share_sigma
((), 1000, 2539.439, 254.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from itsa._util.display import Displayable
from itsa.planning.frameworks_units import (
    RULE_MAX_BITS,
    TF_PRIVACY_QUERIES,
    TFF_DEFAULT_MECHANISM,
    TFF_INTEGER_DEVIATION,
    TFF_MECHANISMS,
)
from itsa.planning.mechanisms import registered
from itsa.planning.rule.heuristic import NORM_LEEWAY, k_stddevs_rule, padded_dimension

__all__ = ["TffComputation", "TffExport", "tff_computes", "tff_export", "clip_prob_to_num_stddevs", "inflated_l2_norm_bound",
           "DP_MECHANISMS", "DEFAULT_MECHANISM", "ROTATION_TYPES", "TFF_SOURCE"]

#: Where the arithmetic ported here lives.
TFF_SOURCE = ("tensorflow_federated/python/aggregators/distributed_dp.py (DistributedDpSumFactory.__init__, "
              "_build_aggregation_factory, _clip_prob_to_num_stddevs, _heuristic_scale_factor) and "
              "discretization.py (inflated_l2_norm_bound); TF Privacy's "
              + " and ".join(TF_PRIVACY_QUERIES[m.name] for m in registered() if m.name in TF_PRIVACY_QUERIES))
#: The mechanisms TFF's factory takes (each mechanism's TFF name).
DP_MECHANISMS = tuple(TFF_MECHANISMS[m.name] for m in registered() if m.name in TFF_MECHANISMS)
#: The factory's default mechanism.
DEFAULT_MECHANISM = TFF_MECHANISMS[TFF_DEFAULT_MECHANISM]
#: Its rotations.
ROTATION_TYPES = ("hd", "dft")

_f32 = np.float32


def clip_prob_to_num_stddevs(modclip_prob: float) -> float:
    """``k = √2 · erfcinv(p)``, with ``erfcinv`` of the float32 ``p`` rounded to float32 (as TF computes it).

    >>> round(clip_prob_to_num_stddevs(1e-4), 4)
    3.8906
    """
    p = float(_f32(modclip_prob))
    inverse = -NormalDist().inv_cdf(p / 2) / math.sqrt(2)          # erfcinv(p) = -ndtri(p/2)/sqrt(2)
    return math.sqrt(2) * float(_f32(inverse))


def inflated_l2_norm_bound(l2_norm_bound: float, gamma: float, beta: float, dim: int) -> float:
    """TFF's norm bound after (conditional) stochastic rounding to the grid ``gamma``, in its float32 steps.

    >>> inflated_l2_norm_bound(1.0, 0.01, 0.0, 10000)       # beta = 0: c + gamma sqrt(d)
    2.0
    """
    norm, g, b = _f32(l2_norm_bound), _f32(gamma), _f32(beta)
    g_sqrt_dim = _f32(math.sqrt(float(dim)) * float(g))
    bound_1 = _f32(norm + g_sqrt_dim)
    if b == 0:
        return float(bound_1)
    beta_term = _f32(np.sqrt(_f32(2.0) * _f32(np.log(_f32(1.0) / b))))
    squared = _f32(_f32(norm * norm) + _f32(_f32(0.25) * _f32(g_sqrt_dim * g_sqrt_dim)))
    squared = _f32(squared + _f32(_f32(beta_term * g) * _f32(norm + _f32(_f32(0.5) * g_sqrt_dim))))
    return float(min(bound_1, _f32(np.sqrt(squared))))


@dataclass(frozen=True, kw_only=True, repr=False)
class TffComputation(Displayable):
    """What ``DistributedDpSumFactory`` computes from its arguments for a vector of ``dimension`` values.

    Parameters
    ----------
    kwargs : dict
        The factory's arguments.
    refused : tuple of str
        TFF's own checks that fail (``ValueError`` in TFF); the numbers below are then ``None``.
    padded_dimension : int
        ``d'`` for the rotation.
    k_stddevs : float
        ``√2 erfcinv(modclip_prob)``.
    local_stddev : float
        ``z c/√n`` in data units.
    scale : float
        The heuristic's float64 scale, capped (``1/γ`` in TFF's words, itsa's ``γ``): the DP query's
        parameters use it.
    state_scale : float
        The same as the float32 the aggregator's state keeps: what the clients scale by.
    share_sigma : float
        The deviation each client's share is drawn at in integer units (``⌈·⌉`` for the discrete Gaussian).
    inflated_l2 : float
        The norm bound after rounding (data units); ``scaled_inflated_l2`` with the leeway, in integer units.
    scaled_l1 : int
        The Poisson-type query's ``ℓ1`` bound.
    """

    kwargs: dict[str, Any]
    dimension: int
    refused: tuple[str, ...]
    padded_dimension: int
    k_stddevs: float | None = None
    local_stddev: float | None = None
    scale: float | None = None
    state_scale: float | None = None
    capped: bool = False
    share_sigma: float | None = None
    inflated_l2: float | None = None
    scaled_inflated_l2: float | None = None
    scaled_l1: int | None = None

    def headline(self) -> str:
        if self.refused:
            return "refused by TFF: " + "; ".join(self.refused)
        return (f"TFF computes scale {self.state_scale!r}, shares of deviation {self.share_sigma!r} (integer units), "
                f"norm bound {self.scaled_inflated_l2!r}")

    def rows(self) -> list[tuple[str, str]]:
        return [(k, repr(v)) for k, v in self.to_dict().items() if k != "kwargs"]

    def to_dict(self) -> dict[str, Any]:
        return {"kwargs": self.kwargs, "dimension": self.dimension, "refused": list(self.refused),
                "padded_dimension": self.padded_dimension, "k_stddevs": self.k_stddevs,
                "local_stddev": self.local_stddev, "scale": self.scale, "state_scale": self.state_scale,
                "scale_capped": self.capped,
                "share_sigma": self.share_sigma, "inflated_l2": self.inflated_l2,
                "scaled_inflated_l2": self.scaled_inflated_l2, "scaled_l1": self.scaled_l1, "source": TFF_SOURCE}


def _checks(z, n, bits, clip, modclip_prob, beta, mechanism, rotation_type) -> list[str]:
    """``DistributedDpSumFactory.__init__``'s checks, in its order (the first fails the call in TFF)."""
    out = []
    if not z >= 0:
        out.append(f"noise_multiplier must be nonnegative, not {z!r}")
    if not (isinstance(n, int) and n > 0):
        out.append(f"expected_clients_per_round must be a positive integer, not {n!r}")
    if not (isinstance(bits, int) and 1 <= bits <= RULE_MAX_BITS):
        out.append(f"bits should be between 1 and {RULE_MAX_BITS}, not {bits!r}")
    if not clip > 0:
        out.append(f"l2_clip must be positive, not {clip!r}")
    if not 0 < modclip_prob < 1:
        out.append(f"modclip_prob should be in (0, 1), not {modclip_prob!r}")
    if not 0 <= beta < 1:
        out.append(f"beta should be in [0, 1), not {beta!r}")
    if mechanism not in DP_MECHANISMS:
        out.append(f"mechanism must be one of {list(DP_MECHANISMS)}, not {mechanism!r}")
    if rotation_type not in ROTATION_TYPES:
        out.append(f"rotation_type must be one of {list(ROTATION_TYPES)}, not {rotation_type!r}")
    return out


def tff_computes(*, noise_multiplier: float, expected_clients_per_round: int, bits: int, l2_clip: float,
                 modclip_prob: float = 1e-4, beta: float = 0.0, mechanism: str = DEFAULT_MECHANISM,
                 rotation_type: str = "dft", auto_l2_clip: bool = False, dimension: int) -> TffComputation:
    """What ``DistributedDpSumFactory(**kwargs).create(type of dimension values)`` computes (see the module).

    Parameters
    ----------
    noise_multiplier, expected_clients_per_round, bits, l2_clip, modclip_prob, beta, mechanism, rotation_type,
    auto_l2_clip
        The factory's arguments, with TFF's defaults.
    dimension : int
        The number of values aggregated (TFF's ``_client_dim``).

    Returns
    -------
    TffComputation
        Its scale, local deviations and norm bounds, or the checks it refuses (an adaptive clip is refused
        here: its scale moves every round).
    """
    kwargs = {"noise_multiplier": noise_multiplier, "expected_clients_per_round": expected_clients_per_round,
              "bits": bits, "l2_clip": l2_clip, "modclip_prob": modclip_prob, "beta": beta, "mechanism": mechanism,
              "rotation_type": rotation_type, "auto_l2_clip": auto_l2_clip}
    rotation = rotation_type if rotation_type in ROTATION_TYPES else "dft"
    d_pad = padded_dimension(max(1, int(dimension)), rotation)
    refused = _checks(noise_multiplier, expected_clients_per_round, bits, l2_clip, modclip_prob, beta, mechanism,
                      rotation_type)
    n = expected_clients_per_round
    k = clip_prob_to_num_stddevs(modclip_prob) if not refused else None
    if not refused and k is not None:
        if bits < math.log2(n):
            refused.append(f"bits should be >= log2(expected_clients_per_round): 2^{bits} < {n}")
        elif 2 ** (2 * bits) < n * k**2:
            refused.append(f"the bit-width {bits} is too small for expected_clients_per_round = {n}, modclip_prob "
                           f"= {modclip_prob!r}")
    if auto_l2_clip:
        refused.append("auto_l2_clip: the scale and clip move every round (not ported)")
    if refused:
        return TffComputation(kwargs=kwargs, dimension=dimension, refused=tuple(refused), padded_dimension=d_pad)
    rule = k_stddevs_rule(n, dimension, l2_clip, bits, noise_multiplier, k_stddevs=k, rotation=rotation)
    if rule.gamma is None:
        return TffComputation(kwargs=kwargs, dimension=dimension, refused=(str(rule.refusal),), padded_dimension=d_pad)
    scale = float(rule.gamma)                           # float64, capped: the DP query's parameters use it
    local = noise_multiplier * l2_clip / math.sqrt(n)
    scaled_local = _f32(local * scale)                  # the DP query's state: float32
    share = float(math.ceil(scaled_local)) if mechanism == TFF_INTEGER_DEVIATION else float(scaled_local)
    inflated = inflated_l2_norm_bound(l2_clip, 1.0 / scale, beta, d_pad)
    scaled_inflated = (inflated + NORM_LEEWAY) * scale
    scaled_l1 = math.ceil(scaled_inflated * min(math.sqrt(d_pad), scaled_inflated))
    return TffComputation(kwargs=kwargs, dimension=dimension, refused=(), padded_dimension=d_pad, k_stddevs=k,
                          local_stddev=local, scale=scale, state_scale=float(_f32(scale)),
                          capped=rule.capped, share_sigma=share,
                          inflated_l2=inflated, scaled_inflated_l2=scaled_inflated, scaled_l1=scaled_l1)


@dataclass(frozen=True, kw_only=True, repr=False)
class TffExport(Displayable):
    """A plan written for ``DistributedDpSumFactory``: its arguments, what TFF computes from them, and the plan's.

    Parameters
    ----------
    settings : TffSettings
        The plan's arguments (:func:`itsa.planning.frameworks_units.tff_settings`, the plan's frameworks
        section's).
    computed : TffComputation
        What TFF computes from them (:func:`tff_computes`).
    dimension : int
        The model's dimension.
    """

    settings: Any
    computed: TffComputation
    dimension: int

    def comparison(self) -> list[str]:
        """TFF's numbers against the plan's, each with its direction."""
        c, s = self.computed, self.settings
        if c.refused or c.state_scale is None or c.share_sigma is None:
            return []
        scale = (f"scale: TFF {c.state_scale!r} (float32), the plan's gamma {float(s.scale)!r}: "
                 + ("above gamma, so TFF's wrap is not the plan's (see not_as_planned)" if c.state_scale > s.scale
                    else "at most gamma, so TFF's sensitivity and wrap are at most the plan's"))
        return [scale,
                f"shares: TFF draws at {c.share_sigma!r}, the plan's sigma {float(s.sigma)!r}: at least the plan's",
                f"norm bound after rounding: TFF's {c.scaled_inflated_l2!r} (integer units, with its 1e-5 leeway)"]

    def headline(self) -> str:
        return ("refused by TFF: " + "; ".join(self.settings.refused) if self.settings.refused else
                "not as planned in TFF: " + "; ".join(self.settings.not_as_planned) if self.settings.not_as_planned
                else self.computed.headline())

    def rows(self) -> list[tuple[str, str]]:
        return ([("DistributedDpSumFactory", ", ".join(f"{k}={v!r}" for k, v in self.settings.kwargs.items()))]
                + [("refused by TFF", r) for r in self.settings.refused + self.computed.refused]
                + [("not as planned", r) for r in self.settings.not_as_planned]
                + [("TFF computes", line) for line in self.comparison()])

    def to_dict(self) -> dict[str, Any]:
        return {"DistributedDpSumFactory": self.settings.kwargs, "refused_by_tff": list(self.settings.refused)
                + list(self.computed.refused), "not_as_planned": list(self.settings.not_as_planned),
                "tff_computes": self.computed.to_dict(), "comparison": self.comparison(), "notes": []}

    def snippet(self) -> str:
        args = ",\n    ".join(f"{k}={v!r}" for k, v in self.settings.kwargs.items())
        lines = [f"# {line}" for line in self.comparison()]
        lines += [f"# refused by TFF: {r}" for r in self.settings.refused]
        lines += [f"# not as planned: {r}" for r in self.settings.not_as_planned]
        return "\n".join(lines + ["import tensorflow_federated as tff", "",
                                  f"factory = tff.aggregators.DistributedDpSumFactory(\n    {args},\n)"]) + "\n"


def tff_export(settings, dimension: int) -> TffExport:
    """The export of a plan's TFF settings for a model of ``dimension`` values (what TFF computes, through the port).

    >>> from fractions import Fraction
    >>> from types import SimpleNamespace
    >>> from itsa.planning.frameworks_units import tff_settings
    >>> from itsa.planning.mechanism import NoiseInputs
    >>> inputs = NoiseInputs(clients=100, dimension=1000, clip=Fraction(1), rotation="dft", rounding="stochastic")
    >>> s = tff_settings(inputs, SimpleNamespace(sigma_client=Fraction(40), mechanism="dgauss"), Fraction(300), 13)
    >>> c = tff_export(s, 1000).computed          # the plan's scale 300 and shares of 40
    >>> c.share_sigma, 299.99 < c.state_scale <= 300, s.kwargs["modclip_prob"] < 1e-4
    (40.0, True, True)
    """
    return TffExport(settings=settings, computed=tff_computes(**settings.kwargs, dimension=dimension),
                     dimension=dimension)
