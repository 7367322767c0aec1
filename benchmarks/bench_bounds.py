"""Benchmark: itsa's corrected lower bound, fast ``_Chain`` against the reference loop.

Run:  python benchmarks/bench_bounds.py [--timeout 240] [--smoke]

The reference is ``g(X)`` written from its definition (every configuration
for every ``X`` visited, sets as frozensets), ``itsa.testing.oracles.reference_g``. Both
run in this process on the same instances and must agree on ``g(K)``, the
value and the chain of configurations:

(a) the paper's Example 2 (``instances/example-2.yaml``);
(b) ``make_instance(0, M=10, t=2)`` of ``benchmarks/bench_analyze.py``
    (U = 5, K = 40, N = 821);
(c) ``make_instance(0, M=100, t=2)``; the reference runs in a child process and
    is stopped after ``--timeout`` seconds;
(d) ``make_instance(0, M=100, t=3)``, the full ``bench_analyze`` instance
    (5.35 million configurations): fast implementation only.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import queue
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from bench_analyze import make_instance

import itsa
from itsa.keys.bounds.corrected import corrected_lower_bound
from itsa.testing.oracles import reference_g


def _timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def _fast(inst):
    b = corrected_lower_bound(inst)
    return b.g, b.chain


def _reference_child(inst, results):
    results.put(_timed(reference_g, inst))


def _reference(inst, timeout):
    """``((g, chain), seconds)`` of the reference, or ``None`` after ``timeout`` seconds."""
    if timeout is None:
        return _timed(reference_g, inst)
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    proc = ctx.Process(target=_reference_child, args=(inst, results))
    proc.start()
    try:
        return results.get(timeout=timeout)
    except queue.Empty:        # still running
        return None
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=240.0,
                    help="seconds the reference may take on (c) before it is stopped")
    ap.add_argument("--smoke", action="store_true", help="a tiny input, seconds (the smoke test)")
    args = ap.parse_args()

    cases = [("(a) example-2", itsa.load_instance(ROOT / "instances" / "example-2.yaml"), None),
             ("(b) make_instance(0, 10, 2)", make_instance(0, 10, 2), None),
             ("(c) make_instance(0, 100, 2)", make_instance(0, 100, 2), args.timeout),
             ("(d) make_instance(0, 100, 3)", make_instance(0, 100, 3), 0)]
    if args.smoke:
        cases = [("(smoke) make_instance(0, 3, 1)", make_instance(0, 3, 1), None)]
    for name, inst, timeout in cases:
        n_conf = inst.U * inst.M * inst.N
        print(f"{name}: U={inst.U} K={inst.K} M={inst.M} N={inst.N}, {n_conf:,} configurations")
        runs = [_timed(_fast, inst) for _ in range(3)]        # best of three
        (g, chain), t_fast = min(runs, key=lambda r: r[1])
        steps = " + ".join(f"{s.gain} {s.config}" for s in chain)
        print(f"    g(K) = {g} = {steps}")
        print(f"    new (pruned, NumPy) : {t_fast:10.4f} s  (best of 3)")
        if timeout == 0:
            print("    reference           : not run (far too slow)")
            continue
        ref = _reference(inst, timeout)
        if ref is None:
            print(f"    reference           : stopped after the {timeout:.0f} s timeout")
            continue
        (g_ref, chain_ref), t_ref = ref
        plain = tuple((s.X, tuple(s.config), s.T, s.gain) for s in chain)     # the reference's form
        assert (g, plain) == (g_ref, chain_ref), (name, g, g_ref, chain, chain_ref)
        print(f"    reference (plain)   : {t_ref:10.4f} s")
        print(f"    speed-up            : {t_ref / t_fast:10.1f}x  (same g, value and chain)")


if __name__ == "__main__":
    main()
