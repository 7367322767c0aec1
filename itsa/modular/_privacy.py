"""Privacy of authorized releases (§VII), through :mod:`itsa.privacy`: no second accountant here.

Per-layer Rényi DP (eq. 30–31), its composition over the authorized set
(Theorem 3), the conversion to ``(ε, δ)`` and calibration, and Proposition 3's
leading ratio are all :mod:`itsa.privacy`'s; this module supplies the layer
geometry of the integer chain (steps ``h ρ^(ℓ-1)``, full-range sensitivities,
the fill domain of :func:`~itsa.modular.fill_sensitivities`) and the audit's privacy checks.

Examples
--------
>>> r = privacy(survivors=1000, radix=3, layers=4, authorized="4,3", scaled_scale=4, dimension=10,
...             delta="1e-6")
>>> r.layers, r.epsilon.epsilon.upper() > 0
((4, 3), True)
>>> leading_ratio([2, 6, 18, 54], 80)       # full-range integer block: exactly neutral
Fraction(1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from itsa._util.certified import Direction, exact_text, fraction_text, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, VerificationError, excerpt
from itsa.modular._certify import enclose
from itsa.modular._laws import check_radix
from itsa.modular._margins import MAX_LAYERS

if TYPE_CHECKING:
    from itsa.privacy import EpsilonBound, PsaLayer, RdpCurve

__all__ = ["ReleasePrivacy", "privacy", "release_privacy", "authorized_suffix", "leading_ratio", "fill_leading_ratio"]

#: Closest approach of δ to 1.
_DELTA_GAP = Fraction(1, 2**40)
#: Noise-scale budget used to evaluate leading ratios (they do not depend on it; it keeps every s̃ >= 1/2).
_BUDGET = 10**8


@dataclass(frozen=True, repr=False, kw_only=True)
class ReleasePrivacy(Displayable):
    """The composed RDP of an authorized set of layers and its certified ``(ε, δ)``.

    Parameters
    ----------
    layers : tuple of int
        The authorized layers, coarse to fine.
    per_layer : tuple of PsaLayer
        Eq. 31's parts of each authorized layer.
    curve : RdpCurve
        Their composition (Theorem 3).
    epsilon : EpsilonBound
        The certified ``(ε, δ)``.
    survivors, radix, total_layers, dimension : int
        ``K_eff``, ``ρ``, ``L`` and ``d``.
    scaled_scale, h : Fraction
        ``s̃`` and the granularity.
    """

    layers: tuple[int, ...]
    per_layer: tuple[PsaLayer, ...]
    curve: RdpCurve
    epsilon: EpsilonBound
    survivors: int
    radix: int
    total_layers: int
    dimension: int
    scaled_scale: Fraction
    h: Fraction

    def headline(self) -> str:
        eps = self.epsilon.epsilon
        relation = "=" if eps.direction is Direction.EXACT else "<="
        return (f"authorized layers {list(self.layers)}: ε {relation} {eps.decimal(4)} ({eps.direction}) "
                f"at δ = {exact_text(Fraction(self.epsilon.delta))}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"layer {ell}", layer.headline()) for ell, layer in zip(self.layers, self.per_layer)]
        rows.append(("(ε, δ)", self.epsilon.headline()))
        return rows + [("warning", w) for w in self.curve.warnings]

    def to_dict(self) -> dict:
        return {"survivors": self.survivors, "radix": self.radix, "layers": self.total_layers,
                "authorized": list(self.layers), "scaled_scale": fraction_text(self.scaled_scale),
                "dimension": self.dimension, "h": fraction_text(self.h), "delta": fraction_text(self.epsilon.delta),
                "conversion": str(self.epsilon.conversion), "epsilon": self.epsilon.to_dict(),
                "per_layer": [{"layer": ell, "leading": _upper(f"layer {ell} leading term", layer.leading),
                               "tau": _upper(f"layer {ell} τ", layer.tau), "vacuous": layer.vacuous}
                              for ell, layer in zip(self.layers, self.per_layer)],
                "warnings": list(self.curve.warnings)}


def _upper(name: str, ball) -> dict:
    return enclose(name, ball, Direction.UPPER, "itsa.privacy (ball arithmetic)").to_dict()


def privacy(*, survivors: int, radix: int = 3, layers: int = 4, authorized: Sequence[int] | str | None = None,
            scaled_scale=1, dimension: int = 1, h=1, delta=None, conversion: str = "cks") -> ReleasePrivacy:
    """Theorem 3 over ``authorized`` layers, each a full-range integer layer with eq. 30–31's RDP.

    ``scaled_scale`` is ``s̃ = s_ℓ/(h ρ^(ℓ-1))`` (the same for every layer); the
    sensitivity of layer ``ℓ`` is eq. 35's ``h (ρ-1) ρ^(ℓ-1) √d``. Sealed layers
    cost nothing (they are not in ``authorized``).

    Parameters
    ----------
    survivors : int
        ``K_eff``: the honest clients whose noise is counted.
    radix, layers : int
        ``ρ`` and ``L``.
    authorized : sequence of int or str, optional
        The released layers, a suffix ``L, …, ℓ0`` (``[4, 3]`` or ``"4,3"``); all ``L`` when not given.
    scaled_scale : Fraction or str
        ``s̃ >= 1/2``, every layer.
    dimension : int
        ``d``.
    h : Fraction or str
        The granularity.
    delta : Fraction or str, optional
        ``δ`` of the conversion; :data:`itsa.privacy.DEFAULT_DELTA` when not given (the one default of both parts).
    conversion : str
        ``cks`` or ``mironov`` (:class:`itsa.privacy.Conversion`).
    """
    from itsa.privacy import DEFAULT_DELTA, Accountant, PsaLayersEvent, psa_block_sensitivity, psa_layer
    from itsa.privacy import RdpCurve as LinearCurve

    check_radix(radix)
    whole_number("L (layers)", layers, minimum=1, maximum=MAX_LAYERS)
    whole_number("K_eff (survivors)", survivors, minimum=1)
    chosen = authorized_suffix(range(layers, 0, -1) if authorized is None else authorized, layers)
    s = fraction("scaled scale s̃", scaled_scale, low=0)
    delta = DEFAULT_DELTA if delta is None else delta
    if 1 - fraction("delta", delta, low=0, high=1) < _DELTA_GAP:      # the accountant's search works in floats
        raise InvalidOption(f"delta: must be below 1 - 2^-40 (the accountant's float search), not {excerpt(delta)}")
    step_h = fraction("h", h, low=0)
    every = {}
    for ell in range(layers, 0, -1):
        step = step_h * radix ** (ell - 1)
        every[ell] = psa_layer(sensitivity=psa_block_sensitivity(step_h, radix, ell, dimension), scale=s * step,
                               survivors=survivors, dimension=dimension, step=step)
    accountant = Accountant(conversion=conversion).compose(PsaLayersEvent(layers=every, authorized=chosen))
    bound = accountant.bound(delta)
    curve = bound.curve
    assert isinstance(curve, LinearCurve)       # the layers' bounds are linear in the order (eq. 31)
    return ReleasePrivacy(layers=chosen, per_layer=tuple(every[ell] for ell in chosen), curve=curve,
                          epsilon=bound, survivors=survivors, radix=radix,
                          total_layers=layers, dimension=dimension, scaled_scale=s, h=step_h)


#: The former name of :func:`privacy`.
release_privacy = privacy


def authorized_suffix(authorized: Sequence[int] | str, layers: int) -> tuple[int, ...]:
    """``authorized`` as ``(L, L-1, …, ℓ0)``, refused unless it is such a suffix, each layer once.

    Layers are authorized coarse to fine: with ``ℓ0`` the finest authorized
    layer the authorized set is ``{ℓ0, …, L}`` (§IV).

    Parameters
    ----------
    authorized : sequence of int or str
        The layers, in any order (``"4,3"`` is read as ``[4, 3]``).
    layers : int
        ``L``.

    >>> authorized_suffix([3, 4], 4)
    (4, 3)
    >>> authorized_suffix([4, 4, 3], 4)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: authorized: [4, 4, 3] names a layer twice
    """
    if isinstance(authorized, str):
        try:
            authorized = [int(x) for x in authorized.split(",")]
        except ValueError:
            raise InvalidOption(f"authorized: {excerpt(authorized)} is not a list of layers (write 4,3)") from None
    given = [whole_number("authorized layer", ell, minimum=1, maximum=layers) for ell in authorized]
    if not given:
        raise InvalidOption("authorized: needs at least one layer")
    if len(set(given)) != len(given):
        raise InvalidOption(f"authorized: {given} names a layer twice")
    chosen = tuple(sorted(given, reverse=True))
    finest = chosen[-1]
    if chosen != tuple(range(layers, finest - 1, -1)):
        missing = ", ".join(str(ell) for ell in range(layers, finest, -1) if ell not in chosen)
        raise InvalidOption(f"authorized: {given} is not a suffix L..ℓ0 of the layers (such as {layers},{layers - 1}); "
                            f"with finest layer {finest} it needs {missing} too")
    return chosen


def leading_ratio(layer_sensitivities: Sequence, flat_sensitivity):
    """Proposition 3's ``ε_lay/ε_flat`` at the optimal allocation, from :mod:`itsa.privacy`'s leading terms.

    Each layer gets ``s_ℓ² = V D_ℓ / Σ D`` (eq. 32), the flat mechanism ``V``;
    the ratio of the summed leading terms of eq. 31 is ``(Σ D)²/D_flat²`` (eq. 34).
    Exact (a Fraction) when the sensitivities are rational, else an ``arb`` ball.

    Parameters
    ----------
    layer_sensitivities : sequence
        ``D_ℓ`` of every layer (Fractions or arb balls; inactive layers 0).
    flat_sensitivity : Fraction or arb
        ``D_flat``.
    """
    from itsa.privacy import psa_layer

    active = [d for d in layer_sensitivities if bool(d > 0)]
    total = sum(active, 0 * flat_sensitivity)
    exact = all(isinstance(d, (int, Fraction)) for d in [*active, flat_sensitivity])
    with precision():
        lay = to_arb(0)
        for d in active:          # only the leading terms are read: they do not depend on the step
            s2 = to_arb(_BUDGET) * to_arb(d) / to_arb(total)
            lay += psa_layer(sensitivity=to_arb(d), scale=s2.sqrt(), survivors=1, dimension=1, step=1).leading
        flat = psa_layer(sensitivity=to_arb(flat_sensitivity), scale=to_arb(_BUDGET).sqrt(), survivors=1,
                         dimension=1, step=1).leading
        ratio = lay / flat
        if exact:
            closed = Fraction(total) ** 2 / Fraction(flat_sensitivity) ** 2
            if not ratio.contains(to_arb(closed)):   # pragma: no cover
                raise VerificationError("the accountant's leading terms disagree with eq. 34")
            return closed
        return ratio


def fill_leading_ratio(k: int, radix: int = 3, layers: int = 4):
    """The leading ratio of the product domain at fill ``Γ = 10^(-k/10)`` (Fig. 2a), an arb ball.

    Parameters
    ----------
    k : int
        The grid index of the fill.
    radix, layers : int
        ``ρ`` and ``L``.
    """
    from itsa.modular._domain import decade_fill, fill_sensitivities

    with precision():
        d = fill_sensitivities(decade_fill(k), radix, layers)
        return leading_ratio(d.layers, d.flat)
