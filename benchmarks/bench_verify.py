"""Benchmark of the verification engines.

Run ``python benchmarks/bench_verify.py`` (add ``--stretch`` for the exhaustive
enumeration of Example 1 over F_7, 7^9 source values, about a minute; ``--smoke``
for both engines on Example 1 over F_3 only).

It times the rank engine with the FLINT backend (``nmod_mat``) against the
same algorithm with one ``galois`` ``np.linalg.matrix_rank`` call per rank, on

- Example 2 of the paper with its printed scheme (3 x 8 x 28 configurations);
- a generated instance with thousands of configurations and a random linear
  scheme with ``ΣZ = 0`` (secure or not: the full check is timed either way);

and the enumeration engine on Example 1 over F_3 and F_5.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from itsa.keys.model.instance import Instance  # noqa: E402
from itsa.keys.model.io import load_instance  # noqa: E402
from itsa.keys.schemes.scheme import Scheme, load_scheme  # noqa: E402
from itsa.keys.schemes.verifier import verify  # noqa: E402


def generated(seed: int = 1, servers=(4, 4, 3, 3), M: int = 12, N: int = 150,
              q: int = 101, L: int = 2, d: int = 8) -> tuple[Instance, Scheme]:
    """A random instance (``U·M·N`` configurations) and a random linear scheme, ``ΣZ = 0``."""
    rng = random.Random(seed)
    K = sum(servers)
    S = [0] + [sum(1 << i for i in rng.sample(range(K), rng.randint(1, 3))) for _ in range(M - 1)]
    T = [0] + [sum(1 << i for i in rng.sample(range(K), rng.randint(1, 4))) for _ in range(N - 1)]
    inst = Instance(tuple(servers), tuple(S), tuple(T), name=f"generated-{seed}")
    keys = {i: [[rng.randrange(q) for _ in range(d)] for _ in range(L)] for i in range(K - 1)}
    keys[K - 1] = [[-sum(keys[i][l][c] for i in range(K - 1)) % q for c in range(d)]
                   for l in range(L)]
    return inst, Scheme(field=q, L=L, key_symbols=d, keys=keys, construction="random", seed=seed)


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_rank(name, inst, scheme, repeat=3):
    fast, v = best_of(lambda: verify(inst, scheme, engine="rank"), repeat)
    slow, w = best_of(lambda: verify(inst, scheme, engine="rank", rank_backend="galois"), 1)
    assert [(x.k, x.m, x.n, x.symbols) for x in v.measured] == [(x.k, x.m, x.n, x.symbols) for x in w.measured]
    print(f"{name:<34} {v.total:>6} configs  ok={str(v.ok):<5} leaking={len(v.leaks):<5} "
          f"flint {fast:8.4f} s   galois {slow:8.3f} s   ratio {slow / fast:6.0f}x")


def bench_enum(name, inst, scheme, budget=None):
    t = time.perf_counter()
    v = verify(inst, scheme, engine="enumerate", enum_budget=budget)
    dt = time.perf_counter() - t
    n = scheme.field ** v.source_dim
    print(f"{name:<34} q^dim = {scheme.field}^{v.source_dim} = {n:>10,}  ok={v.ok}  "
          f"{v.checked} checked ({v.inferred} inferred zero)  {dt:7.2f} s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stretch", action="store_true", help="also enumerate Example 1 over F_7")
    ap.add_argument("--smoke", action="store_true", help="a tiny input, seconds (the smoke test)")
    args = ap.parse_args(argv)

    ex1 = load_instance(ROOT / "instances/example-1.yaml")
    ex2 = load_instance(ROOT / "instances/example-2.yaml")
    s2 = load_scheme(ex2, ROOT / "instances/example-2.scheme.json")
    print("rank engine: FLINT nmod_mat vs galois FieldArray (matrix_rank, null_space; same algorithm), "
          "best of 3 / 1 run")
    if args.smoke:
        s1 = load_scheme(ex1, ROOT / "instances/example-1.scheme.json", field=3)
        bench_rank("example-1 (printed scheme, F_3)", ex1, s1, repeat=1)
        bench_enum("example-1 over F_3", ex1, s1)
        return
    bench_rank("example-2 (printed scheme, F_7)", ex2, s2)
    inst, scheme = generated()
    bench_rank(f"generated K={inst.K} U={inst.U} M={inst.M} N={inst.N}", inst, scheme)

    print("enumeration engine (exhaustive, no linearity)")
    for q in (3, 5):
        bench_enum(f"example-1 over F_{q}", ex1,
                   load_scheme(ex1, ROOT / "instances/example-1.scheme.json", field=q))
    if args.stretch:
        bench_enum("example-1 over F_7", ex1,
                   load_scheme(ex1, ROOT / "instances/example-1.scheme.json", field=7),
                   budget=10**11)


if __name__ == "__main__":
    main()
