"""What a verification checks: the configurations of an instance, grouped, and the work they take.

Both engines of :func:`itsa.keys.schemes.verifier.verify` read a :class:`Plan`:
the configurations ``(k, m, n)`` grouped by ``n`` and ``S_m \\ T_n``, the
source dimension and the work an exhaustive enumeration would take.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

from itsa.keys.model.instance import Instance
from itsa.keys.schemes.scheme import Scheme

__all__ = ["Plan", "exact"]


def _sci(n: int) -> str:
    """``n`` in 3-digit scientific notation, also beyond the float range."""
    if n < 10**300:
        return f"{n:.3g}"
    e = len(str(n)) - 1
    return f"{int(str(n)[:3]) / 100:.3g}e+{e}"


def _pow_text(q: int, dim: int, times: int = 1) -> str:
    """``times · q^dim`` in scientific notation without computing a huge power."""
    log10 = dim * math.log10(q) + math.log10(times)
    e = math.floor(log10)
    return f"{10 ** (log10 - e):.3g}e+{e}"


class Plan:
    """The configurations to check, grouped by ``n`` and ``eff = S_m \\ T_n``."""

    def __init__(self, inst: Instance, sch: Scheme):
        self.inst, self.sch = inst, sch
        self.dim = inst.K * sch.L + sch.key_symbols
        # q^dim exactly only when it is small enough to matter (enumeration); else infinite
        small = self.dim * sch.field.bit_length() <= 1024
        exact = sch.field ** self.dim if small else None
        self.exact_samples: int | None = exact          # the engines that enumerate need this int
        self.samples: int | float = math.inf if exact is None else exact
        self.trivial = inst.U * sum(1 for s in inst.security_sets if s == 0) * inst.N
        # groups[n] = {eff: [m, ...]} over the m with S_m ≠ ∅
        self.groups: list[dict[int, list[int]]] = []
        for t in inst.collusion_sets:
            g: dict[int, list[int]] = {}
            for m, s in enumerate(inst.security_sets):
                if s:
                    g.setdefault(s & ~t, []).append(m)
            self.groups.append(g)
        n_eff = sum(len([e for e in g if e]) for g in self.groups)
        self.passes = inst.U + inst.N * (1 + inst.U) + n_eff * (1 + inst.U)
        self.work = self.samples * self.passes
        self.samples_text = _pow_text(sch.field, self.dim) if exact is None else _sci(exact)
        self.work_text = _pow_text(sch.field, self.dim, self.passes) if exact is None else _sci(exact * self.passes)
        self.n_configs = inst.U * sum(len(ms) for g in self.groups for ms in g.values())


@cache
def exact(v: int) -> tuple[Fraction, float]:
    return Fraction(v), float(v)
