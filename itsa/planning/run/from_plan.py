"""A plan, read as the simulation's setup, and the certified bounds the simulation is set beside.

- :func:`setup_from_plan` reads a :class:`~itsa.planning.Plan` (or a mapping
  or namespace with the same names) into a
  :class:`~itsa.planning.run.setup.SimulationSetup`;
- :func:`plan_bounds` gives the plan's certified wrap (carry) probability per
  coordinate of each stage and its MSE bound;
- :func:`flat_wrap` the certified wrap bound of a flat word, per word or per
  round.

:func:`itsa.planning.run.simulate.simulate` runs a plan through them.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from itsa._util.certified import Certified
from itsa.exceptions import InvalidOption
from itsa.planning.mechanisms import DEFAULT
from itsa.planning.planner import Plan, flat_inputs
from itsa.planning.run.setup import SimulationSetup
from itsa.planning.scale import wrap_at
from itsa.planning.vocabulary import Overflow

__all__ = ["setup_from_plan", "plan_bounds", "flat_wrap", "PLAN_ATTRIBUTES", "PLAN_PARTS"]

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
