"""Calibration: the smallest noise multiplier that meets a target (ε, δ), by bisection, certified.

The bisection runs on exact rationals; each step asks whether the
*certified* ε (an upper bound) meets the target, so the returned noise
multiplier is one at which the guarantee holds. It is then rounded up to a
short decimal and certified again at that decimal, so the printed number
itself carries the guarantee.

Examples
--------
>>> from fractions import Fraction
>>> cal = calibrate(2, Fraction(1, 10**6), rounds=1, conversion="cks")
>>> cal.epsilon.epsilon.upper() <= 2
True
>>> cal.noise_multiplier.decimal(4)
'2.382'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, exact_text, safe_decimal
from itsa._util.checks import choice, fraction, whole_number
from itsa._util.display import Displayable
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption
from itsa.privacy.accounting import Accountant
from itsa.privacy.composition import check_epsilon
from itsa.privacy.conversion import DEFAULT_DELTA, Conversion, EpsilonBound, check_delta
from itsa.privacy.events import CurveEvent, Event, GaussianEvent
from itsa.privacy.rdp import RdpCurve

__all__ = ["Calibration", "calibrate"]

#: Significant digits of the printed (rounded-up, re-certified) noise multiplier.
DIGITS = 6
#: The bracket is doubled at most this many times each way before giving up.
MAX_DOUBLINGS = 200
#: Largest noise scale calibration tries (``2^MAX_DOUBLINGS``): a target not met there is refused up front.
MAX_SCALE = Fraction(2) ** MAX_DOUBLINGS
#: Smallest noise scale calibration tries: a target already met there is refused up front (nothing to calibrate).
MIN_SCALE = Fraction(1, 2 ** (2 * MAX_DOUBLINGS))


@dataclass(frozen=True, kw_only=True, repr=False)
class Calibration(Displayable):
    """A noise multiplier that meets the target, the certified ε there, and how it was found.

    Parameters
    ----------
    noise_multiplier : Certified
        The noise multiplier found (rounded up to :data:`DIGITS` digits and certified there).
    epsilon : EpsilonBound
        The certified ε at it.
    target_epsilon : Fraction
        The target ε.
    rounds : int
        Rounds composed before the conversion.
    steps : int
        Bracket and bisection steps taken.
    """

    noise_multiplier: Certified
    epsilon: EpsilonBound
    target_epsilon: Fraction
    rounds: int
    steps: int

    def to_dict(self) -> dict:
        return {"noise_multiplier": self.noise_multiplier.decimal(DIGITS),   # the safe decimal, as text
                "noise_multiplier_certified": self.noise_multiplier.to_dict(DIGITS),
                "inputs": {"epsilon": exact_text(self.target_epsilon), "delta": exact_text(self.epsilon.delta),
                           "rounds": self.rounds, "conversion": str(self.epsilon.conversion)},
                "target_epsilon": exact_text(self.target_epsilon), "rounds": self.rounds, "bisection_steps": self.steps, "achieved": self.epsilon.to_dict()}

    def headline(self) -> str:
        return (f"z = {self.noise_multiplier.decimal(DIGITS)} gives eps <= {self.epsilon.epsilon.decimal()} "
                f"(target {exact_text(self.target_epsilon)}, {self.epsilon.conversion})")

    def rows(self) -> list[tuple[str, str]]:
        return [("noise multiplier", self.noise_multiplier.decimal(DIGITS)), ("target epsilon", exact_text(self.target_epsilon)),
                ("delta", exact_text(self.epsilon.delta)), ("rounds", str(self.rounds)),
                ("conversion", str(self.epsilon.conversion)),
                ("certified epsilon", self.epsilon.epsilon.decimal(8)), ("bisection steps", str(self.steps)),
                ("method", str(self.noise_multiplier.method))]


def calibrate(epsilon, delta=DEFAULT_DELTA, *, rounds: int = 1, conversion: Conversion | str = Conversion.CKS,
              curve_for: Callable[[Fraction], RdpCurve] | None = None,
              event_for: Callable[[Fraction], Event] | None = None, minimum_scale=None,
              relative_tolerance=Fraction(1, 10**9), progress: Callback | None = None) -> Calibration:
    """The smallest noise multiplier (to ``relative_tolerance``) whose certified ε at ``δ`` is ``≤ epsilon``.

    Parameters
    ----------
    epsilon, delta : number
        The target, read exactly; ``ε > 0``, ``δ ∈ (0, 1)``.
    rounds : int
        Rounds (or executions) composed before the conversion.
    conversion : Conversion or str
        ``"mironov"`` or ``"cks"``.
    curve_for : callable, optional
        Maps a noise scale (a Fraction) to the RDP curve of ONE round; must be
        decreasing in the scale. Default: the Gaussian mechanism with that
        noise multiplier (:func:`~itsa.privacy.rdp.gaussian_curve`). Pass a
        :func:`~itsa.privacy.rdp.psa_layer_curve` closure to calibrate a PSA layer.
    event_for : callable, optional
        Maps a noise scale to ONE round's :class:`~itsa.privacy.events.Event` (any mechanism); decreasing
        in the scale. Every question goes to the :class:`~itsa.privacy.accounting.Accountant`.
    minimum_scale : number, optional
        The smallest scale ``curve_for`` accepts (a PSA layer needs
        ``s ≥ h ρ^(ℓ−1)/2``); if it already meets the target it is returned.
    progress : callable, optional
        Called with an :class:`~itsa._util.progress.Event` at each bisection step.

    Notes
    -----
    The PSA paper calibrates "by bisection on that minimized ε at fixed δ"
    (Sec. VII-B). Bisection keeps the invariant: certified ε(high) ≤ target.
    """
    target, d = check_epsilon(epsilon), check_delta(delta)
    whole_number("rounds", rounds, minimum=1)
    conv = choice("conversion", conversion, Conversion)
    tol = fraction("relative tolerance", relative_tolerance, low=0, high=1)
    if curve_for is not None and event_for is not None:
        raise InvalidOption("calibrate: give curve_for or event_for, not both")
    make: Callable[[Fraction], Event] = (event_for if event_for is not None else
                                         GaussianEvent if curve_for is None else (lambda s: CurveEvent(curve_for(s))))
    report = Reporter(progress, prefix="calibrate")

    def meets(scale: Fraction) -> EpsilonBound | None:
        bound = Accountant(conversion=conv).compose(make(scale), rounds).bound(d)
        return bound if bound.epsilon.upper() <= target else None

    floor = None if minimum_scale is None else fraction("minimum scale", minimum_scale, low=0)
    _reachable(meets, floor, target)
    low, high, steps = _bracket(meets, floor)
    while low < high and high - low > tol * high:
        mid = (low + high) / 2
        steps += 1
        if meets(mid) is not None:
            high = mid
        else:
            low = mid
        report("bisection", round=steps, note=f"z in [{float(low):.9g}, {float(high):.9g}]")
    printed = Fraction(safe_decimal(high, DIGITS, up=True))
    found = meets(printed)
    if found is None:       # cannot happen for a decreasing curve; never print an uncertified number
        raise InvalidOption("calibration: the curve is not decreasing in the noise scale")
    method = (f"bisection on the certified {conv} epsilon over {rounds} round(s) to relative width "
              f"{float(tol):g}; rounded up to {DIGITS} digits and certified there")
    multiplier = Certified("noise multiplier", printed, printed, Direction.UPPER, method)
    return Calibration(noise_multiplier=multiplier, epsilon=found, target_epsilon=target, rounds=rounds, steps=steps)


def _reachable(meets: Callable[[Fraction], EpsilonBound | None], floor: Fraction | None, target: Fraction) -> None:
    """Refuse, in one line and before the search, a target outside what scales in ``[MIN_SCALE, MAX_SCALE]`` meet."""
    shown = safe_decimal(target, 6)
    if meets(MAX_SCALE if floor is None else max(MAX_SCALE, floor)) is None:
        raise InvalidOption(f"epsilon: the target {shown} is not met even at noise scale 2^{MAX_DOUBLINGS} "
                            "(MAX_SCALE): too small a target to calibrate")
    if floor is None and meets(MIN_SCALE) is not None:
        raise InvalidOption(f"epsilon: the target {shown} is met already at noise scale 2^-{2 * MAX_DOUBLINGS} "
                            "(MIN_SCALE): too large a target to calibrate (it allows almost no noise)")


def _bracket(meets: Callable[[Fraction], EpsilonBound | None],
             floor: Fraction | None) -> tuple[Fraction, Fraction, int]:
    """``(low, high)`` with ``meets(high)`` and not ``meets(low)`` (or ``low == high == floor``), by doubling."""
    def halve(x: Fraction) -> Fraction:
        return x / 2 if floor is None else max(x / 2, floor)

    high: Fraction = Fraction(1) if floor is None else max(Fraction(1), floor)
    steps = 0
    while meets(high) is None:
        high *= 2
        steps += 1
        if steps > MAX_DOUBLINGS:
            raise InvalidOption("calibration: no noise scale below 2^200 meets the target")
    low = halve(high)
    while meets(low) is not None:
        if floor is not None and low == floor:
            return floor, floor, steps
        high, low = low, halve(low)
        steps += 1
        if steps > 2 * MAX_DOUBLINGS:
            raise InvalidOption("calibration: the target is met at every noise scale tried (is the curve zero?)")
    return low, high, steps
