"""A plan written for the frameworks: Flower's SecAgg+ workflow and DP wrapper, dp-accounting's events, TFF's
distributed-DP aggregator.

    check_export(deployment, "flower")                 # its refusals, a pure check before any planning or write
    export_plan(plan, "flower") -> PlanExport          # SecAggPlusWorkflow(**kwargs), Flower's DP wrapper
    export_plan(plan, "dp-accounting") -> PlanExport   # the plan's dominating pair as DpEvent.to_named_tuple JSON
    export_plan(plan, "tff") -> PlanExport             # DistributedDpSumFactory(**kwargs), what TFF computes

``itsa plan FILE --export TARGET`` prints :meth:`PlanExport.to_dict` (or
:meth:`PlanExport.snippet`, Python to paste); :func:`write_export` writes it
to a regular file.

**Flower.** The plan's scale ``γ``, word ``b`` and clip ``S`` and a SecAgg+
degree and threshold become ``SecAggPlusWorkflow``'s keyword arguments
(:func:`itsa.frameworks.flower.secaggplus_kwargs`). The degree and threshold
are the plan's SecAgg+ keys section's when the deployment names the protocol
(``protocol: {secagg+: ...}``); otherwise the parameter
finder's (:func:`itsa.keys.secagg.secagg_parameters`) for the deployment's
clients and dropout, at :data:`DEFAULT_CORRUPT` corrupt clients against a
semi-honest server (said in the export). Central noise has a Flower
counterpart, ``DifferentialPrivacyClientSideFixedClipping`` (with SecAgg+ the
server never sees an update, so the client clips): Flower adds Gaussian noise
of standard deviation ``z C / N`` to the mean (``C = clipping_norm``,
``N = num_sampled_clients``) and releases a round only when every sampled
client reported, so ``z = σ/(γ S)`` (rounded up to a double) puts at least
the plan's ``σ/γ`` on the sum of the ``K`` clients of every round it
releases; distributed noise has none, and the export says so. Beside them
the export names ``client_mods`` and ``fit_workflow``
(:mod:`itsa.frameworks.flower_dp`), which run the plan's own encoding and
noise, distributed or central, from the export's JSON alone.

**dp-accounting.** The plan's dominating Gaussian pair, read from its
frameworks section (:func:`itsa.planning.accounting.round_pair`), as
``GaussianDpEvent`` events (:func:`itsa.frameworks.dp_accounting.events_from_pair`)
with the δ to ask the accountants at; a plan whose noise has no such pair
keeps one round's event (:meth:`itsa.planning.Plan.round_event`) in zCDP form
(:func:`itsa.frameworks.dp_accounting.events_from_event`), composed over the
rounds with ``SelfComposedDpEvent``, under ``PoissonSampledDpEvent`` at rate
``K/population`` when the deployment has a population.

**TFF.** The frameworks section's ``DistributedDpSumFactory`` arguments
(:func:`itsa.planning.frameworks_units.tff_settings`) and what TFF computes
from them (:func:`itsa.frameworks.tff.tff_export`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

from itsa._util.certified import exact_text, safe_decimal
from itsa._util.checks import choice
from itsa._util.display import Displayable
from itsa._util.plain import frac
from itsa.exceptions import InvalidOption
from itsa.frameworks.dp_accounting import (
    SAMPLED_NOTE,
    DpAccountingExport,
    PairExport,
    events_from_event,
    events_from_pair,
)
from itsa.frameworks.flower import FlowerExport, _wrap, secaggplus_kwargs
from itsa.frameworks.target import FrameworkTarget, register, targets, targets_help
from itsa.frameworks.tff import TffExport, tff_export
from itsa.planning.mechanisms import registered

__all__ = ["Framework", "PlanExport", "export_plan", "check_export", "write_export", "flower_noise_multiplier",
           "plan_event", "DEFAULT_CORRUPT", "DEFAULT_ADVERSARY"]

#: The corrupt fraction assumed for the SecAgg+ degree and threshold when the plan has no SecAgg+ section.
DEFAULT_CORRUPT = Fraction(1, 20)
#: The adversary assumed then.
DEFAULT_ADVERSARY = "semi-honest"


class Framework(StrEnum):
    """What a plan is exported to."""

    FLOWER = "flower"
    DP_ACCOUNTING = "dp-accounting"
    TFF = "tff"


@dataclass(frozen=True, kw_only=True, repr=False)
class PlanExport(Displayable):
    """One plan written for a framework: the framework's object, the plan it comes from, and the choices made.

    Parameters
    ----------
    framework : Framework
        ``flower`` or ``dp-accounting``.
    deployment : str
        The deployment's name.
    feasible : bool
        The plan's verdict (an infeasible plan is exported as planned; its verdict travels with it).
    export : FlowerExport or DpAccountingExport
        What the framework takes.
    facts : dict
        The plan's numbers the export is read from (exact, or certified with their direction).
    notes : tuple of str
        Each choice made on the way (where the SecAgg+ degree came from, the noise multiplier's convention).
    premises : tuple of str
        What the plan's ε (in ``facts``) needs that the framework does not provide by itself (the noise
        mechanism, who takes part in a round): the ε holds for the framework's run only where they hold.
    """

    framework: Framework
    deployment: str
    feasible: bool
    export: FlowerExport | DpAccountingExport | PairExport | TffExport
    facts: dict[str, Any]
    notes: tuple[str, ...] = ()
    premises: tuple[str, ...] = ()

    def headline(self) -> str:
        verdict = "feasible" if self.feasible else "infeasible"
        return f"{self.deployment} ({verdict} plan) for {self.framework}: {self.export.headline()}"

    def rows(self) -> list[tuple[str, str]]:
        return (self.export.rows() + [("plan", f"{self.deployment}: {'feasible' if self.feasible else 'infeasible'}")]
                + [("note", note) for note in self.notes] + [("epsilon premise", p) for p in self.premises])

    def to_dict(self) -> dict[str, Any]:
        inner = self.export.to_dict()
        return {**inner, "export": str(self.framework), "deployment": self.deployment,
                "plan_verdict": "feasible" if self.feasible else "infeasible", "plan": self.facts,
                "notes": list(inner.get("notes", [])) + list(self.notes), "epsilon_premises": list(self.premises)}

    def snippet(self, export_path: str = "export.json") -> str:
        """Python to paste: Flower's workflow and wrapper (reading the export's JSON from ``export_path``), TFF's
        factory, or dp-accounting's event and its RDP accountant."""
        head = [f"# itsa plan {self.deployment} --export {self.framework} "
                f"({'feasible' if self.feasible else 'INFEASIBLE'} plan)"]
        head += ["# " + line for note in self.notes for line in _wrap(note)]
        head += ["# " + line for p in self.premises for line in _wrap(f"epsilon premise: {p}")]
        if isinstance(self.export, FlowerExport):
            return "\n".join(head) + "\n" + self.export.snippet(export_path)
        if isinstance(self.export, TffExport):
            return "\n".join(head) + "\n" + self.export.snippet()
        return "\n".join(head) + "\n" + _dp_snippet(self.export, self.facts)



def _python(event: dict[str, Any]) -> str:
    """dp-accounting's constructor call for one named-tuple JSON object."""
    fields = ", ".join(f"{k}=" + (_python(v) if isinstance(v, dict) else repr(v)) for k, v in event.items()
                       if k not in ("module_name", "class_name"))
    return f"dp_accounting.{event['class_name']}({fields})"


def _dp_snippet(export: DpAccountingExport | PairExport, facts: dict[str, Any]) -> str:
    delta = float(Fraction(facts["delta"]))
    lines = ["import dp_accounting", "", f"event = {_python(export.event)}"]
    if isinstance(export, PairExport):
        lines += ["# the delta to ask for: the plan's delta less the pair's additive part over the rounds",
                  f"accountant_delta = {export.accountant_delta!r}",
                  "for accountant in (dp_accounting.pld.PLDAccountant(), dp_accounting.rdp.RdpAccountant()):",
                  "    accountant.compose(event)",
                  f"    print(type(accountant).__name__, accountant.get_epsilon(accountant_delta))   # the plan: eps <= "
                  f"{facts['epsilon']['value']}"]
        return "\n".join(lines) + "\n"
    if export.sampling_rate is None:
        lines += ["accountant = dp_accounting.rdp.RdpAccountant()", "accountant.compose(event)",
                  f"print(accountant.get_epsilon({delta!r}))   # the plan: eps <= {facts['epsilon']['value']}"]
    else:
        lines += ["# " + line for line in _wrap(SAMPLED_NOTE)]
    return "\n".join(lines) + "\n"


def plan_event(plan) -> Any:
    """One round's privacy event of ``plan`` (what its accountant composes over the rounds), Poisson-sampled
    at rate ``clients/population`` when the deployment has a population and the event is not sampled yet."""
    from itsa.privacy.subsampled import PoissonSampledEvent

    d = plan.deployment
    event = plan.round_event()
    population = getattr(d, "population", None)
    if population is not None and not isinstance(event, PoissonSampledEvent) and population > d.clients:
        event = PoissonSampledEvent(event=event, rate=Fraction(d.clients, population))
    return event


def flower_noise_multiplier(plan) -> Fraction:
    """Flower's ``noise_multiplier`` for a central plan: ``z = σ/(γ S)``, rounded up to a double (its one home is
    :func:`itsa.planning.frameworks_units.flower_noise_multiplier`, which the plan prints).

    Flower adds ``N(0, (z C/N)²)`` to each coordinate of the mean, with
    ``C = clipping_norm = S`` and ``N = num_sampled_clients = K``, and
    releases a round only when all ``K`` reported (a failure drops it): on
    their sum that is a standard deviation of ``z S ≥ σ/γ``, the plan's noise
    in the data's units.
    """
    from itsa.planning.frameworks_units import flower_noise_multiplier as home

    return Fraction(home(sigma=plan.noise.sigma_client, gamma=plan.encoding.gamma, clip=plan.deployment.clip))


def _degree_threshold(plan) -> tuple[int, int, Fraction, str, str]:
    """``(k, t, corrupt, adversary, where they come from)``: the plan's SecAgg+ keys section (a deployment with
    ``protocol: {secagg+: ...}``), else the parameter finder's at :data:`DEFAULT_CORRUPT`."""
    d = plan.deployment
    keys = plan.keys
    protocol = getattr(keys, "protocol", None)
    if keys is not None and protocol is not None and hasattr(keys, "degree"):
        if keys.degree is None:
            reasons = "; ".join(getattr(keys, "reasons", ())) or "no degree"
            raise InvalidOption(f"export flower: the plan's SecAgg+ section has no degree and threshold ({reasons})")
        corrupt, adversary = Fraction(protocol.corrupt), str(protocol.adversary)
        return (int(keys.degree), int(keys.threshold), corrupt, adversary,
                f"the plan's SecAgg+ keys: degree {keys.degree}, threshold {keys.threshold} (corrupt "
                f"{exact_text(corrupt)}, {adversary})")
    from itsa.keys.secagg import secagg_parameters

    found = secagg_parameters(d.clients, DEFAULT_CORRUPT, d.dropout, DEFAULT_ADVERSARY)
    return (found.degree, found.threshold, DEFAULT_CORRUPT, DEFAULT_ADVERSARY,
            f"the deployment names no SecAgg+ protocol: the SecAgg+ parameter finder's degree {found.degree} and "
            f"threshold {found.threshold} for {d.clients:,} clients, dropout {exact_text(d.dropout)}, and an "
            f"assumed corrupt fraction {exact_text(DEFAULT_CORRUPT)} against a {DEFAULT_ADVERSARY} server")


def _facts(plan) -> dict[str, Any]:
    d, e = plan.deployment, plan.encoding
    return {"clients": d.clients, "survivors": d.survivors, "dimension": d.dimension, "clip": frac(d.clip),
            "gamma": frac(e.gamma), "word_bits": getattr(e, "word_bits", None), "noise": str(d.noise.kind),
            "sigma_client": frac(plan.noise.sigma_client), "epsilon": plan.noise.epsilon.to_dict(),
            "delta": frac(d.privacy.delta), "rounds": d.privacy.rounds,
            "mse_per_coordinate": frac(plan.error.per_coordinate)}


def check_export(deployment, framework: Framework | str) -> Framework:
    """Refuse, before any planning or writing, a deployment that has no counterpart in ``framework``.

    A pure check of the deployment: a command calls it before it plans or
    writes anything, so an export it refuses leaves no file behind. An export
    never replaces the deployment's protocol: Flower runs single-server SecAgg+,
    so a multi-server protocol or a key-rate ``servers`` instance is refused.

    Returns
    -------
    Framework
        The framework, read.

    Raises
    ------
    InvalidOption
        The reason, in one line.

    Examples
    --------
    >>> from itsa.planning import parse_deployment
    >>> d = parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "noise": "central",
    ...                       "privacy": {"epsilon": 2, "delta": "1e-6"},
    ...                       "protocol": {"multi-server": {"servers": 3, "collusion": 1}}})
    >>> check_export(d, "dp-accounting")
    <Framework.DP_ACCOUNTING: 'dp-accounting'>
    >>> check_export(d, "flower")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: export flower: the deployment's protocol is multi-server (3 servers, collusion 1); Flower's SecAggPlusWorkflow is single-server SecAgg+, and an export never replaces the deployment's protocol: plan with protocol: {secagg+: ...} for Flower, or export to dp-accounting
    """
    kind = choice("export", framework, Framework)
    TARGETS[kind].check(deployment)
    return kind


def _check_matrix(d, target: str) -> None:
    """A matrix mechanism (DP-FTRL) has no counterpart among a target's DP aggregators here: refused in one line."""
    if getattr(d, "matrix", None) is not None:
        raise InvalidOption(f"export {target}: the deployment's noise is DP-FTRL's, correlated across rounds by a "
                            f"{d.matrix.kind} mechanism; this export writes independent noise per round, so it has no "
                            "counterpart: export to dp-accounting (the worst participation pattern's Gaussian event)")


def _check_flower(d) -> None:
    """Flower's refusals (:func:`check_export`): a matrix mechanism, a layering, another protocol, a population."""
    from itsa.planning.protocols import MultiServerProtocol
    from itsa.planning.protocols.secagg import SECAGG

    _check_matrix(d, "flower")
    if d.encoding.layered:
        raise InvalidOption("export flower: Flower's SecAgg+ sums one flat word; a layered plan (radix, layers) "
                            "has no Flower counterpart")
    if (d.protocol is not None and d.protocol.name != SECAGG) or d.servers is not None:
        what = (f"multi-server ({d.protocol.servers} servers, collusion {d.protocol.collusion})"
                if isinstance(d.protocol, MultiServerProtocol) else
                f"a key-rate instance (servers: {d.servers})" if d.servers is not None else d.protocol.name)
        raise InvalidOption(f"export flower: the deployment's protocol is {what}; Flower's SecAggPlusWorkflow is "
                            "single-server SecAgg+, and an export never replaces the deployment's protocol: plan "
                            "with protocol: {secagg+: ...} for Flower, or export to dp-accounting")
    population = getattr(d, "population", None)
    if population is not None and str(d.noise.kind) == "distributed":
        raise InvalidOption(f"export flower: the plan's epsilon holds for distributed shares over a {d.sampling} "
                            f"cohort of {d.clients} of a population of {population}, the cohort's count public and "
                            "who took part hidden from the server; Flower's SecAgg+ server sees who took part: plan "
                            "without a population for Flower, or export to tff (whose export states that premise)")
    if population is not None and population > d.clients:
        raise InvalidOption(f"export flower: the plan's epsilon holds for its {d.clients} clients Poisson-sampled "
                            f"from a population of {population} (rate {exact_text(Fraction(d.clients, population))});"
                            " Flower samples a fixed cohort of num_sampled_clients, which this plan does not account "
                            "(under add-remove, a fixed-size sample turns adding a user into replacing one): plan "
                            "without a population for Flower, or export to dp-accounting")


def _flower(plan) -> tuple[FlowerExport, list[str]]:
    from itsa.planning.deployment import NoiseKind

    d = plan.deployment
    check_export(d, Framework.FLOWER)
    k, t, corrupt, adversary, source = _degree_threshold(plan)
    notes = [source]
    if k % 2 and k < d.clients - 1:
        notes.append(f"Flower's neighbourhoods are rings (an even degree): degree {k} raised to {k + 1}, threshold "
                     f"{t} kept; the check below certifies the SecAgg+ bounds at degree {k + 1}")
        k += 1
    central = d.noise.kind is NoiseKind.CENTRAL
    z = flower_noise_multiplier(plan) if central else None
    if central:
        notes.append(f"noise_multiplier z = sigma/(gamma S) = {safe_decimal(plan.noise.sigma_client, 8)}/"
                     f"({exact_text(plan.encoding.gamma)} x {exact_text(d.clip)}), rounded up: Flower's DP wrapper "
                     "releases a round only when every sampled client reported (any failure drops the round), so "
                     "only rounds of all K clients are released, with deviation z S on their sum, at least the plan's "
                     "sigma/gamma; it is a float64 Gaussian, not the plan's discrete one, and the server sees the sum "
                     "before the noise. DifferentialPrivacyServerSideFixedClipping takes the same keywords but clips "
                     "on the server, which never sees an update under SecAgg+")
    export = secaggplus_kwargs(degree=k, threshold=t, gamma=plan.encoding.gamma, word_bits=plan.encoding.word_bits,
                               clip=d.clip, clients=d.clients, noise_kind=str(d.noise.kind), noise_multiplier=z,
                               max_weight=1.0, dropout=d.dropout, corrupt=corrupt, adversary=adversary)
    return _with_plan_pieces(plan, export), notes


def _with_plan_pieces(plan, export: FlowerExport) -> FlowerExport:
    """``export`` with the client mods and fit workflow that run the plan's own encoding
    (:mod:`itsa.frameworks.flower_dp`), or, for a plan they cannot run, why not."""
    from dataclasses import replace

    from itsa.frameworks.flower_dp import CLIENT_MODS, FIT_WORKFLOW, PINNED_MOD, FlowerPlan

    d, e = plan.deployment, plan.encoding
    plain = (f"without itsa's mods, SecAggPlusWorkflow's settings above quantize what the app returns: the app must "
             f"return its update (returned minus received parameters, l2 norm at most {exact_text(d.clip)}) with "
             "num_examples = 1 (max_weight 1.0: the plan's sum is unweighted), and the server must add FedAvg's "
             "result (the mean update) to its model; an app that returns its whole model has every weight beyond "
             f"+-{exact_text(d.clip)} clamped")
    if str(e.rotation) != "none" or str(e.rounding) != "nearest" or str(d.noise.kind) == "distributed":
        plain += (f"; they run none of the plan's own encoding (rotation {e.rotation}, {e.rounding} rounding, "
                  f"{d.noise.kind} noise): only client_mods and fit_workflow run the plan")
    try:
        fp = FlowerPlan.from_plan(plan)
    except InvalidOption as exc:
        note = export.dp_note
        if str(d.noise.kind) == "distributed":
            note = ("Flower's DP wrappers have no counterpart for noise the clients add themselves (distributed "
                    "discrete noise), and this plan has no client_mods (see notes): Flower cannot run it as planned")
        return replace(export, plain_flower=plain, dp_note=note, notes=export.notes + (f"no client_mods: {exc}",))
    kwargs = fp.secaggplus_kwargs(num_shares=export.kwargs["num_shares"],
                                  threshold=export.kwargs["reconstruction_threshold"])
    section = {"SecAggPlusWorkflow": kwargs, "plan": fp.to_dict(), "survivors": fp.survivors,
               "window_drop": fp.window_drop().to_dict()}
    note = export.dp_note
    if str(d.noise.kind) == "central":
        note = ("client_mods and fit_workflow add the plan's central noise on the server after SecAgg+, to the "
                "unweighted sum of updates the plan's epsilon counts: that is the plan's path. dp_wrapper is plain "
                "Flower's, without SecAgg+, under its premise (equal weights): " + note)
    return replace(export, client_mods=CLIENT_MODS, fit_workflow=FIT_WORKFLOW, distributed_dp=section,
                   plain_flower=plain, dp_note=note, pinned_mod=PINNED_MOD)


def _dp_accounting(plan) -> tuple[DpAccountingExport | PairExport, list[str]]:
    privacy = plan.deployment.privacy
    pair = getattr(plan.frameworks, "pair", None)
    if pair is not None:
        notes = [f"the plan certifies eps <= {plan.noise.epsilon.decimal(6)} at delta "
                 f"{safe_decimal(privacy.delta, 6)} ({plan.noise.accounting.upper_method})"]
        if pair.certifies and pair.rate is not None:
            notes.append("the events are the dominating pair that epsilon is certified through, Poisson-sampled: "
                         "an accountant's get_epsilon(accountant_delta) is that epsilon up to the two grids' "
                         "discretizations (the plan's certified grid is within 10^-3 of the pair's epsilon)")
        elif pair.certifies:
            notes.append("the events are the dominating pair that epsilon is certified through: an accountant's "
                         "get_epsilon(accountant_delta) is that epsilon up to its own discretization (at or above)")
        else:
            notes.append("the events are a pair dominating every round, not the bound the plan's epsilon comes "
                         "from: an accountant's get_epsilon(accountant_delta) is a bound too, and may be below the "
                         "plan's (the plan's own bound is then the looser one)")
        return events_from_pair(pair), notes
    event = plan_event(plan)
    export = events_from_event(event, rounds=privacy.rounds)         # refuses as the plan's row says
    without = "".join(f"{m.title}, " for m in registered() if m.renyi and not m.gaussian_pair)
    notes = [f"no Gaussian pair dominates this plan's rounds ({without}a layering, central noise after a rotation, "
             "or a lattice smoothing whose additive part over the rounds reaches delta at this noise): its Renyi "
             "bound as zCDP events, which dp-accounting's RdpAccountant alone takes, and only unsampled"]
    notes += [f"the plan's own event, {event.label}, composed over {privacy.rounds} rounds; the plan certifies "
             f"eps <= {plan.noise.epsilon.decimal(6)} at delta {safe_decimal(privacy.delta, 6)} "
             f"({plan.noise.epsilon.method})"]
    curve = export.epsilon(privacy.delta)
    if curve is not None:
        notes.append(f"the exported curve's own eps at that delta is {curve.decimal(6)} ({curve.direction}, every "
                     "order searched): an accountant of Renyi orders finds it, at or above the plan's")
    return export, notes


def _tff(plan) -> tuple[TffExport, list[str]]:
    """The plan's ``DistributedDpSumFactory`` arguments (its frameworks section's) and what TFF computes."""
    settings = getattr(plan.frameworks, "tff_settings", None)
    if settings is None:
        raise InvalidOption("export tff: only distributed noise on a flat word has TFF settings "
                            "(DistributedDpSumFactory); the frameworks section lists central noise's "
                            "gaussian_fixed noise multiplier")
    from itsa.planning.frameworks_units import clients_note

    d = plan.deployment
    inputs = plan.inputs
    cohort = getattr(inputs, "cohort", None)
    notes = [clients_note(clients=settings.kwargs["expected_clients_per_round"], survivors=plan.noise.survivors,
                         cohort=cohort, epsilon=plan.noise.epsilon.decimal(6)),
             "auto_l2_clip is off: adaptive clipping spends privacy the plan does not count"]
    return tff_export(settings, d.dimension), notes


def _tff_premises(plan) -> tuple[str, ...]:
    """What the plan's ε needs that TFF's run does not provide by itself: over a sampled cohort, that the
    server never learns who was sampled."""
    from itsa.planning.frameworks_units import cohort_premise

    cohort = getattr(plan.inputs, "cohort", None)
    return () if cohort is None else (cohort_premise(cohort),)


def export_plan(plan, framework: Framework | str) -> PlanExport:
    """``plan`` written for ``framework``, one of the registered targets (:mod:`itsa.frameworks.target`).

    Parameters
    ----------
    plan : Plan
        A plan (:func:`itsa.planning.plan`).
    framework : Framework or str
        A target's name; the targets, from their registry:

    Raises
    ------
    InvalidOption
        A framework this plan has no counterpart in (the target's check, or its export, says why).

    Examples
    --------
    >>> from itsa.planning import parse_deployment, plan
    >>> d = parse_deployment({"clients": 100, "dimension": 10, "clip": 1, "noise": "central",
    ...                       "privacy": {"epsilon": 2, "delta": "1e-6", "rounds": 10},
    ...                       "encoding": {"word_bits": 32, "gamma": 256}})
    >>> e = export_plan(plan(d), "dp-accounting").to_dict()
    >>> e["dp_event"]["class_name"], e["dp_event"]["count"], e["dp_event"]["event"]["class_name"]
    ('SelfComposedDpEvent', 10, 'GaussianDpEvent')
    >>> export_plan(plan(d), "flower").to_dict()["dp_wrapper"]["class"]
    'DifferentialPrivacyClientSideFixedClipping'
    """
    from itsa.planning.planner import Plan

    kind = choice("export", framework, Framework)
    if not isinstance(plan, Plan):
        raise InvalidOption(f"export: needs a Plan, not {type(plan).__name__}")
    target = TARGETS[kind]
    export, notes = target.export(plan)
    premises = target.premises(plan, export)
    return PlanExport(framework=kind, deployment=plan.deployment.name, feasible=plan.verdict.feasible, export=export,
                      facts=_facts(plan), notes=tuple(notes), premises=premises)


def _flower_premises(plan, pieces: bool) -> tuple[str, ...]:
    """What the plan's ε needs that Flower's run does not provide by itself (a population is refused before)."""
    from itsa.planning.deployment import NoiseKind

    d = plan.deployment
    eps = (f"the plan's eps <= {plan.noise.epsilon.decimal(6)} at delta {safe_decimal(d.privacy.delta, 6)} "
           f"over {d.privacy.rounds} rounds")
    who = (f"{eps} is for rounds of the same {d.clients} clients, every one of them in every round (the plan "
           "samples none from a larger population): Flower's num_sampled_clients drawn from more connected clients "
           "is a fixed-size sample, not accounted here")
    if d.noise.kind is NoiseKind.CENTRAL:
        how = (f"{eps} is certified for the plan's {plan.noise.mechanism} noise of deviation sigma on the integer "
               "sum of the rounded updates: fit_workflow adds it on the server (which sees the sum before the "
               "noise); Flower's DP wrapper adds a float64 Gaussian to the mean of the float updates instead, which "
               "the plan does not certify")
    elif pieces:
        how = (f"{eps} is certified for the clients' own {plan.noise.mechanism} shares: client_mods add them "
               f"and fit_workflow releases a round only when {d.survivors} to {d.clients} clients sent their word "
               "(the noise of those who did); plain SecAgg+ without them adds none")
    else:
        how = (f"{eps} is certified for the clients' own {plan.noise.mechanism} shares, which Flower does not add "
               "and this export has no client_mods for (see the notes)")
    return who, how


def write_export(export: PlanExport, path: str | os.PathLike, *, snippet: bool = False) -> Path:
    """Write ``export`` to the regular file ``path`` (atomically): its JSON, stamped, or its Python snippet
    (``itsa plan --export-file`` writes the JSON; its ``--snippet`` goes to the standard output)."""
    from itsa._util.files import atomic_writer
    from itsa._util.plain import stamped

    text = export.snippet() if snippet else json.dumps(stamped(export.to_dict()), indent=2) + "\n"
    with atomic_writer(path) as fh:
        fh.write(text)
    return Path(path)


# -- the targets: each answers the FrameworkTarget interface, registered in the order ``--export`` lists them ------

class _Flower(FrameworkTarget):
    name = Framework.FLOWER
    help = ("flower (the client mods and fit workflow that run the plan, SecAggPlusWorkflow's keyword arguments "
            "and Flower's DP wrapper)")

    def check(self, deployment) -> None:
        _check_flower(deployment)

    def export(self, plan):
        return _flower(plan)

    def premises(self, plan, export) -> tuple[str, ...]:
        return _flower_premises(plan, export.fit_workflow is not None)


class _DpAccounting(FrameworkTarget):
    name = Framework.DP_ACCOUNTING
    help = "dp-accounting (the plan's events, DpEvent named tuples)"

    def check(self, deployment) -> None:
        from itsa.planning.frameworks_units import dp_accounting_refusal

        reason = dp_accounting_refusal(population=getattr(deployment, "population", None),
                                       distributed=str(deployment.noise.kind) == "distributed")
        if reason is not None:
            raise InvalidOption(f"export dp-accounting: {reason}")

    def export(self, plan):
        return _dp_accounting(plan)


class _Tff(FrameworkTarget):
    name = Framework.TFF
    help = ("tff (DistributedDpSumFactory's keyword arguments for distributed noise on a flat word, and what TFF "
            "computes from them)")

    def check(self, deployment) -> None:
        _check_matrix(deployment, "tff")

    def export(self, plan):
        return _tff(plan)

    def premises(self, plan, export) -> tuple[str, ...]:
        return _tff_premises(plan)


#: Every target, by its name (:class:`Framework`).
TARGETS: dict[Framework, FrameworkTarget] = {t.name: register(t) for t in (_Flower(), _DpAccounting(), _Tff())}
assert list(TARGETS) == list(Framework), "a Framework without its target, or a target out of order"


def export_help() -> str:
    """``itsa plan --export``'s help, from the registry."""
    return f"Print the plan written for a framework instead (JSON): {targets_help()}."


export_plan.__doc__ = (export_plan.__doc__ or "").replace(
    "the targets, from their registry:\n", "the targets, from their registry:\n"
    + "".join(f"        {t.help};\n" for t in targets()), 1)
