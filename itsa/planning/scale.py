"""The scale γ of a flat plan, chosen for the error, and the word's certified wrap bound at any rotation.

The released mean's error (:func:`mse_total`) falls as γ grows: its rounding
part as ``1/γ²``, its noise part as ``(Δ(γ)/γ)²`` with the noise multiplier
``z = σ_agg/Δ`` all but fixed by the target ε (the sensitivity's rounding
term ``√d'/2`` weighs less at a finer scale). So:

- **in a given word**, the smallest error is at the largest γ whose certified
  wrap probability meets the overflow target (the wrap bound only grows with
  γ); γ need not be a power of two: it is found by bisection (with the noise
  estimated from a multiplier, ``σ(γ) = z Δ(γ)``, which costs no accountant
  call), rounded down to :data:`DIGITS` significant digits, and then checked
  with the noise calibrated there (a new estimate from it when the check
  fails);
- **without a word**, the smallest power of two γ whose estimated error is
  within :data:`ERROR_SHARE` of the error at an unbounded scale, ``d (z c S/n)²``
  (never γ = 1 by default), and then the fewest bits whose wrap bound meets
  the target.

The wrap bound itself (:func:`wrap_at`) is :mod:`itsa.planning.rotation`'s, its tail
:func:`itsa.privacy.tails.certified_tail`:
the encoded sum's sure part and sub-Gaussian part, and the noise of all ``K``
clients' shares (split by the mechanism into a sub-Gaussian and a
Poisson-type part, :meth:`~itsa.planning.mechanisms.NoiseMechanism.wrap_noise`).

Examples
--------
>>> from itsa.planning.mechanism import NoiseInputs
>>> d = NoiseInputs(clients=100, dimension=1000, clip=Fraction(1), epsilon=Fraction(2), rotation=Rotation.DFT,
...                 rounding=Rounding.STOCHASTIC)
>>> g = largest_gamma(d, 24, Fraction(10), overflow=Fraction(1, 10**6), per_round=True)
>>> wrap_at(d, 24, g, sigma_estimate(d, g, Fraction(10)), per_round=True).upper() <= Fraction(1, 10**6)
True

Every function here takes the numbers it needs (a
:class:`~itsa.planning.mechanism.NoiseInputs`, the overflow target and
whether it is per round), never the deployment.
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption
from itsa.planning.encoding import data_bound, wrap_probability
from itsa.planning.mechanism import NoiseInputs, estimate_sensitivity, room_of
from itsa.planning.rotation import Rotation, quantization_mse_total, rounded_sum
from itsa.planning.vocabulary import MAX_WORD_BITS, NoiseKind
from itsa.privacy.neighbours import Adjacency, Rounding
from itsa.privacy.shares import noise_shares
from itsa.privacy.tails import certified_tail

__all__ = ["wrap_at", "smallest_word_at", "largest_gamma", "sigma_estimate", "mse_parts", "coarsest_accurate",
           "multiplier_of", "DIGITS", "ERROR_SHARE"]

#: Significant digits of a γ found by bisection (rounded down).
DIGITS = 5
#: Without a word: γ's error within this share of the error at an unbounded scale.
ERROR_SHARE = Fraction(1, 100)
#: Bisection steps on γ (a relative width of about 2^-40).
STEPS = 60
#: Most doublings of γ tried.
MAX_DOUBLINGS = 300


def _classic(d: NoiseInputs) -> bool:
    """No rotation, rounding to nearest, a mechanism the original bound takes: the plan's original wrap bound."""
    return d.rotation is Rotation.NONE and d.rounding is Rounding.NEAREST and room_of(d).classic_wrap


def wrap_at(d: NoiseInputs, bits: int, gamma: Fraction, sigma: Fraction, *, per_round: bool) -> Certified:
    """Certified probability that the round's sum (``per_round``, else one coordinate) wraps a ``bits``-bit
    word at scale ``γ`` and share ``σ`` (an upper bound); over a Poisson cohort, for its largest count ``k_hi``
    of words and shares, plus the probability that the count is above it."""
    found = _wrap_at(d, bits, gamma, sigma, per_round=per_round)
    if d.cohort is None or not d.cohort.above:
        return found
    above = d.cohort.above
    return Certified(found.name, found.low, min(Fraction(1), found.high + above), Direction.UPPER,
                     f"{found.method}; plus P(count > {d.cohort.high}) <= {safe_decimal(above, 3)} (the Poisson "
                     "cohort's count past the words summed, an exact binomial tail)")


def _wrap_at(d: NoiseInputs, bits: int, gamma: Fraction, sigma: Fraction, *, per_round: bool) -> Certified:
    shares = noise_shares(d.clients, d.dropout, distributed=d.kind is NoiseKind.DISTRIBUTED).wrap
    if _classic(d):
        return wrap_probability(word_bits=bits, clients=d.clients, bound=data_bound(d.clients, gamma, d.clip),
                                sigma=sigma, shares=shares, coordinates=d.dimension if per_round else 1)
    rs = rounded_sum(clients=d.clients, gamma=gamma, clip=d.clip, dimension=d.dimension,
                     rotation=d.rotation, rounding=d.rounding)
    room = room_of(d)
    largest = room.largest_share(sigma)
    if rs.proxy == 0 and largest is not None and rs.exact + shares * largest < 2 ** (bits - 1):
        how = room.wrap_how(distributed=d.kind is NoiseKind.DISTRIBUTED)
        return Certified.exact("wrap_probability", 0, f"{rs.how}; {how}; the "
                               f"word holds every value the sum can take (|sum| <= {rs.exact} + {shares} x "
                               f"{largest}): never wraps")
    proxy, poisson = room.wrap_noise(sigma, shares)
    bound = certified_tail(room=2 ** (bits - 1) - rs.exact, proxy=rs.proxy + proxy, poisson=poisson,
                           coordinates=rs.coordinates if per_round else 1)
    noise_how = room.wrap_how(distributed=d.kind is NoiseKind.DISTRIBUTED)
    return Certified(bound.name, bound.low, bound.high, bound.direction, f"{rs.how}; {noise_how}; {bound.method}")


def smallest_word_at(d: NoiseInputs, gamma: Fraction, sigma: Fraction, *, overflow: Fraction, per_round: bool,
                     deadline: Deadline | None = None) -> int | None:
    """The fewest bits whose wrap bound meets the ``overflow`` target at ``γ`` and ``σ`` (``None``: no word up to
    :data:`~itsa.planning.deployment.MAX_WORD_BITS`)."""
    for bits in range(2, MAX_WORD_BITS + 1):
        if deadline is not None:
            deadline.check(f"the smallest word, {bits} bits")
        if wrap_at(d, bits, gamma, sigma, per_round=per_round).upper() <= overflow:
            return bits
    return None


def _upper(ball) -> Fraction:
    return Certified.from_arb("x", ball, Direction.UPPER, "").upper()


def multiplier_of(d: NoiseInputs, gamma: Fraction, sigma: Fraction) -> Fraction:
    """``z = σ_agg/Δ`` at γ (rounded up): the noise multiplier a share ``σ`` gives (the estimate's input)."""
    with precision():
        fewest = noise_shares(d.clients, d.dropout, distributed=d.kind is NoiseKind.DISTRIBUTED).privacy
        agg = to_arb(sigma) * to_arb(fewest).sqrt()
        return _upper(agg / estimate_sensitivity(d, gamma))


def sigma_estimate(d: NoiseInputs, gamma: Fraction, z: Fraction) -> Fraction:
    """The share ``σ`` giving multiplier ``z`` at γ (``z Δ(γ)``, per share), rounded up to 8 digits."""
    if d.sigma is not None:
        return d.sigma
    with precision():
        fewest = noise_shares(d.clients, d.dropout, distributed=d.kind is NoiseKind.DISTRIBUTED).privacy
        share = to_arb(z) * estimate_sensitivity(d, gamma) / to_arb(fewest).sqrt()
    return Fraction(safe_decimal(max(_upper(share), Fraction(1, 2)), 8, up=True))


def largest_gamma(d: NoiseInputs, bits: int, z: Fraction, *, overflow: Fraction, per_round: bool,
                  deadline: Deadline | None = None, fits=None) -> Fraction | None:
    """The largest γ (to :data:`DIGITS` digits, rounded down) whose wrap bound meets ``overflow`` at the noise
    estimated from ``z`` (and ``fits(γ)``, when given), from ``γ S = 1`` up; ``None`` when even that misses."""
    def ok(gamma: Fraction) -> bool:
        if deadline is not None:
            deadline.check(f"plan: the scale gamma = {safe_decimal(gamma, 6)}")
        if wrap_at(d, bits, gamma, sigma_estimate(d, gamma, z), per_round=per_round).upper() > overflow:
            return False
        return fits is None or fits(gamma)

    low = 1 / d.clip
    if not ok(low):
        return None
    high = 2 * low
    for _ in range(MAX_DOUBLINGS):
        if not ok(high):
            break
        low, high = high, 2 * high
    else:
        return low
    for _ in range(STEPS):
        mid = (low + high) / 2
        if ok(mid):
            low = mid
        else:
            high = mid
        if high - low <= low / 10**(DIGITS + 2):
            break
    rounded = Fraction(safe_decimal(low, DIGITS, up=False))
    return rounded if rounded >= 1 / d.clip else low


def mse_parts(d: NoiseInputs, gamma: Fraction, sigma: Fraction) -> tuple[Fraction, Fraction]:
    """``(rounding, noise)``: the released mean's mean-square error summed over the ``d`` coordinates (exact
    upper bounds, for a round that does not wrap), for the fewest survivors ``n``.

    The noise's variance per coordinate is at most the mechanism's bound on a share's (``σ²`` for a
    mechanism whose premise says so), ``v``: ``v/(γ² n)`` distributed and ``v/(γ n)²`` central; inverse
    rotation keeps the total (:mod:`itsa.planning.rotation`). A biased mechanism is refused (one line).
    """
    n, e = d.survivors, d
    quant = quantization_mse_total(gamma=gamma, dimension=d.dimension, rotation=e.rotation, rounding=e.rounding,
                                   survivors=n, beta=e.beta)
    room = room_of(d)
    if not room.premises.unbiased:
        raise InvalidOption(f"mechanism {room.name}: a biased share's error is not bounded here")
    share = room.variance_bound(sigma)
    noise = share / (gamma * gamma * n) if d.kind is NoiseKind.DISTRIBUTED else share / (gamma * n) ** 2
    return quant, d.dimension * noise


def coarsest_accurate(d: NoiseInputs, z: Fraction, deadline: Deadline | None = None) -> tuple[Fraction, str]:
    """Without a word: the smallest power of two γ (``γ S ≥ 1``) whose error, at the noise estimated from
    ``z``, is within :data:`ERROR_SHARE` of ``d (z c S/n)²``, the error at an unbounded scale."""
    c = 2 if d.adjacency is Adjacency.REPLACE_ONE else 1
    floor = d.dimension * (z * c * d.clip / d.survivors) ** 2
    gamma = Fraction(1)
    while gamma * d.clip >= 2:
        gamma /= 2
    while gamma * d.clip < 1:
        gamma *= 2
    for _ in range(MAX_DOUBLINGS):
        if deadline is not None:
            deadline.check(f"plan: the scale gamma = {safe_decimal(gamma, 6)}")
        if sum(mse_parts(d, gamma, sigma_estimate(d, gamma, z))) <= (1 + ERROR_SHARE) * floor:
            return gamma, (f"the smallest power of two whose error is within {ERROR_SHARE} of the error at an "
                           "unbounded scale (no word given)")
        gamma *= 2
    return gamma, "no power of two brings the error near its unbounded-scale value: the largest tried"
