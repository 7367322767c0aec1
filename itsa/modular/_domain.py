"""Layer sensitivities of a product domain that fills a fraction of the digit alphabet (Fig. 2a).

One coordinate of the integer chain (``h = 1``); the admissible range has
width ``w = Γ ρ^L`` (``Γ = 1`` fills ``V_(L+1)``, whose width is ``ρ^L``). A layer
is *active* while ``w > ρ^(ℓ-1)``, i.e. while the half-range exceeds
``r_pack(Λ_ℓ)`` (§VII-A: below it the layer's symbol is always 0); an active
layer's replacement sensitivity is the smaller of its alphabet's diameter
``(ρ-1) ρ^(ℓ-1)`` and ``w``; the matched flat representation's is ``w``.

This is the reading of Fig. 2a that reproduces its printed ratios (see the
audit): the fills are ``Γ = 10^(-k/10)``.

Examples
--------
>>> d = fill_sensitivities(Fraction(1), radix=3, layers=4)
>>> d.layers, d.flat
((Fraction(2, 1), Fraction(6, 1), Fraction(18, 1), Fraction(54, 1)), Fraction(81, 1))
>>> fill_sensitivities(Fraction(1, 3), radix=3, layers=4).active
(True, True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction  # noqa: F401 (the examples use it)

from itsa._util.certified import precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.modular._laws import check_radix

__all__ = ["FillSensitivities", "fill_sensitivities", "decade_fill"]


@dataclass(frozen=True)
class FillSensitivities:
    """Per-layer and flat sensitivities (physical units, ``h = 1``, one coordinate) at a fill ``Γ``.

    Values are Fractions for a rational fill, python-flint ``arb`` balls for an irrational one.

    Parameters
    ----------
    fill : Fraction or arb
        ``Γ``.
    radix : int
        ``ρ``.
    layers : tuple
        ``D_ℓ`` of each layer (0 for an inactive one).
    flat : Fraction or arb
        The matched flat sensitivity ``Γ ρ^L``.
    active : tuple of bool
        Whether each layer is active.
    """

    fill: object
    radix: int
    layers: tuple
    flat: object
    active: tuple[bool, ...]


def decade_fill(k: int):
    """``Γ = 10^(-k/10)`` as an arb ball (the fill grid of Fig. 2a).

    Parameters
    ----------
    k : int
        The grid index, ``>= 0``.
    """
    whole_number("k", k, minimum=0)
    with precision():
        return to_arb(10) ** (to_arb(-k) / 10)


def fill_sensitivities(fill, radix: int = 3, layers: int = 4) -> FillSensitivities:
    """The layer sensitivities ``min((ρ-1)ρ^(ℓ-1), Γρ^L)`` of the active layers, and the flat ``Γρ^L``.

    Parameters
    ----------
    fill : Fraction, str or arb
        ``Γ`` in ``(0, 1]`` (read exactly), or an ``arb`` ball.
    radix, layers : int
        ``ρ`` and ``L``.

    Notes
    -----
    §VII-A (inactive layers, eq. 35–36) and Fig. 2a of Azimi-Abarghouyi,
    arXiv 2610.00695.
    """
    import flint

    check_radix(radix)
    whole_number("L (layers)", layers, minimum=1)
    if not isinstance(fill, flint.arb):
        fill = fraction("fill Γ", fill, low=0, high=1, closed=True)
        if fill == 0:
            fill = fraction("fill Γ", fill, low=0, high=1)
    width = fill * radix ** layers
    out, active = [], []
    for ell in range(1, layers + 1):
        step = radix ** (ell - 1)
        on = bool(width > step)
        if not on and not bool(width <= step):
            raise InvalidOption("fill Γ: too close to a layer's threshold to decide in ball arithmetic")
        active.append(on)
        diameter = (radix - 1) * step
        out.append((diameter + 0 * width if bool(diameter <= width) else width) if on else 0 * width)
    return FillSensitivities(fill, radix, tuple(out), width, tuple(active))
