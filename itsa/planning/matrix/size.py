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
  at most 1/100 (:data:`itsa.planning.flat.ROUNDING_INFLATION`), then the fewest bits
  (:func:`itsa.planning.flat.noiseless_word`);
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
>>> from itsa.planning.schedule import parse_matrix
>>> from itsa.privacy.neighbours import Adjacency
>>> n = NoiseInputs(clients=100, dimension=10, clip=Fraction(1), adjacency=Adjacency.ADD_REMOVE,
...                 delta=Fraction(1, 10**6), rounds=16)
>>> m = size_matrix(FlatInputs(noise=n, word_bits=24), parse_matrix("tree", {"max_participations": 2,
...                 "min_separation": 3}, 5), deadline=Deadline(None))
>>> m.noise.sensitivity_squared.upper(), m.word.encoding.wrap_probability.decimal(), m.reasons
(Fraction(14, 1), '0', ())
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, safe_decimal, to_arb
from itsa._util.deadline import Deadline
from itsa._util.plain import frac
from itsa.planning.flat import FlatInputs, NoiselessWord, noiseless_word
from itsa.planning.matrix.sections import MatrixErrorPlan, MatrixNoisePlan
from itsa.planning.schedule import MatrixKind, MatrixMechanism
from itsa.privacy.matrix import toeplitz, tree, tree_mean_error
from itsa.privacy.matrix._accounting import matrix_epsilons, matrix_multiplier
from itsa.privacy.releasing import MAX_EPSILON

__all__ = ["MatrixParts", "size_matrix"]


@dataclass(frozen=True, kw_only=True)
class MatrixParts:
    """The sized sections of a DP-FTRL plan, the noiseless sum's word (``word``), the reasons and fixes of its
    verdict, and ``mu``, the worst pattern's Gaussian ``√Δ²/z`` (the planner adds the keys, the gate and the
    frameworks' pair)."""

    noise: MatrixNoisePlan
    word: NoiselessWord
    error: MatrixErrorPlan
    mu: Fraction
    reasons: tuple[str, ...]
    fixes: dict


def _upper(name: str, ball) -> Certified:
    return Certified.from_arb(name, ball, Direction.UPPER, "")


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
    """Size a DP-FTRL deployment's word, noise and error (see the module's notes).

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
    n = f.noise
    if report is not None:
        report("matrix", note=f"{m.kind}: the worst participation pattern")
    s, pattern, z, eps, rdp, per_z2, tree_per_z2, how = _worst(m, n.rounds, n.epsilon, n.delta, deadline)
    word = noiseless_word(f, deadline, note="a flat word carrying the noiseless sum: the server adds the "
                                            "correlated noise after unmasking it")
    gamma = word.encoding.gamma
    with precision():
        clip_rounded = _upper("Delta_1", word.ball / to_arb(gamma))
        sigma = _upper("sigma", word.ball * to_arb(z.upper())).upper()
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
    reasons, fixes = _verdict(f, word, noise, s, deadline)
    return MatrixParts(noise=noise, word=word, error=error, mu=mu, reasons=reasons, fixes=fixes)


def _verdict(f: FlatInputs, word: NoiselessWord, noise: MatrixNoisePlan, s: Certified, deadline: Deadline
             ) -> tuple[tuple[str, ...], dict]:
    reasons: list[str] = []
    fixes: dict = {}
    if noise.target_epsilon is not None and not noise.meets_target:
        z = matrix_multiplier(s, noise.target_epsilon, noise.delta)
        reasons.append(f"eps <= {noise.epsilon.decimal()} is above the target {frac(noise.target_epsilon)}")
        fixes["noise_multiplier"] = {"noise_multiplier": frac(z.upper()), "text": f"z = {z.decimal(8)} is the "
                                     "smallest (to 6 digits, rounded up) meeting the target"}
    elif f.noise.epsilon is None and noise.epsilon.upper() > MAX_EPSILON:
        reasons.append(f"no privacy target, and eps <= {noise.epsilon.decimal()} is above {MAX_EPSILON}, where a "
                       "guarantee says nothing (the noise is too small to be private)")
    enc = word.encoding
    if not enc.meets_target:
        reasons.append(f"the wrap probability {enc.wrap_probability.decimal()} per {enc.per} of the noiseless sum is "
                       f"above the overflow target {safe_decimal(f.overflow, 6)}")
        fixes["word_bits"] = word.word_fix(f, deadline)
    return tuple(reasons), fixes
