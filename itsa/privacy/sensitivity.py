"""The sensitivity reading with what surrounds it: w_max, Δ*₂, σ_t, σ_int, the rounding bound, the grid guidance.

Examples
--------
>>> r = sensitivity_report(w_max="6/256", alpha=256, clip=1, dimension=2, gamma=256)
>>> r["Delta*_2"]["value"]
'0.0470045'
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.checks import fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.certified import Certified, precision, safe_decimal, to_arb
from itsa.privacy.composition import classical_sigma
from itsa.privacy.weights import grid_guidance, rounding_bound, sensitivity

__all__ = ["sensitivity_report", "equal_max_weight"]


def equal_max_weight(clients: int, alpha: int) -> Fraction:
    """``w_max`` of Hamilton's rule for ``clients`` equal weights, in closed form (no list of clients).

    Each quota is ``α/M``: ``⌊α/M⌋`` each, and the ``α mod M`` units left go one
    each to as many clients, so ``w_max = ⌈α/M⌉/α``.

    >>> equal_max_weight(50, 256), equal_max_weight(10**12, 256)
    (Fraction(3, 128), Fraction(1, 256))
    """
    whole_number("clients", clients, minimum=1)
    whole_number("alpha", alpha, minimum=1)
    return Fraction(-(-alpha // clients), alpha)


def sensitivity_report(*, w_max=None, alpha: int = 256, clip=1, dimension: int, gamma: int = 256,
                       clients: int | None = None, epsilon=None, delta=Fraction(1, 10**5)) -> dict:
    """Plain data: Δ*₂ (a labelled reading) and, where given, σ_t, σ_int, the rounding bound, the grid guidance."""
    whole_number("alpha", alpha, minimum=1)
    if w_max is None:
        if clients is None:
            raise InvalidOption("give --w-max or --clients")
        w = equal_max_weight(whole_number("clients", clients, minimum=1), alpha)
    else:
        w = fraction("w_max", w_max, low=0, high=1, closed=True)
    ds = sensitivity(max_weight=w, clip=clip, dimension=dimension, gamma=gamma)
    out: dict = {"w_max": str(w), "Delta*_2": ds.to_dict()}
    if clients is not None:
        out["rounding_bound"] = {"value": str(rounding_bound(clients, clip, alpha)), "direction": "exact",
                                 "method": "M_t S/(alpha W_t)"}
        out["grid_guidance_alpha_min"] = grid_guidance(clients)
    if epsilon is not None:
        sigma_t = classical_sigma(epsilon, delta)
        with precision():
            ball = to_arb(sigma_t.upper()) * gamma * alpha * to_arb(ds.upper())
        sigma_int = Certified.from_arb("sigma_int", ball, sigma_t.direction,
                                       "sigma_t gamma W_int Delta*_2, W_int = alpha; as sure as sigma_t")
        out["sigma_t"] = sigma_t.to_dict()
        out["sigma_int"] = sigma_int.to_dict()
        out["decoded_noise_per_coordinate"] = {"value": safe_decimal(sigma_t.upper() * ds.upper(), 6),
                                               "direction": str(sigma_t.direction), "method": "sigma_t Delta*_2"}
    return out
