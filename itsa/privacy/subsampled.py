"""An event run on a Poisson sample of the records: privacy amplification by subsampling, certified at whole orders.

:class:`PoissonSampledEvent` wraps any event of :mod:`itsa.privacy.events` (its
bound read at whole orders) in Zhu and Wang's general upper bound for the
Poisson-subsampled mechanism; the accountant composes it as any other event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar

import flint

from itsa._util.certified import precision, to_arb
from itsa._util.checks import fraction
from itsa.exceptions import InvalidOption
from itsa.privacy.conversion import WHOLE_ORDERS
from itsa.privacy.events import Event, whole_order

__all__ = ["PoissonSampledEvent", "SAMPLED_PAPER"]

SAMPLED_PAPER = "Zhu, Wang 2019, Poisson Subsampled Renyi Differential Privacy (ICML), Thm 6, general upper bound"


@dataclass(frozen=True, kw_only=True)
class PoissonSampledEvent(Event):
    """``event`` run on a Poisson sample (each record in with probability ``γ``), add-remove adjacency.

    At a whole order ``α ≥ 2``, with ``ε(ℓ)`` the event's bound at ``ℓ``:
    ``(α−1) ε'(α) ≤ ln[(1−γ)^(α−1)(αγ − γ + 1) + C(α,2) γ² (1−γ)^(α−2) e^(ε(2))
    + 3 Σ_(ℓ=3)^α C(α,ℓ) (1−γ)^(α−ℓ) γ^ℓ e^((ℓ−1) ε(ℓ))]`` (Zhu and Wang 2019,
    Theorem 6; it holds for any mechanism), and never more than ``ε(α)``
    (the Rényi divergence is jointly quasi-convex).

    Parameters
    ----------
    event : Event
        The mechanism sampled (its bound read at whole orders; add-remove neighbours).
    rate : number
        ``γ ∈ (0, 1]``, read exactly.
    """

    integer_orders: ClassVar[bool] = True

    event: Event
    rate: Fraction
    _cache: dict = field(default_factory=dict, compare=False, repr=False)
    _rows: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def sampled_from(self) -> Event:
        """The mechanism sampled (:attr:`event`)."""
        return self.event

    def __post_init__(self) -> None:
        rate = fraction("sampling rate", self.rate, low=0, high=1, closed=True)
        if rate == 0:
            raise InvalidOption("sampling rate: must be > 0")
        object.__setattr__(self, "rate", rate)
        if not isinstance(self.event, Event):
            raise InvalidOption("sampled event: the mechanism sampled must be an Event")
        if self.event.slack:
            raise InvalidOption(f"sampled event: {type(self.event).__name__} holds its Renyi bound outside a delta "
                                "slack; its Poisson sample is not certified here")

    @property
    def label(self) -> str:
        return f"Poisson-sampled {self.event.label} (rate {self.rate})"

    @property
    def provenance(self) -> str:
        return f"{SAMPLED_PAPER}; of: {self.event.provenance}"

    def _inner(self, ell: int) -> flint.arb:
        if ell not in self._cache:
            with precision():
                self._cache[ell] = self.event.rdp(ell)
        return self._cache[ell]

    def _weights(self, top: int) -> tuple[list[flint.arb], int]:
        """``v_ℓ`` for ``ℓ = 0..top``: 1, 1, ``e^(ε(2))``, then ``3 e^((ℓ−1) ε(ℓ))``; and the first ``ℓ`` whose
        weight is not finite (its own and later weights set to 0: the rows from it on are not used)."""
        curve = self.event.linear()
        c = None if curve is None else curve.coefficient()       # a linear bound: ε(ℓ) = c ℓ, read once
        weights = [flint.arb(1), flint.arb(1)]
        for ell in range(2, top + 1):
            eps = c * ell if c is not None else self._inner(ell)
            w = ((ell - 1) * eps).exp() * (1 if ell == 2 else 3)
            if not w.is_finite():
                return weights + [flint.arb(0)] * (top + 1 - ell), ell
            weights.append(w)
        return weights, top + 1

    def _sampled(self, alpha: int) -> flint.arb:
        """The Zhu-Wang sum's log over ``α − 1`` at ``α``, computed with every whole order the accountant
        searches (one product of the rate's rows of ``Bin(α, γ)``, :func:`_rate_rows`, by the weights)."""
        if alpha not in self._rows:
            orders = _BATCH if alpha in _BATCH else (alpha,)
            with precision():
                weights, finite = self._weights(orders[-1])
                totals = _rate_rows(self.rate, orders) * flint.arb_mat(len(weights), 1, weights)
                for i, q in enumerate(orders):
                    self._rows[q] = (totals[i, 0].log() / (q - 1) if q < finite
                                     else flint.arb("nan"))
        return self._rows[alpha]

    def rdp(self, order) -> flint.arb:
        alpha = whole_order(order)
        inner = self._inner(alpha)
        if self.rate == 1:
            return inner
        sampled = self._sampled(alpha)
        if not sampled.is_finite():         # the sum overflowed (a tiny noise): the unsampled bound still holds
            return inner
        return sampled.min(inner)


#: The whole orders whose sampled bounds are computed together (those the accountant searches).
_BATCH = tuple(WHOLE_ORDERS)


@lru_cache(maxsize=4)
def _rate_rows(rate: Fraction, orders: tuple[int, ...]) -> flint.arb_mat:
    """The matrix ``C(α, ℓ) γ^ℓ (1−γ)^(α−ℓ)``, a row per order ``α``, a column per ``ℓ = 0..max α`` (0 past ``α``).

    It depends on the rate alone: a calibration's bisection over the noise reuses it (at the working
    precision it was built at; every entry a ball, so the product with the weights is certified). About
    7 MB for the accountant's orders; the last few rates are kept.
    """
    top = orders[-1]
    with precision():
        g = to_arb(rate)
        h = 1 - g
        gp, hp = [flint.arb(1)], [flint.arb(1)]
        for _ in range(top):
            gp.append(gp[-1] * g)
            hp.append(hp[-1] * h)
        rows = flint.arb_mat(len(orders), top + 1)
        for i, alpha in enumerate(orders):
            row = 1
            for ell in range(alpha + 1):
                rows[i, ell] = row * gp[ell] * hp[alpha - ell]
                row = row * (alpha - ell) // (ell + 1)
    return rows
