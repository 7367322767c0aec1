"""The binomial mechanism: the fewest fair coins for a count (exact profile), and shares' approximate Rényi bound.

A count of sensitivity 1 released with ``X ~ Bin(N, ½)`` added is compared
with the same count one higher: the output laws are ``P = Bin(N, ½)`` and
``Q = Bin(N, ½) + 1``. Its privacy profile is the hockey-stick divergence

    δ_N(ε) = max(H_{e^ε}(P ‖ Q), H_{e^ε}(Q ‖ P)),   H_a(P ‖ Q) = Σ_k max(0, P(k) − a Q(k)).

Both directions are equal (``k ↦ N + 1 − k`` maps ``P`` to ``Q``), and the
positive terms of ``H`` are ``k ≤ k*``, ``k* = ⌊(N + 1)/(1 + e^ε)⌋``
(``C(N, k)/C(N, k−1) = (N − k + 1)/k`` falls with ``k``), so

    δ_N(ε) = 2^−N (S_N(k*) − e^ε S_N(k* − 1)),   S_N(m) = Σ_{j ≤ m} C(N, j),

with integer binomial coefficients and ``e^ε`` in ball arithmetic. For a
rational ``ε > 0``, ``e^ε`` is irrational (Lindemann), so every comparison
with a rational is decided exactly by refining the ball.

``δ_N(ε)`` never grows with ``N``: ``Bin(N + 1, ½)`` is ``Bin(N, ½)`` plus an
independent coin, one post-processing applied to both neighbours' outputs,
and post-processing never increases a hockey-stick divergence. So the
smallest ``N`` meeting a target is a threshold: every larger ``N`` meets it.
:func:`binomial` still scans ``N = 1, 2, …`` (each step updates ``S``
and ``C`` with a few exact integer operations, cheaper than a bisection's
fresh sums) and decides each ``N`` exactly.

The IETF draft on binomial noise in MPC (draft-case-ppm-binomial-dp, §
"Determining number of Bernoulli trials") sizes ``N`` by Theorem 1 of cpSGD
(Agarwal et al. 2018, formula (7)); :func:`draft_coins` is its formula.

For a plan (a vector sum, many rounds), :class:`BinomialSharesEvent` is one
round of centred ``Bin(M, ½)`` noise on every coordinate of an integer sum
whose neighbours differ by ``v``, ``‖v‖₂ ≤ Δ``: a Rényi bound that holds
outside a slack ``δ₀`` (its :attr:`~BinomialSharesEvent.slack`; the
accountant takes ``T δ₀`` off δ). On the coordinates ``v`` moves, both
neighbours' laws are split on the box ``C`` where every such coordinate and
its shifted self lie in the window ``[L, M − L]`` (the same mass ``1 − δ₀`` in
both worlds: ``x ↦ v − x`` maps one law to the other and ``C`` to itself);
on ``C`` the privacy loss is the Gaussian's linear loss at variance
``(M + 1)/4`` within ``± U``:

    ε(q) ≤ 2 q Δ²/(M + 1) + U + ln(1/(1 − δ₀))/(q − 1),
    U = ‖v‖₁ · 2 (artanh τ − τ),  τ = ((M − 1)/2 − L)/((M + 1)/2),
    δ₀ ≤ 2d' (e^(−2(M/2 − L + 1)²/M) + e^(−2(M/2 − L + 1 − ⌊Δ⌋)²/M))

(``d' = min(d, ⌊Δ²⌋)`` coordinates move; ``‖v‖₁ ≤ min(Δ², √d Δ)``; the first
tail term is 0 when ``L = 0``). The proof, step by step, is in the docs
(privacy.md, "Binomial shares in a plan").

Examples
--------
>>> result = binomial(3, "1e-5")
>>> result.coins, result.draft_coins
(17, 1272)
>>> binomial_delta(17, 3).upper() <= Fraction(1, 10**5) < binomial_delta(16, 3).lower()
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache

import flint

from itsa._util.certified import Certified, Direction, arb_to_fractions, exact_text, precision, safe_decimal, to_arb
from itsa._util.checks import fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption
from itsa.privacy.composition import check_epsilon
from itsa.privacy.conversion import check_delta
from itsa.privacy.events import Event, as_order
from itsa.privacy.neighbours import l1_from_l2
from itsa.privacy.rdp import number
from itsa.privacy.tails import subgaussian_tail

__all__ = ["BinomialCoins", "binomial", "binomial_delta", "draft_coins", "MAX_COINS", "MAX_EPSILON",
           "BinomialSharesEvent", "SLACK_BITS"]

#: Most coins :func:`binomial` scans by default before refusing (a refusal checks this N exactly: about 4 s;
#: N = 375,406, the answer at eps = 0.01, delta = 1e-6, takes about 20 s with a larger ``max_coins``).
MAX_COINS = 250_000
#: Largest eps read: beyond, e^eps is too large to carry, and every N <= e^eps has k* = 0 anyway (the answer
#: is then ceil(log2(1/delta)): only the output 0, impossible for the neighbour, costs delta).
MAX_EPSILON = 10_000
#: Precision (bits) at which the enclosure of ``e^ε`` starts; doubled until a comparison is decided.
_START_BITS = 128
#: Precision past which a comparison is refused as undecidable (never reached for a rational ε).
_MAX_BITS = 1 << 16
#: The draft's constants for p = 1/2 (cpSGD Theorem 1): b_p, d_p (c_p = 7 sqrt(2)/4 is built in ball arithmetic).
_B_P, _D_P = Fraction(1, 3), Fraction(2, 3)


@lru_cache(maxsize=64)
def _exp_bounds(epsilon: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rational ``(lo, hi)`` with ``lo ≤ e^ε ≤ hi``, the ends of a ball at ``bits`` of precision."""
    with precision(bits):
        return arb_to_fractions(to_arb(epsilon).exp())


#: Steps between two looks at the clock in the scans (each step is a few operations on ``N``-bit integers).
_CHECK_EVERY = 64


def _exp_exceeds(epsilon: Fraction, num: int, den: int) -> bool:
    """``num/den < e^ε`` (``den > 0``), decided exactly: the two are never equal for a rational ``ε > 0``."""
    bits = _START_BITS
    while bits <= _MAX_BITS:
        lo, hi = _exp_bounds(epsilon, bits)
        if num * lo.denominator < lo.numerator * den:
            return True
        if num * hi.denominator > hi.numerator * den:
            return False
        bits *= 2
    raise InvalidOption(f"epsilon: e^{exact_text(epsilon)} could not be told from {num}/{den} at {_MAX_BITS} bits")


def _top_term(epsilon: Fraction, coins: int) -> int:
    """``k* = ⌊(N + 1)/(1 + e^ε)⌋``: the last ``k`` with ``P(k) > e^ε Q(k)`` (``k = 0`` always, ``Q(0) = 0``).

    Never an integer for a rational ``ε > 0`` (``e^ε`` is irrational); the
    enclosure is refined until the floor is decided.
    """
    bits = _START_BITS
    while bits <= _MAX_BITS:
        lo, hi = _exp_bounds(epsilon, bits)
        low, high = math.floor((coins + 1) / (1 + hi)), math.floor((coins + 1) / (1 + lo))
        if low == high:
            return min(low, coins)
        bits *= 2
    raise InvalidOption(f"epsilon: k* of Bin({coins}, 1/2) at e^{exact_text(epsilon)} could not be decided")


def _approximate_delta(epsilon: Fraction, coins: int) -> float:
    """``δ_N(ε)`` in floats (every term ``C(N, k)(1 − e^ε k/(N − k + 1))/2^N`` is positive: no cancellation).

    Only a guide for where the exact scan starts; never reported.
    """
    import numpy as np
    from scipy.special import gammaln

    a = math.exp(min(float(epsilon), 700.0))      # beyond, k* = 0 at every N a float reaches
    k = np.arange(0, coins // 2 + 2)
    k = k[(coins - k + 1) > a * k]
    log_terms = gammaln(coins + 1) - gammaln(k + 1) - gammaln(coins - k + 1) - coins * math.log(2)
    return float(np.sum(np.exp(log_terms) * (1 - a * k / (coins - k + 1))))


def _start(epsilon: Fraction, delta: Fraction, cap: int, deadline: Deadline) -> int:
    """An ``N`` that exactly fails the target, just below the answer (1 if none is found): where the scan starts.

    A float bisection (``δ_N(ε)`` never grows with ``N``) guesses the answer; the
    guess less a margin is checked exactly and halved until it fails, so the
    exact scan from there still finds the smallest ``N``.
    """
    target = float(delta)
    low, high = 1, 1
    while high < cap and _approximate_delta(epsilon, high) > target:
        deadline.check(f"the guess N = {high}")
        low, high = high, min(2 * high, cap)
    if (high == cap and _approximate_delta(epsilon, cap) > target
            and not _State.at(epsilon, cap, deadline).meets(epsilon, delta)):
        raise InvalidOption(f"coins: no N <= {cap} fair coins meets epsilon = {exact_text(epsilon)}, "
                            f"delta = {exact_text(delta)} (raise max coins)")
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if _approximate_delta(epsilon, mid) > target else (low, mid)
    guess = max(1, low - 2 - low // 1000)
    while guess > 1 and _State.at(epsilon, guess, deadline).meets(epsilon, delta):
        guess //= 2
    return guess


@dataclass
class _State:
    """``N``, ``k*``, ``c = C(N, k*)`` and ``s = S_N(k*)``: the exact profile's integers at one ``N``."""

    coins: int
    k: int
    c: int
    s: int

    @classmethod
    def at(cls, epsilon: Fraction, coins: int, deadline: Deadline | None = None) -> _State:
        k, c, total = _top_term(epsilon, coins), 1, 1
        for j in range(k):                  # C(N, j + 1) from C(N, j): one multiplication and one exact division
            c = c * (coins - j) // (j + 1)
            total += c
            if deadline is not None and j % _CHECK_EVERY == 0:
                deadline.check(f"the binomial sums of N = {coins}")
        return cls(coins, k, c, total)

    def step(self, epsilon: Fraction) -> None:
        """``N → N + 1`` (and ``k*`` one up when the new ``N`` lets it): a few exact integer operations."""
        n, k = self.coins, self.k
        self.s = 2 * self.s - self.c                   # S_{N+1}(k) = S_N(k) + S_N(k - 1)
        self.c = self.c * (n + 1) // (n + 1 - k)       # C(N + 1, k)
        self.coins = n = n + 1
        if not _exp_exceeds(epsilon, n - k, k + 1):    # (N - k)/(k + 1) > e^eps: k + 1 is a positive term too
            self.c = self.c * (n - k) // (k + 1)
            self.k = k = k + 1
            self.s += self.c

    def meets(self, epsilon: Fraction, delta: Fraction) -> bool:
        """``δ_N(ε) ≤ δ``, decided exactly: ``S − δ 2^N ≤ e^ε (S − C)``."""
        a = self.s * delta.denominator - delta.numerator * (1 << self.coins)
        b = (self.s - self.c) * delta.denominator
        if a <= 0:
            return True
        return b > 0 and _exp_exceeds(epsilon, a, b)

    def delta(self, epsilon: Fraction, direction: Direction = Direction.UPPER) -> Certified:
        """``δ_N(ε)`` as a ball (an enclosure of the exact value, shown rounded the ``direction`` way)."""
        bits = _START_BITS
        while True:
            with precision(bits):
                ball = (flint.arb(self.s) - to_arb(epsilon).exp() * (self.s - self.c)) / flint.arb(2) ** self.coins
            if ball.rad() * 10**8 < abs(ball.mid()) or bits >= _MAX_BITS:
                break
            bits *= 2
        method = (f"exact privacy profile of Bin({self.coins}, 1/2) vs Bin({self.coins}, 1/2) + 1 (both directions, "
                  f"equal): 2^-N (S_N({self.k}) - e^eps S_N({self.k - 1})), integer binomial sums, e^eps in ball "
                  "arithmetic")
        return Certified.from_arb("delta", ball, direction, method)


def binomial_delta(coins: int, epsilon) -> Certified:
    """The exact privacy profile ``δ_N(ε)`` of ``Bin(N, ½)`` noise on a sensitivity-1 count, certified.

    Parameters
    ----------
    coins : int
        ``N ≥ 1``, the number of fair coins summed.
    epsilon : number
        ``ε > 0``, read exactly.

    Returns
    -------
    Certified
        An upper bound whose interval encloses the exact ``δ_N(ε)`` (the larger, here equal, of the two
        hockey-stick divergences).

    Examples
    --------
    >>> binomial_delta(1, 1).decimal(4)      # k* = 0: P(0) = 1/2 and Q(0) = 0
    '0.5'
    """
    n = whole_number("coins", coins, minimum=1)
    eps = check_epsilon(epsilon)
    return _State.at(eps, n).delta(eps)


def draft_coins(epsilon, delta, *, dimension: int = 1, l1=1, l2=1, linf=1, scale=1) -> int:
    """The draft's ``N``: the larger of its two cpSGD constraints (Theorem 1, formula (7)), rounded up.

    ``N ≥ 4 max(23 ln(10 d/δ), 2 Δ∞/s)`` (the delta constraint) and the root of
    ``ε = c₁/√N + c₂/N`` with ``c₁ = 2 Δ₂ √(2 ln(1.25/δ))/s`` and
    ``c₂ = (4/s)((Δ₂ c_p √ln(10/δ) + Δ₁ b_p)/(1 − δ/10) + ⅔ Δ∞ ln(1.25/δ) + Δ∞ d_p ln(20d/δ) ln(10/δ))``,
    ``b_p = ⅓``, ``c_p = 7√2/4``, ``d_p = ⅔`` at ``p = ½`` (the draft writes ``c₁`` without the ``1/s``;
    at ``s = 1`` they agree). Every step in ball arithmetic; the ceiling is certified.

    Parameters
    ----------
    epsilon, delta : number
        The target (rationals, or text such as ``"1e-5"``).
    dimension : int
        ``d``, the draft's dimension (1: a count).
    l1, l2, linf : number
        The sensitivities ``Δ₁``, ``Δ₂``, ``Δ∞`` (1 for a count).
    scale : number
        ``s``, the draft's quantization scale.

    Returns
    -------
    int
        The draft's number of coins.

    Examples
    --------
    >>> draft_coins(3, "1e-5"), draft_coins("0.1", "1e-5")
    (1272, 19608)
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    dim = whole_number("dimension", dimension, minimum=1)
    l1, l2, linf, s = (to_arb(fraction(name, v, low=0)) for name, v in
                       (("l1", l1), ("l2", l2), ("linf", linf), ("scale", scale)))
    bits = _START_BITS
    while bits <= _MAX_BITS:
        with precision(bits):
            e, dd = to_arb(eps), to_arb(d)
            by_delta = 4 * (23 * (10 * dim / dd).log()).max(2 * linf / s)
            c1 = 2 * l2 * (2 * (to_arb(Fraction(5, 4)) / dd).log()).sqrt() / s
            c_p = 7 * flint.arb(2).sqrt() / 4
            c2 = 4 / s * ((l2 * c_p * (10 / dd).log().sqrt() + l1 * to_arb(_B_P)) / (1 - dd / 10)
                          + 2 * linf * (to_arb(Fraction(5, 4)) / dd).log() / 3
                          + linf * to_arb(_D_P) * (20 * dim / dd).log() * (10 / dd).log())
            root = (c1 + (c1 * c1 + 4 * e * c2).sqrt()) / (2 * e)
            need = by_delta.max(root * root)
            low, high = need.lower().floor(), need.upper().floor()
        if low == high:
            return int(arb_to_fractions(low)[0]) + 1
        bits *= 2
    raise InvalidOption("draft_coins: the ceiling could not be certified")


#: Why the answer is the threshold: every larger N meets the target too.
MONOTONE = ("every larger N meets it too: Bin(N + 1, 1/2) is Bin(N, 1/2) plus an independent coin, post-processing "
            "both neighbours' outputs alike, so delta_N(eps) never grows with N")


@dataclass(frozen=True, kw_only=True, repr=False)
class BinomialCoins(Displayable):
    """The fewest fair coins whose exact profile meets ``(ε, δ)``, with the draft's ``N`` beside it.

    Parameters
    ----------
    coins : int
        The smallest ``N`` with ``δ_N(ε) ≤ δ``; every larger ``N`` meets it too (:data:`MONOTONE`).
    delta_at_coins : Certified
        ``δ_N(ε)`` at ``coins`` (an enclosure of the exact profile, shown rounded up).
    delta_below : Certified or None
        ``δ_{N−1}(ε)``, above the target (shown rounded down), or None when ``N`` is 1.
    draft_coins : int
        The draft's (cpSGD) ``N`` for the same target at ``d = 1``, unit sensitivities, ``s = 1``.
    epsilon, delta : Fraction
        The target, exact.
    """

    coins: int
    delta_at_coins: Certified
    delta_below: Certified | None
    draft_coins: int
    epsilon: Fraction
    delta: Fraction

    def to_dict(self) -> dict:
        below = None if self.delta_below is None else self.delta_below.to_dict()
        return {"coins": self.coins, "direction": "exact (the smallest N whose exact privacy profile meets the target)",
                "inputs": {"epsilon": exact_text(self.epsilon), "delta": exact_text(self.delta)},
                "delta_at_coins": self.delta_at_coins.to_dict(), "delta_at_one_coin_fewer": below,
                "every_larger_meets": True, "why_every_larger_meets": MONOTONE,
                "variance": exact_text(Fraction(self.coins, 4)), "mechanism": "count + Bin(N, 1/2) - N/2",
                "draft_coins": self.draft_coins, "draft_method": DRAFT_METHOD,
                "draft_over_exact": safe_decimal(Fraction(self.draft_coins, self.coins), 4, up=False)}

    def headline(self) -> str:
        return (f"N = {self.coins} fair coins (exact) meet eps = {exact_text(self.epsilon)}, "
                f"delta = {exact_text(self.delta)}; the draft's formula asks {self.draft_coins}")

    def rows(self) -> list[tuple[str, str]]:
        below = ([] if self.delta_below is None else
                 [("delta at N - 1", self.delta_below.decimal(6) + " (above the target)")])
        return [("coins (exact)", str(self.coins)),
                ("delta at N", self.delta_at_coins.decimal(6) + " (exact profile, rounded up)"), *below,
                ("larger N", MONOTONE), ("noise variance N/4", exact_text(Fraction(self.coins, 4))),
                ("draft's N (cpSGD)", f"{self.draft_coins} ({DRAFT_METHOD})"),
                ("method", "exact privacy profile of Bin(N, 1/2) vs Bin(N, 1/2) + 1, every N from 1 decided exactly")]


#: How the draft's N is computed, for the record.
DRAFT_METHOD = ("draft-case-ppm-binomial-dp (cpSGD Theorem 1, formula (7)) at d = 1, unit sensitivities, s = 1: "
                "the larger of its delta and epsilon-delta constraints, certified ceiling")


def binomial(epsilon, delta, *, max_coins: int = MAX_COINS, time_limit: float | Deadline | None = None
             ) -> BinomialCoins:
    """The smallest number of fair coins ``N`` whose ``Bin(N, ½)`` noise makes a count ``(ε, δ)``-DP, exactly.

    Parameters
    ----------
    epsilon, delta : number
        The target, read exactly; ``ε > 0``, ``δ ∈ (0, 1)``.
    max_coins : int
        Refuse (one line) if no ``N ≤ max_coins`` meets the target.
    time_limit : float, Deadline or None
        Seconds for the scan (``0`` or ``None``: none); past it,
        :class:`~itsa.exceptions.TimeLimitReached` names the ``N`` reached. Each step's integers have ``N``
        bits, so a target that needs millions of coins (a tiny ``ε``, or a ``δ`` of thousands of digits)
        takes time quadratic in ``N``.

    Returns
    -------
    BinomialCoins

    Notes
    -----
    Every ``N`` from 1 is decided exactly (``δ_N(ε) ≤ δ`` by integer arithmetic
    against a rational enclosure of ``e^ε``, refined until it decides); each
    step updates the integers with a few exact operations. ``δ_N(ε)`` never
    grows with ``N`` (:data:`MONOTONE`), so the first ``N`` that meets the
    target is the threshold.

    Examples
    --------
    >>> binomial(1, "1e-5").coins
    62
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    if eps > MAX_EPSILON:
        raise InvalidOption(f"epsilon: at most {MAX_EPSILON} here, not {exact_text(eps)} (beyond, the answer is "
                            "ceil(log2(1/delta)): only the output 0 costs delta)")
    cap = whole_number("max coins", max_coins, minimum=1, maximum=10**7)
    deadline = Deadline.of(time_limit)
    start = _start(eps, d, cap, deadline)
    state, previous = _State.at(eps, start, deadline), None
    while not state.meets(eps, d):
        if state.coins % _CHECK_EVERY == 0:
            deadline.check(f"N = {state.coins} fair coins")
        if state.coins >= cap:
            raise InvalidOption(f"coins: no N <= {cap} fair coins meets epsilon = {exact_text(eps)}, "
                                f"delta = {exact_text(d)} (raise max coins)")
        previous = replace(state)
        state.step(eps)
    if previous is None and start > 1:          # cannot happen: _start checked that its N fails
        raise InvalidOption("coins: the scan did not start below the answer")
    below = None if previous is None else previous.delta(eps, Direction.LOWER)
    return BinomialCoins(coins=state.coins, delta_at_coins=state.delta(eps), delta_below=below,
                         draft_coins=draft_coins(eps, d), epsilon=eps, delta=d)


#: The window of :class:`BinomialSharesEvent` is the narrowest whose slack is at most ``2^-SLACK_BITS`` a round
#: (where the coins allow: with few coins the window is the whole support and the slack what it is).
SLACK_BITS = 80
#: Working precision (bits) of the shares' window (``artanh τ − τ`` cancels about ``3 log2(1/τ)`` bits).
_WINDOW_BITS = 256


@dataclass(frozen=True)
class _Window:
    """The window ``[low, M − low]`` of :class:`BinomialSharesEvent`: its slack ``δ₀`` and loss error ``U``."""

    low: int
    slack: Fraction
    error: flint.arb


@dataclass(frozen=True, kw_only=True)
class BinomialSharesEvent(Event):
    """One round of centred ``Bin(M, ½)`` noise per coordinate on an integer sum of ``ℓ2`` sensitivity ``Δ``.

    Its Rényi divergence is infinite (bounded support); the bound here holds
    for the pair left when both neighbours' laws lose the same mass ``δ₀``
    outside a window (module notes), and the accountant takes ``T δ₀`` off δ
    (:func:`itsa.privacy.profile.slack_sum`).

    Parameters
    ----------
    coins : int
        ``M``: the coins summed per coordinate (distributed: the fewest survivors' shares together; a sum of
        independent ``Bin(N_i, ½)`` is ``Bin(Σ N_i, ½)``).
    sensitivity : number or arb
        ``Δ``: every neighbouring pair's sums differ by an integer ``v`` with ``‖v‖₂ ≤ Δ``.
    dimension : int
        ``d``, the coordinates the noise is added to.

    Examples
    --------
    The Gaussian of variance ``M/4 = 10⁸`` has ``D_2 = 2 Δ²/(2 · 10⁸) = 1`` at ``Δ = 10⁴``; the shares' bound is
    within ``10⁻⁴`` of it, outside a slack below ``2^−80``:

    >>> e = BinomialSharesEvent(coins=4 * 10**8, sensitivity=10**4, dimension=1000)
    >>> 0 < e.slack <= Fraction(1, 2**80), 1 < float(e.rdp(2).upper()) < 1.0001
    (True, True)
    """

    coins: int
    sensitivity: object
    dimension: int = 1

    def __post_init__(self) -> None:
        whole_number("coins", self.coins, minimum=1)
        number("sensitivity", self.sensitivity)
        whole_number("dimension", self.dimension, minimum=1)

    @property
    def label(self) -> str:
        return f"binomial shares ({self.coins} coins per coordinate)"

    @property
    def provenance(self) -> str:
        return ("the Gaussian's Renyi bound at variance (M+1)/4 plus the loss error U on the window, outside a "
                "slack delta_0 (both neighbours' laws split on one box; Hoeffding tails): itsa's proof, "
                "privacy.md 'Binomial shares in a plan'")

    @cached_property
    def window(self) -> _Window:
        """The window and its slack and error (module notes)."""
        M = self.coins
        with precision(_WINDOW_BITS):
            sens = to_arb(number("sensitivity", self.sensitivity))
            top = math.floor(arb_to_fractions(sens)[1])
            square = arb_to_fractions(sens * sens)[1]
            moved = max(1, min(self.dimension, math.floor(square)))
            # the least distance t with d' 4 e^(-2 t^2/M) <= 2^-SLACK_BITS, as a float guess (the slack is
            # certified below whatever it comes out)
            t = math.sqrt(M * (SLACK_BITS * math.log(2) + math.log(4 * moved)) / 2)
            low = max(0, math.floor(Fraction(M, 2) + 1 - top - math.ceil(t)))
            half = Fraction(M, 2)

            def beyond(distance: Fraction) -> flint.arb:      # Hoeffding (M coins: M/4-sub-Gaussian), both sides
                return subgaussian_tail(distance, Fraction(M, 4)) if distance > 0 else flint.arb(1)

            per = beyond(half - low + 1 - top) + (beyond(half - low + 1) if low > 0 else 0)
            slack = (moved * per).min(flint.arb(1))
            tau = to_arb(Fraction(M - 1, 2) - low) / to_arb(Fraction(M + 1, 2))
            step = 2 * (tau.atanh() - tau)
            error = l1_from_l2(sens, self.dimension) * step
        return _Window(low=low, slack=arb_to_fractions(slack)[1], error=error)

    @property
    def slack(self) -> Fraction:
        return self.window.slack

    def rdp(self, order) -> flint.arb:
        q = as_order(order)
        w = self.window
        if w.slack >= 1:                    # the window holds nothing both worlds share: no bound
            return flint.arb("inf")
        with precision(_WINDOW_BITS):
            sens = to_arb(number("sensitivity", self.sensitivity))
            lead = to_arb(q) * 2 * sens * sens / (self.coins + 1)
            kept = -(1 - to_arb(w.slack)).log() / to_arb(q - 1)
            return lead + w.error + kept
