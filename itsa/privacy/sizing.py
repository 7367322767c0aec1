"""The sensitivity reading with what surrounds it: the largest weight, Δ*₂, σ_t, σ_int, the rounding bound, the grid guidance.

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
>>> r = sensitivity(max_weight="6/256", alpha=256, clip=1, dimension=2, gamma=256)
>>> r.to_dict()["sensitivity"]["value"]
'0.0470045'
>>> r = sensitivity(clients=50, dimension=2, epsilon=10).to_dict()
>>> r["sigma_int"]["direction"], r["epsilon_int"]["value"], r["epsilon_int"]["direction"]
('heuristic (not a bound)', '11.1464', 'upper bound')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, exact_text, precision, safe_decimal, to_arb
from itsa._util.checks import conflict, fraction, whole_number
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.privacy.accounting import Accountant
from itsa.privacy.composition import check_epsilon, classical_sigma
from itsa.privacy.conversion import DEFAULT_DELTA, Conversion, check_delta
from itsa.privacy.events import GaussianEvent
from itsa.privacy.hamilton import grid_guidance, rounding_bound, sensitivity_bound

__all__ = ["Sensitivity", "sensitivity", "equal_max_weight", "DEFAULT_DELTA"]


def equal_max_weight(clients: int, alpha: int) -> Fraction:
    """The largest weight of Hamilton's rule for ``clients`` equal weights, in closed form (no list of clients).

    Each quota is ``α/M``: ``⌊α/M⌋`` each, and the ``α mod M`` units left go one
    each to as many clients, so it is ``⌈α/M⌉/α``.

    >>> equal_max_weight(50, 256), equal_max_weight(10**12, 256)
    (Fraction(3, 128), Fraction(1, 256))
    """
    whole_number("clients", clients, minimum=1)
    whole_number("alpha", alpha, minimum=1)
    return Fraction(-(-alpha // clients), alpha)


@dataclass(frozen=True, kw_only=True, repr=False)
class Sensitivity(Displayable):
    """The sensitivity Δ*₂ of one integer release (a labelled reading) and what surrounds it.

    Parameters
    ----------
    inputs : dict
        The inputs that determine it (echoed in :meth:`to_dict`).
    max_weight : Fraction
        The largest integer weight over ``α`` (given, or Hamilton's for equal clients).
    sensitivity : Certified
        Δ*₂, an upper bound of the reading :data:`~itsa.privacy.hamilton.SENSITIVITY_READING`.
    rounding_bound : Fraction, optional
        ``M_t S/(α W_t)`` (with ``clients``).
    grid_guidance : int, optional
        The smallest ``α`` of the guidance ``α ≥ 10³ M_t / W_min`` (with ``clients``).
    sigma_t, sigma_int, epsilon_int, decoded_noise : Certified, optional
        With a target ``epsilon``: the classical σ_t, the discrete width σ_int, its certified ε and σ_t Δ*₂.
    """

    inputs: dict
    max_weight: Fraction
    sensitivity: Certified
    rounding_bound: Fraction | None = None
    grid_guidance: int | None = None
    sigma_t: Certified | None = None
    sigma_int: Certified | None = None
    epsilon_int: Certified | None = None
    decoded_noise: Certified | None = None

    def _certified(self) -> list[tuple[str, Certified]]:
        named = [("sigma_t", self.sigma_t), ("sigma_int", self.sigma_int), ("epsilon_int", self.epsilon_int),
                 ("decoded_noise_per_coordinate", self.decoded_noise)]
        return [(k, v) for k, v in named if v is not None]

    def to_dict(self) -> dict:
        out: dict = {"inputs": dict(self.inputs), "max_weight": exact_text(self.max_weight),
                     "sensitivity": self.sensitivity.to_dict()}
        if self.rounding_bound is not None:
            out["rounding_bound"] = Certified.exact("rounding bound", self.rounding_bound, ROUNDING_METHOD).to_dict()
            out["grid_guidance_alpha_min"] = self.grid_guidance
        out.update({k: v.to_dict() for k, v in self._certified()})
        return out

    def headline(self) -> str:
        return f"{self.sensitivity.decimal(6)} ({self.sensitivity.direction}; a reading)"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("max weight", exact_text(self.max_weight)),
                ("sensitivity", f"{self.sensitivity.decimal(6)} ({self.sensitivity.direction}; "
                                f"{self.sensitivity.method})")]
        if self.rounding_bound is not None:
            rows += [("rounding bound", f"{exact_text(self.rounding_bound)} (exact; {ROUNDING_METHOD})"),
                     ("grid guidance", f"alpha >= {self.grid_guidance}")]
        return rows + [(k.replace("_", " "), f"{v.decimal(6)} ({v.direction}; {v.method})") for k, v in self._certified()]


#: How the rounding bound is computed.
ROUNDING_METHOD = "M_t S/(alpha W_t)"


def sensitivity(*, max_weight=None, alpha: int = 256, clip=1, dimension: int, gamma: int = 256,
                clients: int | None = None, epsilon=None, delta=DEFAULT_DELTA) -> Sensitivity:
    """Δ*₂ of one integer release (a labelled reading) and, where asked, σ_t, σ_int, the rounding bound, the grid.

    Parameters
    ----------
    max_weight : number, optional
        The largest integer weight over ``alpha`` (e.g. ``6/256``); or give ``clients``.
    alpha : int
        The weight grid.
    clip : number
        The l2 clipping norm ``S``.
    dimension : int
        The model dimension ``d``.
    gamma : int
        The encoding scale ``γ``.
    clients : int, optional
        ``M_t`` equal clients: gives ``max_weight = ⌈α/M⌉/α`` (both given: they must agree), the
        rounding bound and the grid guidance.
    epsilon : number, optional
        A per-round target ε: adds σ_t (classical formula), σ_int and its certified ε.
    delta : number
        δ of the target, read exactly.

    Every input is checked before any work.
    """
    whole_number("alpha", alpha, minimum=1)
    if max_weight is None and clients is None:
        raise InvalidOption("give max weight or clients")
    equal = None if clients is None else equal_max_weight(whole_number("clients", clients, minimum=1), alpha)
    w = equal if max_weight is None else fraction("max weight", max_weight, low=0, high=1, closed=True)
    assert w is not None
    if equal is not None and w != equal:
        raise conflict(f"max weight {exact_text(w)}", f"clients {clients}", f"{clients} equal clients on alpha = "
                       f"{alpha} give max weight {exact_text(equal)}")
    target = None if epsilon is None else check_epsilon(epsilon)
    d = check_delta(delta)
    ds = sensitivity_bound(max_weight=w, clip=clip, dimension=dimension, gamma=gamma)
    inputs = {"max_weight": None if max_weight is None else exact_text(w), "alpha": alpha,
              "clip": exact_text(fraction("clip S", clip, low=0)), "dimension": dimension, "gamma": gamma,
              "clients": clients, "epsilon": None if target is None else exact_text(target), "delta": exact_text(d)}
    extra: dict = {}
    if clients is not None:
        extra.update(rounding_bound=rounding_bound(clients, clip, alpha), grid_guidance=grid_guidance(clients))
    if target is not None:
        sigma_t = classical_sigma(target, d)
        sigma_int, epsilon_int = _discrete_width(sigma_t, ds, gamma, alpha, target, d)
        decoded = Certified(
            "decoded noise per coordinate", sigma_t.upper() * ds.upper(), sigma_t.upper() * ds.upper(),
            sigma_t.direction, "sigma_t Delta*_2")
        extra.update(sigma_t=sigma_t, sigma_int=sigma_int, epsilon_int=epsilon_int, decoded_noise=decoded)
    return Sensitivity(inputs=inputs, max_weight=w, sensitivity=ds, **extra)


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
    bound = Accountant(conversion=Conversion.CKS).compose(GaussianEvent(z_low)).bound(delta).epsilon
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
