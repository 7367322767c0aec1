"""A plan, read as the simulation's setup, and the certified bounds the simulation is set beside.

- :func:`setup_from_plan` reads a :class:`~itsa.planning.Plan` (or a mapping
  or namespace with the same names) into a
  :class:`~itsa.planning.run.setup.SimulationSetup`;
- :func:`plan_bounds` gives the plan's certified wrap (carry) probability per
  coordinate of each stage and its MSE bound;
- :func:`flat_wrap` the certified wrap bound of a flat word, per word or per
  round.

:func:`simulate_plan` runs a plan through them: the setup masked by the plan's
protocol (:func:`itsa.planning.protocols.run.with_protocol`), run by
:func:`itsa.planning.run.simulate.simulate`, beside the plan's bounds.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from itsa._util.certified import Certified
from itsa._util.deadline import Deadline
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption
from itsa.planning.mechanisms import DEFAULT
from itsa.planning.planner import Plan, flat_inputs
from itsa.planning.protocols.run import with_protocol
from itsa.planning.run.setup import DEFAULT_TIME_LIMIT, Simulation, SimulationSetup, Updates
from itsa.planning.run.simulate import check_run, simulate
from itsa.planning.scale import wrap_at
from itsa.planning.vocabulary import Overflow

__all__ = ["setup_from_plan", "plan_bounds", "flat_wrap", "simulate_plan", "PLAN_ATTRIBUTES", "PLAN_PARTS"]

#: What :func:`setup_from_plan` reads from a plan-like object, and where (the object itself, then its parts).
PLAN_ATTRIBUTES = ("clients", "dropout", "dimension", "clip", "gamma", "sigma_client", "modulus", "radix",
                   "layers", "margin", "stages", "noise")
PLAN_PARTS = ("deployment", "noise", "encoding")


def _is_plan(obj) -> bool:
    return isinstance(obj, Plan)


def setup_from_plan(plan) -> SimulationSetup:
    """The :class:`SimulationSetup` of a plan: the deployment's clients, dropout, dimension and clip, the plan's
    scale ``gamma``, its noise (``sigma_client``, per client or central, simulated at exactly that rational σ) and
    its word (``2^word_bits``) or its stages (their layers and margins).

    A :class:`~itsa.planning.Plan` is read by its parts; anything else by the
    names of :data:`PLAN_ATTRIBUTES`, each an attribute (or mapping key) of the
    object itself or, failing that, of its ``deployment``, ``noise`` or
    ``encoding`` part. An infeasible stage (no margin) cannot be run.
    """
    if _is_plan(plan):
        return _from_plan(plan)
    found = {}
    for name in PLAN_ATTRIBUTES:
        for owner in (plan, *(_get(plan, part) for part in PLAN_PARTS)):
            value = _get(owner, name)
            if value is not None and not (name == "noise" and not isinstance(value, str)):
                found[name] = value
                break
    missing = [n for n in ("clients", "dimension", "clip", "gamma") if n not in found]
    if missing:
        raise InvalidOption(f"plan: has no {', '.join(missing)} to simulate")
    if found.get("modulus") is not None:
        for name in ("radix", "layers", "margin", "stages"):
            found.pop(name, None)
    return SimulationSetup(**found)


def _from_plan(plan) -> SimulationSetup:
    d, enc = plan.deployment, plan.encoding
    common = dict(clients=d.clients, dropout=d.dropout, dimension=d.dimension, clip=d.clip, gamma=enc.gamma,
                  sigma_client=plan.noise.sigma_client, noise=str(d.noise.kind),
                  mechanism=str(d.noise.mechanism or DEFAULT))
    if not d.encoding.layered:
        return SimulationSetup(modulus=enc.modulus, rotation=str(d.encoding.rotation),
                               rounding=str(d.encoding.rounding), beta=d.encoding.beta, **common)
    missing = [i + 1 for i, s in enumerate(enc.stages) if s.margin is None]
    if missing:
        raise InvalidOption(f"plan: stage {missing[0]} has no margin meeting the target (the plan is infeasible): "
                            "nothing to simulate")
    return SimulationSetup(radix=enc.radix, layers=enc.layers, stages=tuple(s.layers for s in enc.stages),
                           margin=tuple(s.margin for s in enc.stages), **common)


def _get(owner, name):
    if owner is None:
        return None
    if isinstance(owner, dict):
        return owner.get(name)
    return getattr(owner, name, None)


def flat_wrap(plan, coordinates: int) -> Certified:
    """The plan's certified wrap bound of a flat word at one coordinate (``coordinates = 1``: one word) or over
    a round (``coordinates = d``: the union over the ``d'`` words a rotation sends), at its rotation, rounding
    and mechanism (the planner's own bound, :func:`itsa.planning.scale.wrap_at`, at that ``overflow.per``)."""
    d, enc = plan.deployment, plan.encoding
    if coordinates not in (1, d.dimension):
        raise InvalidOption(f"coordinates: 1 (one word) or the dimension {d.dimension} (a round), not {coordinates}")
    per = Overflow.COORDINATE if coordinates == 1 else Overflow.ROUND
    f = flat_inputs(replace(d, overflow_per=per))
    return wrap_at(f.noise, enc.word_bits, enc.gamma, plan.noise.sigma_client, per_round=f.per_round)


def plan_bounds(plan) -> tuple[tuple[Certified, ...] | None, Fraction | None]:
    """``(wrap bound per coordinate of each stage, finest first; MSE bound per coordinate)`` of a plan.

    ``(None, None)`` for an object that is not a :class:`~itsa.planning.Plan`.
    """
    if not _is_plan(plan):
        return None, None
    if plan.deployment.encoding.layered:
        wraps = tuple(s.carry for s in reversed(plan.encoding.stages))
    else:
        wraps = (flat_wrap(plan, 1),)
    return wraps, plan.error.per_coordinate


def simulate_plan(plan: Plan, rounds: int, seed: int, progress: Callback | None = None,
                  time_limit: float | Deadline | None = DEFAULT_TIME_LIMIT, *, updates: str = Updates.SPHERE,
                  certified=None, planned_mse=None, workers: int | None = None, scheduler: str | None = None,
                  client=None, connect_timeout: float = 10.0) -> Simulation:
    """Run a plan (:func:`itsa.planning.run.simulate.simulate`, whose parameters these are): its setup
    (:func:`setup_from_plan`), masked by the plan's protocol, beside its certified wrap probabilities and error
    bound (:func:`plan_bounds`: the defaults of ``certified`` and ``planned_mse``).

    Examples
    --------
    >>> from itsa.planning import parse_deployment, plan
    >>> p = plan(parse_deployment({"clients": 20, "dimension": 8, "clip": 1, "noise": {"sigma": 4},
    ...                            "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 12, "gamma": 4}}))
    >>> run = simulate_plan(p, rounds=2, seed=7)
    >>> run.rounds, run.setup == setup_from_plan(p)
    (2, True)
    """
    setup = setup_from_plan(plan)
    wraps, error = plan_bounds(plan)
    certified = wraps if certified is None else certified
    planned_mse = error if planned_mse is None else planned_mse
    _, seed, _, sharded = check_run(setup, rounds, seed, updates, workers, scheduler, client, connect_timeout)
    clock, report = Deadline.of(time_limit), Reporter(progress, prefix="simulate")
    if sharded and plan.deployment.protocol is not None:
        raise InvalidOption("workers: a round under a planned protocol runs in one process (its masks span "
                            "every client); simulate it without --workers or --scheduler")
    report("protocol")                      # the plan's protocol masks the rounds (protocols.run)
    setup = replace(setup, **with_protocol(plan, {}, seed, clock))
    clock.check("the protocol's scheme, before the rounds")
    return simulate(setup, rounds, seed, progress, clock, updates=updates, certified=certified,
                    planned_mse=planned_mse, workers=workers, scheduler=scheduler, client=client,
                    connect_timeout=connect_timeout)
