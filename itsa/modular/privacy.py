"""Privacy of authorized releases (§VII), through :mod:`itsa.privacy`: no second accountant here.

Per-layer Rényi DP (eq. 30–31), its composition over the authorized set
(Theorem 3), the conversion to ``(ε, δ)`` and calibration, and Proposition 3's
leading ratio are all :mod:`itsa.privacy`'s; this module supplies the layer
geometry of the integer chain (steps ``h ρ^(ℓ-1)``, full-range sensitivities,
the fill domain of :mod:`itsa.modular.domain`) and the audit's privacy checks.

Examples
--------
>>> r = release_privacy(clients=1000, radix=3, layers=4, authorized=[4, 3], scaled_scale=4, dimension=10,
...                     delta="1e-6")
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

from itsa._util.checks import fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, VerificationError, excerpt
from itsa.modular.laws import check_radix
from itsa.modular.margins import MAX_LAYERS

if TYPE_CHECKING:
    from itsa.privacy import EpsilonBound, PsaLayer, RdpCurve

__all__ = ["ReleasePrivacy", "release_privacy", "authorized_suffix", "leading_ratio", "fill_leading_ratio"]

#: Closest approach of δ to 1.
_DELTA_GAP = Fraction(1, 2**40)
#: Noise-scale budget used to evaluate leading ratios (they do not depend on it; it keeps every s̃ >= 1/2).
_BUDGET = 10**8


@dataclass(frozen=True, repr=False, kw_only=True)
class ReleasePrivacy(Displayable):
    """The composed RDP of an authorized set of layers and its certified ``(ε, δ)``."""

    layers: tuple[int, ...]
    per_layer: tuple[PsaLayer, ...]
    curve: RdpCurve
    epsilon: EpsilonBound

    def headline(self) -> str:
        from itsa.modular.numbers import fraction_text

        return f"authorized layers {list(self.layers)}: ε = {self.epsilon.epsilon.decimal(4)} at δ = {fraction_text(self.epsilon.delta)}"

    def rows(self) -> list[tuple[str, str]]:
        rows = [(f"layer {ell}", layer.headline()) for ell, layer in zip(self.layers, self.per_layer)]
        rows.append(("(ε, δ)", self.epsilon.headline()))
        return rows + [("warning", w) for w in self.curve.warnings]

    def to_json(self) -> dict:
        return {"layers": list(self.layers), "epsilon": self.epsilon.to_dict(),
                "per_layer": [{"layer": ell, "leading_upper": _upper(layer.leading), "tau_upper": _upper(layer.tau),
                               "vacuous": layer.vacuous} for ell, layer in zip(self.layers, self.per_layer)],
                "warnings": list(self.curve.warnings)}


def _upper(ball) -> str:
    from itsa.modular.numbers import certified, round_up

    return round_up(certified(ball).high, 6)


def release_privacy(*, clients: int, radix: int = 3, layers: int = 4, authorized: Sequence[int] | None, scaled_scale,
                    dimension: int, h=1, delta="1e-6", conversion: str = "cks") -> ReleasePrivacy:
    """Theorem 3 over ``authorized`` layers, each a full-range integer layer with eq. 30–31's RDP.

    ``scaled_scale`` is ``s̃ = s_ℓ/(h ρ^(ℓ-1))`` (the same for every layer); the
    sensitivity of layer ``ℓ`` is eq. 35's ``h (ρ-1) ρ^(ℓ-1) √d``; ``clients`` is
    ``K_eff``. Sealed layers cost nothing (they are not in ``authorized``;
    ``None`` authorizes all ``L``).
    """
    from itsa.privacy import compose_authorized, psa_block_sensitivity, psa_layer, to_epsilon

    check_radix(radix)
    whole_number("L (layers)", layers, minimum=1, maximum=MAX_LAYERS)
    whole_number("K_eff (clients)", clients, minimum=1)
    chosen = authorized_suffix(range(layers, 0, -1) if authorized is None else authorized, layers)
    s = fraction("scaled scale s̃", scaled_scale, low=0)
    if 1 - fraction("delta", delta, low=0, high=1) < _DELTA_GAP:      # the accountant's search works in floats
        raise InvalidOption(f"delta: must be below 1 - 2^-40 (the accountant's float search), not {excerpt(delta)}")
    step_h = fraction("h", h, low=0)
    every = {}
    for ell in range(layers, 0, -1):
        step = step_h * radix ** (ell - 1)
        every[ell] = psa_layer(sensitivity=psa_block_sensitivity(step_h, radix, ell, dimension), scale=s * step,
                               k_eff=clients, dimension=dimension, step=step)
    curve = compose_authorized({ell: layer.curve(f"layer {ell}") for ell, layer in every.items()}, chosen)
    return ReleasePrivacy(layers=chosen, per_layer=tuple(every[ell] for ell in chosen), curve=curve,
                          epsilon=to_epsilon(curve, delta, conversion))


def authorized_suffix(authorized: Sequence[int], layers: int) -> tuple[int, ...]:
    """``authorized`` as ``(L, L-1, …, ℓ0)``, refused unless it is such a suffix, each layer once.

    Layers are authorized coarse to fine: with ``ℓ0`` the finest authorized
    layer the authorized set is ``{ℓ0, …, L}`` (§IV).

    >>> authorized_suffix([3, 4], 4)
    (4, 3)
    >>> authorized_suffix([4, 4, 3], 4)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: authorized: [4, 4, 3] names a layer twice
    """
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
    """
    import flint

    from itsa.privacy import psa_layer

    active = [d for d in layer_sensitivities if bool(d > 0)]
    total = sum(active, 0 * flat_sensitivity)
    exact = all(isinstance(d, (int, Fraction)) for d in [*active, flat_sensitivity])
    lay = flint.arb(0)
    for d in active:          # only the leading terms are read: they do not depend on the step
        s2 = flint.arb(_BUDGET) * _ball(d) / _ball(total)
        lay += psa_layer(sensitivity=_ball(d), scale=s2.sqrt(), k_eff=1, dimension=1, step=1).leading
    flat = psa_layer(sensitivity=_ball(flat_sensitivity), scale=flint.arb(_BUDGET).sqrt(), k_eff=1,
                     dimension=1, step=1).leading
    ratio = lay / flat
    if exact:
        closed = Fraction(total) ** 2 / Fraction(flat_sensitivity) ** 2
        if not ratio.contains(flint.arb(closed.numerator) / closed.denominator):   # pragma: no cover
            raise VerificationError("the accountant's leading terms disagree with eq. 34")
        return closed
    return ratio


def _ball(x):
    import flint

    if isinstance(x, flint.arb):
        return x
    x = Fraction(x)
    return flint.arb(x.numerator) / x.denominator


def fill_leading_ratio(k: int, radix: int = 3, layers: int = 4):
    """The leading ratio of the product domain at fill ``Γ = 10^(-k/10)`` (Fig. 2a), an arb ball."""
    from itsa.modular.domain import decade_fill, fill_sensitivities

    d = fill_sensitivities(decade_fill(k), radix, layers)
    return leading_ratio(d.layers, d.flat)
