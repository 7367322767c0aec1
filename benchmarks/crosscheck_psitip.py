"""Cross-check: the `model` converse against psitip, an independent Shannon-inequality prover.

Run:  pip install --no-deps psitip   (it needs numpy, scipy, pulp)
      python benchmarks/crosscheck_psitip.py [--solver scipy] [--bisect 0] [--extra-dependency] [--smoke]

``--smoke`` checks the first tiny instance only, and exits 0 saying
"skipped" when psitip is not installed.

On tiny instances (K = 3 users on U = 3 servers: 13 random variables) the
model is written again, directly in psitip's language, from the model's
definition rather than from ``itsa.keys.converse.problem``:

* variables ``W_k``, ``ΣW``, ``Z_k``, ``X_k``, ``Y_u``;
* ``H(W_k) = H(ΣW)`` (uniform inputs, all of the same size), the inputs
  ``W_1..W_K`` and the key tuple ``(Z_1..Z_K)`` mutually independent;
* ``ΣW`` a function of the inputs, each ``W_k`` a function of ``ΣW`` and the
  other inputs, ``X_k`` a function of ``(W_k, Z_k)``, ``Y_u`` a function of
  server u's ``X``, server k decodes ``ΣW`` from its ``X`` and the others' ``Y``;
* security: ``I(view_k ; W_{S_m} | ΣW, W_{T_n}, Z_{T_n}) = 0`` for every
  ``(k, m, n)`` with ``S_m ⊄ T_n``.

The Shannon cone is a cone and every constraint above is homogeneous, so the
largest ``r`` with ``H(Z_1..Z_K) >= r·H(ΣW)`` provable from them is the LP
minimum of ``H(Z)`` at ``H(ΣW) = 1``. The script asks psitip to prove the
implication at ``r = b`` (itsa's certified ``model`` bound; psitip must
say yes) and at ``r = b + 1/8`` (it must say no), and can bisect psitip's
own bound to ``1/2^--bisect``. ``--extra-dependency`` adds the dependency
itsa's model problem also uses, ``W_k`` a function of ``(X_k, Z_k)`` (it
follows from correctness; without it psitip's bound can only be lower).

psitip's default LP solver is ``pulp.glpk``; without the ``glpsol`` binary it
answers ``False`` to true implications, so the script sets ``--solver``
(default ``scipy-highs``: psitip's ``scipy`` solver with scipy's
HiGHS in place of its legacy interior point, which is very slow here; or
``scipy``, ``pulp.cbc``) and first checks the solver
on a two-variable identity.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction

from itsa._util.bitset import members
from itsa.keys.converse import converse
from itsa.keys.model.io import parse_instance


def tiny_instances():
    hom = [parse_instance({"name": f"homogeneous-U3-V1-t{t}", "servers": [1, 1, 1],
                           "security_sets": ["all"], "collusion_sets": {"all_users_up_to": t}})
           for t in (0, 1)]
    one = parse_instance({"name": "protect-(1,1)-T-(2,1)", "servers": [1, 1, 1],
                          "security_sets": [[[1, 1]]], "collusion_sets": [[], [[2, 1]]]})
    two = parse_instance({"name": "protect-(1,1),(2,1)-T-(3,1)", "servers": [1, 1, 1],
                          "security_sets": [[[1, 1], [2, 1]]], "collusion_sets": [[[3, 1]]]})
    return hom + [one, two]


def joint(ps, vs):
    """The joint random variable of ``vs`` (psitip's ``+``); psitip's empty Comp if none."""
    out = ps.Comp.empty()
    for v in vs:
        out = out + v
    return out


def psitip_problem(ps, inst, extra_dependency: bool):
    """(constraints region, H(Z_all), H(ΣW)) in psitip."""
    H, I, K, U = ps.H, ps.I, inst.K, inst.U
    W = [ps.rv(f"W{i}") for i in range(K)]
    S = ps.rv("SW")
    Z = [ps.rv(f"Z{i}") for i in range(K)]
    X = [ps.rv(f"X{i}") for i in range(K)]
    Y = [ps.rv(f"Y{u}") for u in range(U)]
    users = [list(members(m)) for m in inst.server_masks]
    r = ps.indep(*W, joint(ps, Z))
    for i in range(K):
        r &= H(W[i]) == H(S)
        r &= H(W[i] | S + joint(ps, [W[j] for j in range(K) if j != i])) == 0
        r &= H(X[i] | W[i] + Z[i]) == 0
        if extra_dependency:
            r &= H(W[i] | X[i] + Z[i]) == 0
    r &= H(S | joint(ps, W)) == 0
    views = []
    for u in range(U):
        r &= H(Y[u] | joint(ps, [X[i] for i in users[u]])) == 0
        views.append(joint(ps, [X[i] for i in users[u]] + [Y[w] for w in range(U) if w != u]))
        r &= H(S | views[u]) == 0
    for Sm in inst.security_sets:
        for T in inst.collusion_sets:
            if not Sm & ~T:
                continue
            cond = S + joint(ps, [W[i] for i in members(T)] + [Z[i] for i in members(T)])
            for u in range(U):
                r &= I(views[u] & joint(ps, [W[i] for i in members(Sm)]) | cond) == 0
    return r, H(joint(ps, Z)), H(S)


def _use_highs() -> None:
    """Make psitip's ``scipy`` solver call HiGHS instead of scipy's legacy interior point.

    psitip 1.1.7 calls ``scipy.optimize.linprog(..., method="interior-point")``,
    which is very slow on these LPs; only the method is swapped, the LP is the same.
    """
    import scipy.optimize

    plain = scipy.optimize.linprog

    def linprog(*a, method=None, options=None, **kw):
        return plain(*a, method="highs", **kw)

    scipy.optimize.linprog = linprog


def proves(r, hz, hs, rate: Fraction) -> tuple[bool, float]:
    t0 = time.perf_counter()
    ok = bool(r >> (hz >= float(rate) * hs))
    return ok, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solver", default="scipy-highs",
                    help="psitip LP solver: scipy-highs (scipy with HiGHS), scipy, pulp.cbc, ...")
    ap.add_argument("--bisect", type=int, default=0, help="bisection steps for psitip's own bound")
    ap.add_argument("--extra-dependency", action="store_true")
    ap.add_argument("--smoke", action="store_true",
                    help="the first tiny instance only; exit 0 (skipped) without psitip")
    args = ap.parse_args(argv)
    try:
        import psitip as ps
    except ImportError:
        print("psitip is not installed: pip install --no-deps psitip", file=sys.stderr)
        if args.smoke:
            print("skipped: psitip is not installed")
            return 0
        return 2
    if args.solver == "scipy-highs":
        _use_highs()
    ps.PsiOpts.setting(solver="scipy" if args.solver == "scipy-highs" else args.solver)
    A, B = ps.rv("A", "B")
    if not bool(((ps.H(A) == ps.H(B)) & ps.indep(A, B)) >> (ps.H(A + B) >= 2 * ps.H(A))):
        print(f"psitip with solver {args.solver} fails a true two-variable implication", file=sys.stderr)
        return 1
    print(f"psitip {getattr(ps, '__version__', '?')}, solver {args.solver}, "
          f"extra dependency W_k = f(X_k, Z_k): {args.extra_dependency}")
    print(f"{'instance':30} {'itsa model':>12} {'itsa s':>7} {'psitip >= b':>11} {'s':>6} "
          f"{'psitip >= b+1/8':>15} {'s':>6} {'psitip bisect':>13} {'agree':>5}")
    disagree = 0
    for inst in tiny_instances()[:1] if args.smoke else tiny_instances():
        t0 = time.perf_counter()
        b = converse(inst, "model", symmetry=True)
        t_itsa = time.perf_counter() - t0
        r, hz, hs = psitip_problem(ps, inst, args.extra_dependency)
        yes, t_yes = proves(r, hz, hs, b.value)
        no, t_no = proves(r, hz, hs, b.value + Fraction(1, 8))
        lo, hi = Fraction(0), b.value + 1
        for _ in range(args.bisect):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if proves(r, hz, hs, mid)[0] else (lo, mid)
        bis = f"[{lo}, {hi})" if args.bisect else "-"
        agree = yes and not no
        disagree += not agree
        print(f"{inst.name:30} {str(b.value):>12} {t_itsa:7.2f} {str(yes):>11} {t_yes:6.1f} "
              f"{str(no):>15} {t_no:6.1f} {bis:>13} {'yes' if agree else 'NO':>5}", flush=True)
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
