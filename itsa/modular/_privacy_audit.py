"""The audit's privacy checks (§VII, §IX-B, §IX-D), every number from :mod:`itsa.privacy`.

Examples
--------
>>> [c.key for c in checks()][:2]
['tau-one-half', 'prop3-neutral']
"""

from __future__ import annotations

from fractions import Fraction

from itsa._util.certified import safe_decimal
from itsa.modular._certify import enclose, interval
from itsa.modular._printed import Check, Status, nearest
from itsa.modular._privacy import fill_leading_ratio, leading_ratio

__all__ = ["checks", "privacy_checks"]

#: Fig. 2a's printed values and the grid index k of the fill Γ = 10^(-k/10) that gives each.
FIG2A = ((0, "0.975"), (4, "3.26"), (5, "1.03"), (9, "3.18"), (10, "0.97"), (14, "2.62"), (15, "0.61"))
#: §IX-D: the flat totals for R = 1..4 at δ = 10^-6, one execution calibrated to ε = 2.00.
FLAT_TOTALS = ("2.00", "2.92", "3.65", "4.29")


def _tau() -> Check:
    from itsa.privacy import psa_tau

    tau = enclose("τ", psa_tau(1000, Fraction(1, 2)))
    return Check("tau-one-half", "§VII-B, eq. 30", "an 'exponentially small correction' (s̃ >= 1/2)",
                 f"τ = {interval(tau)} at K_eff = 1000, s̃ = 1/2 (certified, itsa.privacy.psa_tau)", Status.DISAGREES,
                 f"at the smallest admitted s̃ the correction τ is above {safe_decimal(tau.low, 3, up=False)}, so q τ d dwarfs the "
                 "leading term of eq. 31 for any realistic d; it is small only for s̃ well above 1/2",
                 "itsa modular privacy --survivors 1000 --scaled-scale 1/2 --dimension 1")


def _neutral() -> Check:
    full = leading_ratio([2 * 3 ** (ell - 1) for ell in range(1, 5)], 3 ** 4 - 1)
    return Check("prop3-neutral", "§VII-C, Prop. 3", "exactly 1 for the full-range integer block (eq. 35-36)",
                 f"{full} (exact, from itsa.privacy's leading terms)", Status.REPRODUCED,
                 "Σ D_ℓ = h(ρ^L − 1)√d = D_flat", "itsa modular audit")


def _fig2a() -> Check:
    values = [(printed, enclose("leading ratio", fill_leading_ratio(k))) for k, printed in FIG2A]
    shown = ", ".join(interval(b, 5) for _, b in values)
    near = [nearest(b, len(p.split(".")[1])) for p, b in values]
    printed = [p for p, _ in values]
    misses = [f"{p} (nearest {n})" for p, n in zip(printed, near) if p != n]
    return Check("fig2a-ratios", "§IX-B, Fig. 2a", "0.975 at full fill; peaks 3.26, 3.18, 2.62; drops 1.03, 0.97, 0.61",
                 f"{shown} at Γ = 10^(-k/10), k = {', '.join(str(k) for k, _ in FIG2A)} (certified)", Status.READING,
                 "flat sensitivity Γρ^L, an active layer's min((ρ−1)ρ^(ℓ−1), Γρ^L) (itsa.modular.fill_sensitivities); full fill "
                 "is (80/81)², not Prop. 3's 1, because the flat sensitivity is ρ^L there; decimals off by one unit "
                 f"under rounding to nearest: {', '.join(misses) or 'none'}", "itsa modular audit")


def _flat_totals() -> Check:
    from itsa.privacy import Accountant, GaussianEvent, calibrate

    rows = []
    for conversion in ("cks", "mironov"):
        cal = calibrate(2, Fraction(1, 10**6), conversion=conversion)
        z = cal.noise_multiplier.upper()
        totals = [Accountant(conversion=conversion).compose(GaussianEvent(z), r).bound(Fraction(1, 10**6)).epsilon
                  for r in (1, 2, 3, 4)]
        rows.append((conversion, totals))
    found = [c for c, t in rows if [nearest(x, 2) for x in t] == list(FLAT_TOTALS)]
    text = "; ".join(f"{c}: {', '.join(x.decimal(5) for x in t)} (certified upper bounds)" for c, t in rows)
    status = Status.READING if found else Status.UNDETERMINED
    reading = (f"R identical executions, each a Gaussian calibrated to ε = 2.00 at δ = 10^-6, composed in RDP and "
               f"converted by {found[0]}; the printed decimals are rounded to nearest (rounded up, as upper bounds "
               f"should be, they read 2.93, 3.66, 4.30)" if found else
               "R identical Gaussian executions calibrated to ε = 2.00 do not give the printed totals under either "
               "conversion; the executions' own calibration is not stated")
    return Check("flat-totals", "§IX-D", "ε = 2.00, 2.92, 3.65, 4.29 for R = 1..4 (flat), 2.00 (PSA)", text,
                 status, reading, "itsa modular audit")


def checks() -> list[Check]:
    """Every privacy check (see the module docstring)."""
    return [_tau(), _neutral(), _fig2a(), _flat_totals()]


def privacy_checks() -> list[Check]:
    """The §VII and §IX-D privacy values: τ at ``s̃ = 1/2``, Fig. 2a's ratios, §IX-D's flat ε totals."""
    try:
        import itsa.privacy  # noqa: F401
    except ImportError:
        return [Check("privacy", "§VII, §IX-D", "τ at s̃ = 1/2; ε = 2.00 against 2.00, 2.92, 3.65, 4.29",
                      "not computed", Status.DEFERRED, "needs itsa.privacy's accountant", "itsa modular audit")]
    return checks()
