"""Rényi-DP curves: the Gaussian mechanism, the PSA paper's per-layer discrete Gaussian, composition.

Every mechanism here has an RDP bound linear in the order,
``ε(q) ≤ c · q`` for all ``q > 1`` (``c``-zCDP in other words), so a curve is
a list of terms, each with its coefficient ``c`` as a certified arb ball and
a count (rounds or executions). Composition adds coefficients (RDP composes
additively at a fixed order: Mironov 2017, Proposition 1; the PSA paper's
Theorem 3 over an authorized set).

Examples
--------
>>> from fractions import Fraction
>>> g = gaussian_curve(Fraction(1))        # sigma = 1: eps(q) = q / 2
>>> bool(g.at(2).contains(1))
True
>>> bool((g * 30).coefficient().contains(15))
True
>>> bool(gaussian_rdp(4, 2).contains(0.5))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption

__all__ = ["RdpTerm", "RdpCurve", "gaussian_rdp", "gaussian_curve", "psa_tau", "psa_layer", "psa_layer_rdp",
           "psa_layer_curve", "psa_block_sensitivity", "compose", "compose_authorized", "PsaLayer", "number"]

#: τ sums at most this many terms one by one; beyond, the rest is bounded by the first term left out.
TAU_EXACT_TERMS = 20_000
HALF = flint.arb(0.5)


def number(name: str, value, positive: bool = True):
    """``value`` as an exact Fraction (from an int, Fraction, float or text) or an arb ball as given."""
    if isinstance(value, flint.arb):
        if positive and not value > 0:
            raise InvalidOption(f"{name}: must be a number > 0, not {value}")
        return value
    return fraction(name, value, low=0 if positive else None)


@dataclass(frozen=True, repr=False)
class RdpTerm(Displayable):
    """One mechanism run ``count`` times: ``ε(q) ≤ count · coefficient · q`` for every order ``q > 1``.

    Parameters
    ----------
    label : str
        The mechanism's name.
    coefficient : arb
        ``c`` of ``ε(q) ≤ c q`` for one run.
    count : int
        Runs.
    method : str
        Where the bound comes from.
    warnings : tuple of str
        What makes it loose, in words.
    """

    label: str
    coefficient: flint.arb
    count: int
    method: str
    warnings: tuple[str, ...] = ()

    def headline(self) -> str:
        return f"{self.label} x{self.count}: eps(q) <= {self._coef()} q"

    def _coef(self) -> str:
        return safe_decimal(Certified.from_arb("c", self.coefficient, Direction.UPPER, "").high, 6)

    def rows(self) -> list[tuple[str, str]]:
        return [("coefficient", f"{self._coef()} (upper bound)"), ("count", str(self.count)),
                ("method", self.method)] + [("warning", w) for w in self.warnings]


@dataclass(frozen=True, repr=False)
class RdpCurve(Displayable):
    """A composed RDP curve: the sum of its terms, valid at every order ``q > 1``.

    Parameters
    ----------
    terms : tuple of RdpTerm
        The mechanisms composed.
    """

    terms: tuple[RdpTerm, ...] = field(default_factory=tuple)

    def coefficient(self) -> flint.arb:
        """``c`` with ``ε(q) ≤ c q``: the sum of ``count · coefficient`` over the terms (a ball)."""
        total = flint.arb(0)
        for term in self.terms:
            total += term.count * term.coefficient
        return total

    def at(self, order) -> flint.arb:
        """The certified RDP bound at ``order`` (> 1), as a ball."""
        q = to_arb(order)
        if not q > 1:
            raise InvalidOption(f"order: must be > 1, not {order}")
        return self.coefficient() * q

    def coefficient_float(self) -> float:
        """A float of the coefficient's upper end, for order optimisation only (never printed)."""
        return float(self.coefficient().upper())

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for t in self.terms for w in t.warnings)

    def __mul__(self, count: int) -> RdpCurve:
        whole_number("count", count, minimum=1)
        return RdpCurve(tuple(RdpTerm(t.label, t.coefficient, t.count * count, t.method, t.warnings)
                              for t in self.terms))

    __rmul__ = __mul__

    def __add__(self, other: RdpCurve) -> RdpCurve:
        return RdpCurve(self.terms + other.terms)

    def method(self) -> str:
        return " + ".join(f"{t.count} x {t.label}" for t in self.terms) + " (RDP adds at each order)"

    def headline(self) -> str:
        c = Certified.from_arb("c", self.coefficient(), Direction.UPPER, "")
        return f"eps(q) <= {safe_decimal(c.high, 6)} q over {len(self.terms)} term(s)"

    def rows(self) -> list[tuple[str, str]]:
        return [(t.label, t.headline()) for t in self.terms]


def compose(curves: Iterable[RdpCurve]) -> RdpCurve:
    """The composition of ``curves`` (additive at every order; PSA paper Theorem 3, eq. 29).

    Parameters
    ----------
    curves : iterable of RdpCurve
        The curves composed.


    >>> c = compose([gaussian_curve(1), gaussian_curve(1) * 3])
    >>> c.coefficient().contains(2)
    True
    """
    terms: tuple[RdpTerm, ...] = ()
    for curve in curves:
        terms += curve.terms
    return RdpCurve(terms)


def compose_authorized(layers: Mapping, authorized: Iterable) -> RdpCurve:
    """The curve of an authorized set ``P``: the sum over ``ℓ ∈ P`` of the layers' curves (PSA Theorem 3).

    Parameters
    ----------
    layers : mapping
        Layer (or stage) -> its curve.
    authorized : iterable
        The layers released.


    ``layers`` maps a layer (or stage) to its curve; sealed layers, those not
    in ``authorized``, cost nothing.

    >>> layers = {1: gaussian_curve(1), 2: gaussian_curve(2), 3: gaussian_curve(4)}
    >>> compose_authorized(layers, [2, 3]).coefficient().contains(to_arb(Fraction(5, 32)))
    True
    """
    chosen = list(authorized)
    missing = [key for key in chosen if key not in layers]
    if missing:
        raise InvalidOption(f"authorized set: no layer {missing[0]!r} (layers: {', '.join(map(str, layers))})")
    return compose(layers[key] for key in dict.fromkeys(chosen))


def gaussian_curve(noise_multiplier, sensitivity=1, count: int = 1) -> RdpCurve:
    """The Gaussian mechanism: ``ε(q) = q Δ² / (2 σ²)`` with ``σ = noise_multiplier · Δ``: ``c = 1/(2 z²)``.

    Parameters
    ----------
    noise_multiplier : number or arb
        ``z``, the noise std over the l2 sensitivity.
    sensitivity : number
        Kept for callers (see above).
    count : int
        Runs.


    ``noise_multiplier`` is the noise standard deviation in units of the
    ``ℓ2`` sensitivity (``sensitivity`` only rescales: ``c = Δ²/(2 (zΔ)²)`` is
    kept for callers that pass a noise standard deviation and a sensitivity
    in the same units: then pass ``noise_multiplier = σ/Δ``).

    Notes
    -----
    Mironov, "Rényi differential privacy", CSF 2017, Proposition 7 (exact:
    the Rényi divergence of two Gaussians). The same bound holds for the
    discrete Gaussian on ``Z^d`` (Canonne, Kamath, Steinke, NeurIPS 2020,
    Proposition 5 / Theorem 4).
    """
    z = number("noise multiplier", noise_multiplier)
    whole_number("count", count, minimum=1)
    with precision():
        coefficient = 1 / (2 * to_arb(z) ** 2)
    label = f"gaussian(z={_short(z)})"
    return RdpCurve((RdpTerm(label, coefficient, count, "Gaussian RDP q/(2 z^2) (Mironov 2017, Prop. 7)"),))


def gaussian_rdp(order, noise_multiplier) -> flint.arb:
    """The Gaussian mechanism's RDP at ``order``: ``q / (2 z²)`` (a ball; Mironov 2017, Prop. 7).

    Parameters
    ----------
    order : number
        ``q > 1``.
    noise_multiplier : number
        ``z``.
    """
    return gaussian_curve(noise_multiplier).at(order)


def psa_block_sensitivity(h, radix: int, layer: int, dimension: int) -> flint.arb:
    """``D_ℓ = h (ρ−1) ρ^(ℓ−1) √d``: a full-range integer layer's replacement sensitivity (PSA eq. 28).

    Parameters
    ----------
    h : number
        The quantization step.
    radix : int
        ``ρ``, an odd whole number ``>= 3``.
    layer : int
        ``ℓ >= 1``.
    dimension : int
        ``d``.

    >>> psa_block_sensitivity(1, 3, 1, 4).contains(4)
    True
    """
    _check_radix(radix)
    whole_number("layer", layer, minimum=1)
    whole_number("dimension", dimension, minimum=1)
    with precision():
        return to_arb(number("h", h)) * (radix - 1) * radix ** (layer - 1) * flint.arb(dimension).sqrt()


def _check_radix(radix: int) -> None:
    whole_number("radix", radix, minimum=3)
    if radix % 2 == 0:
        raise InvalidOption(f"radix: must be an odd whole number >= 3, not {radix}")


def _survivors(survivors, k_eff) -> int:
    """``survivors`` (K_eff), also accepted under its old keyword ``k_eff``."""
    if survivors is None:
        survivors = k_eff
    elif k_eff is not None and k_eff != survivors:
        raise InvalidOption(f"survivors: given twice ({survivors} and k_eff = {k_eff}); give one")
    if survivors is None:
        raise InvalidOption("survivors: give the number of honest clients whose noise is counted (K_eff)")
    return whole_number("survivors", survivors, minimum=1)


def psa_tau(survivors: int, scaled_scale) -> flint.arb:
    """``τ = 10 Σ_(j=1)^(K_eff−1) exp(−2π² s̃² j/(j+1))``, the convolution correction (PSA eq. 30).

    Parameters
    ----------
    survivors : int
        ``K_eff``, the honest clients whose noise is counted.
    scaled_scale : number or arb
        ``s̃ = s/(h ρ^(ℓ−1)) ≥ 1/2``.

    With one honest client the
    sum is empty (``τ = 0``). Beyond :data:`TAU_EXACT_TERMS` terms the rest is
    bounded by the first term left out (the terms decrease in ``j``), so the
    ball is then an upper bound.

    >>> psa_tau(1, 1).contains(0)
    True
    >>> float(psa_tau(2, Fraction(1, 2)).mid()) > 0
    True
    """
    k_eff = whole_number("survivors", survivors, minimum=1)
    s = number("scaled scale s~", scaled_scale)
    if not to_arb(s) >= HALF:
        raise InvalidOption(f"scaled scale s~: must be >= 1/2 (PSA eq. 30), not {_short(s)}")
    with precision():
        rate = -2 * flint.arb.pi() ** 2 * to_arb(s) ** 2
        exact = min(k_eff - 1, TAU_EXACT_TERMS)
        total = flint.arb(0)
        for j in range(1, exact + 1):
            total += (rate * j / (j + 1)).exp()
        rest = k_eff - 1 - exact
        if rest > 0:      # the terms decrease in j: each later one is at most the first left out
            total += rest * (rate * (exact + 1) / (exact + 2)).exp()
        return 10 * total


@dataclass(frozen=True, kw_only=True, repr=False)
class PsaLayer(Displayable):
    """The parts of PSA eq. 31 for one layer: the leading term, τ, and whether τ makes it vacuous.

    Parameters
    ----------
    sensitivity, scale, scaled_scale : arb
        ``D_ℓ``, ``s_ℓ`` and ``s̃ = s/(h ρ^(ℓ−1))``.
    survivors : int
        ``K_eff``.
    dimension : int
        ``d``.
    tau, leading, correction : arb
        ``τ`` (eq. 30), ``D²/(2 K_eff s²)`` and ``τ d``.
    """

    sensitivity: flint.arb
    scale: flint.arb
    scaled_scale: flint.arb
    survivors: int
    dimension: int
    tau: flint.arb
    leading: flint.arb
    correction: flint.arb

    @property
    def k_eff(self) -> int:
        """The old name of :attr:`survivors`."""
        return self.survivors

    @property
    def vacuous(self) -> bool:
        """The τ correction is not certainly below the leading term: the bound is then the correction's.

        An inactive layer (``D = 0``) is never vacuous: it is omitted from the sum.
        """
        return not self.sensitivity.is_zero() and not self.correction < self.leading

    def curve(self, label: str = "psa layer") -> RdpCurve:
        if self.sensitivity.is_zero():
            return RdpCurve((RdpTerm(label, flint.arb(0), 1, "inactive layer (D = 0): omitted from the privacy sum "
                                     "(PSA Sec. VII-A)"),))
        warn = ((f"{label}: the tau correction (tau d = {_up(self.correction)}) is not below the leading "
                 f"term ({_up(self.leading)}): eq. 31 is vacuous in practice; raise s~ "
                 f"(now {_up(self.scaled_scale)})",) if self.vacuous else ())
        method = "PSA eq. 31: q D^2/(2 K_eff s^2) + q tau d, tau from eq. 30 (Azimi-Abarghouyi, Sec. VII-B)"
        return RdpCurve((RdpTerm(label, self.leading + self.correction, 1, method, warn),))

    def headline(self) -> str:
        return f"leading {_up(self.leading)} + tau d {_up(self.correction)} (per order q)"

    def rows(self) -> list[tuple[str, str]]:
        return [("leading D^2/(2 K s^2)", _up(self.leading)), ("tau (eq. 30)", _up(self.tau)),
                ("tau d", _up(self.correction)), ("vacuous", str(self.vacuous))]


def psa_layer(*, sensitivity, scale, survivors: int | None = None, dimension: int, step, k_eff: int | None = None
              ) -> PsaLayer:
    """The per-layer bound of PSA eq. 30–31 with its parts (``step`` is required).

    Parameters
    ----------
    sensitivity, scale, survivors, dimension, step
        As in :func:`psa_layer_curve` (``k_eff``: the old keyword of ``survivors``).
    """
    D = number("sensitivity D", sensitivity, positive=False)
    s = number("scale s", scale)
    step_ = number("step h radix^(l-1)", step)
    k_eff = _survivors(survivors, k_eff)
    whole_number("dimension", dimension, minimum=1)
    with precision():
        s_arb, D_arb = to_arb(s), to_arb(D)
        scaled = s_arb / to_arb(step_)
        if not scaled >= HALF:
            raise InvalidOption(f"scaled scale s~ = s/(h radix^(l-1)): must be >= 1/2 (PSA eq. 30), not {_up(scaled)}")
        tau = psa_tau(k_eff, scaled)
        leading = D_arb**2 / (2 * k_eff * s_arb**2)
        return PsaLayer(sensitivity=D_arb, scale=s_arb, scaled_scale=scaled, survivors=k_eff, dimension=dimension,
                        tau=tau, leading=leading, correction=tau * dimension)


def psa_layer_curve(*, sensitivity, scale, survivors: int | None = None, dimension: int, step,
                    label: str = "psa layer", k_eff: int | None = None) -> RdpCurve:
    """PSA eq. 31 as an RDP curve: ``ε_ℓ(q) ≤ q D_ℓ²/(2 K_eff s_ℓ²) + q τ_ℓ d``, with τ_ℓ of eq. 30.

    Parameters
    ----------
    sensitivity : number or arb
        ``D_ℓ``, the layer's full-vector replacement sensitivity in physical
        units (see :func:`psa_block_sensitivity`); 0 for an inactive layer,
        whose curve is then zero (the paper omits it from the sum).
    scale : number
        ``s_ℓ``, the per-client discrete-Gaussian scale in the same units.
    survivors : int
        ``K_eff``: a lower bound on the honest clients whose noise the accounting relies on
        (``k_eff``: its old keyword).
    dimension : int
        ``d``, the model dimension.
    step : number
        ``h ρ^(ℓ−1)``, the layer's lattice step, so that ``s̃ = s/step ≥ 1/2``.
        Required (keyword-only, no default): a forgotten step of 1 at layer
        ``ℓ > 1`` would overstate ``s̃`` by ``ρ^(ℓ−1)`` and understate τ by
        orders of magnitude.

    Returns
    -------
    RdpCurve
        One term; it carries a warning when τ d is not below the leading term.

    Examples
    --------
    >>> c = psa_layer_curve(sensitivity=2, scale=10, survivors=100, dimension=10, step=1)
    >>> c.coefficient() > 0.00019, c.warnings
    (True, ())

    Notes
    -----
    Azimi-Abarghouyi, "Progressive-Resolution Secure Aggregation for
    Federated Learning", arXiv 2610.00695, Sec. VII-B, eq. 30–31 (a
    conservative form of the ℓ2 branch of Kairouz, Liu, Steinke, ICML 2021).
    """
    return psa_layer(sensitivity=sensitivity, scale=scale, survivors=_survivors(survivors, k_eff), dimension=dimension,
                     step=step).curve(label)


def psa_layer_rdp(order, *, sensitivity, scale, survivors: int | None = None, dimension: int, step,
                  k_eff: int | None = None) -> flint.arb:
    """PSA eq. 31 at one ``order`` (a ball).

    Parameters
    ----------
    order : number
        The Rényi order ``q > 1``.
    sensitivity, scale, survivors, dimension, step
        As in :func:`psa_layer_curve` (``k_eff``: the old keyword of ``survivors``).
    """
    return psa_layer_curve(sensitivity=sensitivity, scale=scale, survivors=_survivors(survivors, k_eff),
                           dimension=dimension, step=step).at(order)


def _up(x: flint.arb) -> str:
    return safe_decimal(Certified.from_arb("x", x, Direction.UPPER, "").high, 4)


def _short(x) -> str:
    """A label's number: ``3/2`` while short, else 6 significant digits (any size)."""
    if isinstance(x, Fraction):
        short = x.denominator < 10**6 and abs(x.numerator) < 10**12
        return str(x) if short else safe_decimal(x, 6, up=x > 0)
    return str(x)
