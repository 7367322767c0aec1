"""The sensitivity reading with what surrounds it: w_max, Δ*₂, σ_t, σ_int, the rounding bound, the grid guidance.

``σ_t`` is the classical (continuous) Gaussian formula's, labelled as
:func:`~itsa.privacy.composition.classical_sigma` labels it. ``σ_int =
σ_t γ α Δ*₂`` is the width of the *discrete* Gaussian the integer release
adds, so its label comes from the route that certifies that mechanism: the
discrete Gaussian's Rényi bound ``q Δ_int²/(2 σ_int²)`` at the integer
sensitivity ``Δ_int = γ α Δ*₂`` (Canonne, Kamath, Steinke 2020) and the
``cks`` conversion at ``δ``; ``epsilon_int`` is that certified ε. Where it is
not below the target ε, ``σ_int`` is labelled a heuristic, whatever σ_t's
label says (the continuous Gaussian's exact curve does not carry over).

Examples
--------
>>> r = sensitivity_report(w_max="6/256", alpha=256, clip=1, dimension=2, gamma=256)
>>> r["Delta*_2"]["value"]
'0.0470045'
>>> r = sensitivity_report(clients=50, dimension=2, epsilon=10)
>>> r["sigma_int"]["direction"], r["epsilon_int"]["value"], r["epsilon_int"]["direction"]
('heuristic (not a bound)', '11.1464', 'upper bound')
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.certified import Certified, Direction, fraction_text, precision, safe_decimal, to_arb
from itsa._util.checks import conflict, fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.composition import check_epsilon, classical_sigma
from itsa.privacy.conversion import Conversion, check_delta, to_epsilon
from itsa.privacy.rdp import gaussian_curve
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
    """Plain data: Δ*₂ (a labelled reading) and, where given, σ_t, σ_int, the rounding bound, the grid guidance.

    ``w_max`` and ``clients`` together must agree (``clients`` equal weights
    give ``w_max = ⌈α/M⌉/α``); every input is checked before any work.
    """
    whole_number("alpha", alpha, minimum=1)
    if w_max is None and clients is None:
        raise InvalidOption("give --w-max or --clients")
    equal = None if clients is None else equal_max_weight(whole_number("clients", clients, minimum=1), alpha)
    w = equal if w_max is None else fraction("w_max", w_max, low=0, high=1, closed=True)
    if equal is not None and w != equal:
        raise conflict(f"--w-max {fraction_text(w)}", f"--clients {clients}", f"{clients} equal clients on alpha = {alpha} give "
                     f"w_max = {equal}")
    target = None if epsilon is None else check_epsilon(epsilon)
    d = check_delta(delta)
    ds = sensitivity(max_weight=w, clip=clip, dimension=dimension, gamma=gamma)
    out: dict = {"w_max": fraction_text(w), "Delta*_2": ds.to_dict()}
    if clients is not None:
        out["rounding_bound"] = {"value": fraction_text(rounding_bound(clients, clip, alpha)), "direction": "exact",
                                 "method": "M_t S/(alpha W_t)"}
        out["grid_guidance_alpha_min"] = grid_guidance(clients)
    if target is not None:
        sigma_t = classical_sigma(target, d)
        sigma_int, epsilon_int = _discrete_width(sigma_t, ds, gamma, alpha, target, d)
        out["sigma_t"] = sigma_t.to_dict()
        out["sigma_int"] = sigma_int.to_dict()
        out["epsilon_int"] = epsilon_int.to_dict()
        out["decoded_noise_per_coordinate"] = {"value": safe_decimal(sigma_t.upper() * ds.upper(), 6),
                                               "direction": str(sigma_t.direction), "method": "sigma_t Delta*_2"}
    return out


#: How σ_int's ε is certified: the discrete Gaussian's own Rényi bound, then the cks conversion.
DISCRETE_ROUTE = ("discrete Gaussian RDP q Delta_int^2/(2 sigma_int^2), Delta_int = gamma alpha Delta*_2 "
                  "(Canonne-Kamath-Steinke 2020), cks conversion")


def _discrete_width(sigma_t: Certified, ds: Certified, gamma: int, alpha: int, target: Fraction,
                    delta: Fraction) -> tuple[Certified, Certified]:
    """``σ_int = σ_t γ α Δ*₂`` labelled by what certifies the discrete Gaussian it is used with, and that ε."""
    with precision():
        integer_sensitivity = gamma * alpha * to_arb(ds.upper())
        ball = to_arb(sigma_t.upper()) * integer_sensitivity
    width = Certified.from_arb("sigma_int", ball, Direction.UPPER, "")
    with precision():
        z = to_arb(width.lower()) / integer_sensitivity
    z_low = Certified.from_arb("z_int", z, Direction.LOWER, "").lower()
    bound = to_epsilon(gaussian_curve(z_low), delta, Conversion.CKS).epsilon
    eps = Certified(bound.name, bound.low, bound.high, Direction.UPPER,
                    f"the discrete Gaussian at sigma_int: {DISCRETE_ROUTE} at delta = {safe_decimal(delta, 6)} "
                    "(the exact sampler; the table engine adds its distance to delta)")
    shown = f"eps <= {bound.decimal(6)} at delta = {safe_decimal(delta, 6)}"
    if bound.upper() <= target:
        return Certified(width.name, width.low, width.high, Direction.UPPER,
                         f"sigma_t gamma alpha Delta*_2; certified for the discrete Gaussian: {DISCRETE_ROUTE} "
                         f"gives {shown} <= the target"), eps
    return Certified(width.name, width.low, width.high, Direction.HEURISTIC,
                     f"sigma_t gamma alpha Delta*_2; NOT certified for the discrete Gaussian: {DISCRETE_ROUTE} gives "
                     f"{shown}, above the target eps = {safe_decimal(target, 6)} (sigma_t's label is the continuous "
                     "Gaussian's)"), eps
