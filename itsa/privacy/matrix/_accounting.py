"""DP-FTRL's tree aggregation accounted: the exact worst case, ρ exact, ε certified two ways, calibration.

Tree aggregation adds independent Gaussian noise of standard deviation ``z``
(times the clip) to every node of the forest (:mod:`._forest`). Zeroing one
client's clipped updates moves the vector of node sums by at most
``√(Σ_node c²)`` in ℓ2, ``c`` the client's rounds in the node, so the release
is the Gaussian mechanism at sensitivity ``Δ = √s``, ``s`` the worst case of
:func:`~._worst.worst_case`, and noise ``z``: exactly μ-GDP with
``μ = √s / z`` (the pair ``N(0, I)``, ``N(Δ/z, I)`` in the worst direction),
hence

- ``ρ = s / (2 z²)``-zCDP, exact (Bun and Steinke 2016, Lemma 2.4);
- ``ε`` at ``δ`` from the exact Gaussian privacy curve of that μ, certified
  (:func:`itsa.privacy.tight.gaussian_tight_epsilon` with ``T = s``: the
  curve of ``s`` compositions at ``z`` is the curve at ``μ = √s / z``);
- ``ε_RDP``: TF Privacy's route, the RDP curve ``ρ q`` converted at TF
  Privacy's orders by the Canonne-Kamath-Steinke conversion (its
  ``get_privacy_spent``), certified at the order it picks: the figure Google
  published for its Gboard model is checked by it.

Examples
--------
>>> r = tree(max_participations=6, min_separation=313, rounds=2000, noise_multiplier=7, delta="1e-10")
>>> r.sensitivity_squared, r.rho, r.epsilon_rdp.epsilon.decimal(3), r.epsilon.decimal(3)
(79, Fraction(79, 98), '8.9', '8.53')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.certified import Certified, Direction, exact_text, safe_decimal
from itsa._util.checks import conflict, fraction, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.privacy.accounting import Accountant
from itsa.privacy.conversion import Conversion, EpsilonBound, check_delta
from itsa.privacy.events import ZcdpEvent
from itsa.privacy.matrix._forest import Forest, check_restarts
from itsa.privacy.matrix._worst import Schedule, worst_case
from itsa.privacy.tight import gaussian_exact_multiplier, gaussian_tight_epsilon

__all__ = ["tree", "TreeAccounting", "TF_PRIVACY_ORDERS", "tree_epsilons", "check_schedule", "matrix_epsilons",
           "matrix_multiplier"]

#: The RDP orders TF Privacy's tree accounting and Google's Gboard notebook convert at: 1.1, 1.2, ..., 10.9, 12..63.
TF_PRIVACY_ORDERS = tuple([Fraction(10 + x, 10) for x in range(1, 100)] + [Fraction(q) for q in range(12, 64)])
#: Significant digits of a calibrated noise multiplier (rounded up, so it still meets the target).
Z_DIGITS = 6
#: What a sensitivity of the tree is, in words (every result says it).
MODEL = ("Gaussian noise z on every node of the forest of complete binary trees of T's binary decomposition "
         "(TF Privacy's layout; restarts start a new forest); neighbours: one client's contributions zeroed")


def check_schedule(max_participations, min_separation, per_epoch=None) -> Schedule:
    """The participation limits, checked (one line, exit 2 otherwise)."""
    whole_number("max participations", max_participations, minimum=1)
    whole_number("min separation", min_separation, minimum=0)
    if per_epoch is not None:
        whole_number("per epoch", per_epoch, minimum=1)
    return Schedule(max_participations, min_separation, per_epoch)


def _noise(noise_multiplier) -> Fraction:
    z = fraction("noise multiplier", noise_multiplier, low=0)
    return z


def tree_epsilons(sensitivity_squared: int, noise_multiplier: Fraction, delta: Fraction
                  ) -> tuple[Certified, EpsilonBound]:
    """``(ε, ε_RDP)`` of the Gaussian mechanism at squared sensitivity ``s`` and noise ``z``.

    ``ε`` encloses the exact Gaussian curve's at ``μ = √s / z``; ``ε_RDP`` converts ``ρ q`` at
    :data:`TF_PRIVACY_ORDERS` (CKS), an upper bound.
    """
    tight = gaussian_tight_epsilon(noise_multiplier, sensitivity_squared, delta)
    method = (f"exact Gaussian privacy curve at mu = sqrt({sensitivity_squared})/z (Balle-Wang 2018, Thm 8), "
              "bisection on balls: certified upper bound (the interval brackets the exact eps)")
    if "did NOT converge" in str(tight.method):
        method = f"{method}; {tight.method}"
    epsilon = Certified("epsilon", tight.low, tight.high, tight.direction, method)
    return epsilon, _rdp_epsilon(sensitivity_squared, noise_multiplier, delta)


#: Significant digits a fractional squared sensitivity is rounded to (outward) before the exact Gaussian curve.
S_DIGITS = 15


def _as_whole(sensitivity_squared: Fraction) -> tuple[int, int]:
    """``s = p/q`` as ``(p q, q)``: ``μ = √s/z = √(p q)/(q z)``, a whole count at multiplier ``q z``."""
    return sensitivity_squared.numerator * sensitivity_squared.denominator, sensitivity_squared.denominator


def matrix_epsilons(sensitivity_squared: Certified, noise_multiplier: Fraction, delta: Fraction
                    ) -> tuple[Certified, EpsilonBound]:
    """``(ε, ε_RDP)`` of a matrix mechanism's worst case: the Gaussian mechanism at ``μ = √Δ²/z``.

    A whole ``Δ²`` (tree aggregation's, exact) is :func:`tree_epsilons`; otherwise ``Δ²``'s enclosure is
    rounded outward to :data:`S_DIGITS` digits and the exact curve (a whole count ``p q`` at multiplier
    ``q z``, the same ``μ``) is solved at each end: the interval brackets the exact ε when ``Δ²`` is exact,
    and its upper end bounds it when ``Δ²`` is an upper bound. ``ε_RDP`` is TF Privacy's route at the upper end.

    >>> eps, rdp = matrix_epsilons(Certified.exact("s", Fraction(21, 8), ""), Fraction(3), Fraction(1, 10**6))
    >>> eps.decimal(4), rdp.epsilon.upper() >= eps.upper()
    ('2.454', True)
    """
    high = sensitivity_squared.upper()
    if sensitivity_squared.direction is Direction.EXACT and high.denominator == 1:
        return tree_epsilons(int(high), noise_multiplier, delta)
    up = fraction("s", safe_decimal(high, S_DIGITS))
    down = fraction("s", safe_decimal(sensitivity_squared.lower(), S_DIGITS, up=False))
    (count_up, q_up), (count_down, q_down) = _as_whole(up), _as_whole(down)
    top = gaussian_tight_epsilon(noise_multiplier * q_up, count_up, delta)
    bottom = gaussian_tight_epsilon(noise_multiplier * q_down, count_down, delta) if down > 0 else top
    exact = sensitivity_squared.direction in (Direction.EXACT, Direction.ENCLOSURE)
    method = (f"exact Gaussian privacy curve at mu = sqrt(Delta^2)/z (Balle-Wang 2018, Thm 8), Delta^2 rounded "
              f"outward to {S_DIGITS} digits, bisection on balls: certified upper bound"
              + (" (the interval brackets the exact eps)" if exact else
                 " (Delta^2 is an upper bound: so is eps; the lower end is at Delta^2's lower end)"))
    epsilon = Certified("epsilon", min(bottom.lower(), top.lower()), top.upper(), Direction.UPPER, method)
    return epsilon, _rdp_epsilon(up, noise_multiplier, delta)


def matrix_multiplier(sensitivity_squared: Certified, epsilon: Fraction, delta: Fraction) -> Certified:
    """The least ``z`` meeting ``epsilon`` on the exact Gaussian curve at ``μ = √Δ²/z`` (``Δ²``'s upper end,
    rounded up to :data:`S_DIGITS` digits), its shown value rounded up to :data:`Z_DIGITS` digits (it meets the
    target): tree aggregation's calibration, for any ``Δ²``.

    >>> matrix_multiplier(Certified.exact("s", Fraction(79), ""), Fraction(89, 10), Fraction(1, 10**10)).decimal(6)
    '6.73582'
    """
    high = sensitivity_squared.upper()
    up = high if high.denominator == 1 else fraction("s", safe_decimal(high, S_DIGITS))
    count, q = _as_whole(up)
    found = gaussian_exact_multiplier(epsilon, delta, count)
    low, top = found.lower() / q, found.upper() / q
    shown = fraction("noise multiplier", safe_decimal(top, Z_DIGITS))          # rounded up: still meets
    return Certified("noise multiplier", low, shown, Direction.UPPER,
                     f"the least z meeting eps = {safe_decimal(epsilon, 8)} on the exact Gaussian curve at mu = "
                     f"sqrt(Delta^2)/z, Delta^2 = {safe_decimal(up, 12)} (Balle-Wang 2018, Thm 8) lies in "
                     f"[{safe_decimal(low, 8, up=False)}, {safe_decimal(top, 8)}]; the value shown, rounded up, meets "
                     "the target")


def _rdp_epsilon(sensitivity_squared: int | Fraction, noise_multiplier: Fraction, delta: Fraction) -> EpsilonBound:
    """TF Privacy's Rényi route: ``ρ q`` with ``ρ = s/(2 z²)``, converted by CKS at :data:`TF_PRIVACY_ORDERS`."""
    rho = Fraction(sensitivity_squared) / (2 * noise_multiplier ** 2)
    event = ZcdpEvent(rho=rho, source=f"tree aggregation (worst pattern): Gaussian RDP q s/(2 z^2), "
                                  f"s = {sensitivity_squared} (Mironov 2017, Prop. 7)")
    return Accountant(conversion=Conversion.CKS).compose(event).bound(delta, orders=TF_PRIVACY_ORDERS)


def _rdp_multiplier(target: Fraction, delta: Fraction, sensitivity_squared: int) -> Certified:
    """The least ``z`` whose Rényi-route ε (:func:`_rdp_epsilon`, TF Privacy's orders) meets ``target``.

    That ε's certified upper end decreases in ``z``: bisection keeps ``hi`` meeting the target and ``lo`` not,
    until ``hi - lo <= hi 10^-9``; ``hi``, rounded up to :data:`Z_DIGITS` significant digits, is printed.
    """
    def meets(z: Fraction) -> bool:
        return _rdp_epsilon(sensitivity_squared, z, delta).epsilon.high <= target

    lo, hi = Fraction(0), Fraction(1)
    for _ in range(4096):
        if meets(hi):
            break
        lo, hi = hi, 2 * hi
    while hi - lo > hi / 10**9:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if meets(mid) else (mid, hi)
    shown = fraction("noise multiplier", safe_decimal(hi, Z_DIGITS))        # rounded up from hi: still meets
    return Certified("noise multiplier", lo, shown, Direction.UPPER,
                     f"the least z at which TF Privacy's route (CKS at its orders) meets eps = "
                     f"{safe_decimal(target, 8)} lies in [{safe_decimal(lo, 8, up=False)}, {safe_decimal(hi, 8)}]; "
                     "the value shown meets it")


@dataclass(frozen=True, kw_only=True, repr=False)
class TreeAccounting(Displayable):
    """Tree aggregation under a participation schedule: its exact worst case, ρ, ε (and z when calibrated).

    Parameters
    ----------
    rounds : int
        ``T``.
    restarts : tuple of int
        The tree lengths (one: no restart).
    max_participations, min_separation : int
        ``E`` and ``ξ``.
    per_epoch : int or None
        Most rounds of one client between two restarts.
    sensitivity_squared : int
        The exact worst ``Σ_node c²``.
    pattern : tuple of int
        Rounds (from 0) of a client attaining it.
    noise_multiplier : Certified
        ``z``: exact when given; when calibrated, an enclosure whose upper end meets the target.
    rho : Fraction
        ``s / (2 z²)``, exact (at the upper end of a calibrated ``z``).
    epsilon : Certified
        From the exact Gaussian curve: a certified upper bound.
    epsilon_rdp : EpsilonBound
        TF Privacy's Rényi route (CKS at its orders): a certified upper bound.
    delta : Fraction
        δ.
    target_epsilon : Fraction or None
        The target of a calibration.
    noise_multiplier_rdp : Certified or None
        A calibration's z by the Rényi route at TF Privacy's orders (the least z its eps meets the target at).
    """

    rounds: int
    restarts: tuple[int, ...]
    max_participations: int
    min_separation: int
    per_epoch: int | None
    sensitivity_squared: int
    pattern: tuple[int, ...]
    noise_multiplier: Certified
    rho: Fraction
    epsilon: Certified
    epsilon_rdp: EpsilonBound
    delta: Fraction
    target_epsilon: Fraction | None = None
    noise_multiplier_rdp: Certified | None = None

    def headline(self) -> str:
        return (f"s = {self.sensitivity_squared}, rho = {safe_decimal(self.rho, 4)}, eps <= {self.epsilon.decimal()} "
                f"(exact Gaussian curve), eps_rdp <= {self.epsilon_rdp.epsilon.decimal()} at delta = "
                f"{exact_text(self.delta)}")

    def rows(self) -> list[tuple[str, str]]:
        rows = [("rounds T", str(self.rounds) + (f" (restarts {list(self.restarts)})" if len(self.restarts) > 1 else "")),
                ("max participations E", str(self.max_participations)),
                ("min separation", f"{self.min_separation} rounds strictly between two participations"),
                ("sensitivity squared", f"{self.sensitivity_squared} (exact worst case over participation patterns)"),
                ("worst pattern", ", ".join(map(str, self.pattern)) + " (rounds from 0)"),
                ("noise multiplier z", f"{self.noise_multiplier.decimal(8)} ({self.noise_multiplier.direction})"),
                ("rho (zCDP)", f"{exact_text(self.rho)} = {safe_decimal(self.rho, 6)} (exact)"),
                ("epsilon", f"{self.epsilon.decimal(6)} (certified upper bound; exact Gaussian privacy curve)"),
                ("epsilon_rdp", f"{self.epsilon_rdp.epsilon.decimal(6)} (certified upper bound; RDP, CKS at "
                                "TF Privacy's orders, order " + safe_decimal(self.epsilon_rdp.order, 4) + ")"),
                ("delta", exact_text(self.delta))]
        if self.target_epsilon is not None:
            rows.insert(5, ("target epsilon", exact_text(self.target_epsilon)))
        if self.noise_multiplier_rdp is not None:
            rows.append(("z by the RDP route", f"{self.noise_multiplier_rdp.decimal(6)} "
                                                f"({self.noise_multiplier_rdp.direction})"))
        rows.append(("dp-accounting", f"SelfComposedDpEvent(GaussianDpEvent({self.noise_multiplier.decimal(8)}), "
                                       f"{self.sensitivity_squared}): the same Gaussian mechanism"))
        rows.append(("model", MODEL))
        return rows

    def dp_accounting(self) -> dict:
        """The mechanism as dp-accounting's event: ``s`` compositions of ``GaussianDpEvent(z)`` (``μ = √s / z``)."""
        return {"event": "SelfComposedDpEvent(GaussianDpEvent(noise_multiplier), count)",
                "noise_multiplier": self.noise_multiplier.decimal(17), "count": self.sensitivity_squared}

    def to_dict(self) -> dict:
        return {"rounds": self.rounds, "restarts": list(self.restarts),
                "max_participations": self.max_participations, "min_separation": self.min_separation,
                "per_epoch": self.per_epoch, "sensitivity_squared": self.sensitivity_squared,
                "pattern": list(self.pattern), "noise_multiplier": self.noise_multiplier.to_dict(),
                "rho": frac(self.rho), "rho_decimal": safe_decimal(self.rho, 6), "epsilon": self.epsilon.to_dict(),
                "epsilon_rdp": self.epsilon_rdp.to_dict(), "delta": frac(self.delta),
                "target_epsilon": frac(self.target_epsilon),
                "noise_multiplier_rdp": None if self.noise_multiplier_rdp is None else self.noise_multiplier_rdp.to_dict(),
                "dp_accounting": self.dp_accounting(), "model": MODEL}


def tree(*, max_participations: int, min_separation: int, rounds: int | None = None, noise_multiplier=None,
         epsilon=None, delta, restarts: Sequence[int] | None = None, per_epoch: int | None = None,
         time_limit: float | None = None) -> TreeAccounting:
    """Account (or calibrate) tree aggregation without restarts, or with ``restarts``, as DP-FTRL runs it.

    Parameters
    ----------
    max_participations : int
        ``E``: most rounds one client takes part in.
    min_separation : int
        ``ξ``: fewest rounds strictly between two of one client's (TF Privacy's ``min_separation``).
    rounds : int, optional
        ``T`` (with ``restarts``: their sum, may be left out).
    noise_multiplier, epsilon : number
        Exactly one: ``z`` (read exactly) to account, or a target ``ε`` to calibrate the least ``z`` for.
    delta : number
        ``δ`` in ``(0, 1)``, read exactly.
    restarts : sequence of int, optional
        The tree lengths between restarts (TF Privacy's ``steps_list``).
    per_epoch : int, optional
        Most rounds of one client between two restarts (TF Privacy's restart accounting takes 1).
    time_limit : float, optional
        Seconds for the worst case (``None`` or 0: none).

    Returns
    -------
    TreeAccounting

    Notes
    -----
    Kairouz et al., ICML 2021 (arXiv 2103.00039 v3), Appendix D; Balle and
    Wang 2018, Theorem 8; Canonne, Kamath, Steinke 2020, Proposition 12.
    Google's Gboard es-ES figures (noise 7, 2000 rounds, E = 6, ξ = 313,
    δ = 1e-10: ρ = 0.81, ε = 8.90) are reproduced in the tests.
    """
    schedule = check_schedule(max_participations, min_separation, per_epoch)
    total, segments = check_restarts(rounds, restarts)
    if per_epoch is not None and len(segments) == 1:
        raise InvalidOption("per epoch: limits the rounds between two restarts, and one tree has none (give "
                            "--restarts with two or more tree lengths, or --max-participations alone)")
    if (noise_multiplier is None) == (epsilon is None):
        raise conflict("--noise-multiplier", "--epsilon") if noise_multiplier is not None else InvalidOption(
            "give the noise multiplier to account, or a target epsilon to calibrate")
    d = check_delta(delta)
    target = None if epsilon is None else fraction("epsilon", epsilon, low=0)
    z = None if noise_multiplier is None else _noise(noise_multiplier)
    forest = Forest.of(total, None if len(segments) == 1 else segments)
    s, pattern = worst_case(forest, schedule.max_participations, schedule.min_separation, schedule.per_segment,
                            Deadline(time_limit))
    rdp_z = None
    if z is None:
        assert target is not None
        found = gaussian_exact_multiplier(target, d, s)
        z_used = fraction("noise multiplier", safe_decimal(found.upper(), Z_DIGITS))      # rounded up: still meets
        z_cert = Certified("noise multiplier", found.low, z_used, Direction.UPPER,
                           f"the least z meeting eps = {safe_decimal(target, 8)} on the exact Gaussian curve at mu = "
                           f"sqrt({s})/z (Balle-Wang 2018, Thm 8) lies in [{safe_decimal(found.low, 8, up=False)}, "
                           f"{safe_decimal(found.upper(), 8)}]; the value shown, rounded up, meets the target")
        rdp_z = _rdp_multiplier(target, d, s)
    else:
        z_used = z
        z_cert = Certified.exact("noise multiplier", z, "given")
    eps, rdp = tree_epsilons(s, z_used, d)
    return TreeAccounting(rounds=total, restarts=segments, max_participations=max_participations,
                          min_separation=min_separation, per_epoch=per_epoch, sensitivity_squared=s,
                          pattern=pattern, noise_multiplier=z_cert, rho=Fraction(s) / (2 * z_used ** 2),
                          epsilon=eps, epsilon_rdp=rdp, delta=d, target_epsilon=target, noise_multiplier_rdp=rdp_z)
