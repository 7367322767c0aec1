"""The experiments' numbers that follow from the model under a stated reading: §IX-D's baseline wraps, Fig. 3's errors.

**The baseline's wraps** (§IX-D: "at ε = 6 its unprovisioned modulus wraps
(4.7·10³ carry events on MNIST, 5.3·10⁴ on CIFAR-10)"). The reading: ``K``
clients add the baseline's shares (the paper's distributed baseline, a
difference of Poissons) whose sum has variance ``σ²``; the baseline is "credited with its
leading Rényi term only", which is the Gaussian's of the same variance, so
``σ = z C/h`` lattice steps with ``z`` the per-round noise multiplier of a
Gaussian composed over the rounds to ``(ε, δ)`` (:func:`itsa.privacy.calibrate`,
CKS conversion, the one that reproduces §IX-D's flat totals); the data sum is
left out and the noise read as that Gaussian. A coordinate of a round wraps
when ``|N| > M/2``, so the expected count over ``T`` rounds and ``d``
coordinates is ``T d erfc(M/(2√2 σ))``, and a printed count fixes ``h``:
``h = z C √2 erfcinv(count/(T d)) / (M/2)``. Both are certified in ball
arithmetic (the model, not the baseline noise's own tail, is what they are exact for).

**Fig. 3b** splits the mean's error into its quantization part, the
per-client error over ``a²K`` (eq. 42), and the noise of the authorized
stages. The quantization part's ratio between two depths is then the ratio of
the per-client errors, which Fig. 3a prints.

Examples
--------
>>> quantization_part(Fraction(214, 1000), Fraction(528, 10), Fraction(1, 12))
Fraction(107, 316800)
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.certified import Certified, Direction, precision, to_arb
from itsa._util.checks import fraction, whole_number
from itsa.modular._certify import enclose

__all__ = ["baseline_multiplier", "expected_wraps", "step_for_wraps", "quantization_part", "recalibrated_noise",
           "EXPERIMENT"]

#: §IX-D's federated setting: clients, rounds, δ, clip norm, and the model dimension of each dataset.
EXPERIMENT: dict = {"clients": 1000, "rounds": 150, "delta": Fraction(1, 10 ** 6), "clip": Fraction(1),
              "dimension": {"MNIST": 1290, "CIFAR-10": 3850}}
WRAPS = ("T d erfc(M/(2√2 σ)), σ = z C/h, z the per-round Gaussian multiplier at (ε, δ) over T rounds (CKS); "
         "ball arithmetic (python-flint arb)")


def baseline_multiplier(epsilon=6, rounds: int = 150, delta=Fraction(1, 10 ** 6)) -> Certified:
    """``z``: the per-round noise multiplier whose ``rounds``-fold Gaussian composition is ``(ε, δ)`` (upper bound)."""
    from itsa.privacy import calibrate

    return calibrate(fraction("epsilon", epsilon, low=0), fraction("delta", delta, low=0, high=1),
                     rounds=whole_number("rounds", rounds, minimum=1), conversion="cks").noise_multiplier


def _sigma(z: Certified, step: Fraction, clip: Fraction):
    return to_arb(z.high) * to_arb(clip) / to_arb(step)


def expected_wraps(*, dimension: int, step, modulus: int, rounds: int = 150, epsilon=6,
                   delta=Fraction(1, 10 ** 6), clip=1) -> Certified:
    """``T d erfc(M/(2√2 σ))``: the expected wrapped coordinates of the run (the module's reading).

    Parameters
    ----------
    dimension, modulus, rounds : int
        ``d``, ``M`` (lattice steps) and ``T``.
    step : Fraction or str
        The lattice step ``h`` (the unprinted one).
    epsilon, delta : Fraction or str
        The run's ``(ε, δ)``.
    clip : Fraction or str
        ``C``.
    """
    d = whole_number("dimension", dimension, minimum=1)
    m = whole_number("modulus", modulus, minimum=2)
    t = whole_number("rounds", rounds, minimum=1)
    h = fraction("step h", step, low=0)
    c = fraction("clip", clip, low=0)
    z = baseline_multiplier(epsilon, t, delta)
    with precision():
        sigma = _sigma(z, h, c)
        return enclose("expected wraps", t * d * (to_arb(m) / (2 * to_arb(2).sqrt() * sigma)).erfc(),
                       Direction.ENCLOSURE, WRAPS)


def step_for_wraps(count, *, dimension: int, modulus: int, rounds: int = 150, epsilon=6,
                   delta=Fraction(1, 10 ** 6), clip=1) -> Certified:
    """The step ``h`` at which the expected count is ``count`` (the inverse of :func:`expected_wraps`).

    Parameters
    ----------
    count : Fraction or str
        Wrapped coordinates over the run, below ``T d``.
    dimension, modulus, rounds, epsilon, delta, clip
        As for :func:`expected_wraps`.
    """
    d = whole_number("dimension", dimension, minimum=1)
    m = whole_number("modulus", modulus, minimum=2)
    t = whole_number("rounds", rounds, minimum=1)
    n = fraction("count", count, low=0, high=t * d)
    c = fraction("clip", clip, low=0)
    z = baseline_multiplier(epsilon, t, delta)
    with precision():
        root = (to_arb(n / (t * d))).erfcinv()
        return enclose("step h", to_arb(z.high) * to_arb(c) * to_arb(2).sqrt() * root * 2 / m, Direction.ENCLOSURE,
                       "h = z C √2 erfcinv(count/(T d))/(M/2), ball arithmetic (python-flint arb)")


def quantization_part(anchor, anchor_error, error) -> Fraction:
    """The quantization part at another depth: ``anchor · error/anchor_error`` (eq. 42: it is ``E‖E_k‖²/(a²K)``).

    Parameters
    ----------
    anchor : Fraction
        The quantization part printed at one depth (0.214 at ``ℓ0 = 4``).
    anchor_error, error : Fraction
        The per-client errors at that depth and at the other one.
    """
    return Fraction(anchor) * Fraction(error) / Fraction(anchor_error)


def recalibrated_noise(noise, sensitivities, authorized: int, anchor_authorized: int = 1) -> Fraction:
    """The noise part with ``authorized`` layers, from its value with ``anchor_authorized`` (Prop. 3's allocation).

    At a common ε the Cauchy–Schwarz allocation ``s_ℓ² ∝ D_ℓ`` needs a total
    variance proportional to ``(Σ D_ℓ)²`` over the authorized layers (eq. 32–34),
    so the noise part scales by that square.

    Parameters
    ----------
    noise : Fraction
        The noise part with ``anchor_authorized`` layers.
    sensitivities : sequence of Fraction
        ``D_ℓ``, coarsest first.
    authorized : int
        How many of the coarsest layers are authorized.
    anchor_authorized : int
        How many were at the anchor.

    >>> recalibrated_noise(1, [54, 18, 6, 2], 4)
    Fraction(1600, 729)
    """
    top = sum((Fraction(x) for x in sensitivities[:authorized]), Fraction(0))
    base = sum((Fraction(x) for x in sensitivities[:anchor_authorized]), Fraction(0))
    return Fraction(noise) * (top / base) ** 2
