"""Write the notebooks of this folder (without outputs) from the cell sources below.

    python notebooks/make_notebooks.py          # rewrites notebooks/*.ipynb

The committed ``.ipynb`` files are the deliverable; this script only keeps
them reproducible (fixed cell ids, minimal metadata, no outputs). To see the
outputs, execute them in place from the repository root:

    jupyter execute --inplace notebooks/*.ipynb

(``jupyter execute`` comes with ``nbclient``, in the ``test`` extra; it runs
each notebook with its own folder as working directory.) Please commit the
notebooks without outputs: rerun this script, or clear the outputs, first.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------
# Shared helper cell: markdown tables and set formatting, nothing computed.
HELPERS = r'''
%matplotlib inline
from fractions import Fraction

from IPython.display import Markdown, display

import itsa


def esc(x) -> str:
    """A value as markdown table text: punctuation that markdown reads is escaped."""
    s = str(x)
    for ch in "\\`*_|<>[]":
        s = s.replace(ch, "\\" + ch)
    return s


def fmt(x) -> str:
    """Sets of users or servers as {(1,1), (1,3)}, ∅ when empty; the rest as str."""
    if isinstance(x, (list, set, frozenset)):
        items = sorted(x)
        return "∅" if not items else "{" + ", ".join(fmt(e) for e in items) + "}"
    if isinstance(x, tuple):
        return "(" + ",".join(str(e) for e in x) + ")"
    return str(x)


def table(header, rows) -> Markdown:
    """A markdown table (pandas is not a dependency)."""
    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return Markdown("\n".join(lines))


def users(inst, mask) -> list:
    """The (u, v) users of a bitmask, sorted."""
    return [tuple(x) for x in inst.labels(mask)]


def compare(ours, paper, show=None):
    """Display quantity | itsa | paper | equal, then assert every printed value is reproduced."""
    show = show or fmt
    display(table(["quantity", "itsa", "paper", "equal"],
                  [(k, show(ours[k]), show(paper[k]), ours[k] == paper[k]) for k in paper]))
    assert ours == paper, {k: (ours[k], paper[k]) for k in paper if ours[k] != paper[k]}


def show_instance(inst):
    """Print the sizes and display the table of every S_m and T_n."""
    print(f"{inst.name}: U = {inst.U} servers with V = {list(inst.servers)}, K = {inst.K} users, "
          f"M = {inst.M} security sets, N = {inst.N} collusion sets")
    display(table(["set", "users"],
                  [(f"S_{m}", fmt(users(inst, s))) for m, s in enumerate(inst.security_sets, 1)]
                  + [(f"T_{n}", fmt(users(inst, t))) for n, t in enumerate(inst.collusion_sets, 1)]))
'''.strip()


# ---------------------------------------------------------------------------
NB1 = [
    ("md", r'''
# The paper's two worked examples, end to end

Li, Zhang, He, Caire, *Multi-Server Secure Aggregation with Arbitrary Collusion
and Heterogeneous Security Constraints* (arXiv 2604.26391), Examples 1 and 2,
as written out in `docs/model.md` §5. For each example: the instance, its picture,
every quantity the paper prints set beside the value itsa computes, the regime
(and, for Example 2, the Theorem-2 linear program with its exact certificate),
then the schemes: itsa's own constructions and the schemes printed in the
paper, all checked by itsa's exact verifier. Finally one key of Example 1 is
removed on purpose, and the verifier shows what leaks.

The only literal numbers in this notebook are the values *printed in the
paper*, kept in the `PAPER_EX1` / `PAPER_EX2` dictionaries as reference values;
every other number is computed here. Run it from the `notebooks/` folder
(paths are relative to it).
'''),
    ("code", HELPERS),
    ("md", r'''
## Example 1 (Fig. 1 of the paper)

Three servers with `V = (3, 2, 2)` users; four security sets; the collusion
sets are all subsets of `{(1,2), (2,2), (3,1), (3,2)}`, ordered by size, then
lexicographically (so `T_16` is all four users).
'''),
    ("code", r'''
ex1 = itsa.load_instance("../instances/example-1.yaml")
show_instance(ex1)
'''),
    ("md", r'''
The figure highlights configuration `(u, m, n) = (1, 4, 16)`: server 1
eavesdrops, `S_4 = {(1,1), (2,1)}` is protected, `T_16` colludes. It is the
configuration whose `U^(4,16)`, `F^(4,16)` and `A_{1,4,16}` the paper prints.
'''),
    ("code", r'''
a1 = itsa.analyze(ex1)
fig1, info1 = itsa.instance_figure(a1, config=(1, 4, 16))
display(fig1)
print(f"{info1.title}\nc_(1,4,16) = {info1.c}, e* = {info1.e_star}, critical: {info1.critical}")
'''),
    ("md", r'''
### Quantities: itsa beside the paper

`PAPER_EX1` holds the values printed in the paper (`docs/model.md` §5), users as
`(u, v)` and servers as numbers. They are reference values, compared against
below, never used as results.
'''),
    ("code", r'''
# Printed in the paper (docs/model.md §5, Example 1): reference values only.
PAPER_EX1 = {
    "U^(4,16)": [2],
    "F^(4,16)": [3],
    "S_I": [(1, 3)],
    "S̄": [(1, 1), (1, 3), (2, 1)],
    "A_{1,4,16}": [(1, 1), (2, 1)],
    "a*": 2,
    "e*": 2,
    "Q_1": [],
    "Q_2": [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)],
    "regime": "condition-2",
    "R*_ZΣ": Fraction(2),
}
'''),
    ("code", r'''
conf1 = a1.configurations
assert a1.key_rate_lower_printed.value == a1.key_rate_upper.value   # the regime's bounds meet: an optimum
ITSA_EX1 = {
    "U^(4,16)": conf1.U_servers(4, 16),
    "F^(4,16)": conf1.F_servers(4, 16),
    "S_I": users(ex1, a1.S_I),
    "S̄": users(ex1, a1.S_bar),
    "A_{1,4,16}": users(ex1, conf1.D_mask(1, 4, 16) & a1.S_bar),
    "a*": a1.a_star,
    "e*": a1.e_star,
    "Q_1": users(ex1, a1.sets.Q1),
    "Q_2": users(ex1, a1.sets.Q2),
    "regime": a1.regime,
    "R*_ZΣ": a1.key_rate_upper.value,
}
compare(ITSA_EX1, PAPER_EX1)
print("Example 1: every quantity printed in the paper is reproduced.")
'''),
    ("md", r'''
### Regime and bounds

The regime follows from `e*`, `a*`, `|S̄|` and `|Q|` (Theorem 1). How `Q_1`
and `Q_2` combine into `Q` is lost in the paper's text (`docs/model.md` §6.1), so
both readings are shown; they agree on the regime here. itsa's corrected lower
bound (`itsa.corrected_lower_bound`, itsa's own finding, not the paper's) is
shown for context.
'''),
    ("code", r'''
def regime_rows(inst, a):
    rows = []
    for rule in itsa.Q_RULES:
        b = itsa.analyze(inst, q_rule=rule)
        rows.append((rule, fmt(users(inst, b.Q)), len(users(inst, b.Q)), b.regime, b.regime_reason))
    return rows


def bound_rows(inst, a):
    corrected = itsa.corrected_lower_bound(inst)
    return [("R_X", a.R_X.value, a.R_X.reason), ("R_Y", a.R_Y.value, a.R_Y.reason),
            ("R_ZΣ lower (printed converse)", a.key_rate_lower_printed.value, a.key_rate_lower_printed.reason),
            ("R_ZΣ upper (regime's scheme)", a.key_rate_upper.value, a.key_rate_upper.reason),
            ("R_ZΣ lower (itsa's corrected bound)", corrected.value, corrected.reason)]


display(table(["Q rule", "Q", "|Q|", "regime", "reason"], regime_rows(ex1, a1)))
display(table(["bound", "value", "reason"], bound_rows(ex1, a1)))
'''),
    ("md", r'''
## Example 2 (Sec. V-A of the paper)

`V = (4, 3, 1)`, eight security sets (every subset of `{(1,1), (2,1), (2,2)}`)
and the 28 collusion sets listed in the paper. This instance falls in the
Theorem-2 regime, where the paper gives a lower bound `e*` and an upper bound
`e* + b*` from a linear program.
'''),
    ("code", r'''
ex2 = itsa.load_instance("../instances/example-2.yaml")
show_instance(ex2)
'''),
    ("md", r'''
The figure highlights configuration `(1, 8, 21)`, the first of the three
configurations whose LP constraints the paper prints as binding.
'''),
    ("code", r'''
a2 = itsa.analyze(ex2)
fig2, info2 = itsa.instance_figure(a2, config=(1, 8, 21))
display(fig2)
print(f"{info2.title}\nc_(1,8,21) = {info2.c}, e* = {info2.e_star}, critical: {info2.critical}")
'''),
    ("md", r'''
### Quantities: itsa beside the paper

The paper prints each binding constraint with the configuration that produces
it; `PAPER_EX2["binding constraints"]` maps each configuration to the users
whose `b` appear on the left side (`Σ b >= 1`).
'''),
    ("code", r'''
# Printed in the paper (docs/model.md §5, Example 2): reference values only.
PAPER_EX2 = {
    "a*": 3,
    "e*": 2,
    "|S̄|": 3,
    "|Q|": 8,
    "|Q_1|": 8,
    "K": 8,
    "regime": "theorem-2",
    "binding constraints": {
        (1, 8, 21): [(1, 4), (3, 1)],
        (1, 8, 22): [(1, 3), (3, 1)],
        (1, 8, 23): [(1, 3), (1, 4)],
    },
    "b*": Fraction(3, 2),
    "R*_ZΣ lower": Fraction(2),
    "R*_ZΣ upper": Fraction(7, 2),
}
'''),
    ("code", r'''
lp2 = a2.lp
ITSA_EX2 = {
    "a*": a2.a_star,
    "e*": a2.e_star,
    "|S̄|": len(users(ex2, a2.S_bar)),
    "|Q|": len(users(ex2, a2.Q)),
    "|Q_1|": len(users(ex2, a2.sets.Q1)),
    "K": ex2.K,
    "regime": a2.regime,
    "binding constraints": {cfg: users(ex2, c.users)
                            for c in lp2.constraints if c.binding for cfg in c.configurations},
    "b*": lp2.b_star,
    "R*_ZΣ lower": a2.key_rate_lower_printed.value,
    "R*_ZΣ upper": a2.key_rate_upper.value,
}


def show(v):
    if isinstance(v, dict):
        return "; ".join(f"{fmt(k)}: Σ b over {fmt(u)} ≥ 1" for k, u in sorted(v.items()))
    return fmt(v)


compare(ITSA_EX2, PAPER_EX2, show)
print("Example 2: every quantity printed in the paper is reproduced.")
'''),
    ("md", r'''
### Regime and bounds

The paper's Theorem 2 brackets `R*_ZΣ` between `e*` and `e* + b*`. itsa's
corrected lower bound (itsa's finding, proved for the scheme class of
`itsa/bounds.py`) is set beside it.
'''),
    ("code", r'''
display(table(["Q rule", "Q", "|Q|", "regime", "reason"], regime_rows(ex2, a2)))
display(table(["bound", "value", "reason"], bound_rows(ex2, a2)))
corrected2 = itsa.corrected_lower_bound(ex2).value
print(f"Theorem 2 (paper): {a2.key_rate_lower_printed.value} <= R*_ZΣ <= {a2.key_rate_upper.value}")
if corrected2 > a2.key_rate_lower_printed.value:
    print(f"itsa's corrected bound is higher than e*: {corrected2} <= R*_ZΣ <= {a2.key_rate_upper.value}")
assert corrected2 <= a2.key_rate_upper.value   # the upper bound is reached by verified schemes (below)
'''),
    ("md", r'''
### The Theorem-2 LP and its certificate

`b*` is the value of

    minimise   Σ_{(u,v) ∉ S̄} b_{u,v}
    subject to Σ_{(i,j) ∉ D_{u,m,n}} b_{i,j} >= 1   for every critical (u,m,n),   0 <= b <= 1.

The LP is solved in floating point, then rounded to fractions and
**certified**: primal feasibility, dual feasibility and equal objectives are
checked in exact arithmetic (`LPResult.check()` re-runs that check; it raises
if the certificate fails). Each distinct constraint is listed with the
configurations producing it, its exact slack and dual value; it *binds* when
it is tight and not implied by a constraint over fewer users (*dominated*).
'''),
    ("code", r'''
lp2.check()
print(f"solver: {lp2.solver}; certificate re-checked in fractions: OK")
print(f"variables (users outside S̄): {fmt([ex2.label(i) for i in lp2.variables])}")
display(table(["configurations (u,m,n)", "constraint", "slack", "dual", "dominated", "binding"],
              [(", ".join(fmt(x) for x in c.configurations),
                " + ".join(f"b_{u}{v}" for u, v in users(ex2, c.users)) + " ≥ 1",
                c.slack, c.dual, c.dominated, c.binding) for c in lp2.constraints]))
'''),
    ("code", r'''
primal = sum(lp2.b.values(), Fraction(0))
display(table(["user", "b (primal, exact)"], [(fmt(ex2.label(i)), lp2.b[i]) for i in lp2.variables]))
display(table(["objective", "value"],
              [("primal Σ b", primal), ("dual objective", lp2.dual_objective), ("b*", lp2.b_star)]))
assert primal == lp2.dual_objective == lp2.b_star
weighted = [c for c in lp2.constraints if c.dual]
print("constraints carrying dual weight:",
      "; ".join(f"{fmt(c.configurations[0])} (dual {c.dual}, dominated: {c.dominated})" for c in weighted))
'''),
    ("md", r'''
A degenerate optimum can have several optimal duals, so the solver's dual may
weigh a dominated constraint instead of a binding one; the certificate is valid
either way, because it is checked exactly.

## The schemes, built and printed, verified

`itsa.build_scheme` runs the regime's construction (`docs/model.md` §4) over a prime
field (`itsa.default_field`: a prime above the construction's Schwartz–Zippel
size) with seed 0, and returns the first draw that its verifier accepts. The
paper's printed schemes are stored in `instances/*.scheme.json`, each with the
field it is read over. `itsa.verify` checks correctness at every server and computes
the exact mutual information of every configuration `(k, m, n)`; `ok` means
every server decodes and every leak is exactly zero.
'''),
    ("code", r'''
def verdict_row(label, scheme, v):
    bad = [k for k, ok in v.correct.items() if not ok]
    return (label, scheme.construction, scheme.field, scheme.L, scheme.key_symbols, scheme.rate,
            v.engine, v.ok, "all" if not bad else f"not {fmt(bad)}", v.checked, v.trivial,
            len(v.nonzero_leaks))


HEADER = ["scheme", "construction", "q", "L", "d", "rate d/L", "engine", "ok", "servers correct",
          "checked (k,m,n)", "trivial (S_m = ∅)", "nonzero leaks"]

builds, printed, verdicts = {}, {}, {}
for name, inst, a in (("example-1", ex1, a1), ("example-2", ex2, a2)):
    builds[name] = itsa.build_scheme(a, itsa.default_field(a), seed=0)
    printed[name] = itsa.load_scheme(inst, f"../instances/{name}.scheme.json")
    verdicts[name] = (itsa.verify(inst, builds[name].scheme), itsa.verify(inst, printed[name]))

display(table(HEADER, [row for name in builds for row in (
    verdict_row(f"{name}: built (seed 0, {builds[name].tries} draw(s))", builds[name].scheme, verdicts[name][0]),
    verdict_row(f"{name}: printed in the paper", printed[name], verdicts[name][1]))]))
for name in builds:
    fallback = verdicts[name][0].fallback
    if fallback:
        print(f"{name}: {fallback}")
'''),
    ("code", r'''
assert all(v.ok for pair in verdicts.values() for v in pair)
# Rates: Example 1's schemes reach the optimum R* = 2, Example 2's the upper bound e* + b* = 7/2.
assert builds["example-1"].scheme.rate == printed["example-1"].rate == PAPER_EX1["R*_ZΣ"]
assert builds["example-2"].scheme.rate == printed["example-2"].rate == PAPER_EX2["R*_ZΣ upper"]
print("All four schemes verify; their rates are the values printed in the paper.")
'''),
    ("md", r'''
The printed schemes, key by key: `Z_{u,v} = F_{u,v} N`, one row of `F` per
input symbol (`L` rows), entries in `F_q` (so `-1` is stored as `q - 1`).
Users without a key have `Z = 0`.
'''),
    ("code", r'''
for name, inst in (("example-1", ex1), ("example-2", ex2)):
    s = printed[name]
    print(f"{name}: q = {s.field}, L = {s.L}, d = {s.key_symbols} key symbols N_1..N_{s.key_symbols}")
    display(table(["user", "F (rows)"],
                  [(fmt(inst.label(i)), " ; ".join(str(list(r)) for r in m)) for i, m in s.keys]))
'''),
    ("md", r'''
## A broken key, shown leaking

Take Example 1's printed scheme and remove the key of user `(1,3)` (so
`Z_{1,3} = 0`), keeping everything else. The verifier now reports which
servers can no longer decode (the keys stop summing to zero) and, for every
configuration `(k, m, n)` that is no longer secure, the exact leak
`I(view_k ; W_{S_m} | ΣW, W_{T_n}, Z_{T_n})` in q-ary units (symbols of `F_q`).
'''),
    ("code", r'''
good = printed["example-1"]
drop = ex1.index(1, 3)
broken = itsa.Scheme(good.field, good.L, good.key_symbols,
                     {i: m for i, m in good.keys if i != drop},
                     construction="example-1 printed, without Z_(1,3)")
vb = itsa.verify(ex1, broken)
print(f"engine: {vb.engine}, ok: {vb.ok}, checked: {vb.checked}, nonzero leaks: {len(vb.nonzero_leaks)}")
display(table(["server k", "decodes ΣW"], sorted(vb.correct.items())))
display(table(["k", "m", "n", "S_m", "T_n", "leak (q-ary units)"],
              [(lk.k, lk.m, lk.n, fmt(users(ex1, ex1.security_sets[lk.m - 1])),
                fmt(users(ex1, ex1.collusion_sets[lk.n - 1])), lk.symbols) for lk in vb.nonzero_leaks]))
'''),
    ("code", r'''
assert not vb.ok and vb.nonzero_leaks and all(lk.symbols > 0 for lk in vb.nonzero_leaks)
assert verdicts["example-1"][1].ok   # the intact printed scheme is secure
print("Removing Z_(1,3) breaks the scheme; the intact printed scheme verifies.")
'''),
]


# ---------------------------------------------------------------------------
NB2 = [
    ("md", r'''
# Auditing the paper's claims

Two parts. **First**, the homogeneous family (`U` servers with `V` users each,
every input protected, any `t` users collude), whose optimal source key rate
is published elsewhere (Li, Zhang, Wan, Sun, Ji, Caire, arXiv 2601.06836:
`min{U+V+t−2, UV−1}`). For a grid of `(U, V, t)` it sets four numbers side by
side: the paper's printed lower bound `min{e*, K−1}`, that closed form, itsa's
corrected lower bound, and the smallest rate of a scheme that itsa's search
found *and verified*. **Second**, `itsa.audit` on every instance of
`instances/audit/`, each finding in a table.

Every number is computed here (seeded: field 31, seed 0). Run it from the
`notebooks/` folder.
'''),
    ("code", HELPERS + r'''


import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt
'''),
    ("md", r'''
## 1. The homogeneous family

Instances are built in code with `itsa.parse_instance`: `servers = [V] * U`,
`S = ["all"]`, `T = {"all_users_up_to": t}`. Per cell:

* **printed lower**: `analyze(inst).key_rate_lower_printed.value`, the paper's converse `min{e*, K−1}`;
* **published optimum**: `itsa.known_optimum(inst).value`, i.e. `min{U+V+t−2, UV−1}`;
* **corrected lower**: `itsa.corrected_lower_bound(inst).value`, itsa's converse
  (proved for `X = W + Z` schemes whose keys sum to zero; see `itsa/bounds.py`);
* **search**: `itsa.search_min_rate(inst, field=31, seed=0).rate`, the smallest
  rate of a verified scheme the bounded search found (an upper bound on the optimum).

A cell the search refuses (too many source symbols) is listed as skipped.
'''),
    ("code", r'''
GRID = [(U, V, t) for U in (3, 4) for V in (1, 2, 3) for t in (0, 1, 2)]

rows, skipped = [], []
start = time.perf_counter()
for U, V, t in GRID:
    inst = itsa.parse_instance({"name": f"homogeneous-U{U}-V{V}-t{t}", "servers": [V] * U,
                                "security_sets": ["all"], "collusion_sets": {"all_users_up_to": t}})
    tic = time.perf_counter()
    try:
        found = itsa.search_min_rate(inst, field=31, seed=0)
    except itsa.ItsaError as exc:
        skipped.append((f"U{U} V{V} t{t}", str(exc)))
        continue
    a = itsa.analyze(inst)
    rows.append({
        "cell": f"U{U} V{V} t{t}", "K": inst.K, "N": inst.N, "regime": a.regime,
        "printed lower": a.key_rate_lower_printed.value,
        "published optimum": itsa.known_optimum(inst).value,
        "corrected lower": itsa.corrected_lower_bound(inst).value,
        "search": found.rate,
        "search complete": found.complete,
        "seconds": round(time.perf_counter() - tic, 2),
    })
print(f"{len(rows)} cells in {time.perf_counter() - start:.1f} s; skipped: {skipped or 'none'}")
display(table(list(rows[0]), [list(r.values()) for r in rows]))
'''),
    ("code", r'''
# Each series is drawn slightly to the side of the cell (dodge), so equal values stay visible.
STYLE = {"printed lower": dict(marker="o", color="#D55E00", dodge=-0.24),
         "published optimum": dict(marker="s", color="#0072B2", dodge=-0.08),
         "corrected lower": dict(marker="^", color="#009E73", dodge=0.08),
         "search": dict(marker="X", color="black", dodge=0.24)}
labels = [r["cell"] for r in rows]
x = list(range(len(rows)))

fig, ax = plt.subplots(figsize=(11, 4.5))
for s, style in STYLE.items():
    style = dict(style)
    dx = style.pop("dodge")
    ax.plot([i + dx for i in x], [float(r[s]) for r in rows], linestyle="none", ms=7, label=s, **style)
ax.set_xticks(x, labels, rotation=60, ha="right")
ax.set_xlabel("grid cell (U servers, V users each, t colluders)")
ax.set_ylabel("source key rate R_ZΣ")
ax.set_title("Homogeneous family: printed converse vs published optimum, corrected bound and verified search")
ax.grid(axis="y", alpha=0.3)
ax.legend(loc="upper left")
fig.tight_layout()
plt.show()
'''),
    ("code", r'''
above = [r["cell"] for r in rows if r["printed lower"] > r["published optimum"]]
print(f"printed lower bound above the published optimum (the printed converse fails): "
      f"{len(above)} of {len(rows)} cells: {', '.join(above) or 'none'}")
match = [r["cell"] for r in rows if r["corrected lower"] == r["published optimum"] == r["search"]]
print(f"corrected bound = published optimum = verified search: {len(match)} of {len(rows)} cells")
# A verified scheme below a valid lower bound would be a bug (of the bound or of the verifier):
assert all(r["search"] >= r["corrected lower"] for r in rows)
assert all(r["search"] >= r["published optimum"] for r in rows)
'''),
    ("md", r'''
Reading the plot: wherever the printed lower bound (orange circle) stands
above the published optimum (blue square), the paper's converse is
contradicted by an external result, and a scheme verified here (black cross)
confirms it concretely: the cross sits below the circle. itsa's corrected bound
(green triangle) never lies above a verified scheme.

## 2. `itsa.audit` on `instances/audit/`

`itsa.audit(inst)` analyses the instance under both readings of `Q`, builds
the paper's own construction for each reading, runs the bounded search,
computes itsa's corrected bound and any published closed form, and reports
every disagreement as a **finding**. Every scheme a finding cites passed the
verifier (with `out_dir` the audit saves them, so they can be re-checked). The
kinds (`itsa.FINDING_KINDS`):

* **converse-beaten**: a verified scheme, or a published optimum, has a rate
  below the printed lower bound `min{e*, K−1}`: the printed converse is wrong
  on that instance.
* **construction-fails**: the paper's construction for the regime (for
  Condition 3: with an extra user `x` that this reading of `Q` allows) found no
  draw that verifies, within the tries and over the field used.
* **optimum-not-reached**: the rate the paper claims achievable (Theorem 1's
  optimum, or Theorem 2's `e* + b*`) is reached by no verified scheme: neither
  the construction nor the (bounded) search.
* **q-rule-disagreement**: the two readings of how `Q_1` and `Q_2` combine
  into `Q` (`docs/model.md` §6.1) put the instance in different regimes or give
  different `Q`; the finding says which Condition-3 users `x` verify.
* **corrected-bound-violated**: a verified scheme below itsa's *own*
  corrected bound. That would be a bug in itsa, so it must never occur; the
  notebook asserts it does not.

Each instance file's header comment says what it was made to show; it is
printed first.
'''),
    ("code", r'''
print("finding kinds:", ", ".join(itsa.FINDING_KINDS))
files = sorted(Path("../instances/audit").glob("*.yaml"))
scratch = tempfile.TemporaryDirectory(prefix="itsa-audit-")
audits = {}
start = time.perf_counter()
for path in files:
    audits[path.name] = itsa.audit(itsa.load_instance(path), field=31, seed=0, out_dir=scratch.name)
print(f"{len(audits)} instances audited in {time.perf_counter() - start:.1f} s")
'''),
    ("code", r'''
def regime(au, rule):
    return au.analyses[rule].regime


summary = []
for name, au in audits.items():
    kinds = sorted({f.kind for f in au.findings})
    summary.append((name, au.instance.K, regime(au, "union"), regime(au, "intersection"),
                    au.printed_lower, au.corrected.value, au.best_verified_rate,
                    au.external.value if au.external else "—", ", ".join(kinds) or "none"))
display(table(["file", "K", "regime (union Q)", "regime (intersection Q)", "printed lower",
               "corrected lower", "best verified rate", "published optimum", "findings"], summary))
'''),
    ("md", r'''
### Every finding, instance by instance

For each file: its header comment, the findings (kind, the printed claim, the
verified evidence, the configuration where `e*` is attained when relevant, and
the message), the paper's constructions as tried under each reading of `Q`,
and the audit's notes (constructions that do not apply, unknown upper bounds,
how the corrected bound compares).
'''),
    ("code", r'''
def header_comment(path):
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if not text.startswith(("Show it:", "python -c")):
            lines.append(text)
    return " ".join(lines)


for path in files:
    au = audits[path.name]
    inst = au.instance
    display(Markdown(f"#### `{path.name}`\n\n> {esc(header_comment(path))}"))
    display(table(["kind", "printed", "verified", "configuration", "message"],
                  [(f.kind, f.printed or "—", f.verified or "—",
                    fmt(f.configuration) if f.configuration else "—", f.message) for f in au.findings]
                  or [("(no finding)", "", "", "", "")]))
    display(table(["Q reading", "construction", "field", "extra user x", "x allowed", "verified", "why not"],
                  [(c.q_rule, c.construction, c.field,
                    fmt(inst.label(c.extra_user)) if c.extra_user is not None else "—",
                    c.allowed, c.verified,
                    "—" if c.verified else ("does not apply: " if c.structural else "") + (c.failure or ""))
                   for c in au.checks]))
    if au.notes:
        display(Markdown("\n".join(f"* {esc(n)}" for n in au.notes)))
'''),
    ("md", r'''
### Re-checking the cited schemes, and the tally

Every scheme the audit cites was saved under a temporary folder; each is
loaded back and verified again, independently of the audit.
'''),
    ("code", r'''
rechecked = 0
for name, au in audits.items():
    for f in au.findings:
        if f.scheme_file:
            v = itsa.verify(au.instance, itsa.load_scheme(au.instance, f.scheme_file))
            assert v.ok and v.scheme.rate == Fraction(f.verified), (name, f.kind)
            rechecked += 1
print(f"{rechecked} cited scheme files re-loaded and re-verified: all ok")

tally = {kind: [name for name, au in audits.items() if any(f.kind == kind for f in au.findings)]
         for kind in itsa.FINDING_KINDS}
display(table(["kind", "instances", "files"],
              [(kind, len(names), ", ".join(names) or "—") for kind, names in tally.items()]))
assert not tally["corrected-bound-violated"], tally["corrected-bound-violated"]
assert all(au.best_verified_rate is None or au.best_verified_rate >= au.corrected.value
           for au in audits.values())
scratch.cleanup()
'''),
    ("md", r'''
Summary: the printed converse `min{e*, K−1}` fails on every instance where a
`converse-beaten` finding appears; the causes (inputs of `S_m ∩ T_n` counted
as if secret, the public sum `ΣW`, and the `|T_n ∩ S̄|` term) are explained in
`docs/audit.md`. The `q-rule-disagreement` instance shows a Condition-3
construction failing verification under the intersection reading of `Q`,
which supports the union reading. The kinds with no instance in the tally
above did not occur on these files; `corrected-bound-violated` must stay at
zero.
'''),
]


def notebook(cells) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    for k, (kind, src) in enumerate(cells):
        cell = new_markdown_cell(src.strip()) if kind == "md" else new_code_cell(src.strip())
        cell.id = f"cell-{k:02d}"
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


NOTEBOOKS = {"01-paper-examples.ipynb": NB1, "02-audit.ipynb": NB2}


def main() -> None:
    for name, cells in NOTEBOOKS.items():
        nbformat.write(notebook(cells), HERE / name)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
