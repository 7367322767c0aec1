"""Privacy events: one per mechanism the product uses, each with its certified Rényi-DP curve and provenance.

An event is what the accountant (:class:`~itsa.privacy.accounting.Accountant`)
composes. Each one answers :meth:`Event.rdp`, a certified upper bound on its
Rényi divergence at an order ``q > 1`` (an arb ball whose upper end is safe),
and says where that bound comes from (:attr:`Event.provenance`). An event whose
bound is linear in the order (``ε(q) ≤ c q`` for every ``q > 1``) also gives it
as an :class:`~itsa.privacy.rdp.RdpCurve` (:meth:`Event.linear`): the
accountant then uses the closed-form order search, as it always has. An event
whose bound is certified at whole orders only (:attr:`Event.integer_orders`)
is asked at whole orders only.

- :class:`GaussianEvent`: rounds of the Gaussian mechanism at noise multiplier ``z``.
- :class:`DiscreteGaussianEvent`: the central discrete Gaussian of scale ``σ``
  on an integer sum of sensitivity ``Δ`` (the same curve, Canonne, Kamath,
  Steinke 2020).
- :class:`DistributedDiscreteGaussianEvent`: ``n`` discrete Gaussian shares of
  scale ``σ`` summed, with the τ term of Kairouz, Liu, Steinke 2021; two bounds
  (:class:`DdgBound`): ``conservative`` (the PSA paper's eq. 31, τd multiplied
  by the order) and ``sharp`` (the minimum of the three branches of the
  distributed discrete Gaussian paper's Proposition 14).
- :class:`PsaLayersEvent`: the authorized layers of a PSA release (Theorem 3).
- :class:`SkellamEvent`: the multi-dimensional Skellam mechanism (Agarwal,
  Kairouz, Liu 2021); a sum of Skellam shares is Skellam, so no τ.
- :class:`~itsa.privacy.subsampled.PoissonSampledEvent` (in its own module, as
  it wraps another event): any event run on a Poisson sample of rate ``γ``
  (Zhu and Wang 2019, Theorem 6: a bound at whole orders that holds for any
  mechanism, add-remove adjacency).
- :class:`ZcdpEvent`: a mechanism given by its ``(ξ, ρ)``-zCDP, ``ε(q) ≤ ξ + ρ q``.
- :class:`CurveEvent`: a given linear curve (what :func:`~itsa.privacy.calibrate`
  accepts from callers that build their own).

Examples
--------
>>> from fractions import Fraction
>>> e = DistributedDiscreteGaussianEvent(sensitivity=2, scale=10, survivors=100, dimension=10)
>>> sharp = DistributedDiscreteGaussianEvent(sensitivity=2, scale=10, survivors=100, dimension=10, bound="sharp")
>>> bool(sharp.rdp(Fraction(8)).upper() <= e.rdp(Fraction(8)).upper())
True
>>> bool(SkellamEvent(variance=100, sensitivity=1).rdp(2) > 0)
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import ClassVar

import flint

from itsa._util.certified import precision, to_arb
from itsa._util.checks import choice, fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.neighbours import l1_from_l2
from itsa.privacy.rdp import (
    PsaLayer,
    RdpCurve,
    RdpTerm,
    compose_authorized,
    gaussian_curve,
    number,
    psa_layer_curve,
    psa_tau,
)

__all__ = ["Event", "GaussianEvent", "DiscreteGaussianEvent", "DistributedDiscreteGaussianEvent", "DdgBound",
           "PsaLayersEvent", "SkellamEvent", "ZcdpEvent", "CurveEvent", "l1_from_l2"]

#: The distributed discrete Gaussian paper (where the τ term and the three branches come from).
DDG_PAPER = "Kairouz, Liu, Steinke 2021, The Distributed Discrete Gaussian Mechanism (ICML), Prop. 14 / eq. 17"
SKELLAM_PAPER = "Agarwal, Kairouz, Liu 2021, The Skellam Mechanism for Differentially Private Federated Learning"


def as_order(order) -> Fraction:
    """An order as an exact Fraction ``> 1``."""
    if isinstance(order, flint.arb):
        raise InvalidOption("order: give an exact number (a Fraction or int), not a ball")
    q = Fraction(order)
    if not q > 1:
        raise InvalidOption(f"order: must be > 1, not {order}")
    return q


class Event(ABC):
    """One mechanism's certified Rényi-DP bound: the accountant composes these."""

    #: True when :meth:`rdp` is certified at whole orders only.
    integer_orders: ClassVar[bool] = False
    #: True when the privacy-loss bracket applies (a dominating pair, and a lower bound beside the upper): the
    #: discrete Gaussian, central or in shares. A planner asks this, never the event's class.
    pld_bracket: ClassVar[bool] = False

    @property
    def sampled_from(self) -> Event | None:
        """The event a Poisson sample runs (``None``: this event is not a sample of another)."""
        return None

    @property
    @abstractmethod
    def label(self) -> str:
        """The mechanism's name, as the composed curve's method says it."""

    @property
    @abstractmethod
    def provenance(self) -> str:
        """Where the bound comes from (paper, proposition, equation)."""

    def linear(self) -> RdpCurve | None:
        """The bound as ``ε(q) ≤ c q`` for every ``q > 1`` (an RdpCurve), or ``None`` when it is not linear."""
        return None

    def rdp(self, order) -> flint.arb:
        """A certified upper bound on the Rényi divergence at ``order`` (its ball's upper end is safe).

        Parameters
        ----------
        order : number
            ``q > 1``, exact (a whole number when :attr:`integer_orders`).
        """
        curve = self.linear()
        if curve is None:       # pragma: no cover - every non-linear event overrides rdp
            raise NotImplementedError
        return curve.at(as_order(order))

    def rdp_at(self, order) -> flint.arb:
        """:meth:`rdp`, remembered per order (a frozen event's bound at an order never changes)."""
        memo = self.__dict__.setdefault("_rdp_memo", {})
        q = as_order(order)
        if q not in memo:
            memo[q] = self.rdp(q)
        return memo[q]

    @property
    def slack(self) -> Fraction:
        """``δ₀`` of one run: the event's Rényi bound holds for a pair that both neighbours' laws put weight
        ``1 − δ₀`` on (each law ``(1 − δ₀) P' + δ₀ P''``); ``T`` runs cost ``T δ₀`` of δ besides the
        conversion's (the accountant takes it off). 0 for a true Rényi bound."""
        return Fraction(0)

    @property
    def warnings(self) -> tuple[str, ...]:
        curve = self.linear()
        return () if curve is None else curve.warnings


@dataclass(frozen=True)
class GaussianEvent(Event):
    """``rounds`` runs of the Gaussian mechanism at noise multiplier ``z`` (noise std over the l2 sensitivity).

    Parameters
    ----------
    noise_multiplier : number
        ``z > 0``, read exactly.
    rounds : int
        ``T >= 1``.
    """

    noise_multiplier: Fraction
    rounds: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "noise_multiplier", fraction("noise multiplier", self.noise_multiplier, low=0))
        whole_number("rounds", self.rounds, minimum=1)

    @property
    def label(self) -> str:
        return gaussian_curve(self.noise_multiplier).terms[0].label

    @property
    def provenance(self) -> str:
        return "Gaussian RDP q/(2 z^2) (Mironov 2017, Prop. 7)"

    def linear(self) -> RdpCurve:
        return gaussian_curve(self.noise_multiplier) * self.rounds


@dataclass(frozen=True, kw_only=True)
class DiscreteGaussianEvent(Event):
    """The central discrete Gaussian: one ``N_Z(0, σ²)`` per coordinate added to an integer sum of sensitivity ``Δ``.

    ``ε(q) ≤ q Δ²/(2 σ²)`` (Canonne, Kamath, Steinke 2020, Prop. 5 / Thm 4: the
    continuous Gaussian's curve).

    Parameters
    ----------
    sigma : number or arb
        ``σ`` in integer units.
    sensitivity : number or arb
        ``Δ``, the l2 sensitivity in the same units.
    """

    pld_bracket: ClassVar[bool] = True

    sigma: object
    sensitivity: object

    def __post_init__(self) -> None:
        number("sigma", self.sigma)
        number("sensitivity", self.sensitivity)

    @property
    def label(self) -> str:
        return self.linear().terms[0].label

    @property
    def provenance(self) -> str:
        return "discrete Gaussian RDP q Delta^2/(2 sigma^2) (Canonne-Kamath-Steinke 2020, Prop. 5)"

    def linear(self) -> RdpCurve:
        with precision():
            return gaussian_curve(to_arb(number("sigma", self.sigma)) / to_arb(number("sensitivity", self.sensitivity)))


class DdgBound(StrEnum):
    """Which bound of the distributed discrete Gaussian: the PSA paper's linear one, or the paper's minimum."""

    CONSERVATIVE = "conservative"   # q D^2/(2 n s^2) + q tau d (PSA eq. 31): linear in q, tau d multiplied by q
    SHARP = "sharp"                 # min of the three branches of Prop. 14 (tau d added once in the first)


@dataclass(frozen=True, kw_only=True)
class DistributedDiscreteGaussianEvent(Event):
    """``n`` discrete Gaussian shares ``N_Z(0, σ²)`` per coordinate, summed (secure aggregation), on ``Z^d``.

    With ``a = Δ₂²/(n σ²)``, ``b = Δ₁/(√n σ)`` and
    ``τ = 10 Σ_(k=1)^(n−1) exp(−2π² σ² k/(k+1))`` (``σ ≥ 1/2``):

    - ``conservative``: ``ε(q) ≤ q a/2 + q τ d`` (the PSA paper's eq. 31, which
      multiplies the τ term by the order; kept for unchanged outputs);
    - ``sharp``: ``ε(q) ≤ min(q a/2 + τ d, (q/2)(a + 2 b τ + τ² d), (q/2)(√a + τ √d)²)``
      (Kairouz, Liu, Steinke 2021, Prop. 14 / eq. 17), at every ``q ≥ 1``.

    Parameters
    ----------
    sensitivity : number or arb
        ``Δ₂``, the l2 sensitivity of the integer sum.
    scale : number
        ``σ`` of one share, integer units.
    survivors : int
        ``n``: the shares counted (the fewest surviving honest clients, ``K_eff``).
    dimension : int
        ``d``.
    l1_sensitivity : number or arb, optional
        ``Δ₁``; by default :func:`l1_from_l2` (valid for an integer difference).
    bound : DdgBound or str
        ``conservative`` (default) or ``sharp``.
    name : str
        The label of the composed curve.
    """

    pld_bracket: ClassVar[bool] = True

    sensitivity: object
    scale: object
    survivors: int
    dimension: int
    l1_sensitivity: object = None
    bound: DdgBound = DdgBound.CONSERVATIVE
    name: str = "distributed discrete Gaussian"
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bound", choice("distributed discrete Gaussian bound", self.bound, DdgBound))
        number("sensitivity", self.sensitivity, positive=False)
        s = number("share scale sigma", self.scale)
        whole_number("survivors", self.survivors, minimum=1)
        whole_number("dimension", self.dimension, minimum=1)
        if not to_arb(s) >= flint.arb(0.5):
            raise InvalidOption(f"share scale sigma: must be >= 1/2 (the tau bound), not {s}")
        if self.l1_sensitivity is not None:
            number("l1 sensitivity", self.l1_sensitivity, positive=False)

    @property
    def label(self) -> str:
        return self.name if self.bound is DdgBound.CONSERVATIVE else f"{self.name} (sharp)"

    @property
    def provenance(self) -> str:
        if self.bound is DdgBound.CONSERVATIVE:
            return "PSA eq. 31: q D^2/(2 K_eff s^2) + q tau d, tau from eq. 30 (conservative form of " + DDG_PAPER + ")"
        return ("min(q a/2 + tau d, q/2 (a + 2 b tau + tau^2 d), q/2 (sqrt(a) + tau sqrt(d))^2), "
                "a = D2^2/(n s^2), b = D1/(sqrt(n) s): " + DDG_PAPER)

    def linear(self) -> RdpCurve | None:
        if self.bound is not DdgBound.CONSERVATIVE:
            return None
        return psa_layer_curve(sensitivity=self.sensitivity, scale=self.scale, survivors=self.survivors,
                               dimension=self.dimension, step=1, label=self.name)

    def tau(self) -> flint.arb:
        """``τ`` of the paper (the PSA paper's eq. 30), a ball (computed once)."""
        if "tau" not in self._cache:
            self._cache["tau"] = psa_tau(self.survivors, self.scale)
        return self._cache["tau"]

    def branches(self, order) -> tuple[flint.arb, flint.arb, flint.arb]:
        """The three branches of the sharp bound at ``order`` (each a certified upper bound)."""
        q = to_arb(as_order(order))
        with precision():
            s = to_arb(number("scale", self.scale))
            n, d = flint.arb(self.survivors), flint.arb(self.dimension)
            l2 = to_arb(number("sensitivity", self.sensitivity, positive=False))
            l1 = (l1_from_l2(l2, self.dimension) if self.l1_sensitivity is None
                  else to_arb(number("l1 sensitivity", self.l1_sensitivity, positive=False)))
            tau = self.tau()
            a = l2 * l2 / (n * s * s)
            b = l1 / (n.sqrt() * s)
            first = q * a / 2 + tau * d
            second = q / 2 * (a + 2 * b * tau + tau * tau * d)
            third = q / 2 * (a.sqrt() + tau * d.sqrt()) ** 2
        return first, second, third

    def rdp(self, order) -> flint.arb:
        if self.bound is DdgBound.CONSERVATIVE:
            return super().rdp(order)
        first, second, third = self.branches(order)
        return first.min(second).min(third)

    @property
    def warnings(self) -> tuple[str, ...]:
        return super().warnings if self.bound is DdgBound.CONSERVATIVE else ()


@dataclass(frozen=True, kw_only=True)
class PsaLayersEvent(Event):
    """The authorized layers of one PSA release (Theorem 3: their RDP curves add; sealed layers cost nothing).

    Parameters
    ----------
    layers : mapping
        Layer -> its :class:`~itsa.privacy.rdp.PsaLayer` (eq. 30–31's parts) or a linear :class:`Event`.
    authorized : sequence, optional
        The layers released (all, when not given).
    copies : int
        How many times each authorized layer's bound counts (a plan's ``L`` identical layers are
        one layer's event with ``copies = L``).
    """

    layers: Mapping
    authorized: Sequence | None = None
    copies: int = 1

    def __post_init__(self) -> None:
        whole_number("copies", self.copies, minimum=1)
        self.linear()       # refuses an authorized layer that does not exist, or a non-linear one, now

    @property
    def label(self) -> str:
        return "psa layers"

    @property
    def provenance(self) -> str:
        return "PSA Theorem 3: the authorized layers' curves add (eq. 29); each layer eq. 30-31"

    def linear(self) -> RdpCurve:
        curves = {}
        for key, layer in self.layers.items():
            curve = layer.curve(f"layer {key}") if isinstance(layer, PsaLayer) else layer.linear()
            if curve is None:
                raise InvalidOption(f"psa layers: layer {key!r} has no linear curve")
            curves[key] = curve
        chosen = list(self.layers) if self.authorized is None else list(self.authorized)
        curve = compose_authorized(curves, chosen)
        return curve * self.copies if self.copies > 1 else curve


@dataclass(frozen=True, kw_only=True)
class SkellamEvent(Event):
    """The multi-dimensional Skellam mechanism: ``Sk(μ/2, μ/2)`` per coordinate (variance ``μ``) on an integer sum.

    ``ε(q) ≤ q Δ₂²/(2μ) + min(((2q − 1) Δ₂² + 6 Δ₁)/(4μ²), 3 Δ₁/(2μ))`` at
    whole orders ``q ≥ 2`` (Agarwal, Kairouz, Liu 2021). A sum of ``n``
    independent Skellam shares of variance ``μ/n`` each is Skellam of variance
    ``μ``: ``variance`` is the aggregate's (the fewest survivors' shares).

    Parameters
    ----------
    variance : number
        ``μ``, the aggregate noise variance per coordinate (integer units squared).
    sensitivity : number or arb
        ``Δ₂``.
    l1_sensitivity : number or arb, optional
        ``Δ₁``; by default ``min(Δ₂², √d Δ₂)`` when ``dimension`` is given, else ``Δ₂²``.
    dimension : int, optional
        ``d`` (only for the default ``Δ₁``).
    """

    integer_orders: ClassVar[bool] = True

    variance: object
    sensitivity: object
    l1_sensitivity: object = None
    dimension: int | None = None

    def __post_init__(self) -> None:
        number("Skellam variance mu", self.variance)
        number("sensitivity", self.sensitivity, positive=False)
        if self.l1_sensitivity is not None:
            number("l1 sensitivity", self.l1_sensitivity, positive=False)
        if self.dimension is not None:
            whole_number("dimension", self.dimension, minimum=1)

    @property
    def label(self) -> str:
        return "Skellam"

    @property
    def provenance(self) -> str:
        return ("q D2^2/(2 mu) + min(((2q-1) D2^2 + 6 D1)/(4 mu^2), 3 D1/(2 mu)) at whole orders: " + SKELLAM_PAPER)

    def l1(self) -> flint.arb:
        if self.l1_sensitivity is not None:
            return to_arb(number("l1 sensitivity", self.l1_sensitivity, positive=False))
        l2 = to_arb(number("sensitivity", self.sensitivity, positive=False))
        with precision():
            return l2 * l2 if self.dimension is None else l1_from_l2(l2, self.dimension)

    def rdp(self, order) -> flint.arb:
        q = whole_order(order)
        with precision():
            mu = to_arb(number("Skellam variance mu", self.variance))
            l2 = to_arb(number("sensitivity", self.sensitivity, positive=False))
            l1 = self.l1()
            lead = q * l2 * l2 / (2 * mu)
            rest = (((2 * q - 1) * l2 * l2 + 6 * l1) / (4 * mu * mu)).min(3 * l1 / (2 * mu))
            return lead + rest


def whole_order(order) -> int:
    """An order as an int ``≥ 2``: the bounds certified at whole orders only are asked at those."""
    q = as_order(order)
    if q.denominator != 1:
        raise InvalidOption(f"order: this bound is certified at whole orders only, not {q}")
    return int(q)


@dataclass(frozen=True, kw_only=True)
class ZcdpEvent(Event):
    """A mechanism given by its zero-concentrated DP: ``ε(q) ≤ ξ + ρ q`` at every ``q > 1`` (Bun-Steinke 2016).

    Parameters
    ----------
    rho : number or arb
        ``ρ ≥ 0``.
    xi : number
        ``ξ ≥ 0`` (0: ``ρ``-zCDP, a curve linear in the order).
    source : str
        Where ``ρ`` and ``ξ`` come from (the provenance).
    """

    rho: object
    xi: object = 0
    source: str = "given (xi, rho)-zCDP"

    def __post_init__(self) -> None:
        number("rho", self.rho, positive=False)
        object.__setattr__(self, "xi", fraction("xi", self.xi, low=0, closed=True))

    @property
    def label(self) -> str:
        return "zCDP"

    @property
    def provenance(self) -> str:
        return f"eps(q) <= xi + rho q: {self.source}"

    def linear(self) -> RdpCurve | None:
        if self.xi != 0:
            return None
        return RdpCurve((RdpTerm(self.label, to_arb(number("rho", self.rho, positive=False)), 1, self.source),))

    def rdp(self, order) -> flint.arb:
        q = to_arb(as_order(order))
        with precision():
            return to_arb(self.xi) + to_arb(number("rho", self.rho, positive=False)) * q


@dataclass(frozen=True)
class CurveEvent(Event):
    """A linear RDP curve given as it is (built by a caller): its terms are its provenance.

    Parameters
    ----------
    curve : RdpCurve
        ``ε(q) ≤ c q``.
    """

    curve: RdpCurve

    @property
    def label(self) -> str:
        return self.curve.method()

    @property
    def provenance(self) -> str:
        return "; ".join(t.method for t in self.curve.terms)

    def linear(self) -> RdpCurve:
        return self.curve
