"""One verdict per instance: the optimal source key rate with its proof and scheme, or the gap.

:func:`solve` runs every tool itsa has, in order, and keeps the best of each end:

* **lower end** (proved, for every scheme of the model): the corrected bound
  (:mod:`itsa.keys.bounds.corrected`), then the certified converse LPs (:mod:`itsa.keys.converse`)
  that fit, cheapest first, while the ends differ;
* **upper end** (verified): the paper's construction for the regime, the
  scalar search (:func:`itsa.keys.search.scalar.search_min_rate`), then vector schemes in
  the gap, first at the lower bound with ``L`` its denominator, guided by the
  converse LP's optimal entropy vector (:func:`itsa.keys.search.gap.search_gap`).

The verdict is ``"optimal"`` when the two ends meet, else ``"open"``, and
``Solution.search`` records what the upper-end search tried and why it stopped. Each end
says why it holds; every scheme passed :func:`itsa.keys.schemes.verifier.verify` and every
lower bound but the corrected one has a certificate checked exactly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, replace
from fractions import Fraction

from itsa._util.deadline import Deadline
from itsa._util.display import Displayable, Kind, shorten
from itsa._util.progress import Reporter
from itsa.exceptions import InvalidInstance, ItsaError, VerificationError
from itsa.keys.bounds.analysis import Analysis, analyze
from itsa.keys.bounds.corrected import EVERY_SCHEME, corrected_lower_bound
from itsa.keys.converse import ConverseBound, check_size, converse
from itsa.keys.converse.pipeline import Outcome
from itsa.keys.converse.registry import CLASSES, SOLVE_CLASSES, lookup
from itsa.keys.model.instance import Instance
from itsa.keys.schemes.scheme import Scheme
from itsa.keys.schemes.verifier import verify
from itsa.keys.search.gap import GapSearch, search_gap

#: Share of the time limit the scalar search may take (the converse and the gap search come after it).
SCALAR_SHARE = 0.4
#: Share of what is left after the search that the rounds of a keys LP solved by separation may
#: take (its first round always runs): the rest is the gap search's.
SEPARATION_SHARE = 1 / 3
#: The folder under which :func:`save_solution` keeps a solution by default (``solve-out/NAME``).
OUTPUT_ROOT = "solve-out"
#: The gap search gets the LP's whole key-entropy vector up to this K (2^K sets); above, pairs only.
HINT_MAX_USERS = 12


class SolveVerdict(Kind):
    """What :func:`solve` settled: the optimum, or an interval."""

    OPTIMAL = "optimal"
    OPEN = "open"


@dataclass(frozen=True, repr=False)
class LowerEnd:
    """A proved lower bound: its value, the method that proved it and why it holds.

    ``method`` is ``"corrected"`` (the chain bound of :mod:`itsa.keys.bounds.corrected`) or a
    converse LP of :data:`itsa.keys.converse.registry.REGISTRY` whose bound holds
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


@dataclass(kw_only=True)
class SolveState:
    """What :func:`solve` has established so far: each step reads and extends it.

    ``lower`` is the best proved lower end, ``upper`` the best verified scheme;
    ``skipped`` and ``kinds`` say, per converse LP, why it was not run or was cut;
    ``search`` is the record of the upper-end searches.
    """

    instance: Instance
    seed: int
    field: int | None
    classes: tuple[str, ...]
    clock: Deadline
    report: Reporter
    lower: LowerEnd | None = None
    upper: UpperEnd | None = None
    analysis: Analysis | None = None
    bounds: list[ConverseBound] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    skipped: dict[str, str] = dataclasses.field(default_factory=dict)
    kinds: dict[str, Outcome] = dataclasses.field(default_factory=dict)
    search: GapSearch = dataclasses.field(default_factory=GapSearch)

    @property
    def floor(self) -> Fraction:
        """The proved lower end's value (every step runs after the corrected bound)."""
        if self.lower is None:
            raise VerificationError("no lower end yet: the corrected bound comes first")
        return self.lower.value

    @property
    def met(self) -> bool:
        """Whether a verified scheme meets the proved lower end."""
        return self.upper is not None and self.upper.value == self.floor

    @property
    def gap(self) -> bool:
        """Whether the ends are still apart: no verified scheme, or one above the lower end."""
        return self.upper is None or self.upper.value > self.floor

    def offer(self, found: UpperEnd | None) -> None:
        """Keep ``found`` as the upper end when it is better."""
        self.upper = _better(self.upper, found)

    def skip(self, cls: str, reason: str, kind: Outcome) -> None:
        self.skipped[cls], self.kinds[cls] = reason, kind

    def solution(self) -> Solution:
        if self.lower is None:
            raise VerificationError("solve ended without a lower end")
        return Solution(instance=self.instance, lower=self.lower, upper=self.upper, converses=tuple(self.bounds),
                        timings=dict(self.clock.timings), notes=tuple(self.notes), search=self.search,
                        skipped=self.skipped, skipped_kinds=self.kinds)


def solve(instance: Instance, time_limit: float | None = None, seed: int = 0,
          field: int | None = None, classes: tuple[str, ...] = SOLVE_CLASSES,
          progress=None) -> Solution:
    """Settle the optimal source key rate of ``instance``, or state the gap exactly.

    A converse class is skipped (and recorded in ``Solution.skipped`` with the
    reason) when the instance is beyond its size limit, or when the time
    estimated from its reduced LP's size (:func:`itsa.keys.converse.estimate_seconds`,
    which errs on the short side) exceeds what is left of ``time_limit``; a
    converse that runs out of time is reported as cut. ``progress`` is called
    with an :class:`itsa._util.progress.Event` at every stage. The steps are
    :data:`SOLVE_STEPS`, run in order over one :class:`SolveState`.

    Examples
    --------
    >>> from itsa import examples
    >>> s = solve(examples.load("audit/fractional-optimum"))
    >>> s.verdict, s.lower.value, s.lower.scheme_class, s.lower.method, s.upper.L
    ('optimal', Fraction(3, 2), 'general', 'keys', 2)
    """
    from itsa.keys.schemes.linalg import check_field

    if field is not None:
        check_field(field)
    state = SolveState(instance=instance, seed=seed, field=field, classes=classes,
                       clock=Deadline(time_limit), report=Reporter(progress))
    for step in SOLVE_STEPS:
        step(state)
    return state.solution()


def analyze_step(state: SolveState) -> None:
    """The instance's analysis (its regime), and the corrected bound as the first lower end."""
    state.report("analyze")
    state.analysis = analyze(state.instance, corrected=False, time_limit=state.clock)
    state.clock.lap("analyze")
    cb = corrected_lower_bound(state.instance)
    state.lower = LowerEnd(cb.value, "corrected", False, f"corrected converse g(K) (itsa.keys.bounds.corrected): {cb.value}")
    state.clock.lap("corrected")


def scheme_step(state: SolveState) -> None:
    """The paper's construction for the regime, then the scalar search unless the construction meets the bound."""
    state.report("construction and scalar search")
    if state.analysis is None:
        raise VerificationError("the analysis comes before the schemes")
    state.offer(_paper_scheme(state.analysis, state.field, state.seed, state.notes))
    state.offer(_scalar_search(state))
    state.clock.lap("search")


def converse_step(state: SolveState) -> None:
    """The converse LPs, cheapest first, while no certified lower end meets a verified scheme."""
    for cls in sorted({lookup(c).name for c in state.classes}, key=CLASSES.index):
        if state.met and state.lower is not None and state.lower.certified:
            state.notes.append(f"{cls} converse not needed: the lower end already meets a verified scheme")
            continue
        b = _converse(state, cls)
        if b is None:
            continue
        state.bounds.append(b)
        state.clock.lap(f"converse-{cls}")
        _take_converse(state, cls, b)


def _take_converse(state: SolveState, cls: str, b: ConverseBound) -> None:
    """Record one converse's outcome: cut, failed, of narrower scope (a note), or a better lower end."""
    lower = state.lower
    if not b.certified:
        if b.cut:
            state.skip(cls, b.status, b.outcome)
        else:
            state.notes.append(f"{cls} converse not proved: {b.status}")
    elif b.value is None or b.certificate is None:
        raise VerificationError(f"the {cls} converse is marked certified without a value and its certificate")
    elif b.scheme_class != "general":     # a narrower scope (linear keys): a note only
        state.notes.append(f"{cls} converse: R_ZΣ ≥ {b.value} for {b.scope}")
    elif lower is None or b.value > lower.value or (b.value == lower.value and not lower.certified):
        state.lower = LowerEnd(b.value, cls, True, f"certified {cls} converse LP: {b.value}, "
                               f"{b.certificate.size}-step proof checked exactly", b)


def vector_step(state: SolveState) -> None:
    """Vector schemes in the gap, while no verified scheme meets the lower end."""
    if not state.gap:
        return
    state.report("vector search")
    state.offer(_vector_search(state))
    state.clock.lap("vector-search")


def open_notes_step(state: SolveState) -> None:
    """An open solution says which converse did not run or finish, and which bound may rise with more time."""
    if not state.gap:
        return
    state.notes += [f"{cls} converse {_why_not(state.skipped[cls], kind)}" for cls, kind in state.kinds.items()]
    state.notes += [f"{b.method} converse {b.status}: its bound may rise with more time"
                    for b in state.bounds if b.relaxed]


#: The steps of :func:`solve`, in order, each a function of the :class:`SolveState`.
SOLVE_STEPS = (analyze_step, scheme_step, converse_step, vector_step, open_notes_step)


def _converse(state: SolveState, cls: str) -> ConverseBound | None:
    """The converse of ``cls`` within what is left of the budget, or ``None`` (reason in ``state.skipped``).

    The best scheme's rate so far lets an LP solved by separation stop once it is proved;
    such an LP starts no new round past :data:`SEPARATION_SHARE` of what is left, which the gap
    search needs, nor after one no higher than the lower end proved so far.
    """
    instance, clock = state.instance, state.clock
    try:
        check_size(instance, lookup(cls))
    except InvalidInstance as exc:          # too many users
        state.skip(cls, str(exc), Outcome.REFUSED)
        return None
    if clock.expired():
        state.skip(cls, "skipped: no time left", Outcome.NOT_RUN)
        return None
    try:
        left = clock.left()
        return converse(instance, cls, time_limit=left, progress=state.report.callback, max_estimate=left,
                        rate_goal=None if state.upper is None else state.upper.value,
                        separation_limit=None if left is None else left * SEPARATION_SHARE,
                        floor=state.floor)
    except InvalidInstance as exc:          # e.g. too many orbits of user sets
        state.skip(cls, str(exc), Outcome.REFUSED)
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
    from itsa.keys.schemes.constructions import build_scheme, default_field

    try:
        b = build_scheme(a, field or default_field(a), seed=seed)
    except ItsaError as exc:
        notes.append(f"paper construction ({a.regime}) not available: {exc}")
        return None
    return _checked(a.instance, b.scheme, f"paper construction ({a.regime})")


def _scalar_search(state: SolveState) -> UpperEnd | None:
    """The scalar search's scheme (or ``None``); its record goes to ``state.search``."""
    from itsa.keys.search.scalar import ScalarOptions, run_scalar_search

    if state.upper is not None and state.upper.value <= state.floor:
        return None
    left = state.clock.left()
    try:
        r = run_scalar_search(state.instance, ScalarOptions(
            seed=state.seed, time_limit=None if left is None else SCALAR_SHARE * left))
    except ItsaError as exc:
        state.notes.append(f"scalar search skipped: {exc}")
        state.search = GapSearch(scalar_limit=f"skipped: {exc}")
        return None
    state.search = GapSearch(scalar_candidates=r.candidates, scalar_limit=r.limit,
                             scalar_L=max(r.d_values, default=1))
    return _checked(state.instance, r.scheme, f"search ({r.shape})") if r.scheme is not None else None


def _vector_search(state: SolveState) -> UpperEnd | None:
    """Vector schemes in the gap (:func:`itsa.keys.search.gap.search_gap`), guided by the converse's optimum."""
    instance, lower, upper = state.instance, state.lower, state.upper
    if lower is None:
        raise VerificationError("the vector search needs a lower end")
    hints = (lower.bound.key_entropies(instance.K if instance.K <= HINT_MAX_USERS else 2)
             if lower.bound is not None else None)
    r, record = search_gap(instance, lower.value, None if upper is None else upper.value,
                           hints=hints, seed=state.seed, field=state.field, time_limit=state.clock.left())
    state.search = replace(state.search, rates=record.rates, stopped=record.stopped, rounds=record.rounds)
    return (_checked(instance, r.scheme, f"vector search ({r.shape})")
            if r is not None and r.scheme is not None else None)


def save_solution(result: Solution, out_dir) -> dict[str, str]:
    """Write the proof (Markdown) and the scheme (the format ``itsa verify --scheme`` reads).

    Returns the paths written, by kind (``"proof"``, ``"scheme"``); :meth:`Solution.saved`
    gives the solution that names them.
    """
    from itsa._util.files import output_dir, safe_stem
    from itsa.keys.converse.proof import write_proof
    from itsa.keys.schemes.scheme import save_scheme

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


def default_output_dir(instance: Instance, path, root: str = OUTPUT_ROOT) -> str:
    """``root/NAME``: the instance's name, else the stem of the file it came from, safe as a folder name.

    >>> from itsa import examples
    >>> default_output_dir(examples.example1(), "x.yaml")
    'solve-out/example-1'
    """
    from pathlib import Path

    from itsa._util.files import safe_stem

    return str(Path(root) / safe_stem(instance.name or Path(path).stem))
