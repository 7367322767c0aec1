"""Does the model LP imply each row of the keys LP? A row-by-row test of the group lemma.

The keys LP rests on the general group lemma, ``h(Z_{Y∪T}) − h(Z_T) >= gain``
for every configuration and every union ``Y`` of its groups (docs/converse.md
§3). The lemma is proved for every encoder; this script asks a different,
weaker-tool question: does the *model* LP (every variable of the model, its
own constraints, Shannon inequalities; docs/converse.md §2) already imply
each row? For every row it minimises the row's left side over the model LP,
certifies the minimum exactly and compares it with the row's ``gain``.

A row the model LP does not imply is **not** a counterexample to the lemma:
the lemma's proof uses partial input sums ``Σ_{i∈G} W_i`` of a group, which
are not variables of the model LP. Such rows measure what the model LP misses.

Sources of instances (K <= 4): the committed U = 3, K = 3 census, random
instances of ``itsa.testing`` and the shipped examples.

    python benchmarks/lift_lemma.py --census data/census-U3-K3-solve.parquet
    python benchmarks/lift_lemma.py --random 200 --max-users 4 --seed 0
    python benchmarks/lift_lemma.py --smoke
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from itsa import examples, parse_instance  # noqa: E402
from itsa.keys.converse.certificate import certify  # noqa: E402
from itsa.keys.converse.lp import reduce_problem  # noqa: E402
from itsa.keys.converse.problem import keys_problem, model_problem  # noqa: E402
from itsa.keys.converse.solver import solve_float  # noqa: E402


def _model_lp(instance):
    """The model LP, reduced once without symmetry (the row objectives are not symmetric)."""
    return reduce_problem(model_problem(instance), symmetry=False)


def _minimum(rlp, form):
    """The model LP's certified minimum of ``form`` (a form over model-variable masks)."""
    problem = dataclasses.replace(rlp.problem, objective=tuple(form.items()), generators=())
    lp = dataclasses.replace(rlp, problem=problem)
    lp.objective = lp.coords(problem.objective)
    sol = solve_float(lp)
    if sol.status != "optimal":
        return None
    cert = certify(lp, sol)
    return None if cert is None else cert.value


def lift(instance, max_rows=None):
    """``(row reason, gain, model-LP minimum)`` for the group-lemma rows of ``instance`` (the first ``max_rows``)."""
    keys = keys_problem(instance)
    rlp = _model_lp(instance)
    zvar = rlp.problem.keys                     # user i's key is model variable zvar[i]

    def to_model(mask):
        return sum(1 << zvar[i] for i in range(instance.K) if mask >> i & 1)

    out = []
    for c in keys.constraints[:max_rows]:
        form = {to_model(m): w for m, w in c.form}
        out.append((c.reason, c.rhs, _minimum(rlp, form)))
    return out


def _census_instances(path, limit):
    import pyarrow.parquet as pq

    rows = pq.read_table(path, columns=["instance"]).to_pylist()
    import yaml
    return [parse_instance(yaml.safe_load(r["instance"])) for r in rows[:limit]]


def _random_instances(n, seed, max_users):
    from probe_converse import random_instance

    rng = random.Random(seed)
    return [random_instance(rng, max_users) for _ in range(n)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--census", help="a census Parquet table whose instances to test (K <= 4)")
    ap.add_argument("--limit", type=int, default=10**6, help="at most this many census instances")
    ap.add_argument("--random", type=int, default=0, help="this many random instances")
    ap.add_argument("--max-users", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shipped", action="store_true", help="the shipped instances with K <= 4")
    ap.add_argument("--rows", type=int, help="test only the first ROWS rows of each instance")
    ap.add_argument("--smoke", action="store_true", help="one row of one tiny instance, for the smoke test")
    ap.add_argument("--json", action="store_true", help="one JSON line per instance")
    args = ap.parse_args(argv)

    todo = []
    if args.smoke:
        todo.append(("homogeneous-U3-V1-t0", examples.homogeneous(3, 1, 0)))
        args.rows = 1
    if args.census:
        todo += [(i.name, i) for i in _census_instances(args.census, args.limit)]
    if args.random:
        todo += [(f"random-{k}", i) for k, i in enumerate(_random_instances(args.random, args.seed,
                                                                             args.max_users))]
    if args.shipped:
        todo += [(n, examples.load(n)) for n in examples.names() if not n.startswith("census/")]
    todo = [(n, i) for n, i in todo if i.K <= 4]
    if not todo:
        ap.error("nothing to test: give --census, --random, --shipped or --smoke")

    tally: Counter = Counter()
    misses = []
    t0 = time.perf_counter()
    for name, inst in todo:
        rows = lift(inst, args.rows)
        for reason, gain, low in rows:
            verdict = "unsolved" if low is None else "implied" if low >= gain else "not implied"
            tally[verdict] += 1
            if verdict != "implied":
                misses.append((name, inst.K, reason, str(gain), None if low is None else str(low)))
        if args.json:
            print(json.dumps({"name": name, "K": inst.K, "rows": len(rows),
                              "implied": sum(low is not None and low >= g for _, g, low in rows),
                              "misses": [[r, str(g), None if low is None else str(low)]
                                         for r, g, low in rows if low is None or low < g]}),
                  flush=True)
    secs = time.perf_counter() - t0
    print(f"{len(todo)} instances, {sum(tally.values())} group-lemma rows in {secs:.1f} s: "
          f"{tally['implied']} implied by the model LP, {tally['not implied']} not implied, "
          f"{tally['unsolved']} unsolved")
    for name, K, reason, gain, low in misses[:40]:
        print(f"  {name} (K = {K}): {reason}: gain {gain}, model LP minimum {low}")
    if len(misses) > 40:
        print(f"  ... and {len(misses) - 40} more")


if __name__ == "__main__":
    main()
