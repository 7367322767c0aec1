"""A plan, run and swept: the simulation of the planned deployment, and trade-off curves from re-planning.

- :func:`setup_from_plan` reads a plan into the setup the simulation runs,
  and :func:`plan_bounds` gives the plan's certified wrap probabilities and
  MSE bound the simulation is set beside (both at home in
  :mod:`itsa.planning.run.from_plan`, re-exported here).
- :func:`sweep_plan` varies one quantity of the deployment: at each value
  it re-plans the deployment (the keys and gate left out: they do not enter
  ε, wrap or error) and sets itsa's certified ε, wrap probability per round
  and MSE per coordinate beside the k-standard-deviations rule's
  (:func:`itsa.planning.drivers.sweep.sweep`).
- :class:`ExploredPlan` is what ``itsa plan --simulate/--sweep`` prints: the
  plan with a ``simulation`` and/or a ``sweep`` section.

Examples
--------
>>> from itsa.planning import parse_deployment, plan
>>> p = plan(parse_deployment({"clients": 20, "dimension": 50, "clip": 1, "noise": {"sigma": 4},
...                            "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 9, "gamma": 1},
...                            "overflow": {"probability": "1/2", "per": "coordinate"}}))
>>> s = setup_from_plan(p)
>>> s.modulus, s.gamma, s.sigma_client
(512, Fraction(1, 1), Fraction(4, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from itsa._util.certified import Certified, Direction
from itsa._util.checks import choice, run_seed, whole_number
from itsa._util.dask_run import check_cluster_options
from itsa._util.deadline import DEFAULT_TIME_LIMIT, Deadline
from itsa._util.display import Displayable
from itsa._util.extras import require
from itsa._util.progress import Callback
from itsa.exceptions import InvalidInput, InvalidOption, TimeLimitReached
from itsa.keys.output.draw import output_format
from itsa.planning.deployment import Deployment
from itsa.planning.drivers.sweep import PLAN_ONLY, Quantity, Sweep, SweepParameters, parse_sweep, sweep
from itsa.planning.planner import Plan, check_report_path, plan, plan_deadline
from itsa.planning.planner import plan as replan
from itsa.planning.protocols.run import check_protocol_simulation
from itsa.planning.rotation import rotated_dimension
from itsa.planning.rule.heuristic import MAX_RULE_WORD_BITS as RULE_WORD_BITS
from itsa.planning.run.from_plan import flat_wrap, plan_bounds, setup_from_plan, simulate_plan
from itsa.planning.run.setup import CELLS_PER_SECOND, MAX_CELLS, MIN_BLOCK, Simulation, Updates
from itsa.planning.vocabulary import MAX_WORD_BITS, Overflow

__all__ = ["setup_from_plan", "plan_bounds", "sweep_plan", "override", "ExploredPlan", "check_simulation", "check_sweep",
           "check_sweep_figure", "explore_plan"]

@dataclass(frozen=True, repr=False)
class ExploredPlan(Displayable):
    """A plan with its simulation and/or its sweep: the plan's sections, then ``simulation`` and ``sweep``."""

    plan: Plan
    simulation: Simulation | None = None
    sweep: Sweep | None = None
    #: Why the simulation asked for was not run (an infeasible plan it cannot be set up for), else ``None``.
    not_simulated: str | None = None

    def _extras(self) -> dict:
        return {k: v for k, v in (("simulation", self.simulation), ("sweep", self.sweep)) if v is not None}

    def headline(self) -> str:
        parts = [self.plan.headline()] + [f"{k}: {v.headline()}" for k, v in self._extras().items()]
        if self.not_simulated is not None:
            parts.append(f"simulation: not run ({self.not_simulated})")
        return "; ".join(parts)

    def rows(self) -> list[tuple[str, str]]:
        rows = list(self.plan.rows())
        if self.not_simulated is not None:
            rows.append(("simulation", f"not run ({self.not_simulated})"))
        for name, part in self._extras().items():
            rows.append((name, part.headline()))
            rows.extend(part.rows())
        return rows

    def to_dict(self) -> dict:
        out = {**self.plan.to_dict(), **{k: v.to_dict() for k, v in self._extras().items()}}
        if self.not_simulated is not None:
            out["simulation"] = {"run": False, "reason": self.not_simulated}
        return out

    def markdown(self) -> str:
        lines = [self.plan.markdown()]
        for name, part in self._extras().items():
            lines += [f"## {name}", "", part.headline(), "", "| | |", "|---|---|"]
            lines += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in part.rows()] + [""]
        return "\n".join(lines)


# -- sweeps ---------------------------------------------------------------------------------------

def _at(deployment, quantity, value):
    """The deployment with the swept quantity replaced (keys, protocol and gate dropped: they do not enter the curves),
    checked by the :class:`~itsa.planning.Deployment` as the file's value is."""
    base = replace(deployment, servers=None, gate=None, protocol=None)
    if quantity is Quantity.WORD_BITS:                  # the rule's curve is read up to its own widest word
        whole_number("word_bits", value, minimum=2, maximum=min(MAX_WORD_BITS, RULE_WORD_BITS))
    return override(base, quantity, value)


def override(deployment: Deployment, quantity, value) -> Deployment:
    """The deployment with one sweepable quantity set to ``value`` (everything else kept), checked by the
    :class:`~itsa.planning.Deployment` as the file's value is: a sweep's point, a fleet's plan.

    >>> from itsa.planning import parse_deployment
    >>> d = parse_deployment({"clients": 20, "dimension": 50, "clip": 1, "privacy": {"epsilon": 4}})
    >>> override(d, "dropout", "1/10").dropout, override(d, "epsilon", 2).privacy.epsilon
    (Fraction(1, 10), Fraction(2, 1))
    """
    quantity, base = choice("quantity", quantity, Quantity), deployment
    if quantity is Quantity.WORD_BITS:
        return replace(base, encoding=replace(base.encoding, word_bits=value))
    if quantity is Quantity.EPSILON:
        return replace(base, privacy=replace(base.privacy, epsilon=value))
    if quantity is Quantity.ROUNDS:
        return replace(base, privacy=replace(base.privacy, rounds=value))
    if quantity is Quantity.SIGMA:
        return replace(base, noise=replace(base.noise, sigma=value))
    return replace(base, **{str(quantity): value})


def _per_round(p) -> Certified:
    """A plan's wrap bound per round (the rule's curve is per round): the union over the d coordinates."""
    return flat_wrap(p, p.deployment.dimension)


def _itsa_point(p) -> tuple[Certified, Certified, Certified]:
    e = p.error.per_coordinate
    error = Certified("error", e, e, Direction.UPPER, "the plan's MSE per coordinate: (1/(2 gamma))^2 + "
                      "Var Z/(gamma K_eff)^2, exact")
    return p.noise.epsilon, _per_round(p), error


def _parameters(plan, quantity):
    """The rule's inputs from the plan: its word, the deployment's targets and accounting."""
    d = plan.deployment
    target = d.privacy.epsilon
    if target is None and quantity is Quantity.EPSILON:
        raise InvalidOption("sweep: epsilon is not a target of this deployment (its noise.sigma is given)")
    overflow = d.overflow if d.overflow_per is Overflow.ROUND else d.overflow * d.dimension
    own = plan.noise.epsilon.upper()            # without a target, the rule is judged against the plan's own ε
    return SweepParameters(clients=d.clients, dimension=d.dimension, clip=d.clip,
                           word_bits=plan.encoding.word_bits, epsilon=target if target is not None
                           else own if own > 0 else None, delta=d.privacy.delta, rounds=d.privacy.rounds, dropout=d.dropout,
                           overflow=overflow if overflow < 1 else None,
                           noise_multiplier=plan.noise.noise_multiplier.value() if target is None else None,
                           adjacency=d.adjacency, name=d.name)


def sweep_plan(plan, quantity, values, *, progress: Callback | None = None,
               time_limit: float | Deadline | None = None):
    """itsa's curve (re-planned at each value) beside the k-sd rule's, over ``values`` of ``quantity``.

    ``plan`` is the plan of the deployment at its own values (a flat word:
    the rule sizes nothing else); its word is the rule's when the sweep is
    not over ``word_bits``.
    """
    q = check_sweep(plan.deployment, quantity, values)
    clock = plan_deadline(time_limit)

    plans: dict = {}

    def replanned(value):
        if value not in plans:
            plans[value] = replan(_at(plan.deployment, q, value), time_limit=clock)
        return plans[value]

    def evaluate(value):
        return _itsa_point(replanned(value))

    def rule(value):                # sigma, population: the rule beside the re-planned plan (its own units)
        if q not in PLAN_ONLY:
            return None
        return getattr(replanned(value).heuristic, "risk", None)
    return sweep(_parameters(plan, q), q, values, evaluate=evaluate, progress=progress, time_limit=clock, rule=rule)


def check_sweep(deployment, quantity, values):
    """Refuse, before any work, a sweep the deployment cannot take (one line); the quantity, as a Quantity."""
    q = choice("sweep quantity", quantity, Quantity)
    if deployment.encoding.layered:
        raise InvalidOption("sweep: needs a flat word (encoding.word_bits); the k-sd rule sizes no layering")
    if q is Quantity.EPSILON and deployment.privacy.epsilon is None:
        raise InvalidOption("sweep: epsilon is not a target of this deployment (its noise.sigma is given)")
    for v in values:
        try:
            _at(deployment, q, v)
            if deployment.protocol is not None and q in (Quantity.CLIENTS, Quantity.DROPOUT):
                replace(deployment, gate=None, **{str(q): v})      # the protocol's own checks at the value
        except InvalidInput as exc:          # the deployment's own check of the value, said as the sweep's
            raise InvalidOption(f"sweep: {exc}") from None
    return q


def check_simulation(deployment, rounds: int, seed: int, time_limit: float | None, workers: int = 1) -> None:
    """Refuse, before any work, a simulation that cannot run (one line): rounds, seed, size and time (on
    ``workers``, at the fast end: the run measures its own estimate before it starts)."""
    rounds = _check_run(rounds, seed)
    _check_simulation_size(deployment)
    _check_simulation_time(deployment, rounds, time_limit, workers)


def _check_run(rounds: int, seed: int) -> int:
    rounds = whole_number("simulate (rounds)", rounds, minimum=1, maximum=10**6)
    run_seed(seed)
    return rounds


def _check_simulation_size(deployment) -> None:
    """Refuse a simulation too large for its limits: the protocol's, and the words of a block of clients."""
    check_protocol_simulation(deployment)             # the planned protocol can be run at this size
    words = rotated_dimension(deployment.dimension, deployment.encoding.rotation)    # a rotation's padded d'
    block = min(deployment.clients, MIN_BLOCK)
    if block * words > MAX_CELLS:
        padded = "" if words == deployment.dimension else f" (the {deployment.encoding.rotation} rotation's d')"
        raise InvalidOption(f"simulate: a block of {block} clients x {words} words{padded} is encoded at once, "
                            f"at most {MAX_CELLS} client-coordinates")


def _check_simulation_time(deployment, rounds: int, time_limit: float | None, workers: int = 1) -> None:
    cells = deployment.clients * rotated_dimension(deployment.dimension, deployment.encoding.rotation)
    seconds = rounds * cells * (deployment.encoding.layers or 1) / CELLS_PER_SECOND / max(1, workers)
    if time_limit is not None and time_limit > 0 and seconds > time_limit:
        raise InvalidOption(f"simulate: {rounds} rounds of {cells:,} client-coordinates take at least about "
                            f"{seconds:.0f} s on {workers} worker{'s' * (workers > 1)}, past the time limit of "
                            f"{time_limit:g} s: lower the rounds, raise --time-limit (0: none), add --workers or "
                            f"join a cluster with --scheduler")


def explore_plan(deployment: Deployment, *, simulate_rounds: int | None = None, updates: str = Updates.SPHERE,
                 sweep: str | tuple | None = None, time_limit: float | Deadline | None = DEFAULT_TIME_LIMIT,
                 seed: int = 0, progress: Callback | None = None, workers: int | None = None,
                 scheduler: str | None = None, connect_timeout: float = 10.0) -> Plan | ExploredPlan:
    """Plan ``deployment``, then run it (``simulate_rounds``) and sweep it (``sweep``), on one clock.

    What ``itsa plan --simulate/--sweep`` runs: the simulation and the sweep are
    checked (:func:`check_simulation`, :func:`check_sweep`) before any work,
    then the plan, its simulation and its sweep share one
    :class:`~itsa._util.deadline.Deadline`.

    Parameters
    ----------
    deployment : Deployment
        What to size (:func:`itsa.planning.load_deployment` reads one from a file).
    simulate_rounds : int, optional
        Run the planned deployment for this many rounds (:func:`itsa.planning.run.from_plan.simulate_plan`).
    updates : str
        The simulated updates, ``"sphere"`` or ``"uniform"``.
    sweep : str or (quantity, values), optional
        Re-plan over one quantity (:func:`sweep_plan`): a text such as ``"word_bits=12..32"``
        (:func:`itsa.planning.drivers.sweep.parse_sweep`) or a pair.
    time_limit : float, Deadline or None
        Seconds for the whole run (``0`` or ``None``: no limit), or a clock already running.
    seed : int
        Seed of the plan's key-rate solve and of the simulation.
    progress : callable, optional
        Called with an :class:`~itsa._util.progress.Event` at each step (the simulation's ``estimate`` among
        them, before its rounds start).
    workers, scheduler, connect_timeout
        Shard the simulation's rounds over Dask: local worker processes, or a running cluster's address
        (:func:`itsa.planning.run.simulate.simulate`); neither: in this process.

    Returns
    -------
    Plan or ExploredPlan
        The plan itself without a simulation or a sweep; else the plan with them.

    Examples
    --------
    >>> from itsa.planning import parse_deployment
    >>> d = parse_deployment({"clients": 20, "dimension": 50, "clip": 1, "noise": {"sigma": 4},
    ...                       "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 9, "gamma": 1},
    ...                       "overflow": {"probability": "1/2", "per": "coordinate"}})
    >>> run = explore_plan(d, simulate_rounds=2)
    >>> type(run).__name__, run.simulation.rounds
    ('ExploredPlan', 2)
    """
    if deployment.matrix is not None and (simulate_rounds is not None or sweep is not None):
        raise InvalidOption("simulate, sweep: a matrix mechanism's plan (DP-FTRL) is sized, not simulated or swept "
                            "here: plan it without --simulate and --sweep")
    swept = parse_sweep(sweep) if isinstance(sweep, str) else sweep
    clock = plan_deadline(time_limit)
    too_large = None
    if simulate_rounds is not None:
        given = time_limit if isinstance(time_limit, (int, float)) else clock.left()    # as the user said it
        check_cluster_options(workers, scheduler, connect_timeout)
        if deployment.protocol is not None and (workers or scheduler is not None):
            raise InvalidOption("workers: a round under a planned protocol runs in one process (its masks span "
                                "every client); simulate it without --workers or --scheduler")
        _check_run(simulate_rounds, seed)
        try:        # refused below for a feasible plan; an infeasible one keeps its verdict (size or time alike)
            _check_simulation_size(deployment)
            if scheduler is None:       # a running cluster's workers are counted when it is joined
                _check_simulation_time(deployment, simulate_rounds, given, workers or 1)
        except InvalidOption as exc:
            too_large = exc
    if swept is not None:
        quantity, values = swept
        swept = check_sweep(deployment, quantity, values), values
    try:
        result = plan(deployment, time_limit=clock, seed=seed, progress=progress)
    except TimeLimitReached:
        if too_large is not None:       # no verdict to show: the simulation's own refusal, as before the plan
            raise too_large from None
        raise
    simulation, not_simulated = None, None
    if simulate_rounds is not None:
        try:
            if too_large is not None:
                raise too_large
            simulation = simulate_plan(result, simulate_rounds, seed, progress, clock, updates=updates, workers=workers,
                                       scheduler=scheduler, connect_timeout=connect_timeout)
        except InvalidOption as exc:
            if result.verdict.feasible:         # a feasible plan the simulation refuses: the user's to change
                raise
            not_simulated = f"the plan is infeasible and cannot be simulated: {exc}"
    curves = None if swept is None else sweep_plan(result, *swept, progress=progress, time_limit=clock)
    if simulation is None and curves is None and not_simulated is None:
        return result
    return ExploredPlan(result, simulation, curves, not_simulated)


def check_sweep_figure(path, swept=True) -> None:
    """Refuse, before any work, a figure without a sweep, of an unknown format or in a missing folder, or
    without the draw extra that draws it."""
    if not swept:
        raise InvalidOption("figure: draws a sweep; give --sweep too")
    check_report_path(path)
    output_format(path)
    require("matplotlib")           # a missing extra is said now, not after the sweep has run
