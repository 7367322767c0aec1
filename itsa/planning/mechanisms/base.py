"""What the planner asks of a noise mechanism: one interface, answered by each mechanism's own module.

A mechanism is a :class:`NoiseMechanism`: its privacy event for the
accountant, its noise in the wrap bound, its share's variance and bias, its
sampler, its names in the frameworks and the premises the planner relies on
(:class:`Premises`, checked where they are used: a premise a mechanism does
not hold is refused in one line, never assumed). Every method takes plain
numbers (a share's ``σ``, the fewest survivors, a sensitivity), never a
deployment. Mechanisms are registered by name in
:mod:`itsa.planning.mechanisms`; the planner asks the registry.

Examples
--------
>>> from itsa.planning.mechanisms import mechanism
>>> mechanism("dgauss").premises.unbiased
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import flint
import numpy as np

from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.privacy.events import Event

__all__ = ["NoiseMechanism", "Premises", "Draws", "DRAW_CHUNK"]

#: Uniforms drawn between two looks at the clock (a fraction of a second): every mechanism's sampler, and the
#: run's rounding, draw this many at a time.
DRAW_CHUNK = 1 << 16

#: A sampler: ``(σ, count, seed text, clock) -> int64 draws`` of one share's law.
Draws = Callable[[Fraction, int, str, "Deadline | None"], np.ndarray]


@dataclass(frozen=True)
class Premises:
    """What the planner's shortcuts assume of a mechanism, each stated by the mechanism with its reason.

    ``rdp_at_least_gaussian``: its Rényi bound is at least the Gaussian's at the same ratio of aggregate
    noise to sensitivity (:func:`~itsa.planning.mechanism.gaussian_floor` starts calibration there);
    ``variance_at_most_sigma2`` and ``unbiased``: one share's variance is at most ``σ²`` and its mean 0
    (:func:`~itsa.planning.scale.mse_parts`). ``why`` says why, for the record.
    """

    rdp_at_least_gaussian: bool
    variance_at_most_sigma2: bool
    unbiased: bool
    why: str
    #: its wrap tail and its epsilon are each at least the default mechanism's (the discrete Gaussian's) at equal
    #: sigma (the plan then skips sizing it when it needs no less sigma at the default's scale)
    no_better_than_default_at_equal_sigma: bool = False


class NoiseMechanism(ABC):
    """One noise mechanism of the plan (``σ``: the standard deviation scale of ONE share, integer units)."""

    #: the deployment file's word (``noise: {mechanism: NAME}``)
    name: ClassVar[str]
    #: the mechanism in words
    title: ClassVar[str]
    #: the plan compares it when the file leaves the mechanism open
    auto: ClassVar[bool] = False
    #: the plan's original closed-form wrap bound (discrete Gaussian shares, no rotation) applies to it
    classic_wrap: ClassVar[bool] = False
    premises: ClassVar[Premises]
    #: the smallest distributed share's sigma its bound takes (``None``: any)
    minimum_share: ClassVar[Fraction | None] = None
    #: its event is a Rényi bound the plan's accountant composes (its zCDP form goes to dp-accounting)
    renyi: ClassVar[bool] = False
    #: the dominating Gaussian pair (:func:`itsa.privacy.lattice.dominating_pair`) covers its rounds
    gaussian_pair: ClassVar[bool] = False
    #: why a PSA layering cannot account it (``None``: the layering's accountant composes its curve)
    layering_refusal: ClassVar[str | None] = None
    #: its ``draws`` are exact in law (:mod:`itsa.privacy.samplers`): a client may add them where ε is claimed
    exact_draws: ClassVar[bool] = False

    def describe(self, *, central: bool) -> str:
        """The mechanism as the noise section names it."""
        return self.title

    @abstractmethod
    def event(self, sigma: Fraction, *, survivors: int, sensitivity: flint.arb, dimension: int, central: bool,
              layered: bool) -> Event:
        """One round's event for the accountant: ``survivors`` shares (1 central) of scale ``σ``."""

    @abstractmethod
    def wrap_noise(self, sigma: Fraction, shares: int) -> tuple[Fraction, Fraction]:
        """``(sub-Gaussian proxy, Poisson-type variance)`` of ``shares`` shares' noise in a coordinate of the sum
        (:func:`itsa.privacy.tails.certified_tail`'s two parts)."""

    def largest_share(self, sigma: Fraction) -> int | None:
        """The largest ``|share|`` its law allows (``None``: unbounded); a word that holds the data's exact
        bound plus every share's largest never wraps (probability exactly 0)."""
        return None

    @abstractmethod
    def wrap_how(self, *, distributed: bool) -> str:
        """How the wrap bound counts this noise, in words."""

    @abstractmethod
    def share_variance(self, sigma: Fraction) -> float:
        """One share's exact variance (a float, for a simulation's prediction)."""

    def variance_bound(self, sigma: Fraction) -> Fraction:
        """An exact upper bound on one share's variance; ``σ²`` under the premise it is at most that."""
        if not self.premises.variance_at_most_sigma2:
            raise InvalidOption(f"mechanism {self.name}: its share's variance is not at most sigma^2 and it "
                                "gives no bound of its own")
        return Fraction(sigma) ** 2

    def check_simulated(self, sigma: Fraction) -> None:
        """Refuse (one line) a ``σ`` its sampler cannot draw (every ``σ``, unless the mechanism says otherwise)."""
        return None

    @abstractmethod
    def draws(self, sigma: Fraction, count: int, seed_text: str, clock: Deadline | None = None) -> np.ndarray:
        """``count`` int64 draws of one share's law from ``seed_text``'s stream, looking at ``clock`` between
        chunks (the simulation's sampler)."""

    def simulated_variance_how(self, *, distributed: bool) -> str:
        """Which variance the simulation's prediction uses, in words."""
        return f"the {self.title}'s exact variance"
