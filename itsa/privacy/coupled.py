"""Coupled stochastic rounding: the shift between two neighbouring rounds is a random lattice vector, bounded.

Stochastic rounding of ``a ∈ R`` is ``⌊a + w⌋`` with ``w`` uniform on
``(0, 1]`` (``⌊a⌋ + 1`` with probability ``frac(a)``). Two neighbouring
rounds differ in one client's scaled update, ``a`` against ``a'`` (``a' = 0``
for a removed update), ``δ = a − a'`` with ``‖δ‖ ≤ D`` (``D = c γ S``).
Everything else (the other clients' roundings, the noise) has one law in
both. Give the changed client's rounding the same uniforms ``w`` in both
rounds. Every hockey-stick divergence ``H_α`` is jointly convex, so
``H_α(P ‖ Q) ≤ E_w H_α(P_w ‖ Q_w)``, and given ``w`` the two outputs differ
by the integer vector ``v(w) = ⌊a + w⌋ − ⌊a' + w⌋`` and nothing else: the
round's pair is a mixture, over ``w``, of shifted noise.

Per coordinate ``v_i ∈ {⌊δ_i⌋, ⌊δ_i⌋ + 1}`` and ``E v_i = δ_i`` (both
roundings are unbiased): ``v_i = δ_i + η_i`` with ``E η_i = 0``, ``η_i``
in an interval of length 1 (0 where ``δ_i`` is an integer), independent
over ``i``. So

``‖v‖² = ‖δ‖² + 2⟨δ, η⟩ + ‖η‖²``, where

- ``2⟨δ, η⟩`` is a sum of independent zero-mean terms, the ``i``-th in an
  interval of length ``2|δ_i|``: by Hoeffding's inequality
  ``P(2⟨δ, η⟩ > t) ≤ exp(−2t²/Σ(2δ_i)²) = exp(−t²/(2‖δ‖²))``;
- ``‖η‖²`` is a sum of ``d'`` independent terms in ``[0, 1]`` with means
  ``f_i (1 − f_i) ≤ 1/4``: ``P(‖η‖² > d'/4 + t) ≤ exp(−2t²/d')``.

With ``L = ln(2/p)``, outside an event of probability at most ``p``:

``‖v‖² ≤ B² = D² + D √(2L) + d'/4 + √(d' L/2)``

(the right side grows with ``‖δ‖``, so ``‖δ‖ ≤ D`` suffices); surely
``‖v‖ ≤ ‖δ‖ + ‖η‖ ≤ D + √d'``. :func:`coupled_shift` returns the smaller
with its failure probability (``0`` for the sure bound). A round whose
shifts have norm at most ``B`` except with probability ``p`` has
``δ(ε) ≤ δ_B(ε) + p`` in both directions, ``δ_B`` the curve that dominates
every shift of norm ``≤ B``: :func:`itsa.privacy.lattice.dominating_epsilon`
takes ``p`` as a per-round ``failure`` added to its slack (its dominating
pair carries the slack as an atom, so ``T`` rounds compose with ``T p``
added to δ).

Conditional rounding (:func:`conditional_shift`) retries stochastic rounding
until the rounded norm is at most a cap; give the changed client the same
sequence of uniforms ``w(1), w(2), …`` in both rounds, ``τ`` and ``τ'`` the
first attempt each neighbour accepts. Where ``τ = τ'`` the shift is the
stochastic one at ``w(τ)``; since ``{τ ≥ t}`` depends on ``w(1..t−1)`` only,
``P(τ = τ', ‖v(w(τ))‖ > B) ≤ Σ_t P(τ ≥ t) P(‖v(w(t))‖ > B) ≤ p E[τ] ≤
p/(1 − r)``, ``r`` a bound on one attempt's rejection. The two accept
different attempts only if, at an attempt both reach, exactly one accepts:
``P(τ ≠ τ') ≤ Σ_t r^(t−1) (r + r) = 2r/(1 − r)`` (replace-one; ``r`` for
add-remove, whose absent update rounds to 0 and is accepted at once). Both
go into the failure: ``p/(1 − r) + q``, ``q`` that mismatch bound.

Examples
--------
>>> b = coupled_shift(difference=1316.72, dimension=1_200_000, failure="1e-13")
>>> b.norm.decimal(6), b.failure
('1431.21', Fraction(1, 10000000000000))
>>> c = conditional_shift(gamma=Fraction(65836, 100), clip=1, dimension=1_200_000, beta="exp(-32)",
...                       adjacency="replace-one", failure="1e-13")
>>> c.norm.decimal(6), float(c.mismatch) < 1e-13, float(c.failure) < 2e-13
('1431.21', True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.exceptions import InvalidOption
from itsa.privacy.neighbours import Adjacency, conditional_rejection

__all__ = ["CoupledShift", "coupled_shift", "conditional_shift"]

METHOD = ("stochastic rounding coupled in the two neighbours (the changed client's uniforms shared): the shift "
          "v = floor(a + w) - floor(a' + w) has |v|^2 = |delta|^2 + 2<delta, eta> + |eta|^2 <= D^2 + D sqrt(2L) + "
          "d'/4 + sqrt(d' L/2), L = ln(2/p), outside probability p (Hoeffding, twice); hockey-stick joint convexity")


@dataclass(frozen=True)
class CoupledShift:
    """A bound on the coupled shift's norm and the probability (per round) that it fails."""

    norm: Certified
    failure: Fraction
    #: conditional rounding's part of ``failure``: a bound on ``P(τ ≠ τ')`` (0 for stochastic rounding)
    mismatch: Fraction = Fraction(0)
    #: ``True``: ``mismatch`` is not in ``failure``; the rounds compose as a binomial mixture with the worst case
    #: (:func:`itsa.privacy.lattice.mixture_epsilon`)
    mixture: bool = False


def coupled_shift(*, difference, dimension: int, failure) -> CoupledShift:
    """The coupled shift's norm bound ``B`` (an upper bound) and its failure probability per round.

    Parameters
    ----------
    difference : number
        ``D``, an upper bound on ``‖γ(x − x')‖`` (``c γ S``: ``c`` 2 for replace-one, 1 for add-remove).
    dimension : int
        ``d'``, the coordinates rounded.
    failure : number
        ``p`` in ``(0, 1)``, the probability allowed per round for the norm to exceed ``B``.

    Returns
    -------
    CoupledShift
        The smaller of the high-probability bound (failure ``p``) and the sure ``D + √d'`` (failure 0).
    """
    D = to_arb(fraction("difference", difference, low=0))
    d = whole_number("dimension", dimension, minimum=1)
    p = fraction("failure", failure, low=0, high=1)
    if not 0 < p < 1:
        raise InvalidOption(f"failure: must lie in (0, 1), not {p}")
    with precision():
        L = (2 / to_arb(p)).log()
        likely = (D * D + D * (2 * L).sqrt() + flint.arb(d) / 4 + (d * L / 2).sqrt()).sqrt()
        sure = D + flint.arb(d).sqrt()
    if likely < sure:
        return CoupledShift(Certified.from_arb("coupled shift", likely, Direction.UPPER, METHOD), p)
    return CoupledShift(Certified.from_arb("coupled shift", sure, Direction.UPPER,
                                           "surely |v| <= |delta| + |eta| <= D + sqrt(d')"), Fraction(0))


CONDITIONAL = ("conditional rounding coupled in the two neighbours (the changed client's sequence of uniforms "
               "shared): where both accept the same attempt, stochastic rounding's coupled shift; the failure "
               "p E[tau] <= p/(1 - r) beside P(tau != tau') <= 2r/(1 - r) (replace-one; r add-remove), "
               "r <= beta (to a few parts in 10^6) one attempt's rejection (Kairouz-Liu-Steinke 2021's norm bound)")


def conditional_shift(*, gamma, clip, dimension: int, beta, adjacency: Adjacency | str, failure) -> CoupledShift:
    """Conditional rounding's coupled shift: stochastic rounding's norm bound, its failure over the retries.

    See the module's notes: with ``r`` one attempt's rejection probability
    (:func:`itsa.privacy.neighbours.conditional_rejection`: ``β``, to a few parts in 10⁶),
    the shift has norm at most :func:`coupled_shift`'s ``B`` (``D = c γ S``) outside probability
    ``p/(1 − r) + q``, ``q = 2r/(1 − r)`` (replace-one) or ``r`` (add-remove) the probability that the two
    neighbours accept different attempts.

    Parameters
    ----------
    gamma, clip : number
        ``γ`` and ``S``.
    dimension : int
        ``d'``, the coordinates rounded.
    beta : number, str or ExpBeta
        Conditional rounding's ``β`` (:func:`itsa.privacy.neighbours.as_beta`).
    adjacency : Adjacency or str
        ``replace-one`` (``c = 2``) or ``add-remove`` (``c = 1``).
    failure : number
        ``p`` in ``(0, 1)``, as for :func:`coupled_shift`.

    Returns
    -------
    CoupledShift
        ``B`` (or the sure ``D + √d'``), its failure ``p/(1 − r) + q`` (at most 1) and ``q`` as ``mismatch``.
    """
    g, s = fraction("gamma", gamma, low=0), fraction("clip S", clip, low=0)
    replace_one = Adjacency(adjacency) is Adjacency.REPLACE_ONE
    r = conditional_rejection(gamma=g, clip=s, dimension=dimension, beta=beta)
    base = coupled_shift(difference=(2 if replace_one else 1) * g * s, dimension=dimension, failure=failure)
    method = f"{CONDITIONAL}; {base.norm.method}"
    norm = Certified(base.norm.name, base.norm.low, base.norm.high, base.norm.direction, method)
    if r >= 1:                      # no bound on the retries: the coupling bounds nothing
        return CoupledShift(norm, Fraction(1), Fraction(1))
    q = 2 * r / (1 - r) if replace_one else r
    return CoupledShift(norm, min(base.failure / (1 - r) + q, Fraction(1)), min(q, Fraction(1)))
