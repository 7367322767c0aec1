"""The planned deployment, run: encode, noise, mask, drop out, sum modulo M, unmask, decode, and check.

:func:`simulate` runs a :class:`SimulationSetup` for a number of rounds on
synthetic updates, vectorised with numpy and deterministic for a seed (a
plan is read into its setup first, and run, by
:func:`~itsa.planning.run.from_plan.simulate_plan`: the run itself never
reads a plan):

1. each client draws an update: on the ℓ2 sphere of radius ``clip`` (the
   largest updates the clip allows; ``updates="sphere"``), or, to check the
   digit laws, integers uniform in ``[−A, A]``, ``A = ⌊γ clip⌋``, divided by
   ``γ`` (``updates="uniform"``: the product domain, each coordinate at most
   ``clip``);
2. a flat word may rotate it first (``rotation="hadamard"`` or ``"dft"``, as
   :mod:`itsa.planning.rotation` defines them: padded with zeros to ``d'``,
   times the round's random signs, shared by every client, then the
   normalised Walsh–Hadamard transform or the unitary DFT of ``d'/2`` complex
   numbers); it encodes the result at the scale ``γ`` (integer units per unit
   of the update, as the plan has it): ``round(γ y)`` to nearest
   (``rounding="nearest"``), unbiased stochastic rounding
   (``rounding="stochastic"``), or conditional rounding (``"conditional"``:
   the stochastic rounding drawn again while the rounded norm is above
   :func:`itsa.privacy.neighbours.rounded_norm`'s bound at ``beta``; the
   attempts are counted), then, with ``radix`` and ``layers``, PSA's
   balanced digits; the digits of a stage of several layers form one symbol
   ``Σ_j ρ^j a_(ℓ_j)``;
3. it adds its share per word (and per layer, in digit units), drawn by its
   mechanism's sampler (:meth:`~itsa.planning.mechanisms.NoiseMechanism.draws`:
   the exact samplers of :mod:`itsa.privacy.samplers`, the discrete Gaussian's,
   Skellam's or the binomial's), each from a seed text derived from ``seed``, the round and the layer; with
   ``noise="central"`` one draw is added to the sum instead (by the first
   surviving client);
4. it masks its input modulo ``M``: pairwise masks on a ring (client ``i``
   shares a uniform mask with each of its next ``w`` neighbours, added by one
   and subtracted by the other), so the masks cancel in the sum;
5. ``⌊dropout·K⌋`` clients (the most the setup allows) drop out after the
   masks are agreed; the servers sum the survivors' uploads modulo ``M``,
   remove the masks of the pairs with a dropped member (from those pairs'
   masks alone), reduce into the centred window and decode every
   resolution, from each stage's finest layer ``ℓ0`` up
   (``Σ_(ℓ≥ℓ0) ρ^(ℓ−1) S_ℓ``); a rotation is undone on the decoded sum, so
   the error is measured in the update's own ``d`` coordinates, while wraps
   are counted in the word's modular arithmetic, per word.

The :class:`Simulation` reports the empirical wrap (carry, per stage) rates
with their standard errors beside certified ones passed in, whether every
decode was exact wherever no carry touched it, the empirical error of the
released mean against its prediction and the plan's bound, and that the masks
cancelled and a masked upload looks uniform (a chi-square test).

Examples
--------
>>> s = SimulationSetup(clients=20, dimension=8, clip=1, gamma=4, sigma_client=1, modulus=2**10)
>>> a = simulate(s, rounds=2, seed=7)
>>> a.exact_recovery, a.masks_cancel, a == simulate(s, rounds=2, seed=7)
(True, True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy  # scipy.special loads on first use (SciPy's lazy submodules): 0.25 s that import itsa.planning skips

from itsa._util.certified import Certified
from itsa._util.checks import choice, fraction, run_seed, whole_number
from itsa._util.dask_run import check_cluster_options, dask_client, map_in_order, worker_count
from itsa._util.deadline import Deadline
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption
from itsa.planning.layered import DIGIT_PRIOR
from itsa.planning.mechanisms import mechanism
from itsa.planning.protocols.run import ProtocolStats, ProtocolTally, protocol_seconds
from itsa.planning.rotation import Rotation, quantization_mse_total
from itsa.planning.run.setup import (
    CELLS_PER_SECOND,
    DEFAULT_TIME_LIMIT,
    MAX_CELLS,
    MAX_MODULUS,
    NEIGHBOURS,
    UPDATES,
    LayerRate,
    Simulation,
    SimulationSetup,
    Updates,
)
from itsa.planning.run.shard import (
    ShardSums,
    block_clients,
    round_public,
    shard_ranges,
    shard_sums,
)
from itsa.planning.run.transforms import centred, rotate, unrotate
from itsa.privacy.neighbours import Rounding

__all__ = ["SimulationSetup", "Simulation", "LayerRate", "simulate", "check_run",
           "Updates",
           "UPDATES", "estimate_seconds", "MAX_MODULUS", "MAX_CELLS", "NEIGHBOURS", "CELLS_PER_SECOND", "DEFAULT_TIME_LIMIT"]

# -- one round, merged from its shards ----------------------------------------------------------

def _kept_mean(v: np.ndarray, setup: SimulationSetup, signs: np.ndarray | None) -> float:
    """The mean over the ``d`` kept coordinates of the variances of ``R^T e`` for ``e`` independent with
    variances ``v`` in the rotated coordinates: coordinate ``j`` has ``Σ_k (R e_j)_k² v_k``; the ``d'`` of them
    sum to ``Σ v`` (``R`` orthogonal), every Hadamard coordinate has ``Σ v/d'`` (entries ``±1/√d'``), and the DFT
    pads at most one coordinate, whose share is taken out."""
    if signs is None:
        return float(v.mean())
    d, d_rot = setup.dimension, setup.rotated_dimension
    if setup.rotation == Rotation.HADAMARD:
        return float(v.sum()) / d_rot
    total = float(v.sum())
    for j in range(d, d_rot):
        unit = np.zeros(d_rot)
        unit[j] = 1.0
        total -= float((rotate(unit, signs, setup.rotation) ** 2 * v).sum())
    return total / d


@dataclass
class _Tally:
    setup: SimulationSetup
    wraps: list = field(default_factory=list)
    hits: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    touched: list = field(default_factory=list)
    exact: bool = True
    cancel: bool = True
    squares: list = field(default_factory=list)
    #: per round, whether any word of it wrapped (a carry in any stage)
    wrapped: list = field(default_factory=list)
    predicted: float = 0.0
    upload: list = field(default_factory=list)
    protocol: ProtocolTally = field(default_factory=ProtocolTally)
    progress: Callback | None = None
    #: conditional rounding's roundings drawn and the updates rounded
    attempts: int = 0
    updates: int = 0

    def __post_init__(self):
        n = len(self.setup.moduli)
        self.wraps, self.hits, self.wrong, self.touched = [0] * n, [0] * n, [0] * n, [0] * n


def _round(setup: SimulationSetup, sums: ShardSums, signs: np.ndarray | None, alive: np.ndarray,
           tally: _Tally) -> None:
    """One round into ``tally`` from its merged shards' sums: the servers' decode, the wraps, the error."""
    tally.attempts, tally.updates = tally.attempts + sums.attempts, tally.updates + setup.clients
    radix, _ = setup.digits()
    decoded, carried = [], []
    for b, (modulus, _ls) in enumerate(setup.blocks()):
        got = centred(sums.unmasked[b], modulus)
        carry = got != sums.true[b]
        tally.wraps[b] += int(carry.sum())
        tally.hits[b] += int(carry.any())
        decoded.append(got)
        carried.append(carry)
    tally.cancel &= sums.cancel
    if sums.upload is not None:
        tally.upload.append(sums.upload)
    step = _steps(setup)
    for b in range(len(step)):
        want, got = _weighted(step, sums.true, b), _weighted(step, decoded, b)
        touched = np.logical_or.reduce(carried[b:])
        tally.wrong[b] += int((got != want).sum())
        tally.touched[b] += int(touched.sum())
        tally.exact &= bool(np.array_equal(got[~touched], want[~touched]))
    g, n = float(setup.gamma), setup.survivors
    released = _weighted(step, decoded, 0)
    if signs is not None:                         # the server undoes the rotation: the original coordinates
        released = unrotate(released.astype(float), signs, setup.rotation, setup.dimension)
    released = released / (g * n)
    tally.squares.append((released - sums.x / n) ** 2)
    tally.wrapped.append(bool(np.logical_or.reduce(carried).any()))
    if setup.rounding == Rounding.NEAREST:        # the rounding's error is fixed by the data: its square
        error = sums.rounding
        if signs is not None:
            error = unrotate(error, signs, setup.rotation, setup.dimension)
        rounding = (error ** 2).mean()
    else:                                         # a stochastic rounding's variance is f (1 - f)
        rounding = _kept_mean(sums.rounding, setup, signs)
    tally.predicted += (rounding + setup.noise_shares * _noise_variance(setup) * _spread(setup)) / (g * n) ** 2


def _spread(setup: SimulationSetup) -> int:
    """``Σ_ℓ ρ^(2(ℓ−1))``: how the layers' noise adds up in the decoded value (1 flat)."""
    radix, layers = setup.digits()
    return sum(radix ** (2 * i) for i in range(layers)) if setup.layered else 1


def _noise_variance(setup: SimulationSetup) -> float:
    """One share's exact variance, the mechanism's (:meth:`~itsa.planning.mechanisms.NoiseMechanism.share_variance`)."""
    if setup.sigma_client == 0:
        return 0.0
    return mechanism(setup.mechanism).share_variance(setup.sigma_client)


def planned_error(setup: SimulationSetup) -> Fraction:
    """The plan's upper bound on the MSE per coordinate of the released mean for this setup (exact).

    The rounding's part is :func:`itsa.planning.rotation.quantization_mse_total`
    over ``d`` (rounding to nearest: ``(1/(2γ))²`` per coordinate, ``d'/d`` times
    it after a rotation; stochastic: ``K_eff/4`` in place of ``K_eff²/4``;
    conditional: with what ``β`` costs), plus the noise's
    ``n v Σ_ℓ ρ^(2(ℓ−1))/(γ K_eff)²``, ``v`` the mechanism's bound on a share's variance
    (:meth:`~itsa.planning.mechanisms.NoiseMechanism.variance_bound`: ``σ²`` for each registered today).
    """
    n, g = setup.survivors, setup.gamma
    share = mechanism(setup.mechanism).variance_bound(setup.sigma_client) if setup.sigma_client else Fraction(0)
    noise = setup.noise_shares * share * _spread(setup) / (g * n) ** 2
    return quantization_mse_total(gamma=g, dimension=setup.dimension, rotation=setup.rotation,
                                  rounding=setup.rounding, survivors=n, beta=setup.beta) / setup.dimension + noise


def _uniformity(uploads: list[np.ndarray], modulus: int) -> tuple[float, int, float] | None:
    """A chi-square test of one client's masked uploads against the uniform law on ``Z_M`` (binned)."""
    bins = max((b for b in range(2, 65) if modulus % b == 0), default=None)
    if bins is None or not uploads:
        return None
    values = np.concatenate(uploads)
    if len(values) < 5 * bins:
        return None
    counts = np.bincount(values // (modulus // bins), minlength=bins)
    expected = len(values) / bins
    stat = float(((counts - expected) ** 2 / expected).sum())
    return stat, bins - 1, float(scipy.special.chdtrc(bins - 1, stat))  # the chi-square survival function


def check_run(setup: SimulationSetup, rounds, seed, updates, workers, scheduler, client, connect_timeout=None
              ) -> tuple[int, int, str, bool]:
    """``(rounds, seed, updates, sharded)`` checked before any work: whole numbers, an update law the setup
    runs, and the cluster's options (``sharded``: the rounds go to Dask)."""
    rounds = whole_number("rounds", rounds, minimum=1, maximum=10**6)
    seed = run_seed(seed)
    kind = choice("updates", updates, Updates.ALL)
    if kind == Updates.UNIFORM and setup.rotation != Rotation.NONE:
        raise InvalidOption("updates: uniform updates are a layering's digit prior; a rotated encoding is run on "
                            "sphere updates")
    sharded = bool(workers) or scheduler is not None or client is not None     # workers=0: here, no Dask
    if sharded:
        check_cluster_options(workers, scheduler, connect_timeout)
    return rounds, seed, kind, sharded


def simulate(setup: SimulationSetup, rounds: int, seed: int, progress: Callback | None = None,
             time_limit: float | Deadline | None = DEFAULT_TIME_LIMIT, *, updates: str = Updates.SPHERE,
             certified=None, planned_mse=None, workers: int | None = None, scheduler: str | None = None,
             client=None, connect_timeout: float = 10.0) -> Simulation:
    """Run ``rounds`` rounds of the deployment on synthetic updates (see the module's text).

    Parameters
    ----------
    setup : SimulationSetup
        What to run (a plan's: :func:`~itsa.planning.run.from_plan.simulate_plan`
        reads the plan into its setup, masks it with the plan's protocol and
        sets the plan's certified wrap probabilities and error bound beside
        the run).
    rounds, seed : int
        The rounds to run and the seed (the same seed gives the same run).
    progress, time_limit
        ``Event`` s per round and per shard (the first one, ``estimate``, says how long the run should take);
        a limit in seconds (or a Deadline), looked at between shards and inside each (every
        :data:`DRAW_CHUNK` noise draws, every neighbour's masks) when they run here.
    updates : str
        ``"sphere"`` (default) or ``"uniform"`` (see the module's text).
    certified : number or sequence, optional
        The certified wrap probability per coordinate (one per stage, finest
        first, for PSA) the empirical rates are set beside.
    planned_mse : number, optional
        The planned MSE per coordinate (default :func:`planned_error`).
    workers, scheduler, client, connect_timeout
        Shard the rounds over Dask (:mod:`itsa._util.dask_run`, the census's engine): ``workers`` local
        worker processes, a running cluster's ``scheduler`` address, or a ``client`` already joined; none of
        them (default, or ``workers=0``): every shard here, in order. The result is the same, seed for seed.
    """
    rounds, seed, kind, sharded = check_run(setup, rounds, seed, updates, workers, scheduler, client,
                                                 connect_timeout)
    clock, report = Deadline.of(time_limit), Reporter(progress, prefix="simulate")
    if sharded and setup.protocol is not None:
        raise InvalidOption("workers: a round under a planned protocol runs in one process (its masks span "
                            "every client); simulate it without workers or a scheduler")
    bounds = _certified(certified, len(setup.moduli))
    planned = planned_error(setup) if planned_mse is None else fraction("planned_mse", planned_mse, low=0)
    if not sharded:                         # the fast end, before any work (a cluster's is measured below)
        _plan_time(setup, rounds, clock)
    tally = _Tally(setup, progress=progress)
    if sharded:
        with dask_client(client, scheduler, workers, connect_timeout=connect_timeout) as c:
            count = max(1, worker_count(c))
            estimate = _estimate(setup, rounds, kind, seed, count, clock, report)
            _run_dask(c, setup, rounds, kind, seed, tally, clock, report)
    else:
        count = 1
        estimate = _estimate(setup, rounds, kind, seed, 1, clock, report)
        _run_here(setup, rounds, kind, seed, tally, clock, report)
    trials = rounds * setup.rotated_dimension              # the words of a round: d' after a rotation
    premise = None if setup.radix is None else DIGIT_PRIOR
    layers = tuple(LayerRate(i + 1, m, tally.wraps[i], trials, tally.hits[i], rounds, bounds[i], premise)
                   for i, m in enumerate(setup.moduli))
    squares = np.concatenate(tally.squares)
    clean = [sq for sq, hit in zip(tally.squares, tally.wrapped) if not hit]
    unwrapped = np.concatenate(clean) if clean else None
    return Simulation(setup=setup, rounds=rounds, seed=seed, updates=kind, layers=layers,
                      resolutions=tuple((ls[0], tally.wrong[i], tally.touched[i])
                                        for i, (_, ls) in enumerate(setup.blocks())),
                      exact_recovery=tally.exact, mse=Fraction(float(squares.mean())),
                      mse_standard_error=Fraction(float(squares.std() / math.sqrt(len(squares)))),
                      unwrapped=None if unwrapped is None else (
                          len(clean), Fraction(float(unwrapped.mean())),
                          Fraction(float(unwrapped.std() / math.sqrt(len(unwrapped))))),
                      predicted_mse=Fraction(tally.predicted / rounds), planned_mse=planned,
                      masks_cancel=tally.cancel, uniformity=_uniformity(tally.upload, setup.moduli[0]),
                      seconds=clock.elapsed(), estimate=estimate, workers=count,
                      protocol=None if setup.protocol is None else ProtocolStats.of(setup.protocol, tally.protocol,
                                                                                     rounds),
                      attempts=(tally.attempts, tally.updates) if setup.rounding == Rounding.CONDITIONAL else None)


def _run_here(setup: SimulationSetup, rounds: int, kind: str, seed: int, tally: _Tally, clock: Deadline,
              report: Reporter) -> None:
    """Every shard of every round in this process, in order."""
    shards = shard_ranges(setup)
    for t in range(rounds):
        clock.check(f"{t} of {rounds} rounds simulated")
        signs, alive = round_public(setup, seed, t)
        total: ShardSums | None = None
        for i, (lo, hi) in enumerate(shards):
            part = shard_sums(setup, kind, seed, t, lo, hi, signs, alive, clock, tally.protocol, tally.progress)
            total = part if total is None else total.merged(part, setup.moduli)
            if len(shards) > 1:
                report("shard", done=t * len(shards) + i + 1, total=rounds * len(shards))
        assert total is not None
        _round(setup, total, signs, alive, tally)
        report("round", done=t + 1, total=rounds)


def _run_dask(c, setup: SimulationSetup, rounds: int, kind: str, seed: int, tally: _Tally, clock: Deadline,
              report: Reporter) -> None:
    """Every shard on the client ``c``'s workers, merged here in their order (the same sums as :func:`_run_here`)."""
    shards = shard_ranges(setup)
    public: dict[int, tuple] = {}
    state: dict = {"total": None, "done": 0}

    def calls():
        for t in range(rounds):
            public[t] = round_public(setup, seed, t)
            signs, alive = public[t]
            small = None if signs is None else signs.astype(np.int8)
            for lo, hi in shards:
                yield (setup, kind, seed, t, lo, hi, small, alive)

    def merge(part: ShardSums) -> None:
        done = state["done"] = state["done"] + 1
        total = state["total"] = part if state["total"] is None else state["total"].merged(part, setup.moduli)
        report("shard", done=done, total=rounds * len(shards))
        if done % len(shards) == 0:
            t = done // len(shards) - 1
            signs, alive = public.pop(t)
            _round(setup, total, signs, alive, tally)
            state["total"] = None
            report("round", done=t + 1, total=rounds)

    map_in_order(c, shard_sums, calls(), merge,
                 check=lambda: clock.check(f"{state['done']} of {rounds * len(shards)} shards simulated"))


def _estimate(setup: SimulationSetup, rounds: int, kind: str, seed: int, workers: int, clock: Deadline,
              report: Reporter) -> float:
    """About how long the run takes on ``workers``, said to ``report`` (``estimate``) before it starts, and
    refused in one line past the time left on ``clock``.

    A round of more than one block is timed on its first block here (its work thrown away) and extrapolated
    over the blocks, the rounds and the workers; a round of one block at :data:`CELLS_PER_SECOND`."""
    blocks = -(-setup.clients // block_clients(setup))
    if blocks == 1:
        seconds, how = estimate_seconds(setup, rounds), f"at about {CELLS_PER_SECOND:,} client-coordinates/s"
    else:
        signs, alive = round_public(setup, seed, 0)
        block = shard_sums(setup, kind, seed, 0, 0, block_clients(setup), signs, alive, clock)
        per_worker = -(-blocks * rounds // workers)
        seconds = block.seconds * per_worker
        how = (f"one block of {block_clients(setup):,} clients took {block.seconds:.2f} s here, times "
               f"{per_worker:,} blocks per worker")
    cells = setup.clients * setup.rotated_dimension
    text = (f"about {_duration(seconds)} for {rounds} round{'s' * (rounds > 1)} of {setup.clients:,} clients x "
            f"{setup.rotated_dimension:,} words ({cells:,} client-coordinates a round) on {workers} "
            f"worker{'s' * (workers > 1)} (an estimate: {how})")
    report("estimate", note=text)
    limit = clock.left()
    if limit is not None and seconds > limit:
        raise InvalidOption(f"simulate: {text}, past the {limit:.0f} s left of the time limit: raise --time-limit "
                            f"(0: none), add --workers, or join a cluster with --scheduler")
    return seconds


def _duration(seconds: float) -> str:
    """``42 s``, ``7.5 min``, ``2.1 h``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def estimate_seconds(setup: SimulationSetup, rounds: int, workers: int = 1) -> float:
    """About how long ``rounds`` rounds take at :data:`CELLS_PER_SECOND` on ``workers`` (the fast end of the
    measurements)."""
    cells = rounds * setup.clients * setup.rotated_dimension * (setup.layers or 1) / CELLS_PER_SECOND
    return cells / max(1, workers) + rounds * protocol_seconds(setup.protocol, setup.clients,
                                                               setup.rotated_dimension)


def _plan_time(setup: SimulationSetup, rounds: int, time_limit) -> None:
    limit = time_limit.left() if isinstance(time_limit, Deadline) else time_limit
    seconds = estimate_seconds(setup, rounds)
    if limit is not None and limit > 0 and seconds > limit:
        raise InvalidOption(f"rounds: {rounds} rounds take at least about {seconds:.0f} s here, past the time limit "
                            f"of {limit:g} s: lower the rounds, raise the limit (--time-limit, 0: none), or shard "
                            f"them (--workers, --scheduler)")


def _steps(setup: SimulationSetup) -> list[int]:
    """Each summed symbol's weight ``ρ^(ℓ0−1)`` in the decoded value, finest first (``[1]`` flat)."""
    radix, _ = setup.digits()
    return [radix ** (ls[0] - 1) for _, ls in setup.blocks()] if setup.layered else [1]


def _weighted(step: list[int], sums: list[np.ndarray], first: int) -> np.ndarray:
    """``Σ_(b ≥ first) step_b · sums_b``: the value decoded from symbol ``first`` up."""
    total = step[first] * sums[first]
    for i in range(first + 1, len(sums)):
        total = total + step[i] * sums[i]
    return total


def _certified(certified, layers: int) -> tuple[Fraction | None, ...]:
    if certified is None:
        return (None,) * layers
    values = list(certified) if isinstance(certified, (list, tuple)) else [certified] * layers
    if len(values) != layers:
        raise InvalidOption(f"certified: needs one wrap probability per stage ({layers}), not {len(values)}")
    return tuple(None if v is None else v.upper() if isinstance(v, Certified) else
                 fraction("certified wrap probability", v, low=0, high=1, closed=True) for v in values)
