"""One verdict per instance: the optimal source key rate with its proof and scheme, or the gap.

:func:`solve` runs every tool itsa has, in order, and keeps the best of each end:

* **lower end** (proved, for every scheme of the model): the corrected bound
  (:mod:`itsa.bounds.corrected`), then the certified converse LPs (:mod:`itsa.converse`)
  that fit, cheapest first, while the ends differ;
* **upper end** (verified): the paper's construction for the regime, the
  scalar search (:func:`itsa.search.scalar.search_min_rate`), then vector schemes in
  the gap, first at the lower bound with ``L`` its denominator, guided by the
  converse LP's optimal entropy vector (:func:`itsa.search.gap.search_gap`).

The verdict is ``"optimal"`` when the two ends meet, else ``"open"``, and
``Solution.search`` records what the upper-end search tried and why it stopped. Each end
says why it holds; every scheme passed :func:`itsa.schemes.verifier.verify` and every
lower bound but the corrected one has a certificate checked exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from itsa._util.deadline import Deadline
from itsa._util.display import Displayable, Kind, shorten
from itsa.bounds.analysis import Analysis, analyze
from itsa.bounds.corrected import EVERY_SCHEME, corrected_lower_bound
from itsa.converse import ConverseBound, check_size, converse
from itsa.converse.pipeline import Outcome
from itsa.converse.registry import CLASSES, SOLVE_CLASSES, lookup
from itsa.exceptions import InvalidInstance, ItsaError, VerificationError
from itsa.model.instance import Instance
from itsa.schemes.scheme import Scheme
from itsa.schemes.verifier import verify
from itsa.search.gap import GapSearch, search_gap

#: Share of the time limit the scalar search may take (the converse and the gap search come after it).
SCALAR_SHARE = 0.4
#: Share of what is left after the search that the rounds of a keys LP solved by separation may
#: take (its first round always runs): the rest is the gap search's.
SEPARATION_SHARE = 1 / 3
#: The gap search gets the LP's whole key-entropy vector up to this K (2^K sets); above, pairs only.
HINT_MAX_USERS = 12


class SolveVerdict(Kind):
    """What :func:`solve` settled: the optimum, or an interval."""

    OPTIMAL = "optimal"
    OPEN = "open"


@dataclass(frozen=True, repr=False)
class LowerEnd:
    """A proved lower bound: its value, the method that proved it and why it holds.

    ``method`` is ``"corrected"`` (the chain bound of :mod:`itsa.bounds.corrected`) or a
    converse LP of :data:`itsa.converse.registry.REGISTRY` whose bound holds
    for every scheme of the model (the general group lemma); an LP of
    narrower scope (``linear``) is reported in the notes, never as the
    lower end.
    """

    value: Fraction
    method: str
    certified: bool
    reason: str
    bound: ConverseBound | None = field(default=None, repr=False)

    @property
    def scheme_class(self) -> str:
        """``"general"`` when the bound holds for every scheme of the model (every default method)."""
        return "general" if self.bound is None else self.bound.scheme_class

    @property
    def scope(self) -> str:
        return EVERY_SCHEME if self.bound is None else self.bound.scope

    def __repr__(self) -> str:
        return f"<LowerEnd R* ≥ {self.value} ({self.method}{', certified' if self.certified else ''})>"

@dataclass(frozen=True, repr=False)
class UpperEnd:
    """A verified scheme: its rate, ``L`` and where it came from."""

    value: Fraction
    L: int
    source: str
    scheme: Scheme = field(repr=False)

    def __repr__(self) -> str:
        return f"<UpperEnd R* ≤ {self.value} (L = {self.L}; {shorten(self.source, 60)})>"

@dataclass(kw_only=True, frozen=True, repr=False)
class Solution(Displayable):
    """The result of :func:`solve`."""

    instance: Instance
    lower: LowerEnd
    upper: UpperEnd | None
    converses: tuple[ConverseBound, ...]
    timings: dict
    notes: tuple[str, ...] = ()
    search: GapSearch | None = field(default=None, compare=False)
    skipped: dict = field(default_factory=dict)    # converse class -> why it was not run or cut
    skipped_kinds: dict = field(default_factory=dict)   # converse class -> its Outcome (skipped or cut)
    files: dict = field(default_factory=dict, compare=False)   # kind ("proof", "scheme") -> path written

    @property
    def verdict(self) -> SolveVerdict:
        """:attr:`SolveVerdict.OPTIMAL` when the ends meet, else :attr:`SolveVerdict.OPEN`."""
        settled = self.upper is not None and self.upper.value == self.lower.value
        return SolveVerdict.OPTIMAL if settled else SolveVerdict.OPEN

    def headline(self) -> str:
        name = self.instance.name or "instance"
        if self.verdict is SolveVerdict.OPTIMAL:
            return f"{name}: R* = {self.lower.value}, optimal for {self.lower.scope}"
        up = "?" if self.upper is None else self.upper.value
        return f"{name}: {self.lower.value} ≤ R* ≤ {up}, open"

    def rows(self) -> list[tuple[str, str]]:
        up = self.upper
        rows = [("lower", f"{self.lower.reason} [{self.lower.scope}]"),
                ("upper", "no verified scheme" if up is None else
                 f"verified scheme of rate {up.value} (L = {up.L}, F_{up.scheme.field}), {up.source}")]
        if self.verdict is SolveVerdict.OPEN and self.search is not None:
            rows.append(("search", self.search.why()))
        rows += [("note", n) for n in self.notes]
        return rows + [(f"{kind} saved to", path) for kind, path in self.files.items()]

    def saved(self, out_dir) -> Solution:
        """Write the proof and the scheme under ``out_dir`` (:func:`save_solution`); the solution naming them."""
        return replace(self, files=save_solution(self, out_dir))

    def to_dict(self) -> dict:
        up = self.upper
        return {"instance": self.instance.name, "verdict": str(self.verdict),
                "lower": {"value": str(self.lower.value), "class": self.lower.scheme_class,
                          "method": self.lower.method, "certified": self.lower.certified,
                          "reason": self.lower.reason, "scope": self.lower.scope,
                          "certificate_file": self.files.get("proof")},
                "upper": None if up is None else {"value": str(up.value), "L": up.L,
                                                  "field": up.scheme.field, "source": up.source,
                                                  "scheme_file": self.files.get("scheme")},
                "converses": [b.to_dict() for b in self.converses],
                "skipped": dict(self.skipped),
                "skipped_kinds": {cls: str(kind) for cls, kind in self.skipped_kinds.items()},
                "timings": {k: round(v, 3) for k, v in self.timings.items()},
                "notes": list(self.notes),
                "search": None if self.search is None else self.search.to_dict()}


def solve(instance: Instance, time_limit: float | None = None, seed: int = 0,
          field: int | None = None, classes: tuple[str, ...] = SOLVE_CLASSES,
          progress=None) -> Solution:
    """Settle the optimal source key rate of ``instance``, or state the gap exactly.

    A converse class is skipped (and recorded in ``Solution.skipped`` with the
    reason) when the instance is beyond its size limit, or when the time
    estimated from its reduced LP's size (:func:`itsa.converse.estimate_seconds`,
    which errs on the short side) exceeds what is left of ``time_limit``; a
    converse that runs out of time is reported as cut. ``progress`` is called
    with an :class:`itsa._util.progress.Event` at every stage.

    Examples
    --------
    >>> from itsa import examples
    >>> s = solve(examples.load("audit/fractional-optimum"))
    >>> s.verdict, s.lower.value, s.lower.scheme_class, s.lower.method, s.upper.L
    ('optimal', Fraction(3, 2), 'general', 'keys', 2)
    """
    from itsa.schemes.linalg import check_field

    if field is not None:
        check_field(field)
    from itsa._util.progress import Reporter

    clock = Deadline(time_limit)
    report = Reporter(progress)
    notes: list[str] = []
    skipped: dict[str, str] = {}
    kinds: dict[str, Outcome] = {}
    report("analyze")
    a = analyze(instance, corrected=False)
    clock.lap("analyze")
    cb = corrected_lower_bound(instance)
    lower = LowerEnd(cb.value, "corrected", False, f"corrected converse g(K) (itsa.bounds.corrected): {cb.value}")
    clock.lap("corrected")
    report("construction and scalar search")
    upper = _paper_scheme(a, field, seed, notes)
    scalar = _scalar_search(instance, seed, lower.value, upper, notes, clock)
    upper = _better(upper, scalar[0])
    clock.lap("search")
    bounds = []
    for cls in sorted({lookup(c).name for c in classes}, key=CLASSES.index):   # cheapest first
        if upper is not None and upper.value == lower.value and lower.certified:
            notes.append(f"{cls} converse not needed: the lower end already meets a verified scheme")
            continue
        b = _converse(instance, cls, clock, report, skipped, kinds, None if upper is None else upper.value,
                      lower.value)
        if b is None:
            continue
        bounds.append(b)
        clock.lap(f"converse-{cls}")
        if not b.certified:
            if b.cut:
                skipped[cls], kinds[cls] = b.status, b.outcome
            else:
                notes.append(f"{cls} converse not proved: {b.status}")
        elif b.value is None or b.certificate is None:
            raise VerificationError(f"the {cls} converse is marked certified without a value and its certificate")
        elif b.scheme_class != "general":     # a narrower scope (linear keys): a note only
            notes.append(f"{cls} converse: R_ZΣ ≥ {b.value} for {b.scope}")
        elif b.value > lower.value or (b.value == lower.value and not lower.certified):
            lower = LowerEnd(b.value, cls, True, f"certified {cls} converse LP: {b.value}, "
                             f"{b.certificate.size}-step proof checked exactly", b)
    search = GapSearch(scalar_candidates=scalar[1], scalar_limit=scalar[2], scalar_L=scalar[3])
    if upper is None or upper.value > lower.value:
        report("vector search")
        found, search = _vector_search(instance, lower, upper, seed, field, clock, scalar)
        upper = _better(upper, found)
        clock.lap("vector-search")
    if upper is None or upper.value > lower.value:      # open: say which converse did not run or finish
        notes += [f"{cls} converse {_why_not(skipped[cls], kind)}" for cls, kind in kinds.items()]
        notes += [f"{b.method} converse {b.status}: its bound may rise with more time" for b in bounds if b.relaxed]
    return Solution(instance=instance, lower=lower, upper=upper, converses=tuple(bounds),
                    timings=dict(clock.timings), notes=tuple(notes), search=search, skipped=skipped,
                    skipped_kinds=kinds)


def _converse(instance, cls, clock, report, skipped, kinds, target, floor) -> ConverseBound | None:
    """The converse of ``cls`` within what is left of the budget, or ``None`` (reason in ``skipped``).

    ``target``, the best scheme's rate so far, lets an LP solved by separation stop once it is proved;
    such an LP starts no new round past :data:`SEPARATION_SHARE` of what is left, which the gap
    search needs, nor after one no higher than ``floor``, the lower end proved so far.
    """
    try:
        check_size(instance, lookup(cls))
    except InvalidInstance as exc:          # too many users
        skipped[cls], kinds[cls] = str(exc), Outcome.REFUSED
        return None
    if clock.expired():
        skipped[cls], kinds[cls] = "skipped: no time left", Outcome.NOT_RUN
        return None
    try:
        left = clock.left()
        return converse(instance, cls, time_limit=left, progress=report.callback, max_estimate=left,
                        target=target, separation_limit=None if left is None else left * SEPARATION_SHARE,
                        floor=floor)
    except InvalidInstance as exc:          # e.g. too many orbits of user sets
        skipped[cls], kinds[cls] = str(exc), Outcome.REFUSED
        return None


def _why_not(reason: str, kind: Outcome) -> str:
    """The open solution's note on a converse: a cut or skipped LP's status as it is; a refusal, skipped."""
    return f"skipped: {reason}" if kind is Outcome.REFUSED else reason


def _better(a: UpperEnd | None, b: UpperEnd | None) -> UpperEnd | None:
    if a is None or (b is not None and b.value < a.value):
        return b
    return a


def _checked(instance: Instance, scheme: Scheme, source: str) -> UpperEnd:
    """An upper end from a scheme on as few key symbols as it uses, after the verifier accepts it."""
    trimmed = scheme.trimmed()
    if trimmed is not scheme:
        source += f", {scheme.key_symbols - trimmed.key_symbols} redundant key symbols dropped"
    if not verify(instance, trimmed, engine="rank").ok:
        raise ItsaError(f"a scheme from {source} failed verification")
    return UpperEnd(trimmed.rate, trimmed.L, source, trimmed)


def _paper_scheme(a: Analysis, field, seed, notes) -> UpperEnd | None:
    from itsa.schemes.constructions import build_scheme, default_field

    try:
        b = build_scheme(a, field or default_field(a), seed=seed)
    except ItsaError as exc:
        notes.append(f"paper construction ({a.regime}) not available: {exc}")
        return None
    return _checked(a.instance, b.scheme, f"paper construction ({a.regime})")


def _scalar_search(instance, seed, lower, upper, notes, clock):
    """``(upper end or None, candidates drawn, limit that stopped it, largest L)`` of the scalar search."""
    from itsa.search.scalar import search_min_rate

    if upper is not None and upper.value <= lower:
        return None, None, None, 1
    left = clock.left()
    try:
        r = search_min_rate(instance, seed=seed, time_limit=None if left is None else SCALAR_SHARE * left)
    except ItsaError as exc:
        notes.append(f"scalar search skipped: {exc}")
        return None, None, f"skipped: {exc}", 1
    found = _checked(instance, r.scheme, f"search ({r.shape})") if r.scheme is not None else None
    return found, r.candidates, r.limit, max(r.d_values, default=1)


def _vector_search(instance, lower: LowerEnd, upper, seed, field, clock, scalar):
    """Vector schemes in the gap (:func:`itsa.search.gap.search_gap`), guided by the converse's optimum."""
    hints = (lower.bound.key_entropies(instance.K if instance.K <= HINT_MAX_USERS else 2)
             if lower.bound is not None else None)
    r, record = search_gap(instance, lower.value, None if upper is None else upper.value,
                           hints=hints, seed=seed, field=field, time_limit=clock.left())
    record = GapSearch(rates=record.rates, scalar_candidates=scalar[1], scalar_limit=scalar[2], stopped=record.stopped, scalar_L=scalar[3], rounds=record.rounds)
    found = (_checked(instance, r.scheme, f"vector search ({r.shape})")
             if r is not None and r.scheme is not None else None)
    return found, record


def save_solution(result: Solution, out_dir) -> dict[str, str]:
    """Write the proof (Markdown) and the scheme (the format ``itsa verify --scheme`` reads).

    Returns the paths written, by kind (``"proof"``, ``"scheme"``); :meth:`Solution.saved`
    gives the solution that names them.
    """
    from itsa._util.files import output_dir, safe_stem
    from itsa.converse.proof import write_proof
    from itsa.schemes.scheme import save_scheme

    out = output_dir(out_dir)
    written: dict[str, str] = {}
    stem = safe_stem(result.instance.name or "instance")
    if result.lower.bound is not None:
        written["proof"] = str(out / f"{stem}.proof.md")
        write_proof(result.lower.bound, result.instance, written["proof"])
    if result.upper is not None:
        written["scheme"] = str(out / f"{stem}.scheme.json")
        save_scheme(result.instance, result.upper.scheme, written["scheme"])
    return written
