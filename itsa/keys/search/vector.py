"""Vector-linear schemes of a *given* rate, guided by an entropy vector of the keys.

:func:`search_vector_scheme` looks for a verified linear scheme whose source
key rate is exactly ``rate``: for every ``L`` of ``L_values`` with
``d = rate·L`` whole, it draws seeded generic key matrices (``L x d``) over a
list of *shapes*, then walks from the most promising shapes by local moves,
and returns the first scheme that passes
:func:`itsa.keys.schemes.verifier.verify` (rank engine). A failure proves nothing (generic
draws over a finite list of shapes, one field); the result records what was
tried.

A shape is a split of the ``d`` key symbols into *blocks*, each visible to a
set of users and *absorbed* by one more user, plus a rank ``r_i`` per keyed
user. User ``i`` gets a generic ``L x d`` matrix supported on the columns of
its blocks, of rank ``r_i`` (a generic ``L x r_i`` times ``r_i x cols``
product when ``r_i < L``); on each block's columns its absorber takes ``-Σ``
of the others, so ``Σ Z = 0`` and every candidate is correct by construction.

Shapes, in the order tried at each ``L``:

* with ``hints`` (``user bitmask -> h(Z_A)/L``, e.g. from an optimal entropy
  vector of a converse LP): ``r_i = ⌈h(Z_i)·L⌉`` (capped at ``L``; users with
  ``h = 0`` get no key); ``hint/private``: the paper's Theorem-2 shape, users
  with ``r_i < L`` own ``r_i`` private symbols, the full-rank users share the
  rest; ``hint/pairs``: as ``hint/private``, but a pair with
  ``h(Z_i, Z_j) < h(Z_i) + h(Z_j)`` shares a block of the size of the
  difference; ``hint/shared``: one block for everybody, ranks ``r_i``.
  Each with every full-rank user as absorber in turn (at most
  ``max_absorbers``).
* with a whole entropy vector (every user set): ``atoms/low``,
  ``atoms/high``, the blocks of its Möbius atoms (:func:`itsa.keys.search.repair.atom_shapes`).
* without hints (and after the hint shapes): ``generic/shared``, every user
  full rank; ``S̄-full,others-rank-r/...``: the hint shapes for users of the
  paper's ``S̄`` at ``h = 1`` and the others at ``h = r/L``.

Each fixed shape, at every ``L``, is drawn ``tries`` times before any walk;
its first draw is scored by its
*deficit* (:meth:`GroupCriterion.deficit`, 0 iff secure). The rest of the
budget goes to *repair walks* (:func:`itsa.keys.search.repair.repair`): local moves on
a shape that keep the deficit from growing, from the three best fixed shapes
and then from random ones: ``split#j``, a random partition of the symbols
into blocks, each visible to a random set of users, random ranks;
``rank#j``, one shared block, random ranks on a random support;
``pseudo#j``, the hint shapes of random entropies; ``sums#j``, blocks that
each sum to zero over their own support. A walk's shapes are named
``<start>+repair#n``. A walk that goes stale scans every shape one move away
before it ends (:func:`itsa.keys.search.repair.neighbours`), and goes on from the
first better one.

Candidates pass a fast exact pre-filter first: for keys with ``Σ Z = 0``,
configuration ``(k, m, n)`` is secure iff
``rank[B_P; Z_T] - rank Z_T = (|P| - [every group pure])·L`` (the group
criterion of :mod:`itsa.keys.bounds.corrected`); only then :func:`verify` runs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from itsa._util.bitset import members
from itsa._util.checks import whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa._util.progress import Callback, counting
from itsa.exceptions import InvalidInstance
from itsa.keys.model.instance import Instance
from itsa.keys.schemes.linalg import check_field, rank
from itsa.keys.schemes.scheme import Scheme
from itsa.keys.schemes.verifier import Verdict, verify
from itsa.keys.search.blocks import BlockShape, draw_keys, hint_shapes, random_shape, sbar_shapes, unique
from itsa.keys.search.repair import atom_shapes, repair
from itsa.keys.search.scalar import GroupCriterion

#: Default budget: candidate schemes drawn in all (over every ``L``).
DEFAULT_BUDGET = 4000
#: Draws per hint-driven shape.
HINT_TRIES = 3



@dataclass(kw_only=True, frozen=True)
class Trial:
    """One shape at one ``L``: ``draws`` candidates, ``passed`` the pre-filter, found or not."""

    L: int
    d: int
    shape: str
    draws: int
    passed: int
    found: bool


@dataclass(kw_only=True, frozen=True, repr=False)
class VectorSearchResult(Displayable):
    """Outcome of :func:`search_vector_scheme`.

    ``scheme`` is a verified scheme of rate ``rate`` (``None`` if none was
    found) and ``verdict`` its passing verdict. ``trials`` lists every shape
    tried with its ``L``; ``L_tried`` the ``L`` with ``rate·L`` whole.
    ``candidates`` counts all draws, ``prefiltered`` those that passed the
    group criterion, ``best_deficit`` is the smallest shortfall of a scored
    draw (key symbols summed over the configurations, 0 for a secure one).
    ``limit`` names the limit that stopped the search, if any.
    A missing scheme proves nothing (``exhaustive`` is always ``False``).
    """

    rate: Fraction
    field: int
    seed: int
    scheme: Scheme | None
    verdict: Verdict | None
    shape: str | None
    L_tried: tuple[int, ...]
    trials: tuple[Trial, ...]
    candidates: int
    prefiltered: int
    hinted: bool
    limit: str | None = None
    exhaustive: bool = False
    best_deficit: int | None = None

    @property
    def found(self) -> bool:
        return self.scheme is not None

    def headline(self) -> str:
        what = (f"rate {self.rate} found at L = {self.scheme.L} (shape {self.shape})" if self.scheme is not None
                else f"no scheme at rate {self.rate}")
        return f"{what} over F_{self.field}, {self.candidates} candidates"

    def rows(self) -> list[tuple[str, str]]:
        rows = [("L tried", ", ".join(map(str, self.L_tried)) or "none"),
                ("candidates", f"{self.candidates} drawn, {self.prefiltered} past the group criterion"),
                ("stopped", self.limit or "every planned shape tried")]
        if self.best_deficit is not None:
            rows.append(("closest draw", f"{self.best_deficit} key symbols short of security"))
        return rows

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the rate, the find (its shape and ``L``), what was tried and what stopped it."""
        return {"rate": frac(self.rate), "field": self.field, "seed": self.seed, "found": self.found,
                "shape": self.shape, "L": None if self.scheme is None else self.scheme.L,
                "L_tried": list(self.L_tried), "candidates": self.candidates, "prefiltered": self.prefiltered,
                "hinted": self.hinted, "limit": self.limit, "exhaustive": self.exhaustive,
                "best_deficit": self.best_deficit}


# ---------------------------------------------------------------------------
def key_entropies(scheme: Scheme, K: int, masks=None) -> dict[int, Fraction]:
    """``h(Z_A)/L = rank[F_i, i ∈ A] / L`` for user bitmasks ``A`` (default: singletons and pairs).

    The hints format of :func:`search_vector_scheme`, read off a scheme.

    Examples
    --------
    >>> s = Scheme(7, 2, 3, {0: [[1, 0, 0], [2, 0, 0]], 1: [[0, 1, 0], [0, 0, 1]]})
    >>> h = key_entropies(s, 2)
    >>> h[1], h[2], h[3]
    (Fraction(1, 2), Fraction(1, 1), Fraction(3, 2))
    """
    if masks is None:
        masks = [1 << i for i in range(K)] + [(1 << i) | (1 << j) for i in range(K) for j in range(i)]
    out = {}
    for A in masks:
        rows = [r for i in members(A) for r in scheme.key_matrix(i).tolist()]
        out[A] = Fraction(rank(rows, scheme.field) if rows and scheme.key_symbols else 0, scheme.L)
    return out


def default_vector_field(instance: Instance, d: int, floor: int = 101,
                         n_checks: int | None = None) -> int:
    """Smallest prime ``q >= max(floor, 8·d·C)``, ``C`` the number of distinct configurations.

    Schwartz–Zippel: each configuration asks two minors (degree ``<= 2d`` in the
    drawn entries) to be nonzero, so a draw that generically works fails with
    probability ``<= 4·d·C/q <= 1/2``.

    >>> from itsa import examples
    >>> default_vector_field(examples.load("audit/fractional-optimum"), 3)
    101
    """
    n = len(GroupCriterion(instance, 2)) if n_checks is None else n_checks
    q = max(floor, 8 * d * n)
    while not flint.fmpz(q).is_prime():
        q += 1
    return q


def _parse_rate(rate) -> Fraction:
    try:
        r = Fraction(rate)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InvalidInstance(f"rate {rate!r} is not a number") from None
    if r < 0:
        raise InvalidInstance(f"rate {rate} is negative")
    return r


@dataclass(frozen=True)
class VectorOptions:
    """How :func:`search_vector_scheme` searches: its parameters but the instance, the rate, the hints
    and ``progress``, same names and meaning."""

    L_values: tuple[int, ...] = (2, 3, 4)
    field: int | None = None
    seed: int = 0
    budget: int = DEFAULT_BUDGET
    tries: int = HINT_TRIES
    max_absorbers: int = 4
    time_limit: float | None = None
    patience: int | None = None


def search_vector_scheme(instance: Instance, rate, *, L_values=VectorOptions.L_values,
                         field: int | None = VectorOptions.field, seed: int = VectorOptions.seed,
                         budget: int = VectorOptions.budget, hints: Mapping[int, Fraction] | None = None,
                         progress: Callback | None = None, tries: int = VectorOptions.tries,
                         max_absorbers: int = VectorOptions.max_absorbers,
                         time_limit: float | None = VectorOptions.time_limit,
                         patience: int | None = VectorOptions.patience) -> VectorSearchResult:
    """A verified linear scheme of source key rate exactly ``rate``, or a record of the tries.

    Parameters
    ----------
    instance : Instance
    rate : Fraction or str or int
        The target ``R_ZΣ = d/L``.
    L_values : tuple of int
        Input lengths to try, in order; those with ``rate·L`` not whole are skipped.
    field : int, optional
        The prime ``q``; default :func:`default_vector_field` for the largest ``d``.
    seed : int
        Every draw uses ``random.Random(f"{seed}:{L}:{d}:{shape}:{t}")``.
    budget : int
        Candidate schemes drawn in all: the fixed shapes of every ``L``
        first, then each ``L`` an equal share of what is left for repair walks.
    hints : mapping, optional
        User bitmask ``A`` -> ``h(Z_A)/L`` (at least the singletons; pairs are
        used when present, atom shapes when every set is), e.g. an optimal
        entropy vector of a converse LP.
    progress : callable(Event), optional
        Called with an :class:`itsa._util.progress.Event` after each shape:
        ``done`` candidates drawn of ``total``, the budget.
    tries : int
        Draws per hint-driven (and generic) shape.
    max_absorbers : int
        Absorbers tried per hint shape.
    time_limit : float, optional
        Seconds; the search stops (``limit`` says so) when they are spent.
    patience : int, optional
        Moves without improvement before a repair walk scans its neighbours, then goes on
        from a better one or ends (default ``20 + 4K``).

    Returns
    -------
    VectorSearchResult

    Examples
    --------
    >>> from itsa import examples
    >>> inst = examples.load("audit/fractional-optimum")
    >>> r = search_vector_scheme(inst, "3/2", L_values=(2,), budget=200)
    >>> r.found, r.scheme.rate, r.verdict.ok
    (True, Fraction(3, 2), True)
    """
    options = VectorOptions(L_values=tuple(L_values), field=field, seed=seed, budget=budget, tries=tries,
                            max_absorbers=max_absorbers, time_limit=time_limit, patience=patience)
    return run_vector_search(instance, rate, options, hints=hints, progress=progress)


def run_vector_search(instance: Instance, rate, options: VectorOptions = VectorOptions(), *,
                      hints: Mapping[int, Fraction] | None = None,
                      progress: Callback | None = None) -> VectorSearchResult:
    """:func:`search_vector_scheme` with its options in one object."""
    o = options
    rate = _parse_rate(rate)
    for L in o.L_values:
        whole_number("L_values", L, minimum=1)
    Ls = tuple(L for L in o.L_values if (rate * L).denominator == 1)
    K = instance.K
    d_max = max((int(rate * L) for L in Ls), default=0)
    crit = GroupCriterion(instance, 2 if o.field is None else o.field)
    if o.field is not None:
        check_field(o.field)
    q = crit.q = o.field or default_vector_field(instance, max(d_max, 1), n_checks=len(crit))
    s = _Search(instance, crit, q, o.seed, o.budget, counting(progress, "vector search"), Deadline(o.time_limit))
    patience = 20 + 4 * K if o.patience is None else o.patience
    starts = {}
    for L in Ls:                   # first every fixed shape at every L: cheap, and often enough
        d = int(rate * L)
        s.stop = o.budget
        if d == 0 or K < 2:
            s.run(L, d, BlockShape("zero", ((d, 0, 0),) if d else (), ()), 1)
        else:
            starts[L] = _fixed_level(s, L, d, hints, o.tries, o.max_absorbers)
        if s.found or not s.left():
            break
    todo = [L for L in starts] if s.found is None else []
    for n_left, L in zip(range(len(todo), 0, -1), todo):       # then repair walks, equal shares
        s.stop = s.count["cand"] + (o.budget - s.count["cand"]) // n_left
        _walk_level(s, L, int(rate * L), starts[L], hints, patience)
        if s.found or s.out_of_time():
            break
    limit = None
    if s.found is None and s.out_of_time():
        limit = f"time limit of {o.time_limit:.1f} s reached"
    elif s.found is None and s.count["cand"] >= o.budget:
        limit = f"budget of {o.budget} candidate schemes reached"
    scheme, verdict, shape = s.found if s.found else (None, None, None)
    return VectorSearchResult(rate=rate, field=q, seed=o.seed, scheme=scheme, verdict=verdict, shape=shape, L_tried=Ls, trials=tuple(s.trials),
                              candidates=s.count["cand"], prefiltered=s.count["pre"], hinted=bool(hints), limit=limit,
                              best_deficit=s.best)


class _Search:
    """The state of one :func:`search_vector_scheme`: counters, trials, the find, the limits."""

    def __init__(self, instance, crit, q, seed, budget, progress, deadline):
        self.instance, self.crit, self.q, self.seed = instance, crit, q, seed
        self.budget, self.progress, self.deadline = budget, progress, deadline
        self.trials: list[Trial] = []
        self.count = {"cand": 0, "pre": 0}
        self.found = None
        self.stop = budget
        self.best: int | None = None

    def deficit(self, Z, above: int | None = None) -> int:
        """The deficit of ``Z`` (or a number above ``above``, see :meth:`GroupCriterion.deficit`)."""
        x = self.crit.deficit(Z, above)
        if above is None or x <= above:                  # an exact value
            self.best = x if self.best is None else min(self.best, x)
        return x

    def out_of_time(self) -> bool:
        return self.deadline.expired()

    def left(self) -> int:
        return 0 if self.out_of_time() else max(0, self.stop - self.count["cand"])

    def accept(self, Z, L, d, name) -> bool:
        """Verify keys that passed the criterion; record the find."""
        self.count["pre"] += 1
        keys = {i: Z[i].tolist() for i in range(self.instance.K)}
        scheme = Scheme(field=self.q, L=L, key_symbols=d, keys=keys, construction=f"vector-search:{name}", seed=self.seed)
        verdict = verify(self.instance, scheme, engine="rank")
        if verdict.ok:
            self.found = (scheme, verdict, name)
        return verdict.ok

    def draw(self, shape: BlockShape, L: int, d: int, t: int) -> np.ndarray:
        self.count["cand"] += 1
        return draw_keys(shape, random.Random(f"{self.seed}:{L}:{d}:{shape.name}:{t}"), self.q,
                         self.instance.K, L)

    def run(self, L, d, shape, n_draws) -> int | None:
        """Draw ``shape`` up to ``n_draws`` times; the deficit of the first draw (``None`` if none)."""
        passed, first = 0, None
        for t in range(n_draws):
            Z = self.draw(shape, L, d, t)
            if t == 0:
                first = self.deficit(Z)
                ok = first == 0
            else:
                ok = self.crit.secure(Z)
            if ok:
                passed += 1
                if self.accept(Z, L, d, shape.name):
                    self.trials.append(Trial(L=L, d=d, shape=shape.name, draws=t + 1, passed=passed, found=True))
                    return 0
        self.trials.append(Trial(L=L, d=d, shape=shape.name, draws=n_draws, passed=passed, found=False))
        if self.progress:
            self.progress(self.count["cand"], self.budget)
        return first

    def walk(self, L, d, start: BlockShape, rng, patience) -> None:
        """One :func:`itsa.keys.search.repair.repair` walk from ``start``; a shape of deficit 0 is verified."""
        draws = passed = 0

        def score(blocks, ranks, above):
            nonlocal draws
            draws += 1
            sh = BlockShape(f"{start.name}+repair#{draws}", blocks, tuple(sorted(ranks.items())))
            return self.deficit(self.draw(sh, L, d, 0), above) if self.left() else 1 << 30

        for deficit, blocks, ranks in repair((start.blocks, dict(start.ranks)), score,
                                             self.instance.K, L, rng, patience, scan=True):
            if deficit == 0:
                sh = BlockShape(f"{start.name}+repair#{draws}", blocks, tuple(sorted(ranks.items())))
                passed += 1
                if self.accept(draw_keys(sh, random.Random(f"{self.seed}:{L}:{d}:{sh.name}:0"),
                                         self.q, self.instance.K, L), L, d, sh.name):
                    self.trials.append(Trial(L=L, d=d, shape=sh.name, draws=draws, passed=passed, found=True))
                    return
            if not self.left():
                break
        self.trials.append(Trial(L=L, d=d, shape=f"{start.name}+repair", draws=draws, passed=passed, found=False))
        if self.progress:
            self.progress(self.count["cand"], self.budget)


def _fixed_shapes(instance, hints, L, d, max_absorbers) -> list[BlockShape]:
    """Hint shapes, atom shapes of a whole entropy vector, generic and ``S̄`` shapes."""
    K = instance.K
    fixed = hint_shapes(instance, hints, L, d, max_absorbers) if hints else []
    if hints:
        fixed += [BlockShape(n, b, r) for n, b, r in atom_shapes(hints, K, L, d)]
    return unique(fixed + hint_shapes(instance, {}, L, d, max_absorbers, "generic")
                   + sbar_shapes(instance, L, d, max_absorbers))


def _fixed_level(s: _Search, L, d, hints, tries, max_absorbers) -> list[BlockShape]:
    """Every fixed shape at ``(L, d)``; the three of smallest deficit (starts for repair walks)."""
    scored: list[tuple[int, int, BlockShape]] = []
    for shape in _fixed_shapes(s.instance, hints, L, d, max_absorbers):
        if not s.left():
            break
        deficit = s.run(L, d, shape, min(tries, s.left()))
        if s.found:
            break
        if deficit is not None:
            scored.append((deficit, len(scored), shape))
    return [sh for _, _, sh in sorted(scored)[:3]]


def _walk_level(s: _Search, L, d, starts: list[BlockShape], hints, patience) -> None:
    """Repair walks at ``(L, d)`` from ``starts``, then from random shapes, until a find or the budget."""
    starts = list(starts)
    rng = random.Random(f"{s.seed}:{L}:{d}:shapes")
    j = 0
    while s.found is None and s.left():
        if starts:
            start = starts.pop(0)
        else:
            start = random_shape(s.instance, rng, L, d, j, hints)
            j += 1
        s.walk(L, d, start, random.Random(f"{s.seed}:{L}:{d}:walk:{start.name}"), patience)
