"""Census throughput: serial loop against 2 local Dask workers, in one run, with the overhead per task.

Run:  python benchmarks/bench_census.py [--workers 2] [--smoke] [--end-to-end]

Two seeded random universes (``work: search``):

* **cheap**: 200 instances with 3-4 servers and at most 4 users (tens of
  milliseconds each): what per-task overhead and chunking decide;
* **expensive**: 20 instances with at most 7 users and a ``time_limit``
  (each instance in a forked child, killed past its limit): what load
  balancing and the time-limit guard decide;
* **guarded**: 400 cheap instances (the cheap universe's shape) with a
  ``time_limit``: what the guard's forks cost (the serial loop forks once
  per instance, a worker once per chunk: ``itsa.keys.census.work.run_chunk``).

Each is run as a plain loop ``for item: run_one(item)`` in this process (the
baseline), with ``run_census(workers=0)`` (the same loop plus the results
store) and with ``run_census`` on a LocalCluster of ``--workers`` worker
processes, started and warmed before the clock starts (``--end-to-end`` also
times a run that starts its own cluster). The overhead per task is measured
on the same cluster: empty chunks sent through the same window as a census,
and the time-limit guard (one fork per instance) on an instance that takes no
time. Ratios are to the serial loop of the same run; the load average is
printed, since other processes on the machine change the ratio. On Linux with
``sched_autogroup`` (most desktops), every session gets one share of the CPU
however many processes it runs: while other sessions are busy, two workers
get no more CPU than the serial loop did. The CPU seconds of the loop, of each
worker and of this process (scheduler, client, results store) are therefore
printed too: the loop's CPU over the larger of the busiest worker's CPU and
the whole run's CPU per core estimates the ratio on idle cores.
``--smoke`` runs tiny universes in a few seconds (the benchmark's test).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

CHEAP = {"universe": {"random": {"n": 200, "U": "3..4", "max_users": 4}}, "work": "search", "seed": 0,
         "time_limit": 0}
EXPENSIVE = {"universe": {"random": {"n": 20, "U": "3..4", "max_users": 7}}, "work": "search",
             "seed": 0, "time_limit": 60}
GUARDED = {"universe": {"random": {"n": 400, "U": "3..4", "max_users": 4}}, "work": "search", "seed": 1,
           "time_limit": 60}


def _spec(data: dict, n: int | None):
    from itsa.keys.census import parse_spec

    data = {**data, "universe": {"random": {**data["universe"]["random"]}}}
    if n is not None:
        data["universe"]["random"]["n"] = n
    return parse_spec(data)


def serial(spec) -> tuple[float, float]:
    """Wall and CPU seconds of the plain loop (items listed and the work warmed up before)."""
    from itsa.keys.census import run_one
    from itsa.keys.census.work import warm_up

    warm_up(spec.work, {"field": spec.field})        # as the workers are warmed
    opts, items = spec.options(), spec.items()
    c0, t0 = cpu_seconds(), time.perf_counter()
    for it in items:
        run_one(it.text, spec.work, spec.time_limit, spec.seed, dict(opts, key=it.key))
    return time.perf_counter() - t0, cpu_seconds() - c0


def census(spec, client=None) -> float:
    """``run_census`` (store, journal, compaction included): serial without a client."""
    from itsa.keys.census import read_rows, run_census

    out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    t0 = time.perf_counter()
    run_census(spec, out, client=client, workers=0 if client is None else None)
    dt = time.perf_counter() - t0
    assert len(read_rows(out)) == len(spec.items())
    return dt


def end_to_end(spec, workers: int) -> float:
    from itsa.keys.census import run_census

    out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    t0 = time.perf_counter()
    run_census(spec, out, workers=workers)
    return time.perf_counter() - t0


def cpu_seconds() -> float:
    """CPU seconds of this process and its waited-for children (the time-limit guard's forks)."""
    import resource

    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def task_overhead(client, n: int) -> float:
    """Seconds per task of an empty chunk, through a window of ``2 · threads + 2`` tasks."""
    from distributed import as_completed

    from itsa.keys.census.run import run_many

    threads = max(1, sum(client.nthreads().values()))
    t0 = time.perf_counter()
    ac = as_completed([client.submit(run_many, [], "analyze", None, 0, pure=False)
                       for _ in range(2 * threads + 2)])
    sent = 2 * threads + 2
    for fut in ac:
        fut.result()
        if sent < n:
            ac.add(client.submit(run_many, [], "analyze", None, 0, pure=False))
            sent += 1
    return (time.perf_counter() - t0) / n * threads


def guard_overhead(n: int) -> float:
    """Seconds per instance added by the time-limit guard (a fork per instance), on the
    smallest instance: the same call with and without a time limit."""
    from itsa.keys.census import run_one
    from itsa.keys.census.work import _WARM_TEXT, warm_up

    warm_up("analyze", {})
    t = []
    for limit in (None, 60):
        t0 = time.perf_counter()
        for _ in range(n):
            run_one(_WARM_TEXT, "analyze", limit, 0)
        t.append(time.perf_counter() - t0)
    return (t[1] - t[0]) / n


def _fork_per_instance() -> None:
    """In a worker: chunks run as :func:`run_one` per instance (a fork each under a time limit)."""
    import itsa.keys.census.run as run
    from itsa.keys.census import run_one

    run.run_chunk = lambda jobs, work, limit, seed: [run_one(t, work, limit, seed, o) for t, o in jobs]


def _load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:   # pragma: no cover
        return "load average unknown"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--smoke", action="store_true", help="tiny universes: seconds (the benchmark's test)")
    ap.add_argument("--end-to-end", action="store_true", help="also time a run that starts its own cluster")
    ap.add_argument("--only", nargs="+", default=None, help="only these universes (cheap, expensive, guarded)")
    ap.add_argument("--fork-per-instance", action="store_true",
                    help="workers fork once per instance under a time limit (the guard before run_chunk), to compare")
    args = ap.parse_args(argv)

    from itsa.keys.census.run import local_cluster, warm_worker

    sizes = (10, 2, 10) if args.smoke else (None, None, None)
    specs = [("cheap", _spec(CHEAP, sizes[0])),
             ("expensive", _spec({**EXPENSIVE, "universe": {"random": {
                 **EXPENSIVE["universe"]["random"], **({"max_users": 4} if args.smoke else {})}}},
                 sizes[1])),
             ("guarded", _spec(GUARDED, sizes[2]))]
    specs = [(label, spec) for label, spec in specs if args.only is None or label in args.only]
    print(f"bench_census: {os.cpu_count()} cores, {args.workers} workers; {_load()} at the start")
    print(f"{'universe':10s} {'n':>4s} {'loop s':>7s} {'census s':>9s} {'workers s':>10s} "
          f"{'ratio':>6s} {'ratio':>6s}")
    print(f"{'':10s} {'':4s} {'serial':>7s} {'serial':>9s} {args.workers:>10d} {'loop':>6s} {'census':>6s}")
    t0 = time.perf_counter()
    with local_cluster(args.workers) as client:
        startup = time.perf_counter() - t0
        client.run(warm_worker, "search", 31)       # the first instance's imports, before the clock
        if args.fork_per_instance:
            client.run(_fork_per_instance)
        cpu_rows = []
        for label, spec in specs:
            loop, loop_cpu = serial(spec)
            base = census(spec)
            w0, m0 = client.run(cpu_seconds), cpu_seconds()
            dt = census(spec, client)
            w1, main_cpu = client.run(cpu_seconds), cpu_seconds() - m0
            per_worker = [w1[k] - w0[k] for k in w1]
            cpu_rows.append((label, loop_cpu, per_worker, main_cpu))
            print(f"{label:10s} {len(spec.items()):4d} {loop:7.2f} {base:9.2f} {dt:10.2f} "
                  f"{loop / dt:6.2f} {base / dt:6.2f}", flush=True)
        print(f"CPU seconds; idle-core estimate = loop CPU / max(busiest worker, all CPU / {args.workers} cores)")
        for label, loop_cpu, per_worker, main_cpu in cpu_rows:
            busiest = max(max(per_worker), (sum(per_worker) + main_cpu) / args.workers)
            print(f"  {label:10s} loop {loop_cpu:6.2f}; workers {' + '.join(f'{w:.2f}' for w in per_worker)}"
                  f", main {main_cpu:.2f}; idle-core estimate {loop_cpu / busiest:.2f}")
        per_task = task_overhead(client, 40 if args.smoke else 400)
    print(f"cluster start-up ({args.workers} workers): {startup:.2f} s (once per run)")
    print(f"overhead per task (empty chunk, one worker's view): {1e3 * per_task:.1f} ms")
    print(f"time-limit guard (fork per instance): {1e3 * guard_overhead(5 if args.smoke else 50):.1f} ms")
    if args.end_to_end:
        for label, spec in specs:
            print(f"end to end, {label}: {end_to_end(spec, args.workers):.2f} s (cluster start included)")
    print(f"bench_census: {_load()} at the end")


if __name__ == "__main__":
    sys.exit(main())
