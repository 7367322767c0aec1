"""Fleet throughput: plans per second and simulated client-coordinates per second on 1 and on 2 local Dask workers.

Run:  python benchmarks/bench_fleet.py [--workers 2] [--smoke] [--part plans|simulate|both]
                                       [--clients 10000] [--dimension 12000]

The fleet is the shipped deployments with a flat word (k1000, hospitals,
k1000000-8bit, cross-device) over the grid ``word_bits=12..32
epsilon=2,4,8 dropout=0,1/10,1/5,3/10``: 4 × 21 × 3 × 4 = 1,008 plans.
It runs through :func:`itsa.planning.drivers.fleet.run_fleet` (results store,
journal and compaction included) on a LocalCluster of one worker, then on
one of ``--workers``, each started and warmed before its clock starts. Both
tables must hold the same rows (the ``time`` column aside), or the benchmark
fails. The ratio is the 1-worker wall time over the N-worker one.

The machine may be shared: the load average is printed, and the CPU seconds
of each worker, so that the ratio the same run would show on idle cores can
be estimated (the 1-worker run's CPU over the larger of the busiest worker's
CPU and the run's CPU per core), as ``bench_census.py`` does.
``--smoke`` runs 4 plans (the benchmark's test); ``--deployments`` and ``--grid`` give
another fleet (a smaller one on a busy machine).

``--part simulate`` (or ``both``) times one simulated round sharded over clients
(:func:`itsa.planning.run.simulate.simulate` with a Dask client): the shipped
cross-device deployment at ``--clients`` × ``--dimension`` (default 10,000 ×
12,000: 1.2·10⁸ client-coordinates; ``--smoke``: 300 × 4,000), planned once,
then its round on a warmed cluster of one worker and of ``--workers``. Both runs
must give the same simulation (seed for seed), or the benchmark fails; it
prints client-coordinates per second, each worker's CPU and the ratios.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

DEPLOYMENTS = ("k1000", "hospitals", "k1000000-8bit", "cross-device")
GRID = ("word_bits=12..32", "epsilon=2,4,8", "dropout=0,1/10,1/5,3/10")
SMOKE_GRID = ("word_bits=16,24", "epsilon=4")


def cpu_seconds() -> float:
    """CPU seconds of this process and its waited-for children."""
    import resource

    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:   # pragma: no cover
        return "load average unknown"


def run(workers: int, deployments, grid) -> tuple[float, list[float], float, list[dict]]:
    """Wall seconds, each worker's CPU seconds, this process's CPU seconds, and the rows."""
    from itsa._util.dask_run import local_cluster
    from itsa.planning.drivers.fleet import read_fleet, run_fleet, warm_fleet_worker

    out = os.path.join(tempfile.mkdtemp(), "fleet.parquet")
    with local_cluster(workers) as client:
        client.run(warm_fleet_worker)
        w0, m0, t0 = client.run(cpu_seconds), cpu_seconds(), time.perf_counter()
        run_fleet(deployments, grid, out, client=client)
        wall = time.perf_counter() - t0
        w1, main = client.run(cpu_seconds), cpu_seconds() - m0
    return wall, [w1[k] - w0[k] for k in w1], main, read_fleet(out)


def _warm_simulation() -> None:
    """Import what a shard runs (numpy's FFT, the sampler's tables), so that no clock counts it."""
    import itsa.planning.run.shard  # noqa: F401


def simulate_run(workers: int, plan) -> tuple[float, list[float], float, object]:
    """Wall seconds, each worker's CPU seconds, this process's CPU seconds, and the simulation of one round."""
    from itsa._util.dask_run import local_cluster
    from itsa.planning.run.from_plan import simulate_plan

    with local_cluster(workers) as client:
        client.run(_warm_simulation)
        w0, m0, t0 = client.run(cpu_seconds), cpu_seconds(), time.perf_counter()
        sim = simulate_plan(plan, 1, 0, time_limit=None, client=client)
        wall = time.perf_counter() - t0
        w1, main = client.run(cpu_seconds), cpu_seconds() - m0
    return wall, [w1[k] - w0[k] for k in w1], main, sim


def bench_simulation(workers: int, clients: int, dimension: int) -> None:
    from itsa.planning import load_deployment, plan
    from itsa.planning.drivers.explore import override

    deployment = override(override(load_deployment("cross-device"), "clients", clients), "dimension", dimension)
    planned = plan(deployment, time_limit=None)
    cells = clients * dimension
    print(f"bench_fleet simulate: one round of {clients:,} x {dimension:,} = {cells:,} client-coordinates "
          f"(cross-device, {'feasible' if planned.verdict.feasible else 'infeasible'}); {_load()} at the start", flush=True)
    results = {}
    for n in (1, workers):
        wall, per_worker, main_cpu, sim = simulate_run(n, planned)
        results[n] = (wall, per_worker, main_cpu, sim)
        print(f"{n} worker(s): {wall:8.2f} s, {cells / wall:,.0f} client-coordinates/s; CPU workers "
              f"{' + '.join(f'{w:.1f}' for w in per_worker)}, main {main_cpu:.1f}; wraps {sim.layers[0].wraps}, "
              f"MSE {float(sim.mse):.4g} (planned {float(sim.planned_mse):.4g}); {_load()}", flush=True)
    one, many = results[1], results[workers]
    if one[3] != many[3]:
        raise SystemExit("bench_fleet simulate: the two runs gave different simulations")
    busiest = max(max(many[1]), (sum(many[1]) + many[2]) / workers)
    print(f"simulate ratio (wall, 1 worker / {workers}): {one[0] / many[0]:.2f}; idle-core estimate "
          f"(1-worker CPU {sum(one[1]):.1f} / {busiest:.1f}): {sum(one[1]) / busiest:.2f}; same simulation: True")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2, help="worker processes of the second run (default 2)")
    ap.add_argument("--smoke", action="store_true", help="4 plans: seconds (the benchmark's test)")
    ap.add_argument("--deployments", nargs="+", default=None, help=f"instead of {' '.join(DEPLOYMENTS)}")
    ap.add_argument("--grid", nargs="+", default=None, help=f"instead of {' '.join(GRID)}")
    ap.add_argument("--part", choices=("plans", "simulate", "both"), default="plans",
                    help="the fleet of plans (default), one sharded simulated round, or both")
    ap.add_argument("--clients", type=int, default=None, help="the simulated round's clients (default 10000)")
    ap.add_argument("--dimension", type=int, default=None, help="the simulated round's dimension (default 12000)")
    args = ap.parse_args(argv)
    if args.part in ("simulate", "both"):
        bench_simulation(args.workers, args.clients or (300 if args.smoke else 10_000),
                         args.dimension or (4_000 if args.smoke else 12_000))
    if args.part == "simulate":
        return

    from itsa.planning.drivers.fleet import fleet_deployments, grid_points, parse_grid

    deployments = fleet_deployments(args.deployments or (DEPLOYMENTS[:2] if args.smoke else DEPLOYMENTS))
    grid = parse_grid(args.grid or (SMOKE_GRID if args.smoke else GRID))
    n = len(deployments) * len(grid_points(grid))
    print(f"bench_fleet: {n} plans, {os.cpu_count()} cores; {_load()} at the start", flush=True)
    results = {}
    for workers in (1, args.workers):
        wall, per_worker, main_cpu, rows = run(workers, deployments, grid)
        results[workers] = (wall, per_worker, main_cpu, rows)
        print(f"{workers} worker(s): {wall:8.2f} s, {n / wall:6.2f} plans/s; CPU workers "
              f"{' + '.join(f'{w:.1f}' for w in per_worker)}, main {main_cpu:.1f}; {_load()}", flush=True)
    one, many = results[1], results[args.workers]
    same = [{k: v for k, v in r.items() if k != "time"} for r in one[3]] == \
        [{k: v for k, v in r.items() if k != "time"} for r in many[3]]
    if not same:
        raise SystemExit("bench_fleet: the two runs wrote different rows")
    busiest = max(max(many[1]), (sum(many[1]) + many[2]) / args.workers)
    print(f"ratio (wall, 1 worker / {args.workers}): {one[0] / many[0]:.2f}; idle-core estimate "
          f"(1-worker CPU {sum(one[1]):.1f} / {busiest:.1f}): {sum(one[1]) / busiest:.2f}; "
          f"rows identical: {same}; failed rows: {sum(r['status'] != 'ok' for r in many[3])}")
    print(f"bench_fleet: {_load()} at the end")


if __name__ == "__main__":
    sys.exit(main())
