"""Census throughput: 1 and 2 local Dask workers against the plain serial loop.

Run:  python benchmarks/bench_census.py [--spec SPEC.yaml] [--workers 1 2]

The same spec (default: 40 seeded random instances with 3-4 servers and at
most 6 users, work: search, about 0.5 s each) is run

* as a plain loop ``for item: run_one(item)`` in this process (the baseline);
* with ``run_census`` on a LocalCluster of 1, then 2, worker processes,
  started and warmed up (every worker has imported itsa) before the clock
  starts; with ``--end-to-end`` also timed with the cluster start included.

Throughputs are printed as instances per second and as ratios to the serial
loop measured in the same run. The goal is a ratio close to the number of
workers on the warmed cluster (the machine must have that many free cores).
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time

from itsa.census import load_spec, parse_spec, read_rows, run_census, run_one

DEFAULT = {"universe": {"random": {"n": 40, "max_users": 6}}, "work": "search", "seed": 0}


def serial(spec) -> float:
    items = spec.items()
    t0 = time.perf_counter()
    for it in items:
        run_one(it.text, spec.work, spec.time_limit, spec.seed, dict(spec.options(), key=it.key))
    return time.perf_counter() - t0


def census(spec, workers: int, warm: bool) -> float:
    from distributed import Client, LocalCluster

    out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    t0 = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cl, Client(cl) as c:
        if warm:
            c.run(lambda: __import__("itsa.census.work") and None)
            first = spec.items()[0]
            c.gather([c.submit(run_one, first.text, spec.work, None, 0, pure=False, workers=[w])
                      for w in c.scheduler_info()["workers"]])
            t0 = time.perf_counter()
        run_census(spec, out, client=c)
        dt = time.perf_counter() - t0
    assert len(read_rows(out)) == len(spec.items())
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", help="a census spec (default: see the module notes)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--end-to-end", action="store_true", help="also time runs that start their cluster")
    args = ap.parse_args()
    spec = load_spec(args.spec) if args.spec else parse_spec(DEFAULT)
    n = len(spec.items())
    base = serial(spec)
    print(f"bench_census: {n} instances, work {spec.work}, {os.cpu_count()} cores")
    print(f"{'run':32s} {'seconds':>8s} {'inst/s':>8s} {'ratio':>6s}")
    print(f"{'serial loop (baseline)':32s} {base:8.2f} {n / base:8.2f} {1:6.2f}")
    for w in args.workers:
        for warm in ((False, True) if args.end_to_end else (True,)):
            dt = census(spec, w, warm)
            label = f"census, {w} worker(s), " + ("warm cluster" if warm else "end to end")
            print(f"{label:32s} {dt:8.2f} {n / dt:8.2f} {base / dt:6.2f}")


if __name__ == "__main__":
    main()
