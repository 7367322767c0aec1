"""Probe: do inequalities beyond Shannon's lift the keys LP's optimum on an instance?

Run:  python benchmarks/probe_nonshannon.py [instances ...] [--max-size 2] [--rounds 10] [--json]
      python benchmarks/probe_nonshannon.py --common-information [--pairs 20] [instances ...]
      python benchmarks/probe_nonshannon.py --smoke      # one small instance, a few seconds

With no instance, the shipped ``open/*`` instances (those ``itsa solve`` leaves
open). For each, the keys LP is solved in floats, then in rounds: every
Zhang–Yeung inequality among four disjoint sets of at most ``--max-size`` keys,

    I(A;B) + I(A;CD) + 3 I(C;D|A) + I(C;D|B) - 2 I(C;D) >= 0,

is evaluated at the LP's optimum (only where ``I(C;D) > 0``, the only place it
can fail), the most violated go into the LP as rows, and the LP is solved
again, until none is violated. The inequality holds for every entropic
vector, so a rise of the LP value would be a bound for every scheme that the
Shannon inequalities miss.

With ``--common-information``, for linear keys instead: for two disjoint sets
``A``, ``B`` of at most two keys, a linear scheme has a variable ``W`` (the
intersection of their key spaces) with ``H(W | A) = H(W | B) = 0`` and
``H(W) = I(A; B)``. One such ``W`` is added to the keys LP at a time (``2^(K+1)``
columns), for the ``--pairs`` pairs of largest ``I(A; B)`` at the LP's optimum;
this is how the inequalities of Dougherty, Freiling and Zeger on five
variables are derived, and it implies Ingleton's.

The values printed are the float LP's, a probe, not a proof: an unchanged
value means these cuts cannot lift the bound (the optimum found satisfies all
of them), and a rise would still need its certificate.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from fractions import Fraction

from itsa import examples, load_instance
from itsa.keys.converse import _reduced
from itsa.keys.converse.lp import Row, reduce_problem
from itsa.keys.converse.problem import Constraint, Dependency, keys_problem, mutual_information
from itsa.keys.converse.solver import solve_float

TOL = 1e-7


def zhang_yeung_form(a: int, b: int, c: int, d: int) -> dict[int, int]:
    """``I(A;B) + I(A;CD) + 3I(C;D|A) + I(C;D|B) - 2I(C;D)`` over sets of keys."""
    out: dict[int, int] = {}
    for part, k in ((mutual_information(a, b), 1), (mutual_information(a, c | d), 1),
                    (mutual_information(c, d, a), 3), (mutual_information(c, d, b), 1),
                    (mutual_information(c, d), -2)):
        for s, w in part.items():
            out[s] = out.get(s, 0) + k * int(w)
    return {s: w for s, w in out.items() if w}


def violated(rlp, x, K: int, max_size: int) -> list[tuple[float, tuple[int, int, int, int]]]:
    def h(m: int) -> float:
        o = rlp.orbit(rlp.closure(m))
        return float(x[o - 1]) if o else 0.0
    sets = [sum(1 << i for i in c) for r in range(1, max_size + 1) for c in itertools.combinations(range(K), r)]
    found = []
    for n, c in enumerate(sets):
        for d in sets[n + 1:]:
            if c & d or h(c) + h(d) - h(c | d) <= TOL:
                continue
            for a in sets:
                if a & (c | d):
                    continue
                for b in sets:
                    if b & (a | c | d):
                        continue
                    v = sum(w * h(s) for s, w in zhang_yeung_form(a, b, c, d).items())
                    if v < -TOL:
                        found.append((v, (a, b, c, d)))
    return sorted(found)


def probe(name: str, max_size: int, rounds: int, per_round: int = 500) -> dict:
    inst = load_instance(name) if name.endswith((".yaml", ".yml")) else examples.load(name)
    t0 = time.perf_counter()
    rlp = _reduced(inst, "keys", True)
    sol = solve_float(rlp)
    first, cuts, done, converged = sol.value, 0, 0, False
    for done in range(1, rounds + 1):  # noqa: B007 (the rounds done, read after the loop)
        found = violated(rlp, sol.x, inst.K, max_size)
        if not found:
            converged = True              # the optimum found satisfies every such inequality
            break
        for _, abcd in found[:per_round]:
            coefs = tuple(sorted(rlp.coords(zhang_yeung_form(*abcd).items()).items()))
            rlp.rows.append(Row(coefs, ">=", Fraction(0), ("zhang-yeung", *abcd)))
            cuts += 1
        sol = solve_float(rlp)
    return {"instance": name, "K": inst.K, "max_size": max_size, "keys_lp": first, "with_cuts": sol.value,
            "cuts": cuts, "rounds": done, "converged": converged, "lifted": sol.value > first + 1e-6,
            "seconds": round(time.perf_counter() - t0, 1)}


def with_common_information(problem, a: int, b: int):
    """The keys problem with a variable ``W``: a function of ``A`` and of ``B``, with ``H(W) = I(A; B)``."""
    w = 1 << problem.n
    deps = problem.dependencies + (Dependency(a, w, "W is a function of A"), Dependency(b, w, "W is a function of B"))
    ci = Constraint(tuple(sorted({w: Fraction(1), a: Fraction(-1), b: Fraction(-1), a | b: Fraction(1)}.items())),
                    "=", Fraction(0), "H(W) = I(A; B)")
    return dataclasses.replace(problem, names=problem.names + ("W",), dependencies=deps,
                               constraints=problem.constraints + (ci,), generators=())


def probe_common_information(name: str, max_size: int, pairs: int) -> dict:
    inst = load_instance(name) if name.endswith((".yaml", ".yml")) else examples.load(name)
    t0 = time.perf_counter()
    rlp = _reduced(inst, "keys", True)
    sol = solve_float(rlp)

    def h(m: int) -> float:
        o = rlp.orbit(rlp.closure(m))
        return float(sol.x[o - 1]) if o else 0.0
    sets = [sum(1 << i for i in c) for r in range(1, max_size + 1) for c in itertools.combinations(range(inst.K), r)]
    ranked = sorted(((h(a) + h(b) - h(a | b), a, b) for n, a in enumerate(sets) for b in sets[n + 1:] if not a & b),
                    reverse=True)
    ranked = [t for t in ranked if t[0] > TOL]
    problem, best = keys_problem(inst), sol.value
    for _, a, b in ranked[:pairs]:
        best = max(best, solve_float(reduce_problem(with_common_information(problem, a, b), symmetry=False)).value)
    return {"instance": name, "K": inst.K, "max_size": max_size, "keys_lp": sol.value, "with_cuts": best,
            "cuts": min(pairs, len(ranked)), "rounds": len(ranked), "converged": pairs >= len(ranked),
            "lifted": best > sol.value + 1e-6, "seconds": round(time.perf_counter() - t0, 1)}


def check_common_information() -> tuple[float, float]:
    """The method on a known case: Shannon inequalities let Ingleton's expression reach -1/2
    (four variables, ``h(ABCD) <= 2``); a common-information variable for ``A, B`` brings it to 0."""
    from itsa.keys.converse.problem import EntropyProblem, ingleton_form

    cap = Constraint(((15, Fraction(-1)),), ">=", Fraction(-2), "h(ABCD) <= 2")
    p = EntropyProblem(names=("A", "B", "C", "D"), dependencies=(), constraints=(cap,),
                       objective=tuple(sorted(ingleton_form(1, 2, 4, 8).items())), method="hand")
    plain = solve_float(reduce_problem(p)).value
    return plain, solve_float(reduce_problem(with_common_information(p, 1, 2), symmetry=False)).value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instances", nargs="*", help="shipped names or YAML paths (default: every open/* instance)")
    ap.add_argument("--max-size", type=int, default=2, help="keys per set of the inequality (default 2)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--common-information", action="store_true",
                    help="a common-information variable per pair of key sets (linear keys) instead")
    ap.add_argument("--pairs", type=int, default=20, help="pairs tried with --common-information")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    ap.add_argument("--smoke", action="store_true", help="example-1 with single keys (a few seconds)")
    args = ap.parse_args(argv)
    names = ["example-1"] if args.smoke else args.instances or [n for n in examples.names() if n.startswith("open/")]
    size = 1 if args.smoke else args.max_size
    if args.smoke:
        plain, lifted = check_common_information()
        print(f"Ingleton's expression: {plain:.6f} under Shannon, {lifted:.6f} with a common-information variable")
        if abs(plain + 0.5) > 1e-6 or abs(lifted) > 1e-6:
            raise SystemExit("the common-information check failed")
    rows = []
    ci = args.common_information
    print(f"{'instance':32} {'K':>2} {'size':>4} {'keys LP':>10} {'with W' if ci else 'with ZY cuts':>12} "
          f"{'pairs' if ci else 'cuts':>5} {'of' if ci else 'rounds':>6} {'s':>6}  end")
    for name in names:
        r = probe_common_information(name, size, args.pairs) if ci else probe(name, size, args.rounds)
        rows.append(r)
        print(f"{r['instance'][:32]:32} {r['K']:2d} {r['max_size']:4d} {r['keys_lp']:10.6f} {r['with_cuts']:12.6f} "
              f"{r['cuts']:5d} {r['rounds']:6d} {r['seconds']:6.1f}  "
              + (("every pair" if r["converged"] else "the pairs of largest I(A;B)") if ci else
                 ("none violated" if r["converged"] else "rounds used up")) + ("  LIFTED" if r["lifted"] else ""),
              flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
