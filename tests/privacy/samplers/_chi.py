"""Pearson's chi-square of exact draws against a law's pmf: the samplers' tests' one copy."""

import numpy as np
from scipy.stats import chi2


def chi_square(draws, pmf, *, support: tuple[int, int] | None = None, floor: float = 20) -> float:
    """The p-value of Pearson's statistic of ``draws`` against ``pmf`` (a function of an int), bins with fewer
    than ``floor`` expected merged. Over ``support`` (every draw inside it), or else over the range drawn,
    which must hold nearly all the mass; the expected counts are then scaled to the draws'."""
    n = len(draws)
    values, counts = np.unique(draws, return_counts=True)
    observed = dict(zip(values.tolist(), counts.tolist()))
    lo, hi = support if support is not None else (int(values.min()), int(values.max()))
    expected, obs, acc_e, acc_o = [], [], 0.0, 0
    for k in range(lo, hi + 1):
        acc_e += pmf(k) * n
        acc_o += observed.pop(k, 0)
        if acc_e >= floor:
            expected.append(acc_e)
            obs.append(acc_o)
            acc_e, acc_o = 0.0, 0
    expected[-1] += acc_e
    obs[-1] += acc_o
    assert not observed, f"draws outside {lo}..{hi}"
    e, o = np.array(expected), np.array(obs)
    if support is None:
        assert abs(e.sum() / n - 1) < 1e-3             # the range drawn holds nearly all the mass
    e *= o.sum() / e.sum()
    return chi2.sf(float(((o - e) ** 2 / e).sum()), len(e) - 1)
