"""The discrete Gaussian against the continuous one: Poisson-summation enclosures, and a dominating Gaussian pair.

:func:`sum_error` bounds how far the law of a sum of discrete Gaussians is
from its Gaussian expression (used by :mod:`itsa.privacy.pld`).

:func:`dominating_epsilon` is a certified upper bound on the ε of ``T``
rounds of the discrete Gaussian (one, or the sum of ``n`` survivors' shares, per
coordinate) for every pair of integer inputs at ``ℓ2`` distance at most
``Δ`` in ``d`` dimensions, by one Gaussian pair that dominates them all:

1. A shift ``v = g v₀`` (``v₀`` primitive) touches ``d' ≤ min(d, ⌊Δ²⌋)``
   coordinates. On the box ``|x_i| ≤ K`` the shares' law is within ``1 ± r``
   of ``N_Z(0, s²)`` up to a constant (``s² = nσ²``; :func:`sum_error`), and
   its privacy loss within ``± u`` of ``(‖v‖² − 2⟨v, x⟩)/(2s²)``; outside, at
   most ``2d' e^(−K²/(2s²))`` (σ²-subgaussian shares).
2. For ``X ~ N_Z(0, s²)^(d')``, ``Y₀ = ⟨v₀, X⟩`` has
   ``P(Y₀ = y) ∝ e^(−y²/(2s²‖v₀‖²)) ρ(Λ + c_y)`` over the kernel lattice
   ``Λ = Z^(d') ∩ v₀^⊥``, and ``ρ(Λ + c)/ρ(Λ) ∈ [(1−ε)/(1+ε), 1]`` once
   ``s√(2π) ≥ η_ε(Λ)`` (Micciancio–Regev 2004, Lemma 4.4); ``Λ`` holds the
   ``d' − 1`` independent vectors ``v₀_j e_i − v₀_i e_j``, each of norm at most
   ``‖v₀‖ ≤ Δ``, so ``η_ε(Λ) ≤ √(ln(2(d'−1)(1 + 1/ε))/π) Δ`` (their Lemma 3.3):
   ``ε = 1/(e^(2π² s²/Δ² − ln(2(d'−1))) − 1)``.
3. So ``P(Y₀ ≤ m) ≤ F P(N_Z(0, s²‖v₀‖²) ≤ m) ≤ F (Φ((m + 1)/(s‖v₀‖)) + θ − 1)``,
   ``F = (1+ε)/(1−ε)`` (the rising and falling halves against their
   integrals): the loss exceeds ``t`` no more often than the Gaussian loss of
   ``μ_v = ‖v‖/s`` moved up by one lattice step ``g/s² + d'u``, plus an
   additive ``ε_add``; for ``t ≥ 0`` that is at most the Gaussian loss of
   ``μ'' = (Δ + 2)/s + 2d'us`` (compare the two normal tails at ``t = 0``;
   the slopes favour ``μ''`` beyond).
4. ``δ_v(ε) = ∫_ε^∞ e^(ε−t) P(L > t) dt``: for ``ε ≥ 0`` every shift, in either
   order (the noise is symmetric), has ``δ_v(ε) ≤ δ_G(μ'', ε) + ε_add``, below
   the hockey stick of the symmetric pair ``(1−δ₀) N(0,1) + δ₀[a]`` against
   ``(1−δ₀) N(μ'',1) + δ₀[b]`` (``δ₀ = ε_add/(1 − TV)``); ``ε < 0`` follows from
   ``H_α(P‖Q) = 1 − α + α H_(1/α)(Q‖P)`` and the pair's symmetry. That pair
   dominates every round, so its ``T``-fold product dominates the adaptive
   composition (Zhu, Dong, Wang 2022, Thm 10):
   ``δ(ε) ≤ δ_G(√T μ'', ε) + T δ₀``, with ``δ_G`` the exact Gaussian curve
   (Balle–Wang 2018, Thm 8).

The cost against the exact one-axis pair is the factor ``(Δ + 2)/⌊Δ⌋`` on μ;
it needs ``2π² s²/Δ² > ln(2(d'−1))`` (a noise multiplier above about 1.2 at
``d' = 10⁶``) and shares of ``σ ≳ 8``.

5. **Coordinate by coordinate** (:func:`coordinate_pair`, where the smoothing
   condition fails). The noise's coordinates are independent, so the pair of
   a shift ``v`` is the product over the ``d'`` coordinates it moves of the
   one-dimensional pairs of shift ``v_i``; in one dimension there is no kernel
   lattice (``ε = 0`` in step 2), and steps 3–4 dominate coordinate ``i`` by
   the symmetric pair of ``μ_i = (|v_i| + 2)/s + c`` (``c = 2us`` for shares,
   0 central) with the slack ``δ₁`` of ``Δ`` (the slack grows with the shift).
   The product of dominating pairs dominates the product (Zhu, Dong, Wang 2022,
   Thm 10, non-adaptive): ``δ_v(ε) ≤ δ_G(√(Σ μ_i²), ε) + d' δ₁``, and by
   Minkowski and Cauchy–Schwarz ``√(Σ μ_i²) ≤ ‖v‖/s + √d' (2/s + c) ≤ μ* =
   Δ/s + √d' (μ₁ − Δ/s)``, ``μ₁ = (Δ + 2)/s + c`` (Gaussian pairs are ordered in
   μ). Step 4 then makes the round's pair ``(μ*, δ₀ = (d' δ₁ + p)/(1 − TV(μ*)))``.
   No smoothing condition; the cost is ``2√d'/s`` on ``μ`` instead of ``2/s``:
   negligible where ``s`` is large against ``√d'`` (a central noise of
   ``σ ~ 10⁶`` integer units in a thousand dimensions: ``6·10⁻⁵`` relative).
   :func:`dominating_pair` keeps the smoothing pair wherever it holds with a
   slack the rounds can carry, so every plan it served is unchanged.

Where neither holds it returns ``None``.

Examples
--------
>>> e = dominating_epsilon(sigma=1000, sensitivity=100, rounds=10, delta="1e-5", dimension=1000)
>>> e.decimal(5), str(e.direction)
('1.2259', 'upper bound')
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint

from itsa._util.certified import Certified, Direction, arb_to_fractions, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.privacy.conversion import check_delta
from itsa.privacy.discrete_gaussian import normaliser
from itsa.privacy.tails import subgaussian_tail
from itsa.privacy.tight import gaussian_delta

__all__ = ["theta", "sum_error", "Pair", "COORDINATE", "dominating_pair", "smoothing_pair", "coordinate_pair", "dominating_epsilon", "mixture_epsilon", "BITS", "MIXTURE"]

#: Working precision (bits) of the balls here and in :mod:`itsa.privacy.pld`.
BITS = 192
#: ``-ln`` of the mass the box leaves out.
BOX_LOG = 230
#: Bisection steps of the ε (each halves the bracket).
STEPS = 60

METHOD = ("a Gaussian pair dominating every integer shift of l2 norm <= Delta in d dimensions: the loss along v "
          "is a one-dimensional discrete Gaussian's within (1 +- eps) by lattice smoothing (Micciancio-Regev 2004, "
          "Lemmas 3.3 and 4.4, on the kernel lattice of v), at most one lattice step above the Gaussian's: "
          "mu'' = (Delta + 2)/s; composed as dominating pairs (Zhu-Dong-Wang 2022, Thm 10), "
          "exact Gaussian curve (Balle-Wang 2018, Thm 8), bisection on balls")


#: What the coordinatewise pair (step 5) says of itself.
COORDINATE = ("a Gaussian pair dominating every integer shift of l2 norm <= Delta in d dimensions, coordinate by "
              "coordinate: each coordinate's shift v_i dominated by the one-dimensional pair of (|v_i| + 2)/s (no "
              "lattice to smooth), their product by mu* = (Delta + 2 sqrt(d'))/s (Cauchy-Schwarz), composed as "
              "dominating pairs (Zhu-Dong-Wang 2022, Thm 10), exact Gaussian curve (Balle-Wang 2018, Thm 8), "
              "bisection on balls")


class Pair(tuple):
    """``(μ, δ₀)``, a round's dominating Gaussian pair, with :attr:`method`: which argument gave it."""

    method: str

    def __new__(cls, mu: Fraction, slack: Fraction, method: str) -> Pair:
        made = super().__new__(cls, (mu, slack))
        made.method = method
        return made

    @property
    def form(self) -> str:
        """``"smoothing"`` or ``"coordinatewise"``."""
        return "coordinatewise" if self.method == COORDINATE else "smoothing"


def theta(variance: flint.arb) -> flint.arb:
    """``θ = Σ_j e^(−2π² v j²) = Z / (s √(2π))`` for ``N_Z(0, v)``, ``s = √v`` (the certified normaliser)."""
    s = variance.sqrt()
    return normaliser(s) / (s * (2 * flint.arb.pi()).sqrt())


def sum_error(variance, count: int) -> flint.arb:
    """``E``: the sum of ``count`` independent ``N_Z(0, variance)`` is within ``E`` of its Gaussian expression.

    For every integer ``y``,
    ``|P(S = y) − e^(−y²/(2 m v)) / (θ^m √(2π m v))| ≤ E`` (``m = count``,
    ``v = variance``, ``θ`` the theta sum of :func:`theta`); ``E = 0`` for
    ``m = 1`` (the expression is then the law itself). See the module notes.

    Parameters
    ----------
    variance : number or arb
        ``v = σ²`` of one discrete Gaussian.
    count : int
        ``m``, how many are summed.

    Returns
    -------
    arb
        A ball whose upper end bounds ``E``.

    >>> sum_error(1, 1).is_zero(), float(sum_error(9, 10).upper()) < 1e-8
    (True, True)
    """
    whole_number("count", count, minimum=1)
    with precision(BITS):
        v = to_arb(variance)
        if count == 1:
            return flint.arb(0)
        pi = flint.arb.pi()
        rho = 2 * (-(pi**2) * v / 2).exp() / (1 - (-4 * pi**2 * v).exp())

        def beyond(w: flint.arb) -> flint.arb:        # 2 ∫_π^∞ e^(-w t²/2) dt
            return 2 * (pi / (2 * w)).sqrt() * (pi * (w / 2).sqrt()).erfc()

        wraps = count * (1 + rho) ** (count - 1) * beyond(v)
        return (wraps + beyond(count * v)) / (2 * pi * theta(v) ** count)


def dominating_pair(*, sigma, sensitivity, survivors: int = 1, dimension: int = 1, failure=0,
                    slack_limit=None) -> Pair | None:
    """One round's dominating Gaussian pair: ``(μ'', δ₀)``, or ``None`` (the module's steps 1–5).

    The smoothing pair (steps 1–4, :func:`smoothing_pair`) where it holds with ``δ₀`` below ``slack_limit``
    (every ``δ₀ < 1`` when none is given), else the coordinatewise pair (step 5, :func:`coordinate_pair`) where
    it holds with the smaller ``δ₀``, else the smoothing pair as it is (or ``None``). Either is certified; the
    choice only picks the tighter.

    Every shift of ``ℓ2`` norm at most ``Δ`` of one round's noise (``d``
    coordinates, each one discrete Gaussian or the sum of ``n`` shares) is
    dominated by ``(1−δ₀) N(0, 1) + δ₀[a]`` against ``(1−δ₀) N(μ'', 1) + δ₀[b]``:
    the Gaussian pair of ``μ''`` composed with a pair of hockey stick ``δ₀`` at
    every ``ε``. ``T`` rounds: ``δ(ε) ≤ δ_G(√T μ'', ε) + T δ₀``
    (:func:`dominating_epsilon`).

    Parameters
    ----------
    sigma, sensitivity, survivors, dimension, failure
        As in :func:`dominating_epsilon`.
    slack_limit : number, optional
        The most ``δ₀`` per round the caller can use (``δ/T``): a smoothing pair at or above it gives way to the
        coordinatewise one.

    Returns
    -------
    tuple of Fraction, or None
        ``μ''`` and ``δ₀``, each the upper end of its certified ball (both are safe upwards: a larger ``μ''``
        or ``δ₀`` is a pair that dominates too); ``None`` where neither pair holds.

    >>> mu, slack = dominating_pair(sigma=1000, sensitivity=100, dimension=1000)
    >>> float(mu), slack < Fraction(1, 10**30)       # (Δ + 2)/σ, and a negligible δ₀
    (0.102, True)
    >>> mu, slack = dominating_pair(sigma=550, sensitivity=1000, dimension=1000)    # smoothing fails at z 0.55
    >>> round(float(mu) * 550 / 1000, 4), slack < Fraction(1, 10**30)      # coordinatewise: (Δ + 2√d')/σ
    (1.0632, True)
    """
    smoothing = smoothing_pair(sigma=sigma, sensitivity=sensitivity, survivors=survivors, dimension=dimension,
                               failure=failure)
    limit = 1 if slack_limit is None else fraction("slack limit", slack_limit, low=0)
    if smoothing is not None and smoothing[1] < limit:
        return smoothing
    product = coordinate_pair(sigma=sigma, sensitivity=sensitivity, survivors=survivors, dimension=dimension,
                              failure=failure)
    if product is None or (smoothing is not None and not product[1] < smoothing[1]):
        return smoothing
    return product


def smoothing_pair(*, sigma, sensitivity, survivors: int = 1, dimension: int = 1, failure=0) -> Pair | None:
    """The smoothing pair ``(μ'', δ₀)`` (the module's steps 1–4), or ``None`` where the smoothing condition
    fails or the shares are too narrow; arguments as in :func:`dominating_pair`."""
    s2 = whole_number("survivors", survivors, minimum=1) * fraction("sigma", sigma, low=0) ** 2
    d = whole_number("dimension", dimension, minimum=1)
    sens = sensitivity if isinstance(sensitivity, flint.arb) else to_arb(fraction("sensitivity", sensitivity, low=0))
    with precision(BITS):
        pi = flint.arb.pi()
        big = flint.arb(sens.upper())
        span = max(1, min(d, int(math.floor(float((big * big).upper()))) + 1))
        var, s = to_arb(s2), to_arb(s2).sqrt()
        if span <= 1:
            eps = flint.arb(0)
        else:
            room = 2 * pi**2 * var / big**2 - flint.arb(2 * (span - 1)).log()
            if not room > 0:
                return None
            eps = flint.arb((1 / room.expm1()).upper())
            if not eps < 1:
                return None
        fold = (1 + eps) / (1 - eps)
        add = (fold - 1) + fold * (theta(var) - 1)
        mu = (big + 2) / s
        if survivors > 1:
            one = to_arb(s2 / survivors)
            reach = math.isqrt(int(2 * s2 * (BOX_LOG + math.ceil(math.log(2 * span))))) + 1
            outside = subgaussian_tail(reach, var, coordinates=span)     # the mass outside the box, d' coordinates
            c = 1 / (theta(one) ** survivors * (2 * pi * var).sqrt())
            # the Gaussian's density at the box's edge (not a tail): the law's relative error there
            r = sum_error(one, survivors) / (c * (-((reach + big.ceil()) ** 2) / (2 * var)).exp())
            if not r < 1:
                return None
            u = (1 + r).log() - (1 - r).log()
            factor = ((1 + r) * theta(var) / theta(one) ** survivors).max(flint.arb(1)) ** span
            add = (factor - 1) + factor * add + outside
            mu += 2 * span * u * s
        add += to_arb(fraction("failure", failure, low=0, high=1, closed=True))
        high = arb_to_fractions(mu)[1]
        tv = (to_arb(high) / (2 * flint.arb(2).sqrt())).erf()
        slack = add / (1 - tv)
        if not slack < 1:
            return None
        return Pair(high, arb_to_fractions(slack)[1], METHOD)


def coordinate_pair(*, sigma, sensitivity, survivors: int = 1, dimension: int = 1, failure=0) -> Pair | None:
    """The coordinatewise pair ``(μ*, δ₀)`` (the module's step 5), or ``None``; arguments as in
    :func:`dominating_pair`.

    ``μ* = Δ/s + √d' (μ₁ − Δ/s)`` and ``δ₀ = (d' δ₁ + p)/(1 − TV(μ*))``, ``(μ₁, δ₁)`` the one-coordinate
    smoothing pair at ``Δ`` (no lattice to smooth), ``d' = min(d, ⌊Δ²⌋ + 1)``, ``p`` the failure: no smoothing
    condition, at the cost ``2√d'/s`` on ``μ`` (against the smoothing pair's ``2/s``).

    >>> mu, slack = coordinate_pair(sigma=1000, sensitivity=100, dimension=1000)
    >>> round(float(mu), 6)          # (100 + 2√1000)/1000
    0.163246
    """
    d = whole_number("dimension", dimension, minimum=1)
    sens = sensitivity if isinstance(sensitivity, flint.arb) else to_arb(fraction("sensitivity", sensitivity, low=0))
    s2 = whole_number("survivors", survivors, minimum=1) * fraction("sigma", sigma, low=0) ** 2
    with precision(BITS):
        big = flint.arb(sens.upper())
        span = max(1, min(d, int(math.floor(float((big * big).upper()))) + 1))
        one = smoothing_pair(sigma=sigma, sensitivity=big, survivors=survivors, dimension=1)
        if one is None:
            return None
        base = big / to_arb(s2).sqrt()
        mu = base + flint.arb(span).sqrt() * (to_arb(one[0]) - base)
        high = arb_to_fractions(mu)[1]
        tv = (to_arb(high) / (2 * flint.arb(2).sqrt())).erf()
        slack = (span * to_arb(one[1]) + to_arb(fraction("failure", failure, low=0, high=1, closed=True))) / (1 - tv)
        if not slack < 1:
            return None
        return Pair(high, arb_to_fractions(slack)[1], COORDINATE)


def dominating_epsilon(*, sigma, sensitivity, rounds: int, delta, survivors: int = 1, dimension: int = 1,
                       failure=0) -> Certified | None:
    """A certified upper bound on ε for every pair at ``ℓ2`` distance ``≤ Δ`` in ``d`` dimensions, or ``None``.

    Parameters
    ----------
    sigma : number
        ``σ`` of one discrete Gaussian share (integer units).
    sensitivity : number or arb
        ``Δ``, the integer ``ℓ2`` sensitivity (its upper end is used).
    rounds : int
        ``T``.
    delta : number
        δ in ``(0, 1)``.
    survivors : int
        ``n``: the survivors' shares summed per coordinate (1: central noise).
    dimension : int
        ``d``.
    failure : number
        ``p``: the probability per round that the round's shift exceeds ``Δ`` (a round whose shift is a random
        vector of norm ``≤ Δ`` outside probability ``p``, :func:`itsa.privacy.coupled.coupled_shift`); added to
        the per-round slack, since such a round has ``δ(ε) ≤ δ_Δ(ε) + p`` in both directions. Default 0.

    Returns
    -------
    Certified or None
        ε, an upper bound: the least with ``δ_G(√T μ'', ε) + T δ₀ ≤ δ`` for the pair of
        :func:`dominating_pair`; ``None`` where the smoothing condition fails or the shares are too narrow.
    """
    T = whole_number("rounds", rounds, minimum=1)
    target = check_delta(delta)
    pair = dominating_pair(sigma=sigma, sensitivity=sensitivity, survivors=survivors, dimension=dimension,
                           failure=failure, slack_limit=target / T)
    if pair is None or not T * pair[1] < target:
        return None
    with precision(BITS):
        mu_T = flint.arb(T).sqrt() * to_arb(pair[0])
    return _least(mu_T, to_arb(T * pair[1]), target, pair.method)


def _least(mu_T: flint.arb, slack: flint.arb, target: Fraction, method: str = METHOD) -> Certified:
    """The least ε (found by bisection on exact rationals) with ``δ_G(μ_T, ε) + slack ≤ δ``, certified."""
    bits = BITS + 2 * max(0, int(float(mu_T.upper())).bit_length())
    with precision(max(bits, 512)):
        goal = to_arb(target)

        def holds(e: Fraction) -> bool:
            return bool(gaussian_delta(mu_T, to_arb(e)) + slack <= goal)

        eps = _least_epsilon(holds, float(mu_T.upper()), target)
    return Certified("epsilon", eps, eps, Direction.UPPER, method)


MIXTURE = ("a Bin(T, q)-weighted mixture of dominating Gaussian pairs: each round dominated by (1 - q) pair(B) (+) q pair(W) "
           "(hockey stick jointly convex; disjoint union), T rounds by sum_j Bin(T, q)(j) "
           "delta_G(sqrt((T - j) mu_B^2 + j mu_W^2), eps) + T delta0 (Zhu-Dong-Wang 2022, Thm 10; Bin(T, q)'s "
           "tail beyond the terms summed added); ")


def mixture_epsilon(*, sigma, near, far, weight, rounds: int, delta, survivors: int = 1, dimension: int = 1,
                    failure=0) -> Certified | None:
    """ε of ``T`` rounds each a mixture: a shift of norm at most ``near`` except with probability ``weight``,
    then at most ``far`` (``near ≤ far``); an upper bound, or ``None``.

    One round is dominated by the disjoint union ``(1 − q) A_B ⊕ q A_W`` of the two rounds' dominating pairs
    (:func:`dominating_pair`, both with the larger slack ``δ₀``, so that ``A_B``'s hockey stick is below
    ``A_W``'s at every ``ε`` and a smaller true weight of the far part is covered by ``q``): the hockey stick
    is jointly convex, and a disjoint union's is the weighted sum of its parts'. The ``T``-fold product is a
    mixture, weighted by ``Bin(T, q)``, over how many rounds drew the far part; ``j`` of them compose to the Gaussian pair of
    ``μ_j = √((T − j) μ_B² + j μ_W²)``, so ``δ(ε) ≤ Σ_j Bin(T, q)(j) δ_G(μ_j, ε) + T δ₀``
    (the terms left out, each below ``δ/(10⁸ T)``, counted at ``δ_G ≤ 1``), increasing in ``q``.

    Parameters
    ----------
    sigma, survivors, dimension, rounds, delta
        As in :func:`dominating_epsilon`.
    near, far : number or arb
        ``B`` and ``W``, the shift's norm bounds (upper ends used).
    weight : number
        ``q`` in ``[0, 1]``, an upper bound on the probability per round of the far part.
    failure : number
        ``p``: the probability per round that the near part's shift exceeds ``B`` (in the slack).

    Examples
    --------
    >>> near = dominating_epsilon(sigma=1000, sensitivity=100, rounds=10, delta="1e-5", dimension=1000)
    >>> far = dominating_epsilon(sigma=1000, sensitivity=150, rounds=10, delta="1e-5", dimension=1000)
    >>> mixed = mixture_epsilon(sigma=1000, near=100, far=150, weight="1/10", rounds=10, delta="1e-5",
    ...                         dimension=1000)
    >>> near.upper() < mixed.upper() < far.upper()
    True
    """
    T = whole_number("rounds", rounds, minimum=1)
    target = check_delta(delta)
    q = fraction("weight", weight, low=0, high=1, closed=True)
    a = dominating_pair(sigma=sigma, sensitivity=near, survivors=survivors, dimension=dimension, failure=failure,
                        slack_limit=target / T)
    b = dominating_pair(sigma=sigma, sensitivity=far, survivors=survivors, dimension=dimension, failure=failure,
                        slack_limit=target / T)
    if a is None or b is None:
        return None
    mu_b, mu_w = min(a[0], b[0]), b[0]
    slack = max(a[1], b[1])
    if not T * slack < target:
        return None
    with precision(BITS):
        terms: list[tuple[flint.arb, flint.arb]] = []
        kept = flint.arb(0)
        small = to_arb(target) / (10**8 * T)          # a term below this is dropped, its mass counted whole
        pmf = to_arb(1 - q) ** T
        for j in range(T + 1):
            if j:
                pmf = pmf * (T - j + 1) / j * to_arb(q) / to_arb(1 - q) if q < 1 else flint.arb(int(j == T))
            if pmf.upper() > small.lower() or (q == 1 and j == T):
                mu = (flint.arb(T - j) * to_arb(mu_b) ** 2 + flint.arb(j) * to_arb(mu_w) ** 2).sqrt()
                terms.append((pmf, mu))
                kept += pmf
            elif j > T * q:                 # past the mode Bin(T, q) only falls: the rest is dropped too
                break
        extra = flint.arb((1 - kept).max(flint.arb(0)).upper()) + to_arb(T * slack)
    if not extra < to_arb(target):
        return None
    top = max(float(mu.upper()) for _, mu in terms)
    bits = max(BITS + 2 * max(0, int(top).bit_length()), 512)
    with precision(bits):
        goal = to_arb(target)

        def holds(e: Fraction) -> bool:
            x = to_arb(e)
            total = extra
            for w, mu in terms:
                total += w * gaussian_delta(mu, x)
            return bool(total <= goal)

        eps = _least_epsilon(holds, top, target)
    method = a.method if a.method == b.method else f"{a.method}; the far part: {b.method}"
    return Certified("epsilon", eps, eps, Direction.UPPER, MIXTURE + method)


def _least_epsilon(holds, m: float, target) -> Fraction:
    """The least ε (bisection on exact rationals, to ``2⁻⁴⁴`` relative) at which ``holds``, a certified test that
    only turns true as ε grows; started above the ε of a Gaussian pair of parameter ``m`` at ``target``."""
    low, high = Fraction(0), Fraction(math.ceil(1 + m * m / 2 + m * math.sqrt(2 * math.log(1 / float(target)))))
    while not holds(high):
        low, high = high, 2 * high
    if holds(low):
        return low
    for _ in range(STEPS):
        if high - low <= high / 2**44:
            break
        mid = (low + high) / 2
        mid = Fraction(math.floor(mid * 2**64)) / 2**64 if mid.denominator > 2**64 else mid
        if holds(mid):
            high = mid
        else:
            low = mid
    return high
