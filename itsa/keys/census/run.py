"""Running a census: every pending instance through :func:`run_one`, on Dask.

With no client and no scheduler address, a :class:`distributed.LocalCluster`
of worker processes (one thread each) is started for the run; with a
scheduler address the census joins that cluster (a laptop's, or one started
on SLURM/PBS with dask-jobqueue). ``workers=0`` runs the same function in a
plain serial loop in this process (debugging, benchmarks).

Where the time goes, and what is done about it (``benchmarks/bench_census.py``
measures it):

* **worker start-up** (a fresh interpreter per worker, importing Dask and
  itsa): paid once per worker, never per instance; every worker is then warmed
  (:func:`warm_worker`: itsa imported, the work run once on a small instance);
* **per-task overhead** (scheduling, serialisation, a round trip; a few
  milliseconds): cheap instances travel in chunks of about
  :data:`TASK_SECONDS` of measured work, never more than a share of what is
  left, so that the last tasks end together;
* **worker settings**: Dask's statistical profiler (a thread walking the stack
  every 10 ms) is off, and so is its aggressive ``malloc`` trimming
  (``MALLOC_TRIM_THRESHOLD_``), which slows allocation-heavy exact arithmetic;
  the scheduler does not hold tasks back (``worker-saturation: inf``: the
  census's own window bounds what is in flight), so a worker has its next
  task before it finishes the current one;
* **ordering**: instances go out largest first (by users, then sets), so that
  one expensive instance does not run alone at the end.

At most ``2 · threads + 2`` tasks are in flight; a killed run loses at most
the instances of the tasks in flight. Each finished row goes to the
:class:`~itsa.keys.census.store.ResultStore` at once. The cluster, the chunks
and the window are :mod:`itsa._util.dask_run`'s, the one engine the plan
fleet (:mod:`itsa.planning.drivers.fleet`) runs on too.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import replace

from itsa._util.dask_run import (
    MAX_CHUNK,
    TASK_SECONDS,
    WORKER_CONFIG,
    RunProgress,
    RunResult,
    SchedulerUnreachable,
    check_cluster_options,
    chunk_size,
    dask_client,
    local_cluster,
    run_chunks,
    worker_count,
)
from itsa.keys.census.schema import RowStatus
from itsa.keys.census.spec import CensusSpec
from itsa.keys.census.store import ResultStore
from itsa.keys.census.work import failed_row, run_chunk, run_one, warm_up

__all__ = ["CensusProgress", "CensusRun", "SchedulerUnreachable", "run_census", "run_many",
           "warm_worker", "WORKER_CONFIG", "local_cluster", "TASK_SECONDS", "MAX_CHUNK"]


#: Where a census stands (the engine's :class:`~itsa._util.dask_run.RunProgress`, a row an instance).
CensusProgress = RunProgress


#: Outcome of :func:`run_census`: the engine's one run result (:class:`~itsa._util.dask_run.RunResult`, a row an
#: instance), the census's name for it.
CensusRun = RunResult


def _tally(p: CensusProgress, row: dict, start: float, running: int) -> CensusProgress:
    return replace(p, done=p.done + 1, running=running, elapsed=time.monotonic() - start,
                   failed=p.failed + (row["status"] == RowStatus.FAILED),
                   timeout=p.timeout + (row["status"] == RowStatus.TIMEOUT))


def warm_worker(work: str, field: int = 31) -> int:
    """Import itsa and run ``work`` once on a small instance in this (worker) process.

    Returns the process id (so that a caller can count the warmed workers).
    """
    warm_up(work, {"field": field})
    return os.getpid()


def run_census(spec: CensusSpec, out: str | os.PathLike, *, workers: int | None = None,
               scheduler: str | None = None, client=None, resume: bool = False,
               processes: bool = True, connect_timeout: float = 10.0, batch: int = 256,
               progress: Callable[[CensusProgress], None] | None = None) -> CensusRun:
    """Run ``spec``'s work on every instance of its universe, writing the table to ``out``.

    Parameters
    ----------
    spec : CensusSpec
    out : path-like
        Results folder (:mod:`itsa.keys.census.store`); files saved by the work
        (``save:``) go under it.
    workers : int, optional
        Local worker processes (default: all cores); ``0`` runs serially here.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``) to join.
    client : distributed.Client, optional
        An existing client to use (takes precedence).
    resume : bool
        Skip every instance whose key is already in ``out``.
    processes : bool
        Local workers as processes (default) or threads of this process.
    progress : callable(CensusProgress), optional
        Called at the start and after every finished instance.

    Raises
    ------
    InvalidOption
        ``workers`` and ``scheduler`` both given.
    KeyboardInterrupt
        Passed on after the tasks in flight are cancelled and quietly dropped;
        every finished row is in ``out``'s journal, for ``resume``.

    Examples
    --------
    >>> import tempfile, os
    >>> from itsa.keys.census import load_spec, read_results
    >>> from itsa import examples
    >>> spec = load_spec(examples.path("census/grid-small"))
    >>> out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    >>> run = run_census(spec, out, workers=0)
    >>> run.progress.done, read_results(out).num_rows
    (8, 8)
    """
    check_cluster_options(workers, scheduler, connect_timeout)
    items = spec.items()
    serial = workers == 0 and client is None and scheduler is None
    cluster = contextlib.nullcontext() if serial else dask_client(client, scheduler, workers, processes,
                                                                     connect_timeout)
    with cluster as c, ResultStore(out, spec.text, resume=resume, batch=batch,
                                                 universe=len(items)) as store:
        todo = sorted((it for it in items if it.key not in store.keys), key=_cost, reverse=True)
        state = CensusProgress(total=len(todo), skipped=len(items) - len(todo))
        report = progress or (lambda p: None)
        report(state)
        args = (spec.work, spec.time_limit, spec.seed)
        opts = spec.options(out)
        if c is None:               # serial: no cluster
            start = time.monotonic()
            for it in todo:
                report(replace(state, running=1, elapsed=time.monotonic() - start))
                row = run_one(it.text, *args, dict(opts, key=it.key, name=it.name, source=it.source))
                store.add(row)
                state = _tally(state, row, start, 0)
                report(state)
            n_workers = 0
        else:
            n_workers = worker_count(c)
            if todo:
                c.run(warm_worker, spec.work, spec.field)
            state = _run_dask(c, todo, args, opts, store, state, report, time.monotonic())
        store.compact()
    return CensusRun(str(out), state, n_workers)


def _cost(item) -> tuple:
    """A cheap proxy of an instance's cost, to send the large ones first: ``(K, M + N)`` from its key."""
    try:
        U, K, M, N = map(int, item.key.split("-")[0].split("."))
    except ValueError:       # an invalid instance: cheap (it fails at once)
        return (0, 0)
    return (K, M + N)


def run_many(jobs: list[tuple[str, dict]], work: str, time_limit: float | None, seed: int) -> list[dict]:
    """:func:`run_one` over a chunk of ``(text, options)`` pairs: one Dask task for cheap instances (with a
    time limit, one forked child per chunk: :func:`~itsa.keys.census.work.run_chunk`)."""
    return run_chunk(jobs, work, time_limit, seed)


#: Instances per task (:func:`itsa._util.dask_run.chunk_size`), under the census's old name.
_chunk_size = chunk_size


def _run_dask(c, todo, args, opts, store, state, report, start):
    def job(it):
        return it.text, dict(opts, key=it.key, name=it.name, source=it.source)

    def failed(jobs, msg):
        return [failed_row(text, args[0], args[2], o, RowStatus.FAILED, msg) for text, o in jobs]

    def on_rows(rows, running):
        nonlocal state
        for row in rows:
            store.add(row)
        for row in rows:
            state = _tally(state, row, start, running)
        report(state)

    run_chunks(c, todo, run_many, args, job, failed, on_rows)
    return state
