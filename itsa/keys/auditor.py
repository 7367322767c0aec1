"""Audit an instance: set the paper's claims beside verified schemes and external results.

The audit builds the paper's own construction under both readings of ``Q``
(docs/model.md §6.1), searches for the smallest verified scheme
(:mod:`itsa.keys.search.scalar`), computes itsa's corrected converse (:mod:`itsa.keys.bounds.corrected`)
and any published closed form (:mod:`itsa.keys.bounds.published`), and states every
disagreement as a :class:`Finding`. Every scheme a finding cites has passed
:func:`itsa.keys.schemes.verifier.verify`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from itsa._util import display
from itsa._util.bitset import members
from itsa._util.display import Displayable, Kind
from itsa._util.files import output_dir, safe_stem  # noqa: F401  (safe_stem: also itsa.keys.auditor.safe_stem)
from itsa._util.plain import frac, plain
from itsa.exceptions import Infeasible, InvalidInstance, InvalidScheme, ItsaError, VerificationError
from itsa.keys.bounds.analysis import Analysis, Regime, analyze
from itsa.keys.bounds.corrected import CorrectedBound, corrected_lower_bound
from itsa.keys.bounds.published import KnownOptimum, known_optimum
from itsa.keys.model.instance import Instance
from itsa.keys.model.quantities import Q_RULES, QRule, configurations
from itsa.keys.schemes.constructions import Build, build_scheme, default_field, required_field
from itsa.keys.schemes.linalg import check_field
from itsa.keys.schemes.scheme import Scheme, save_scheme
from itsa.keys.schemes.verifier import verify
from itsa.keys.search.scalar import ScalarOptions, SearchResult, capped_symbols, run_scalar_search
from itsa.typing import Config

if TYPE_CHECKING:
    from itsa.keys.converse import ConverseBound

class FindingKind(Kind):
    """What an audit finding is: the machine-readable kind beside its message."""

    CONVERSE_BEATEN = "converse-beaten"          # a verified scheme (or published optimum) below the printed lower bound
    CONSTRUCTION_FAILS = "construction-fails"    # a construction of the paper that no draw makes pass the verifier
    OPTIMUM_NOT_REACHED = "optimum-not-reached"  # the claimed optimum / upper bound reached by no verified scheme
    Q_RULE_DISAGREEMENT = "q-rule-disagreement"  # the two readings of Q give different claims
    CORRECTED_BOUND_VIOLATED = "corrected-bound-violated"  # a verified scheme below itsa's corrected bound (a bug of ours)
    UPPER_BOUND_LOOSE = "upper-bound-loose"      # a construction whose keys use fewer symbols than the printed rate counts


#: The folder under which ``itsa audit`` saves the schemes it reports by default (``audit-out/NAME``).
OUTPUT_ROOT = "audit-out"

#: Every finding kind, in the order above.
FINDING_KINDS = tuple(FindingKind)


@dataclass(kw_only=True, frozen=True)
class Finding:
    """One disagreement between a printed claim and verified evidence."""

    kind: FindingKind
    message: str
    printed: str | None = None
    verified: str | None = None
    configuration: Config | None = None
    scheme: Scheme | None = None
    scheme_file: str | None = None


@dataclass(kw_only=True, frozen=True)
class ConstructionCheck:
    """The paper's construction for one reading of ``Q``, built and verified.

    For Condition 3, ``extra_user`` is the user ``x`` added to ``S̄`` and
    ``allowed`` says whether this reading of ``Q`` permits it (``x ∉ Q``).
    """

    q_rule: str
    construction: str
    field: int
    extra_user: int | None
    allowed: bool
    build: Build | None
    failure: str | None
    structural: bool = False     # the construction does not apply (no draw was made)
    scheme_file: str | None = None

    @property
    def verified(self) -> bool:
        return self.build is not None

    @property
    def state(self) -> str:
        """One line: verified at which rate, does not apply (and why), or fails."""
        if self.build is not None:
            rate, used = self.build.scheme.rate, self.build.scheme.trimmed().rate
            return f"verified, rate {rate}" + (f" ({used} on the key symbols its keys use)" if used < rate else "")
        return f"does not apply: {self.failure}" if self.structural else "FAILS: no draw verified"

    @cached_property
    def trimmed(self) -> Scheme | None:
        """The verified scheme on the key symbols its keys use (:meth:`Scheme.trimmed`)."""
        return None if self.build is None else self.build.scheme.trimmed()

    @property
    def rate(self) -> Fraction | None:
        """The verified scheme's rate on the key symbols its keys use."""
        return None if self.trimmed is None else self.trimmed.rate


@dataclass(kw_only=True, frozen=True, repr=False)
class Audit(Displayable):
    """Everything the audit established about one instance."""

    instance: Instance
    field: int
    seed: int
    analyses: dict[str, Analysis]
    printed_lower: Fraction
    corrected: CorrectedBound
    checks: tuple[ConstructionCheck, ...]
    search: SearchResult
    external: KnownOptimum | None
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    search_file: str | None = None
    converse: ConverseBound | None = None
    out_dir: str | None = None        # where the reported schemes were saved (:func:`save_audit_schemes`)

    @property
    def lower_bound(self) -> Fraction:
        """The best proved lower bound (every scheme): the corrected one, or the certified keys converse."""
        c = self.converse
        if c is None or not c.certified or c.value is None:
            return self.corrected.value
        return max(self.corrected.value, c.value)

    @property
    def best_verified_rate(self) -> Fraction | None:
        rates = [c.rate for c in self.checks if c.rate is not None]     # the verified ones
        if self.search.rate is not None:                                 # found
            rates.append(self.search.rate)
        return min(rates, default=None)

    # -- display -----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The ``itsa audit --json`` object."""
        inst = self.instance
        search = self.search
        return plain({
            "instance": inst.name, "field": self.field, "seed": self.seed,
            "regimes": {rule: a.regime for rule, a in self.analyses.items()},
            "e_star": self.analyses["union"].e_star,
            "key_rate_lower_printed": frac(self.printed_lower),
            "key_rate_lower": frac(self.corrected.value),
            "key_rate_lower_reason": self.corrected.reason,
            "converse_lower": None if self.converse is None else self.converse.to_dict(),
            "claimed": {rule: {"regime": a.regime, "key_rate_upper": frac(a.key_rate_upper.value),
                               "reason": a.key_rate_upper.reason}
                        for rule, a in self.analyses.items()},
            "constructions": [
                {"q_rule": c.q_rule, "construction": c.construction, "field": c.field,
                 "x": None if c.extra_user is None else list(inst.label(c.extra_user)),
                 "allowed": c.allowed, "verified": c.verified,
                 "rate": frac(c.build.scheme.rate) if c.build is not None else None,
                 "rate_on_symbols_used": frac(c.rate) if c.verified else None,
                 "failure": c.failure, "scheme_file": c.scheme_file}
                for c in self.checks],
            "search": {
                "rate": frac(search.rate), "shape": search.shape, "field": search.field,
                "candidates": search.candidates, "verified": search.verified,
                "complete": search.complete, "limit": search.limit, "exhaustive": search.exhaustive,
                "scheme_file": self.search_file,
            },
            "best_verified_rate": frac(self.best_verified_rate),
            "external": None if self.external is None else {
                "family": self.external.family, "parameters": self.external.parameters,
                "value": frac(self.external.value), "source": self.external.source},
            "findings": [
                {"kind": f.kind, "message": f.message, "printed": f.printed, "verified": f.verified,
                 "configuration": None if f.configuration is None else list(f.configuration),
                 "scheme_file": f.scheme_file}
                for f in self.findings],
            "notes": list(self.notes),
        })

    def headline(self) -> str:
        n = len(self.findings)
        return (f"{self.instance.name or 'instance'}: {n} finding{'s' if n != 1 else ''}; "
                f"printed lower {self.printed_lower}, corrected lower {self.corrected.value}, "
                f"best verified {_opt(self.best_verified_rate)}")

    def rows(self) -> list[tuple[str, str]]:
        inst = self.instance
        rows = [("instance", inst.headline())]
        rows += [(f"regime ({rule} Q)", f"{a.regime}: {claim_text(a)}") for rule, a in self.analyses.items()]
        rows += [("printed lower bound", f"{self.printed_lower}  (min{{e*, K-1}}, paper)"),
                 ("corrected lower bound", f"{self.corrected.value}  ({self.corrected.label})")]
        if self.external is not None:
            rows.append(("published optimum", f"{self.external.value}  ({self.external.source})"))
        rows.append(("search (bounded)", _search_text(self.search)))
        for c in self.checks:
            x = "" if c.extra_user is None else \
                f" x={display.user(*inst.label(c.extra_user))}{'' if c.allowed else ' (x ∈ Q)'}"
            rows.append((f"{c.construction} ({c.q_rule}){x}", c.state))
        rows.append(("best verified rate", _opt(self.best_verified_rate)))
        rows += [(f"finding {k}: {f.kind}", f.message + _evidence_text(f)) for k, f in enumerate(self.findings, 1)]
        if not self.findings:
            rows.append(("findings", no_finding_text(self)))
        rows += [("note", n) for n in self.notes]
        if self.out_dir is not None and (self.search_file or any(c.scheme_file for c in self.checks)):
            rows.append(("schemes saved under", f"{self.out_dir}/ (each re-checked by verify --scheme)"))
        return rows


def _evidence_text(f: Finding) -> str:
    evidence = [f"printed: {f.printed}"] if f.printed is not None else []
    if f.verified is not None:
        evidence.append(f"verified: {f.verified}")
    if f.scheme_file:
        evidence.append(f"scheme: {f.scheme_file}")
    return f" ({'; '.join(evidence)})" if evidence else ""


def claim_text(a: Analysis) -> str:
    """The regime's claim in words: an optimum (Theorem 1) or an upper bound (Theorem 2)."""
    value = a.key_rate_upper.value
    if value is None:
        return "no claim (the upper bound is unknown)"
    if a.regime is Regime.THEOREM_2:
        return f"upper bound R*_ZΣ <= {value} (Theorem 2; e* <= R*_ZΣ)"
    return f"claimed optimum R*_ZΣ = {value} (Theorem 1)"


def no_finding_text(result: Audit) -> str:
    """What "no finding" means for this audit: settled, or a gap still open."""
    return "none" + _no_finding_clause(result)


def no_finding_sentence(result: Audit) -> str:
    """The same as a sentence: ``No finding: the printed claims agree ...``."""
    return "No finding" + _no_finding_clause(result) + "."


def _no_finding_clause(result: Audit) -> str:
    best, low = result.best_verified_rate, result.lower_bound
    if best is not None and best > low:
        return (f", but a gap is open: the optimum lies in [{low}, {best}] "
                "(best proved lower bound, best verified rate)")
    return ": the printed claims agree with the verified evidence"


def _search_text(search: SearchResult) -> str:
    if search.found:
        text = f"rate {search.rate} (shape {search.shape}, F_{search.field})"
    else:
        text = "no scheme found"
    return text if search.complete else f"{text}; stopped early: {search.limit}"


def _opt(x) -> str:
    return "none" if x is None else str(x)


def audit(instance: Instance, field: int = 31, seed: int = 0, max_symbols: int | None = None,
          max_tries: int = 50, progress=None, out_dir: str | Path | None = None) -> Audit:
    """Audit the paper's claims on ``instance``.

    Parameters
    ----------
    instance : Instance
    field : int
        Prime of the search; constructions use it too when it exceeds their
        Schwartz-Zippel size, else the smallest prime above that size.
    seed : int
        Seed of every random draw (constructions and search).
    max_symbols : int, optional
        Largest scalar number of key symbols the search tries (default K-1).
    max_tries : int
        Coefficient draws per construction.
    progress : callable(Event), optional
        Passed to the search (:func:`itsa.keys.search.scalar.search_min_rate`).
    out_dir : path, optional
        Where to save every scheme the audit reports (so ``itsa verify
        --scheme`` can re-check it); nothing is written without it.

    Examples
    --------
    >>> from itsa import examples
    >>> a = audit(examples.load("homogeneous-U3-V2-t1"))
    >>> a.printed_lower, a.search.rate, a.external.value
    (Fraction(5, 1), Fraction(4, 1), Fraction(4, 1))
    >>> sorted({f.kind for f in a.findings})
    ['converse-beaten']
    >>> a
    <Audit homogeneous-U3-V2-t1: 2 findings; printed lower 5, corrected lower 4, best verified 4>
    """
    check_field(field)
    cap_note = None
    conf = configurations(instance)
    analyses: dict[str, Analysis] = {rule: analyze(instance, q_rule=rule, corrected=False, conf=conf)
                                     for rule in Q_RULES}
    printed_lower = analyses[QRule.UNION].key_rate_lower_printed.value
    if printed_lower is None:       # analyze() always prints min{e*, K-1}
        raise VerificationError("the analysis gives no printed lower bound min{e*, K-1}")
    corrected = corrected_lower_bound(instance)
    checks = _construction_checks(analyses, field, seed, max_tries)
    try:
        max_symbols, cap_note = capped_symbols(instance, max_symbols)
        search = run_scalar_search(instance, ScalarOptions(field=field, seed=seed, max_symbols=max_symbols), progress)
    except ItsaError as exc:    # too large to search: the audit still reports the rest
        search = SearchResult(field=field, seed=seed, scheme=None, rate=None, verdict=None, shape=None, L_values=(), complete=False,
                              limit=str(exc))
    external = known_optimum(instance)
    findings, notes = run_rules(Evidence(instance=instance, analyses=analyses, printed_lower=printed_lower,
                                         corrected=corrected, checks=tuple(checks), search=search,
                                         external=external))
    notes = ([cap_note] if cap_note else []) + notes
    result = Audit(instance=instance, field=field, seed=seed, analyses=analyses, printed_lower=printed_lower, corrected=corrected, checks=tuple(checks), search=search,
                   external=external, findings=tuple(findings), notes=tuple(notes))
    conv = _keys_converse(instance)
    result = replace(result, converse=conv,
                     notes=result.notes + tuple(_converse_notes(conv, result.best_verified_rate)))
    return save_audit_schemes(result, out_dir) if out_dir is not None else result


#: What :func:`_try_build` gives: the verified build, else why not and whether the construction does not apply
_Attempt = tuple[Build | None, str | None, bool]


def _construction_checks(analyses: dict[str, Analysis], field: int, seed: int,
                         max_tries: int) -> list[ConstructionCheck]:
    """The construction of each reading's regime (for Condition 3, one per user ``x`` it may add)."""
    checks: list[ConstructionCheck] = []
    cache: dict[tuple[str, int, int | None], _Attempt] = {}
    for rule, a in analyses.items():
        need = required_field(a, a.regime)
        q = field if need is None or field > need else default_field(a, floor=field)
        extras: list[int | None] = [None]
        if a.regime is Regime.CONDITION_3:
            extras = list(members(a.instance.full_mask & ~(a.S_bar & a.Q)))
        for x in extras:
            key = (a.regime, q, x)
            if key not in cache:
                cache[key] = _try_build(a, q, seed, max_tries, x)
            build, failure, structural = cache[key]
            checks.append(ConstructionCheck(q_rule=rule, construction=a.regime, field=q, extra_user=x,
                                            allowed=x is None or not (a.Q >> x & 1), build=build,
                                            failure=failure, structural=structural))
    return checks


def _try_build(a: Analysis, q: int, seed: int, max_tries: int, x: int | None) -> _Attempt:
    try:
        return build_scheme(a, q, seed=seed, max_tries=max_tries, extra_user=x), None, False
    except (Infeasible, InvalidScheme) as exc:      # cannot apply, or too large to verify
        return None, str(exc), True
    except VerificationError as exc:
        return None, str(exc), False


#: A note of one reading of ``Q``: ``(rule, text)``; a plain note is its text.
Note = str | tuple[str, str]


@dataclass(frozen=True)
class Evidence:
    """What every audit rule reads: the instance, both readings' analyses, the bounds, the schemes found."""

    instance: Instance
    analyses: dict[str, Analysis]
    printed_lower: Fraction
    corrected: CorrectedBound
    checks: tuple[ConstructionCheck, ...]
    search: SearchResult
    external: KnownOptimum | None

    @cached_property
    def best(self) -> Fraction | None:
        """The best verified rate: of a construction (on the key symbols it uses) or of the search."""
        rates = [c.rate for c in self.checks if c.rate is not None]
        return min(rates + ([self.search.rate] if self.search.rate is not None else []), default=None)


#: An audit rule: the findings and notes it draws from the evidence, in order.
AuditRule = Callable[[Evidence], Iterator["Finding | Note"]]

def printed_converse_rule(ev: Evidence) -> Iterator[Finding | Note]:
    """A verified scheme, or a published optimum, below the printed lower bound ``min{e*, K-1}``."""
    base, search, external, printed = ev.analyses[QRule.UNION], ev.search, ev.external, ev.printed_lower
    where, lower_text = base.e_star_configuration, f"min{{e*, K-1}} = min{{{base.e_star}, {ev.instance.K - 1}}} = {printed}"
    if search.rate is not None and search.rate < printed:
        yield Finding(
            kind=FindingKind.CONVERSE_BEATEN,
            message=f"a verified scheme has rate {search.rate} < the printed lower bound {lower_text} "
            f"(e* attained at configuration {display.config(where)}); the printed converse fails on this instance",
            printed=str(printed), verified=str(search.rate), configuration=where, scheme=search.scheme)
    if external is not None and external.value < printed:
        yield Finding(
            kind=FindingKind.CONVERSE_BEATEN,
            message=f"the published optimum {external.value} ({external.source}, "
            f"{', '.join(f'{k} = {v}' for k, v in external.parameters.items())}) "
            f"is below the printed lower bound {lower_text}",
            printed=str(printed), verified=None, configuration=where)


def corrected_bound_rule(ev: Evidence) -> Iterator[Finding | Note]:
    """A verified scheme below itsa's own corrected bound: a bug of ours."""
    search, corrected = ev.search, ev.corrected
    if search.rate is not None and search.rate < corrected.value:
        yield Finding(
            kind=FindingKind.CORRECTED_BOUND_VIOLATED,
            message=f"a verified scheme has rate {search.rate} < itsa's corrected bound {corrected.value}: "
            "the corrected bound is wrong here (please report)",
            printed=str(corrected.value), verified=str(search.rate), configuration=None, scheme=search.scheme)


def constructions_rule(ev: Evidence) -> Iterator[Finding | Note]:
    """A construction of the paper that does not apply (a note), or that no draw makes pass (a finding)."""
    for c in ev.checks:
        if c.structural:
            yield (c.q_rule, f"the {c.construction} construction does not apply: {c.failure}")
        elif not c.verified and c.allowed:
            x = f" with x = {display.user(*ev.instance.label(c.extra_user))}" if c.extra_user is not None else ""
            yield Finding(
                kind=FindingKind.CONSTRUCTION_FAILS,
                message=f"the paper's {c.construction} construction{x} ({c.q_rule} reading of Q) over F_{c.field} "
                f"found no verified scheme: {c.failure}",
                printed=f"{c.construction} scheme secure", verified="no verified draw")


def claims_rule(ev: Evidence) -> Iterator[Finding | Note]:
    """Each reading's claimed optimum (or Theorem 2's upper bound): loose, or reached by no verified scheme."""
    best = ev.best
    for rule, a in ev.analyses.items():
        claim = a.key_rate_upper.value     # the claimed optimum, or Theorem 2's upper bound
        if claim is None:
            yield (rule, f"the claimed upper bound is unknown ({a.key_rate_upper.reason})")
            continue
        if a.regime is Regime.THEOREM_2:
            yield from _loose_upper_bounds(ev, rule, claim)
        if best is None or best > claim:
            what = f"upper bound R <= {claim}" if a.regime is Regime.THEOREM_2 else f"claimed optimum R = {claim}"
            yield Finding(
                kind=FindingKind.OPTIMUM_NOT_REACHED,
                message=f"{rule} reading: the {a.regime} {what} is reached by no verified scheme "
                f"(best verified: {best if best is not None else 'none'}, search bounded)",
                printed=str(claim), verified=None if best is None else str(best))


def _loose_upper_bounds(ev: Evidence, rule: str, claim: Fraction) -> Iterator[Finding]:
    """Theorem 2's construction whose keys use fewer symbols than it draws: below its own upper bound."""
    for c in ev.checks:
        if c.build is None or c.trimmed is None or c.rate is None or c.q_rule != rule or not c.rate < claim:
            continue
        if verify(ev.instance, c.trimmed, engine="rank").ok:
            yield Finding(
                kind=FindingKind.UPPER_BOUND_LOOSE,
                message=f"{rule} reading: the paper's theorem-2 construction draws {c.build.scheme.key_symbols} "
                f"key symbols but its keys use {c.trimmed.key_symbols}: its rate is {c.rate}, below "
                f"the printed upper bound e* + b* = {claim}", printed=str(claim), verified=str(c.rate),
                configuration=None, scheme=c.trimmed)


def q_rule_rule(ev: Evidence) -> Iterator[Finding | Note]:
    """The two readings of ``Q`` give different regimes or sets: which Condition-3 users verify under each."""
    inst, checks = ev.instance, ev.checks
    u, i = ev.analyses[QRule.UNION], ev.analyses[QRule.INTERSECTION]
    if (u.regime, u.Q) == (i.regime, i.Q):
        return
    c3 = [(c, inst.label(c.extra_user)) for c in checks
          if c.construction == Regime.CONDITION_3 and c.extra_user is not None]     # each with its x
    ok = display.users(sorted({x for c, x in c3 if c.verified}))
    bad = display.users(sorted({x for c, x in c3 if not c.verified and not c.structural}))
    verdicts = []
    for rule in ev.analyses:
        mine = [(c, x) for c, x in c3 if c.q_rule == rule and c.allowed]
        if mine:
            fails = [x for c, x in mine if not c.verified]
            verdicts.append(f"{rule}: " + ("every allowed x verifies" if not fails
                                           else f"x in {display.users(fails)} fails"))
    yield Finding(
        kind=FindingKind.Q_RULE_DISAGREEMENT,
        message=f"union reading: {u.regime} (|Q| = {u.Q.bit_count()}), intersection reading: {i.regime} "
        f"(|Q| = {i.Q.bit_count()}); Condition-3 users x that verify: {ok}, "
        f"that fail: {bad}" + (f"; {'; '.join(verdicts)}" if verdicts else ""),
        printed=f"union: {u.regime}, intersection: {i.regime}",
        verified="; ".join(verdicts) or None)


def bounds_rule(ev: Evidence) -> Iterator[Finding | Note]:
    """Notes: the corrected bound beside the printed one, a search stopped early, the gap left open."""
    corrected, printed, best = ev.corrected.value, ev.printed_lower, ev.best
    if corrected > printed:
        yield f"itsa's corrected lower bound {corrected} is above the printed {printed}"
    elif corrected < printed:
        yield f"itsa's corrected lower bound {corrected} is below the printed {printed}"
    if not ev.search.complete:
        yield f"the search stopped early: {ev.search.limit}"
    if best is not None and best > corrected:
        yield (f"gap: best verified rate {best} > corrected lower bound {corrected} "
               "(the optimum lies in between; the search is bounded)")


#: Every audit rule by name, in the order they run (their findings and notes keep it):
#: adding a rule is one function of :data:`AuditRule`'s shape, named here.
AUDIT_RULES: dict[str, AuditRule] = {
    "printed-converse": printed_converse_rule, "corrected-bound": corrected_bound_rule,
    "constructions": constructions_rule, "claims": claims_rule, "q-rule": q_rule_rule, "bounds": bounds_rule,
}


def run_rules(ev: Evidence, rules: dict[str, AuditRule] | None = None) -> tuple[list[Finding], list[str]]:
    """The findings and the notes of every rule of ``rules`` (default :data:`AUDIT_RULES`), in order."""
    findings: list[Finding] = []
    notes: list[Note] = []
    for rule in (AUDIT_RULES if rules is None else rules).values():
        for item in rule(ev):
            if isinstance(item, Finding):
                findings.append(item)
            else:
                notes.append(item)
    return findings, merge_rules(notes)


def _keys_converse(instance: Instance):
    """The certified keys converse (:mod:`itsa.keys.converse`), where the instance fits it."""
    from itsa.keys.converse import DEFAULT_TIME_LIMIT, check_size, converse
    from itsa.keys.converse.problem import KEYS

    try:
        check_size(instance, KEYS)
    except InvalidInstance:                  # too many users or orbits of user sets
        return None
    return converse(instance, "keys", time_limit=DEFAULT_TIME_LIMIT)


def _converse_notes(b, best: Fraction | None) -> list[str]:
    """What the certified keys converse adds: the optimum, or a lower end."""
    if b is None:
        return []
    if not b.certified:
        return [f"keys converse not proved: {b.status}"]
    if best is not None and b.value == best:
        return [f"certified keys converse {b.value} meets the best verified scheme: R* = {b.value} "
                f"for {b.scope} (itsa solve gives the proof)"]
    return [f"certified keys converse: R_ZΣ >= {b.value} for {b.scope}"]


def merge_rules(notes: list[Note]) -> list[str]:
    """The notes as lines, a ``(rule, text)`` note that every reading of Q gives alike said once."""
    out: list[str] = []
    for note in notes:
        if isinstance(note, tuple):
            rule, text = note
            alike = all((r, text) in notes for r in Q_RULES)
            note = f"both readings of Q: {text}" if alike else f"{rule} reading: {text}"
        if note not in out:
            out.append(note)
    return out


def save_audit_schemes(result: Audit, out_dir: str | Path) -> Audit:
    """Write every scheme the audit reports under ``out_dir``; return the audit with file names."""
    out = output_dir(out_dir)
    inst = result.instance
    stem = safe_stem(inst.name or "instance")
    search_file = None
    if result.search.scheme is not None:            # found
        search_file = str(out / f"{stem}.search.scheme.json")
        save_scheme(inst, result.search.scheme, search_file)
    checks: list[ConstructionCheck] = []
    written: set[Scheme] = set()
    for c in result.checks:
        if c.build is not None:                     # verified
            x = "" if c.extra_user is None else "-x{}-{}".format(*inst.label(c.extra_user))
            path = str(out / f"{stem}.{c.construction}{x}.scheme.json")   # same for both readings
            if c.build.scheme not in written:
                save_scheme(inst, c.build.scheme, path)
                written.add(c.build.scheme)
            c = replace(c, scheme_file=path)
        checks.append(c)
    findings = []
    for k, f in enumerate(result.findings, 1):
        if f.scheme is not None and result.search.found and f.scheme == result.search.scheme:
            f = replace(f, scheme_file=search_file)
        elif f.scheme is not None:                        # a scheme of its own (a trimmed construction)
            path = str(out / f"{stem}.finding-{k}.scheme.json")
            save_scheme(inst, f.scheme, path)
            f = replace(f, scheme_file=path)
        findings.append(f)
    return replace(result, checks=tuple(checks), findings=tuple(findings), search_file=search_file,
                   out_dir=str(out_dir))
