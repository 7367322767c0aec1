"""Benchmark itsa.modular: the exact staircase, certified margins at deployment scale, exhaustive Fig. 1b counts.

Run:  python benchmarks/bench_modular.py [--smoke]

Each speed is a ratio against a baseline measured in the same run:

(a) the exact staircase of Fig. 1a (K = 8, 16, …, 4096): fmpz_poly powers
    against schoolbook convolution in Python integers (up to K = 512);
(b) the smallest margin at K = 10⁶ (and 10⁷) by certified fixed-point bounds,
    against the exact method at the largest K both run (where they must agree);
(c) Assumption 1 over the 6,561 points of the A2 chain (ρ = 3, L = 4):
    vectorised enumeration against a scalar Python loop.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from itsa.modular import digits, margins, parse_clients, smallest_margin  # noqa: E402

TARGET = Fraction(1, 1000)


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def schoolbook_margin(k: int) -> int:
    """Baseline: the K-fold convolution of (1, 1, 1) in Python ints, then the same margin search."""
    counts = [1]
    for _ in range(k):
        nxt = [0] * (len(counts) + 2)
        for i, c in enumerate(counts):
            nxt[i] += c
            nxt[i + 1] += c
            nxt[i + 2] += c
        counts = nxt
    total, m = 3 ** k, 0
    while True:
        half = (3 ** (m + 1) - 1) // 2
        inside = sum(counts[max(0, k - half): k + half + 1])
        if Fraction(total - inside, total) <= TARGET:
            return m
        m += 1


def scalar_a2_violations(layers: int) -> list[int]:
    """Baseline: Assumption 1 on the A2 chain with one point at a time in Python."""
    def quantize(a, b, s):
        i0, j0 = a // s, b // s
        best = None
        for i, j in ((i0, j0), (i0, j0 + 1), (i0 + 1, j0), (i0 + 1, j0 + 1)):
            u, v = a - s * i, b - s * j
            n = u * u + u * v + v * v
            if best is None or n < best[0]:
                best = (n, s * i, s * j)
        return best[1], best[2]

    top = 3 ** layers
    out = [0] * layers
    for a in range(top):
        for b in range(top):
            qa, qb = quantize(a, b, top)
            x = (a - qa, b - qb)
            q = [quantize(*x, 3 ** i) for i in range(layers + 1)]
            for ell in range(1, layers + 1):
                sym = (q[ell - 1][0] - q[ell][0], q[ell - 1][1] - q[ell][1])
                if quantize(*sym, 3 ** ell) != (0, 0):
                    out[ell - 1] += 1
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny inputs, a few seconds")
    args = parser.parse_args(argv)

    ks = parse_clients("8..256x2" if args.smoke else "8..4096x2")
    st, t_fast = timed(margins, ks, carry=TARGET, arithmetic="exact")
    base_ks = [k for k in ks if k <= (64 if args.smoke else 512)]
    base, t_base = timed(lambda: [schoolbook_margin(k) for k in base_ks])
    fast_part, t_fast_part = timed(margins, base_ks, carry=TARGET, arithmetic="exact")
    assert base == [r.margin for r in fast_part.margins]
    print(f"(a) exact staircase K = {ks[0]}..{ks[-1]} ({len(ks)} K): {t_fast:.3f} s, slope {st.slope.decimal(4)}")
    print(f"    on K <= {base_ks[-1]}: fmpz_poly {t_fast_part:.4f} s, schoolbook {t_base:.3f} s, "
          f"ratio {t_base / max(t_fast_part, 1e-9):.0f}x")

    both = 2000 if args.smoke else 20_000
    exact, t_exact = timed(smallest_margin, both, arithmetic="exact")
    cert, t_cert = timed(smallest_margin, both, arithmetic="certified")
    p, q = cert.carry_probability, exact.carry_probability
    assert exact.margin == cert.margin and p.low <= q.high <= p.high
    print(f"(b) K = {both}: exact {t_exact:.3f} s, certified {t_cert:.3f} s, ratio "
          f"{t_exact / max(t_cert, 1e-9):.1f}x, margin {exact.margin} both")
    for big in ([10**5] if args.smoke else [10**6, 10**7]):
        m, t = timed(smallest_margin, big)
        print(f"    K = {big}: margin {m.margin} in {t:.2f} s ({t / max(t_cert, 1e-9):.1f}x the certified K = {both}); "
              f"{m.carry_probability.headline()}")

    layers = 3 if args.smoke else 4
    c, t_vec = timed(digits, "a2", 3, layers)
    ref, t_ref = timed(scalar_a2_violations, layers)
    assert ref == [r.violations for r in c.counts]
    print(f"(c) A2 chain, {c.points} points: vectorised {t_vec:.4f} s, scalar {t_ref:.3f} s, "
          f"ratio {t_ref / max(t_vec, 1e-9):.0f}x, violations {ref}")


if __name__ == "__main__":
    main()
