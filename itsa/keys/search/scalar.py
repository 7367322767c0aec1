"""Bounded search for the smallest verified linear key scheme of an instance.

The search draws seeded *generic* key matrices over a list of *shapes* (which
users carry keys, and with which rank) for ``d = 0, 1, 2, ...`` key symbols,
scalar (``L = 1``) first, then ``L = 2`` for rates below the best scalar one.
Every candidate passes a fast exact pre-filter (the group-rank criterion of
:mod:`itsa.keys.bounds.corrected`) and then :func:`itsa.keys.schemes.verifier.verify` (rank engine); only
schemes that verify are returned. The first verified ``d`` is the smallest
the search found; it is an *upper* bound on the optimal rate.

A level ``(L, d)`` small enough (at most ``enumerate_up_to`` key
assignments, see :func:`every_key`) is first searched *completely*: every
linear key assignment with ``ΣZ = 0``. Otherwise a failure to find a scheme
at that level proves nothing (generic draws over a few shapes, over one
field). ``SearchResult.exhaustive`` is ``True`` exactly when every level below
the result was searched completely.

The search is three parts: the shape generators (:mod:`itsa.keys.search.shapes`, which
describes the shapes), one candidate runner (:class:`_Runner`: pre-filter,
verify, budget) and the level loop (:class:`_Levels` and
:func:`search_min_rate`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from dataclasses import field as dataclass_field
from fractions import Fraction
from itertools import product
from typing import Any

import flint
import numpy as np

from itsa._util.bitset import members
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa._util.progress import Tick, counting
from itsa.exceptions import InvalidOption, ItsaError
from itsa.keys.bounds.corrected import structures
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import configurations
from itsa.keys.schemes.linalg import check_field
from itsa.keys.schemes.scheme import Scheme
from itsa.keys.schemes.verifier import Verdict, verify
from itsa.keys.search.shapes import Plan, Shape, shapes_L1, shapes_L2, supports
from itsa.typing import Progress

#: Refuse instances with more source symbols than this (``K·L + d``).
MAX_SOURCE_DIM = 60
#: Default budget: candidate schemes drawn in all.
DEFAULT_BUDGET = 20_000
#: Default ``enumerate_up_to``: levels with at most this many key assignments are searched completely.
DEFAULT_ENUMERATE = 1_000



@dataclass(frozen=True)
class Attempt:
    """One ``(L, d, shape)`` cell of the search: ``tries`` draws, found or not."""

    L: int
    d: int
    shape: str
    tries: int
    found: bool


@dataclass(kw_only=True, frozen=True, repr=False)
class SearchResult(Displayable):
    """Outcome of :func:`search_min_rate`.

    ``scheme`` is the best verified scheme (``None`` if none was found) with
    ``verdict`` its passing :class:`~itsa.keys.schemes.verifier.Verdict` and ``rate`` its
    exact rate. ``attempts`` lists every ``(L, d, shape)`` cell tried
    (``every-key``: the complete enumeration of a small level);
    ``candidates`` counts the schemes drawn, ``prefiltered`` those that passed
    the fast criterion, ``verified`` those that :func:`verify` then accepted.
    ``exhaustive`` is ``True`` when every level tried below the result had
    every candidate tried (so no linear scheme with those ``L`` over ``F_q``
    has a smaller rate); otherwise a missing scheme at some rate proves nothing.
    ``complete`` says every planned cell was tried; otherwise ``limit`` says
    which limit stopped the search.
    """

    field: int
    seed: int
    scheme: Scheme | None
    rate: Fraction | None
    verdict: Verdict | None
    shape: str | None
    L_values: tuple[int, ...]
    d_values: dict = dataclass_field(default_factory=dict)    # L -> tuple of d tried (``field`` is the prime)
    attempts: tuple[Attempt, ...] = ()
    candidates: int = 0
    prefiltered: int = 0
    verified: int = 0
    exhaustive: bool = False
    complete: bool = True
    limit: str | None = None

    @property
    def found(self) -> bool:
        return self.scheme is not None

    # -- display -----------------------------------------------------------
    def headline(self) -> str:
        what = f"rate {self.rate} (shape {self.shape})" if self.found else "no scheme found"
        proof = "exhaustive below it" if self.exhaustive else "not exhaustive"
        return f"{what} over F_{self.field}, {self.candidates} candidates, {proof}"

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the rate found, its shape, the levels tried, the counts and what stopped it."""
        return {"rate": frac(self.rate), "field": self.field, "seed": self.seed, "found": self.found,
                "shape": self.shape, "L_values": list(self.L_values),
                "d_values": {str(L): list(ds) for L, ds in self.d_values.items()},
                "candidates": self.candidates, "prefiltered": self.prefiltered, "verified": self.verified,
                "exhaustive": self.exhaustive, "complete": self.complete, "limit": self.limit}

    def rows(self) -> list[tuple[str, str]]:
        levels = "; ".join(f"L = {L}: d = {', '.join(map(str, ds))}" for L, ds in self.d_values.items())
        return [("levels tried", levels or "none"),
                ("candidates", f"{self.candidates} drawn, {self.prefiltered} passed the fast criterion, "
                               f"{self.verified} verified"),
                ("exhaustive", "every candidate below the result was tried" if self.exhaustive
                 else "no: a level below the result was only sampled"),
                ("stopped", self.limit or "no, every planned cell was tried")]


#: One configuration the criterion checks: ``(T, groups P, units, P as 0/1 rows)``.
_Check = tuple[list[int], list[list[int]], int, np.ndarray]


class GroupCriterion:
    """Exact security test for keys with ``Σ Z = 0`` (the group criterion of :mod:`itsa.keys.bounds.corrected`).

    The one home of that criterion: the scalar search, the vector search and
    :func:`fast_secure` all use it.

    ``deficit`` sums, over the distinct configurations, how far
    ``rank[B_P; Z_T] - rank Z_T`` falls short of ``(|P| - [all pure])·L``;
    the keys are secure iff it is 0. ``secure`` stops at the first failing
    configuration and moves it to the front (draws tend to fail on the same ones).

    Examples
    --------
    >>> from itsa import examples
    >>> inst = examples.load("audit/fractional-optimum")
    >>> g = GroupCriterion(inst, 5)
    >>> Z = np.zeros((inst.K, 1, 1), dtype=np.int64)
    >>> Z[inst.index(2, 2)], Z[inst.index(1, 1)] = 1, 4      # Z22 = -Z11: H(Z22|Z11) = 0 < L
    >>> g.secure(Z), g.deficit(Z)
    (False, 1)
    """

    def __init__(self, instance: Instance, q: int):
        self.q, self.K = q, instance.K
        checks: dict[tuple[int, tuple[int, ...], bool], _Check] = {}
        for s in structures(instance):
            P = tuple(g for g, p in zip(s.groups, s.pure) if p)
            if P:
                groups = np.array([[g >> i & 1 for i in range(self.K)] for g in P], dtype=np.int64)
                checks.setdefault((s.T, P, s.all_pure), (members(s.T), [members(g) for g in P],
                                                         len(P) - (1 if s.all_pure else 0), groups))
        self.checks = sorted(checks.values(), key=lambda c: (-len(c[1]), c[0]))

    def __len__(self) -> int:
        return len(self.checks)

    def _rank(self, M: np.ndarray) -> int:
        if M.shape[0] == 0 or M.shape[1] == 0:
            return 0
        return flint.nmod_mat(M.shape[0], M.shape[1], M.ravel().tolist(), self.q).rank()

    def _short(self, Z: np.ndarray, check, cache: dict) -> int:
        T, P, units, groups = check
        L, d = Z.shape[1], Z.shape[2]
        need = units * L
        if need > d or d == 0:
            return need
        tk = tuple(T)
        zt = Z[T].reshape(-1, d) if T else np.zeros((0, d), dtype=np.int64)
        if tk not in cache:
            cache[tk] = self._rank(zt)
        bp = ((groups @ Z.reshape(self.K, L * d)) % self.q).reshape(len(P) * L, d)   # each group's ΣZ
        return need - (self._rank(np.concatenate([bp, zt])) - cache[tk])

    def secure(self, Z: np.ndarray) -> bool:
        """``Z``: ``K x L x d`` keys (entries mod ``q``, ``Σ Z = 0``)."""
        cache: dict = {}
        for j, check in enumerate(self.checks):
            if self._short(Z, check, cache):
                if j:
                    self.checks.insert(0, self.checks.pop(j))
                return False
        return True

    def deficit(self, Z: np.ndarray, above: int | None = None) -> int:
        """The summed shortfall of ``Z`` (0 iff secure).

        With ``above``, the sum stops as soon as it exceeds ``above`` and the
        partial sum is returned (it exceeds ``above`` too), and the failing
        configurations move to the front, as in :meth:`secure`: a caller that
        only asks whether a draw is worse than ``above`` gets the same answer sooner.
        """
        cache: dict = {}
        if above is None:
            return sum(self._short(Z, c, cache) for c in self.checks)
        total, failing = 0, []
        for j, check in enumerate(self.checks):
            short = self._short(Z, check, cache)
            if short:
                total += short
                failing.append(j)
                if total > above:
                    break
        if failing and failing[-1] >= len(failing):           # not already in front
            moved = set(failing)
            self.checks = [self.checks[j] for j in failing] + [c for j, c in enumerate(self.checks) if j not in moved]
        return total



class _Checker(GroupCriterion):
    """:class:`GroupCriterion` on keys written as ``{user: L rows of d entries}``, with its precondition."""

    def _rows_rank(self, rows, d) -> int:
        if not rows or d == 0:
            return 0
        return flint.nmod_mat(len(rows), d, [x for r in rows for x in r], self.q).rank()

    def sum_known(self, keys: dict[int, list[list[int]]], L: int, d: int) -> bool:
        """Whether ``ΣZ`` lies in the row space of ``Z_T`` for every checked ``T``.

        This is the precondition of :meth:`secure` (``ΣZ = 0`` meets it).
        """
        q = self.q
        total = [[sum(keys[i][l][c] for i in keys) % q for c in range(d)] for l in range(L)]
        if not any(any(r) for r in total):
            return True
        zero = [[0] * d for _ in range(L)]
        for T in {tuple(c[0]) for c in self.checks}:
            zt = [r for i in T for r in keys.get(i, zero)]
            if self._rows_rank(total + zt, d) != self._rows_rank(zt, d):
                return False
        return True

    def secure_keys(self, keys: dict[int, list[list[int]]], L: int, d: int) -> bool:
        """The group-rank criterion; exact only when :meth:`sum_known` holds."""
        Z = np.zeros((self.K, L, d), dtype=np.int64)
        for i, rows in keys.items():
            Z[i] = np.asarray(rows, dtype=np.int64).reshape(L, d) % self.q
        return super().secure(Z)


def every_key(K: int, q: int, L: int, d: int) -> Iterator[dict[int, list[list[int]]]]:
    """Every key assignment with ``ΣZ = 0``: users ``0..K-2`` free, user ``K-1`` absorbs ``-Σ``.

    Every correct linear scheme has ``ΣZ = 0`` (a server's only combination of
    its view with ``ΣW`` in it is the sum of all messages), so this is every
    correct linear scheme with these ``L`` and ``d``: ``q^((K-1)·L·d)`` of them.

    >>> len(list(every_key(3, 2, 1, 1)))
    4
    """
    size = L * d
    for flat in product(range(q), repeat=(K - 1) * size):
        keys = {i: [list(flat[i * size + l * d:i * size + (l + 1) * d]) for l in range(L)]
                for i in range(K - 1)}
        keys[K - 1] = [[-sum(keys[i][l][c] for i in range(K - 1)) % q for c in range(d)]
                       for l in range(L)]
        yield keys


def _draws(shape: Shape, seed: int, L: int, d: int) -> Iterator[dict | None]:
    """The seeded draws of one cell: ``random.Random(f"{seed}:{L}:{d}:{name}:{t}")``."""
    for t in range(shape.draws):
        yield shape.make(random.Random(f"{seed}:{L}:{d}:{shape.name}:{t}"))


class _Runner:
    """Runs candidates through the fast criterion, then the verifier; counts and stops at the budget."""

    def __init__(self, instance: Instance, field: int, seed: int, budget: int,
                 time_limit: float | None = None):
        self.instance, self.field, self.seed, self.budget = instance, field, seed, budget
        self.clock = Deadline(time_limit)
        self.checker = _Checker(instance, field)
        self.candidates = self.prefiltered = self.verified = 0
        self.limit: str | None = None

    def run(self, L: int, d: int, name: str, candidates) -> tuple[Scheme, Verdict] | None:
        """The first candidate that verifies, or ``None`` (``limit`` set if the budget ran out)."""
        for keys in candidates:
            if keys is None:
                continue
            if self.candidates >= self.budget:
                self.limit = f"budget of {self.budget} candidate schemes reached"
                return None
            if self.clock.expired():
                self.limit = f"time limit of {self.clock.time_limit:.1f} s reached"
                return None
            self.candidates += 1
            if not self.checker.secure_keys(keys, L, d):
                continue
            self.prefiltered += 1
            scheme = Scheme(field=self.field, L=L, key_symbols=d, keys=keys, construction=f"search:{name}", seed=self.seed)
            verdict = verify(self.instance, scheme, engine="rank")
            if verdict.ok:
                self.verified += 1
                return scheme, verdict
        return None


@dataclass
class _Levels:
    """The level loop's record: attempts, levels tried, completeness, progress."""

    progress: Tick | None
    attempts: list[Attempt] = field(default_factory=list)
    d_tried: dict[int, list[int]] = field(default_factory=dict)
    complete: list[bool] = field(default_factory=list)     # one per level without a find
    done: int = 0

    def level(self, runner: _Runner, L: int, d: int, shapes: list[Shape], every, planned: int):
        """Search one ``(L, d)`` level; return ``(scheme, verdict, shape name)`` or ``None``.

        ``every`` (all candidates of the level, or ``None`` if too many) runs
        first; a level with it that finds nothing is complete.
        """
        self.d_tried.setdefault(L, []).append(d)
        cells = ([("every-key", every, None, True)] if every is not None else []) + [
            (sh.name, _draws(sh, runner.seed, L, d), sh.draws, sh.complete) for sh in shapes]
        for name, candidates, draws, complete in cells:
            before = runner.candidates
            res = runner.run(L, d, name, candidates)
            self.done += 1
            if self.progress:
                self.progress(self.done, max(planned, self.done))
            self.attempts.append(Attempt(L, d, name, draws if draws is not None
                                         else runner.candidates - before, res is not None))
            if res is not None:
                return res[0], res[1], name
            if runner.limit:
                break
            if complete:                 # every candidate tried: nothing at this level
                self.complete.append(True)
                return None
        self.complete.append(False)
        return None


@dataclass(frozen=True)
class ScalarOptions:
    """How :func:`search_min_rate` searches: its parameters but the instance and ``progress``, same names and meaning."""

    field: int = 31
    seed: int = 0
    max_symbols: int | None = None
    L_values: tuple[int, ...] = (1, 2)
    tries: int = 4
    n_random_supports: int = 4
    budget: int = DEFAULT_BUDGET
    all_supports_up_to: int = 6
    max_patterns: int = 400
    pattern_tries: int = 2
    enumerate_up_to: int = DEFAULT_ENUMERATE
    time_limit: float | None = None


def search_min_rate(instance: Instance, field: int = ScalarOptions.field, seed: int = ScalarOptions.seed,
                    max_symbols: int | None = ScalarOptions.max_symbols,
                    L_values: tuple[int, ...] = ScalarOptions.L_values, tries: int = ScalarOptions.tries,
                    progress: Progress | None = None, n_random_supports: int = ScalarOptions.n_random_supports,
                    budget: int = ScalarOptions.budget, all_supports_up_to: int = ScalarOptions.all_supports_up_to,
                    max_patterns: int = ScalarOptions.max_patterns, pattern_tries: int = ScalarOptions.pattern_tries,
                    enumerate_up_to: int = ScalarOptions.enumerate_up_to,
                    time_limit: float | None = ScalarOptions.time_limit) -> SearchResult:
    """Smallest-rate verified scheme found by a bounded, seeded search.

    Parameters
    ----------
    instance : Instance
    field : int
        Prime ``q`` of the schemes (larger fields make generic draws succeed more often).
    seed : int
        Everything random is drawn from ``random.Random(f"{seed}:...")``.
    max_symbols : int, optional
        Largest scalar ``d`` to try; default ``K - 1`` (the Condition-1 rate,
        always achievable).
    L_values : tuple of int
        Subset of ``(1, 2)``: ``L = 2`` tries every ``d`` with ``d/2`` below
        the best scalar rate (or below ``max_symbols + 1`` if none was found).
    tries : int
        Draws per ``(L, d, shape)`` cell.
    progress : callable(Event), optional
        Called with an :class:`itsa._util.progress.Event` after each cell:
        ``done`` of ``total``, the planned number of cells.
    n_random_supports : int
        Random supports added to the fixed list (when ``K > all_supports_up_to``).
    all_supports_up_to : int
        For ``K`` up to this, every support of at least two users is tried
        (after the named ones, largest first) instead of random ones.
    max_patterns : int
        Scalar column-support patterns per ``d`` (all of them when there are
        at most this many, else a seeded sample of this many), each drawn
        ``pattern_tries`` times.
    budget : int
        Stop after this many candidate schemes (``limit`` says so).
    enumerate_up_to : int
        A level with at most this many key assignments (``q^((K-1)·L·d)``,
        see :func:`every_key`) is searched completely, before any shape.
    time_limit : float, optional
        Seconds; like the budget, the limit stops the search (``limit`` says so).

    Returns
    -------
    SearchResult
        ``exhaustive`` is ``True`` when every level below the result (every
        ``(L, d)`` tried with ``d/L`` below the returned rate) had every one
        of its candidates tried: no linear scheme with those ``L`` over
        ``F_q`` has a smaller rate.

    Raises
    ------
    ItsaError
        If ``K·L + d`` exceeds :data:`MAX_SOURCE_DIM` for the largest planned cell.

    Examples
    --------
    >>> from itsa import examples
    >>> r = search_min_rate(examples.load("homogeneous-U3-V2-t1"), field=31)
    >>> r.rate, r.verdict.ok, r.exhaustive
    (Fraction(4, 1), True, False)
    >>> small = search_min_rate(examples.load("audit/fractional-optimum"), field=2, L_values=(1,))
    >>> small.rate, small.exhaustive         # over F_2 every scalar key with rate < 2 was tried
    (Fraction(2, 1), True)
    """
    return run_scalar_search(instance, ScalarOptions(
        field=field, seed=seed, max_symbols=max_symbols, L_values=tuple(L_values), tries=tries,
        n_random_supports=n_random_supports, budget=budget, all_supports_up_to=all_supports_up_to,
        max_patterns=max_patterns, pattern_tries=pattern_tries, enumerate_up_to=enumerate_up_to,
        time_limit=time_limit), progress)


def run_scalar_search(instance: Instance, options: ScalarOptions = ScalarOptions(),
                      progress: Progress | None = None) -> SearchResult:
    """:func:`search_min_rate` with its options in one object."""
    o = options
    K = instance.K
    if any(L not in (1, 2) for L in o.L_values) or not o.L_values:
        raise InvalidOption("L_values must be a non-empty subset of (1, 2)")
    max_d = K - 1 if o.max_symbols is None else o.max_symbols
    if max_d < 0:
        raise InvalidOption("max_symbols must be >= 0")
    biggest = max(K * L + (max_d + 1) * L for L in o.L_values)
    if biggest > MAX_SOURCE_DIM:
        raise ItsaError(f"search too large: K·L + d reaches {biggest} > {MAX_SOURCE_DIM} "
                        f"(K = {K}, max_symbols = {max_d}, L in {tuple(o.L_values)})")
    check_field(o.field)
    plan = Plan(instance=instance, field=o.field, seed=o.seed, supports=supports(instance, f"{o.seed}", o.n_random_supports, o.all_supports_up_to),
                 sbar=frozenset(members(configurations(instance).S_bar)), tries=o.tries, n_random_supports=o.n_random_supports,
                 max_patterns=o.max_patterns, pattern_tries=o.pattern_tries)
    runner, levels = _Runner(instance, o.field, o.seed, o.budget, o.time_limit), _Levels(counting(progress, "search"))

    def every(L, d):
        small = d > 0 and o.field ** ((K - 1) * L * d) <= o.enumerate_up_to
        return every_key(K, o.field, L, d) if small else None

    best = None
    if 1 in o.L_values:
        todo = [(d, shapes_L1(plan, d)) for d in range(0, max_d + 1)]
        planned = sum(len(sh) + (every(1, d) is not None) for d, sh in todo)
        for d, shapes in todo:
            best = levels.level(runner, 1, d, shapes, every(1, d), planned)
            if best or runner.limit:
                break
    if 2 in o.L_values and not runner.limit:
        top = best[0].rate if best else Fraction(max_d + 1)
        todo = [(d, shapes_L2(plan, d)) for d in range(1, 2 * max_d + 2) if Fraction(d, 2) < top]
        planned = levels.done + sum(len(sh) + (every(2, d) is not None) for d, sh in todo)
        for d, shapes in todo:
            found = levels.level(runner, 2, d, shapes, every(2, d), planned)
            if found:
                best = found
            if found or runner.limit:
                break
    scheme, verdict, shape = best if best else (None, None, None)
    exhaustive = runner.limit is None and all(levels.complete)
    return SearchResult(field=o.field, seed=o.seed, scheme=scheme, rate=scheme.rate if scheme else None, verdict=verdict, shape=shape,
                        L_values=tuple(o.L_values), d_values={L: tuple(v) for L, v in levels.d_tried.items()},
                        attempts=tuple(levels.attempts), candidates=runner.candidates, prefiltered=runner.prefiltered, verified=runner.verified,
                        exhaustive=exhaustive, complete=runner.limit is None, limit=runner.limit)


def fast_secure(instance: Instance, scheme: Scheme) -> bool:
    """Whether ``scheme`` meets every security constraint (correctness not checked).

    The fast group-rank criterion of :mod:`itsa.keys.bounds.corrected` ("Security criterion")
    decides a configuration only when ``ΣZ`` is a function of ``Z_T`` (for
    example when ``ΣZ = 0``, as in every correct linear scheme and every
    candidate of :func:`search_min_rate`). When some configuration lacks that
    precondition, the answer is the exact one of
    :func:`itsa.keys.schemes.verifier.verify` (rank engine). Either way it equals
    ``not verify(instance, scheme, engine="rank").leaks``.

    Examples
    --------
    A key that does not sum to zero: the criterion alone would say "secure",
    but every server sees ``W_(2,1)`` and ``W_(3,1)`` unkeyed, so with ``ΣW``
    it learns ``W_(1,1)``.

    >>> from itsa import Instance, Scheme
    >>> inst = Instance.from_users([1, 1, 1], [[(1, 1)]], [[]])
    >>> fast_secure(inst, Scheme(5, 1, 1, {0: [[1]]}))
    False
    >>> fast_secure(inst, Scheme(5, 1, 1, {0: [[1]], 1: [[-1]]}))
    True
    """
    keys = {i: [list(r) for r in mat] for i, mat in scheme.keys}
    checker = _Checker(instance, scheme.field)
    if not checker.sum_known(keys, scheme.L, scheme.key_symbols):
        return not verify(instance, scheme, engine="rank").leaks
    return checker.secure_keys(keys, scheme.L, scheme.key_symbols)


def capped_symbols(instance: Instance, max_symbols: int | None) -> tuple[int | None, str | None]:
    """``max_symbols`` capped at the search's limit, and a note saying so when it was cut.

    The search refuses ``K·L + d > MAX_SOURCE_DIM`` for its largest cell
    (``L = 2``, ``d = 2·(max_symbols + 1)``); a larger request is cut to the
    largest one it accepts rather than skipped. When even ``max_symbols = 0``
    is too large, the request is passed on and the search says why it stops.

    >>> from itsa import examples
    >>> capped_symbols(examples.load("example-1"), 1000)[0]
    22
    >>> capped_symbols(examples.load("example-1"), 5)
    (5, None)
    """
    want = instance.K - 1 if max_symbols is None else max_symbols
    top = MAX_SOURCE_DIM // 2 - instance.K - 1
    if want <= top or top < 0:
        return max_symbols, None
    return top, (f"search capped at max_symbols = {top} (requested {want}): K·L + d stays within "
                 f"the search's limit of {MAX_SOURCE_DIM} source symbols")
