"""A DP-FTRL deployment sized: the word of the noiseless sum, the matrix mechanism's certified ε, its error.

Gboard trains with DP-FTRL: each round SecAgg sums the clients' clipped,
rounded updates, the server unmasks the **noiseless** sum and adds noise
correlated across rounds by a matrix mechanism (tree aggregation, banded
Toeplitz, BLT). So:

- **the word** carries no noise: the scale γ and the word are sized for the
  sum of the ``K`` rounded updates alone, with the flat plan's certified wrap
  bound (:func:`itsa.planning.scale.wrap_at` at noise 0: exactly 0 or no
  guarantee without a rotation, a sub-Gaussian tail after one). In a given
  word γ is the largest whose wrap meets the target; without one, the
  smallest power of two at which rounding inflates the update's ℓ2 bound by
  at most :data:`INFLATION`, then the fewest bits;
- **the noise**: ``z`` is the server's deviation over ``Δ_1`` (one client's
  rounded update's ℓ2 bound, :func:`itsa.planning.mechanism.sensitivity` at
  γ, in the data's units) on every released coordinate, so the release is
  the matrix mechanism of :mod:`itsa.privacy.matrix` exactly: its worst
  participation pattern is one Gaussian mechanism at ``μ = √Δ²/z``, its ε
  certified through the exact Gaussian curve (tree aggregation's by
  :func:`itsa.privacy.matrix.tree`, the same number as ``itsa privacy
  tree``), ``ε_RDP`` beside it, ``z`` calibrated for a target ε when the
  file gives none;
- **the error**: the prefix sums' noise at ``z``, and the factorization's
  error beside tree aggregation's at equal privacy.

Examples
--------
>>> from itsa.planning.flat import FlatInputs
>>> from itsa.planning.mechanism import NoiseInputs
>>> from itsa.planning.matrix.schema import parse_matrix
>>> from itsa.privacy.neighbours import Adjacency
>>> n = NoiseInputs(clients=100, dimension=10, clip=Fraction(1), adjacency=Adjacency.ADD_REMOVE,
...                 delta=Fraction(1, 10**6), rounds=16)
>>> m = size_matrix(FlatInputs(noise=n, word_bits=24), parse_matrix("tree", {"max_participations": 2,
...                 "min_separation": 3}, 5), deadline=Deadline(None))
>>> m.noise.sensitivity_squared.upper(), m.encoding.wrap_probability.decimal(), m.verdict.feasible
(Fraction(14, 1), '0', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.deadline import Deadline
from itsa._util.plain import frac
from itsa.planning.accounting import GaussianPair
from itsa.planning.encoding import EncodingPlan, gamma_candidates
from itsa.planning.flat import FlatInputs
from itsa.planning.matrix.schema import MatrixKind, MatrixMechanism
from itsa.planning.matrix.sections import MatrixErrorPlan, MatrixFrameworks, MatrixNoisePlan
from itsa.planning.mechanism import sensitivity
from itsa.planning.mechanisms import DEFAULT, Mechanism
from itsa.planning.rotation import rotated_dimension, rounded_sum
from itsa.planning.scale import largest_gamma, smallest_word_at, wrap_at
from itsa.planning.sections import PayloadPlan, Verdict
from itsa.planning.vocabulary import MAX_WORD_BITS, NoiseKind, Overflow
from itsa.privacy.matrix import toeplitz, tree, tree_mean_error
from itsa.privacy.matrix._accounting import matrix_epsilons, matrix_multiplier
from itsa.privacy.releasing import MAX_EPSILON

__all__ = ["MatrixParts", "size_matrix", "INFLATION"]

#: Without a word or a γ: the smallest power of two at which rounding to nearest inflates the update's ℓ2 bound
#: by at most this share (the server's noise is z times the inflated bound).
INFLATION = Fraction(1, 100)


@dataclass(frozen=True, kw_only=True)
class MatrixParts:
    """The sized sections of a DP-FTRL plan (the planner adds the keys and the gate)."""

    noise: MatrixNoisePlan
    encoding: EncodingPlan
    payload: PayloadPlan
    error: MatrixErrorPlan
    frameworks: MatrixFrameworks
    verdict: Verdict


def _upper(name: str, ball) -> Certified:
    return Certified.from_arb(name, ball, Direction.UPPER, "")


def _scale(f: FlatInputs, n, deadline: Deadline) -> tuple[Fraction, int, str]:
    """``(γ, word bits, how they were chosen)`` for the noiseless sum."""
    if f.gamma is not None:
        gamma, how = f.gamma, "given in the deployment file"
    elif f.word_bits is not None:
        found = largest_gamma(n, f.word_bits, Fraction(0), overflow=f.overflow, per_round=f.per_round,
                              deadline=deadline)
        gamma, how = ((1 / n.clip, "no scale meets the overflow target in this word: gamma S = 1") if found is None
                      else (found, "the largest scale (to 5 digits) whose certified wrap probability of the noiseless "
                                   "sum meets the overflow target: the finest rounding this word holds"))
    else:
        cands = gamma_candidates(n.clip, n.clients, None, deadline=deadline)
        gamma, how = cands[-1], "no power of two keeps the rounding's inflation small: the largest tried"
        for g in cands:
            deadline.check(f"plan: the scale gamma = {safe_decimal(g, 6)}")
            if _upper("s", sensitivity(n, g)).upper() <= (1 + INFLATION) * g * n.clip:
                gamma, how = g, (f"the smallest power of two at which rounding to nearest inflates the update's "
                                 f"l2 bound by at most {frac(INFLATION)} (no word given)")
                break
    if f.word_bits is not None:
        return gamma, f.word_bits, how + "; word: given in the deployment file"
    bits = smallest_word_at(n, gamma, Fraction(0), overflow=f.overflow, per_round=f.per_round, deadline=deadline)
    return (gamma, MAX_WORD_BITS if bits is None else bits,
            how + "; word: the fewest bits whose certified wrap probability of the noiseless sum meets the target")


def _worst(m: MatrixMechanism, rounds: int, target: Fraction | None, delta: Fraction, deadline: Deadline):
    """``(Δ², pattern, z, ε, ε_RDP, error per z² at equal privacy, the tree's, how z was chosen)``."""
    z = m.noise_multiplier
    if m.kind is MatrixKind.TREE:
        t = tree(max_participations=m.max_participations, min_separation=m.min_separation, rounds=rounds,
                 noise_multiplier=z, epsilon=None if z is not None else target, delta=delta,
                 time_limit=deadline.left())
        s = Certified.exact("sensitivity squared", t.sensitivity_squared,
                            "the exact worst case over participation patterns of sum over the nodes of (count)^2")
        err = tree_mean_error(rounds, t.sensitivity_squared)
        how = "given in the deployment file" if z is not None else str(t.noise_multiplier.method)
        return s, t.pattern, t.noise_multiplier, t.epsilon, t.epsilon_rdp, Certified.exact("e", err, ""), err, how
    r = toeplitz(m.coefficients, rounds=rounds, max_participations=m.max_participations,
                 min_separation=m.min_separation, output_scale=m.output_scale, buf_decay=m.buf_decay)
    s = r.sensitivity_squared
    if z is None:
        assert target is not None                   # the reader refuses neither z nor a target
        z_cert = matrix_multiplier(s, target, delta)
        how = str(z_cert.method)
    else:
        z_cert, how = Certified.exact("noise multiplier", z, "given"), "given in the deployment file"
    eps, rdp = matrix_epsilons(s, z_cert.upper(), delta)
    return s, r.pattern, z_cert, eps, rdp, r.mean_error, r.tree_mean_error, how


def size_matrix(f: FlatInputs, m: MatrixMechanism, *, deadline: Deadline, report=None) -> MatrixParts:
    """Size a DP-FTRL deployment's word, noise, error and frameworks section (see the module's notes).

    Parameters
    ----------
    f : FlatInputs
        The deployment's numbers (:func:`itsa.planning.planner.flat_inputs`): clients, dimension, clip,
        rotation, the target ε, δ, rounds ``T``; the file's word and scale; the overflow target.
    m : MatrixMechanism
        The mechanism, its schedule and ``z`` (``None``: calibrated for the target ε).
    deadline : Deadline
        The plan's clock.
    report : callable, optional
        The planner's reporter (stage, note).
    """
    n = replace(f.noise, kind=NoiseKind.CENTRAL, mechanism=Mechanism(DEFAULT), sigma=Fraction(0))   # noiseless
    if report is not None:
        report("matrix", note=f"{m.kind}: the worst participation pattern")
    s, pattern, z, eps, rdp, per_z2, tree_per_z2, how = _worst(m, n.rounds, n.epsilon, n.delta, deadline)
    gamma, bits, chosen = _scale(f, n, deadline)
    rs = rounded_sum(clients=n.clients, gamma=gamma, clip=n.clip, dimension=n.dimension, rotation=n.rotation,
                     rounding=n.rounding)
    d_rot = rotated_dimension(n.dimension, n.rotation)
    per = str(Overflow.ROUND if f.per_round else Overflow.COORDINATE)
    enc = EncodingPlan(gamma=gamma, word_bits=bits, data_range=math.ceil(rs.exact),
                       wrap_probability=wrap_at(n, bits, gamma, Fraction(0), per_round=f.per_round),
                       overflow_target=f.overflow, per=per, chosen=chosen, quantization_bound=1 / (2 * gamma),
                       rotation=str(n.rotation), rounding=str(n.rounding), rotated_dimension=d_rot)
    payload = PayloadPlan(bits_per_coordinate=Certified.exact("bits_per_coordinate", bits, "the word"),
                          dimension=d_rot, note="a flat word carrying the noiseless sum: the server adds the "
                                                "correlated noise after unmasking it")
    with precision():
        ball = sensitivity(n, gamma)
        clip_rounded = _upper("Delta_1", ball / to_arb(gamma))
        sigma = _upper("sigma", ball * to_arb(z.upper())).upper()
        mu = _upper("mu", to_arb(s.upper()).sqrt() / to_arb(z.upper())).upper()
    sigma = Fraction(safe_decimal(sigma, 8))
    z_hi = z.upper()
    noise = MatrixNoisePlan(mechanism=str(m.kind), rounds=n.rounds, max_participations=m.max_participations,
                            min_separation=m.min_separation, sensitivity_squared=s, pattern=pattern,
                            noise_multiplier=z, rho=s.upper() / (2 * z_hi * z_hi), epsilon=eps, epsilon_rdp=rdp,
                            delta=n.delta, target_epsilon=n.epsilon, clip_rounded=clip_rounded, sigma_client=sigma,
                            chosen=how)
    spread = per_z2.lower() / s.lower() if s.lower() > 0 else per_z2.upper() / s.upper()    # ||A C^-1||_F^2 / T
    noise_mse = Fraction(safe_decimal(z_hi * z_hi * clip_rounded.upper() ** 2 * spread, 12))     # rounded up
    error = MatrixErrorPlan(dimension=n.dimension, noise=noise_mse,
                            rounding_bound=n.clients / (2 * gamma), equal_privacy=per_z2,
                            tree_equal_privacy=tree_per_z2, mechanism=str(m.kind))
    pair = GaussianPair(mu=mu, slack=Fraction(0), rate=None, rounds=1, delta=n.delta, certifies=True,
                        method=str(eps.method))
    return MatrixParts(noise=noise, encoding=enc, payload=payload, error=error,
                       frameworks=MatrixFrameworks(pair=pair),
                       verdict=_verdict(f, n, noise, enc, s, deadline))


def _verdict(f: FlatInputs, n, noise: MatrixNoisePlan, enc: EncodingPlan, s: Certified, deadline: Deadline
             ) -> Verdict:
    reasons: list[str] = []
    fixes: dict = {}
    if noise.target_epsilon is not None and not noise.meets_target:
        z = matrix_multiplier(s, noise.target_epsilon, n.delta)
        reasons.append(f"eps <= {noise.epsilon.decimal()} is above the target {frac(noise.target_epsilon)}")
        fixes["noise_multiplier"] = {"noise_multiplier": frac(z.upper()), "text": f"z = {z.decimal(8)} is the "
                                     "smallest (to 6 digits, rounded up) meeting the target"}
    elif n.epsilon is None and noise.epsilon.upper() > MAX_EPSILON:
        reasons.append(f"no privacy target, and eps <= {noise.epsilon.decimal()} is above {MAX_EPSILON}, where a "
                       "guarantee says nothing (the noise is too small to be private)")
    if not enc.meets_target:
        reasons.append(f"the wrap probability {enc.wrap_probability.decimal()} per {enc.per} of the noiseless sum is "
                       f"above the overflow target {safe_decimal(f.overflow, 6)}")
        bits = smallest_word_at(n, enc.gamma, Fraction(0), overflow=f.overflow, per_round=f.per_round,
                                deadline=deadline)
        fixes["word_bits"] = {"word_bits": bits, "text": (f"a {bits}-bit word (at gamma {frac(enc.gamma)})" if bits
                                                          else f"no word up to {MAX_WORD_BITS} bits")}
    return Verdict(feasible=not reasons, reasons=tuple(reasons), fixes=fixes)
