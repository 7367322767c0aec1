"""Search the gap between a proved lower bound and the best verified scheme, and record why it stops.

:func:`search_gap` is the upper-end search of :func:`itsa.keys.optimum.solve` for
an interval ``lo <= R* < hi``. It spends its budget where a find matters most:

1. the lower bound itself, at ``L = q`` and ``L = 2q`` for ``lo = p/q``
   (the LP's denominator: a scheme there closes the interval; ``L = 1, 2``
   for a whole ``lo``);
2. the rest of the gap by bisection over the rates ``p/L`` (``L`` up to 4,
   or the lower bound's denominator), each at its own denominator and twice
   it: a scheme at the middle rate becomes the new upper end, a miss moves
   the search above it.

Each rate is one :func:`itsa.keys.search.vector.search_vector_scheme` (fixed shapes
from the converse's entropy vector, then repair walks), with a share of the
time and of the candidates. With a time limit the lower bound comes first
and longest (only a scheme there closes the interval): passes at it alone,
with fresh draws and twice the candidates each time (up to 64 times the
first's), for two thirds of the time; then one pass over the rest of the gap;
then passes at the lower bound again until the time runs out. An open
interval has spent the whole time limit, unless nothing could be drawn at
the lower bound (its denominator above ``MAX_L``). :class:`GapSearch` records every rate tried, the
largest ``L``, the candidates and which limit stopped the search: the reason
an interval stays open.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import ceil

from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import ItsaError
from itsa.keys.model.instance import Instance
from itsa.keys.search.vector import VectorOptions, VectorSearchResult, run_vector_search

__all__ = ["RateTried", "GapSearch", "gap_rates", "search_gap"]

#: Candidate schemes per rate when there is no time limit (the lower bound gets twice this).
RATE_BUDGET = 1500
#: Share of a time limit spent at the lower bound before the rest of the gap is searched
#: (only a scheme there closes the interval).
LOWER_SHARE = 2 / 3
#: Largest ``L`` the search tries (the verifier works on ``K·L + d`` symbols).
MAX_L = 16


@dataclass(kw_only=True, frozen=True)
class RateTried:
    """One rate of the gap: the ``L`` tried, candidates drawn, found or not, and what stopped it.

    ``best_deficit`` is how far the closest candidate fell short of security
    (see :class:`itsa.keys.search.vector.VectorSearchResult`).
    """

    rate: Fraction
    L_values: tuple[int, ...]
    candidates: int
    prefiltered: int
    found: bool
    limit: str | None
    best_deficit: int | None = None

    def to_dict(self) -> dict:
        return {"rate": str(self.rate), "L": list(self.L_values), "candidates": self.candidates,
                "prefiltered": self.prefiltered, "found": self.found, "limit": self.limit,
                "best_deficit": self.best_deficit}


@dataclass(kw_only=True, frozen=True, repr=False)
class GapSearch(Displayable):
    """The record of the upper-end search: what was tried, and why it stopped.

    ``scalar_candidates`` and ``scalar_limit`` come from the scalar search
    (:func:`itsa.keys.search.scalar.search_min_rate`, ``None`` if it did not run),
    ``scalar_L`` the largest ``L`` it tried;
    ``rates`` lists the vector searches in the order run; ``stopped`` says
    which limit ended the gap search (``None``: every planned rate was tried);
    ``rounds`` counts the passes at the lower bound (1 without a time limit).
    A rate without a scheme proves nothing.
    """

    rates: tuple[RateTried, ...] = ()
    scalar_candidates: int | None = None
    scalar_limit: str | None = None
    stopped: str | None = None
    scalar_L: int = 1
    rounds: int = 1

    @property
    def largest_L(self) -> int:
        return max([L for r in self.rates for L in r.L_values] + [self.scalar_L])

    @property
    def candidates(self) -> int:
        return sum(r.candidates for r in self.rates) + (self.scalar_candidates or 0)

    def why(self) -> str:
        """One line: what the search tried and what stopped it.

        >>> tried = RateTried(rate=Fraction(7, 5), L_values=(5, 10), candidates=900, prefiltered=0,
        ...                   found=False, limit="budget of 900 candidate schemes reached")
        >>> GapSearch(rates=(tried,), scalar_candidates=20000).why()
        'no scheme below the upper end: rates 7/5 tried with L up to 10, 20900 candidates; stopped: rate 7/5: budget of 900 candidate schemes reached'
        """
        tried = ", ".join(dict.fromkeys(str(r.rate) for r in self.rates)) or "none"
        if self.rounds > 1:
            tried += f" (the lower bound in {self.rounds} passes, fresh draws, more candidates each)"
        last = {r.rate: r.limit for r in self.rates}             # the last round's word on each rate
        stops = [f"rate {rate}: {limit}" for rate, limit in last.items() if limit]
        if self.scalar_limit:
            stops.insert(0, f"scalar search: {self.scalar_limit}")
        if self.stopped:
            stops.append(self.stopped)
        return (f"no scheme below the upper end: rates {tried} tried with L up to {self.largest_L}, "
                f"{self.candidates} candidates; stopped: {'; '.join(stops) or 'every planned rate tried'}")

    def headline(self) -> str:
        found = [r.rate for r in self.rates if r.found]
        if found:
            return f"a verified scheme at rate {min(found)}; {self.candidates} candidates in all"
        return self.why()

    def rows(self) -> list[tuple[str, str]]:
        return [(f"rate {r.rate}", f"L {', '.join(map(str, r.L_values))}: {r.candidates} candidates, "
                 + ("found" if r.found else f"none ({r.limit or 'all drawn'})")) for r in self.rates]

    def to_dict(self) -> dict:
        return {"rates": [r.to_dict() for r in self.rates], "rounds": self.rounds,
                "largest_L": self.largest_L,
                "candidates": self.candidates, "scalar_candidates": self.scalar_candidates,
                "scalar_limit": self.scalar_limit, "stopped": self.stopped}


def _Ls(rate: Fraction) -> tuple[int, ...]:
    """The ``L`` tried for ``rate``: its denominator and twice it (and 2 for a whole rate)."""
    q = rate.denominator
    return tuple(L for L in dict.fromkeys((q, 2 * q) if q > 1 else (1, 2)) if L <= MAX_L)


def gap_rates(lo: Fraction, hi: Fraction | None, denominators=(1, 2, 3, 4)) -> list[Fraction]:
    """Every rate ``p/L`` (``L`` in ``denominators``) with ``lo < p/L < hi``, ascending.

    ``hi`` defaults to ``lo + 2``; ``lo`` itself is searched first and apart.

    >>> [str(r) for r in gap_rates(Fraction(3), Fraction(7, 2))]
    ['13/4', '10/3']
    """
    top = lo + 2 if hi is None else hi
    return sorted({Fraction(p, L) for L in denominators for p in range(ceil(lo * L), ceil(top * L))
                   if lo < Fraction(p, L) < top})


def search_gap(instance: Instance, lo: Fraction, hi: Fraction | None, *,
               hints: Mapping[int, Fraction] | None = None, seed: int = 0,
               field: int | None = None, time_limit: float | None = None,
               rate_budget: int = RATE_BUDGET) -> tuple[VectorSearchResult | None, GapSearch]:
    """The best verified vector scheme found in ``[lo, hi)``, and the record of the search.

    Parameters
    ----------
    lo, hi : Fraction
        The proved lower bound and the best verified rate (``None``: none yet).
    hints : mapping, optional
        ``h(Z_A)`` of the converse's optimum (user bitmask -> value), see
        :func:`itsa.keys.search.vector.search_vector_scheme`.
    time_limit : float, optional
        Seconds for the whole gap search; shared between the rates,
        and spent in full (further passes) unless a scheme meets ``lo``.
    rate_budget : int
        Candidates per rate (twice this at ``lo``).

    Examples
    --------
    >>> from itsa import examples
    >>> res, rec = search_gap(examples.load("audit/fractional-optimum"), Fraction(3, 2), Fraction(2))
    >>> res.scheme.rate, rec.rates[0].L_values, rec.stopped
    (Fraction(3, 2), (2, 4), None)
    """
    tried: list[RateTried] = []
    if time_limit is None:                               # one pass: the bound, then the gap
        best, stopped = _one_pass(instance, lo, hi, None, tried, Deadline(None),
                                  GapPass(hints, seed, field, rate_budget), lower=True, gap=True)
        return best, GapSearch(rates=tuple(tried), stopped=stopped)
    clock = Deadline(time_limit)
    passes = [0]

    def at_lower(best, until: Deadline):
        """Passes at the lower bound alone until ``until``; the best find and what stopped them."""
        while True:
            before = len(tried)
            best, stopped = _one_pass(instance, lo, hi, best, tried, until,
                                      GapPass(hints, seed + passes[0], field, rate_budget << min(passes[0], 6)),
                                      lower=True, gap=False)
            drew = any(r.candidates for r in tried[before:])
            passes[0] += drew
            if not drew or _closes(best, lo) or stopped:
                return best, stopped
    best, stopped = at_lower(None, clock.share(LOWER_SHARE))
    if not _closes(best, lo) and not clock.expired():
        best, stopped = _one_pass(instance, lo, hi, best, tried, clock, GapPass(hints, seed, field, rate_budget),
                                  lower=False, gap=True)
        if passes[0] and not _closes(best, lo) and not clock.expired():
            best, stopped = at_lower(best, clock)
    if not _closes(best, lo) and clock.expired():
        stopped = "time limit reached"
    return best, GapSearch(rates=tuple(tried), stopped=None if _closes(best, lo) else stopped,
                           rounds=max(1, passes[0]))


def _closes(best: VectorSearchResult | None, lo: Fraction) -> bool:
    return best is not None and best.scheme is not None and best.scheme.rate == lo


@dataclass(frozen=True)
class GapPass:
    """What one pass of :func:`search_gap` searches with: the hints, the seed, the field, the budget per rate."""

    hints: Mapping[int, Fraction] | None
    seed: int
    field: int | None
    budget: int


def _one_pass(instance, lo, hi, best, tried, deadline: Deadline, opts: GapPass, *, lower: bool, gap: bool):
    """``lo`` (with ``lower``), then the gap's rates by bisection (with ``gap``); appends to ``tried``.

    Returns the best find so far and what stopped the pass (``None``: every rate tried).
    """
    top = hi if best is None else best.scheme.rate
    rest = gap_rates(lo, top, tuple(dict.fromkeys((1, 2, 3, 4, lo.denominator)))) if gap else []
    todo = [lo] if lower and (top is None or lo < top) else []
    while todo or rest:
        if todo:
            rate, share = todo.pop(), 1.0
        else:
            rate, share = rest[len(rest) // 2], 1 / max(1, len(rest).bit_length())
        left = deadline.left()
        if deadline.expired():
            return best, "time limit reached"
        try:
            r = run_vector_search(instance, rate, VectorOptions(
                L_values=_Ls(rate), field=opts.field, seed=opts.seed, time_limit=None if left is None else left * share,
                budget=opts.budget * (2 if rate == lo else 1)), hints=opts.hints)
        except ItsaError as exc:
            tried.append(RateTried(rate=rate, L_values=_Ls(rate), candidates=0, prefiltered=0, found=False, limit=f"skipped: {exc}"))
            rest = [x for x in rest if x != rate]
            continue
        tried.append(RateTried(rate=rate, L_values=r.L_tried, candidates=r.candidates, prefiltered=r.prefiltered, found=r.found, limit=r.limit,
                               best_deficit=r.best_deficit))
        if r.found:
            best = r
            rest = [x for x in rest if x < rate]
        else:
            rest = [x for x in rest if x > rate]
        if r.found and rate == lo:
            break
    return best, None
