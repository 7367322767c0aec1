"""Running a census: every pending instance through :func:`run_one`, on Dask.

With no client and no scheduler address, a :class:`distributed.LocalCluster`
of worker processes (one thread each) is started for the run; with a
scheduler address the census joins that cluster (a laptop's, or one started
on SLURM/PBS with dask-jobqueue). ``workers=0`` runs the same function in a
plain serial loop in this process (debugging, benchmarks).

At most ``2 · threads + 2`` tasks are in flight. A task holds one instance
until some have finished, then as many as take about :data:`TASK_SECONDS`
(at most :data:`MAX_CHUNK`), so that cheap instances do not drown in
scheduling overhead; a killed run loses at most the instances of the tasks in
flight. Each finished row goes to the :class:`~itsa.census.store.ResultStore`
at once.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from .spec import CensusSpec, InvalidSpec
from .store import ResultStore
from .work import failed_row, run_one

__all__ = ["CensusProgress", "CensusRun", "SchedulerUnreachable", "run_census", "run_many"]


class SchedulerUnreachable(InvalidSpec):
    """The Dask scheduler named by ``--scheduler`` does not answer."""


@dataclass(frozen=True)
class CensusProgress:
    """Where a census stands: handed to the ``progress`` callback after each row.

    ``total`` counts the instances this run computes (``skipped`` ones, already
    in the table, are not in it); ``running`` is the number submitted and not
    finished, at most the number of worker threads.
    """

    total: int
    done: int = 0
    running: int = 0
    failed: int = 0
    timeout: int = 0
    skipped: int = 0
    elapsed: float = 0.0


@dataclass(frozen=True)
class CensusRun:
    """Outcome of :func:`run_census`: the final progress and where the table is."""

    path: str
    progress: CensusProgress
    workers: int


def _tally(p: CensusProgress, row: dict, start: float, running: int) -> CensusProgress:
    return replace(p, done=p.done + 1, running=running, elapsed=time.monotonic() - start,
                   failed=p.failed + (row["status"] == "failed"),
                   timeout=p.timeout + (row["status"] == "timeout"))


@contextlib.contextmanager
def _client(client, scheduler: str | None, workers: int | None, processes: bool, connect_timeout: float):
    from distributed import Client, LocalCluster

    if client is not None:
        yield client
        return
    if scheduler is not None:
        try:
            c = Client(scheduler, timeout=connect_timeout)
        except (OSError, ValueError, TypeError) as exc:
            first = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise SchedulerUnreachable(f"cannot reach the Dask scheduler at {scheduler!r}: {first}") from None
        with c:
            yield c
        return
    import logging

    n = workers or os.cpu_count() or 1
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=processes, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c


def run_census(spec: CensusSpec, out: str | os.PathLike, *, workers: int | None = None,
               scheduler: str | None = None, client=None, resume: bool = False,
               processes: bool = True, connect_timeout: float = 10.0, batch: int = 256,
               progress: Callable[[CensusProgress], None] | None = None) -> CensusRun:
    """Run ``spec``'s work on every instance of its universe, writing the table to ``out``.

    Parameters
    ----------
    spec : CensusSpec
    out : path-like
        Results folder (:mod:`itsa.census.store`).
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

    Examples
    --------
    >>> import tempfile, os
    >>> from itsa.census import load_spec, read_results
    >>> from itsa import examples
    >>> spec = load_spec(examples.path("census/grid-small"))
    >>> out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    >>> run = run_census(spec, out, workers=0)
    >>> run.progress.done, read_results(out).num_rows
    (8, 8)
    """
    items = spec.items()
    serial = workers == 0 and client is None and scheduler is None
    cluster = contextlib.nullcontext() if serial else _client(client, scheduler, workers, processes,
                                                                 connect_timeout)
    with cluster as c, ResultStore(out, spec.text, resume=resume, batch=batch) as store:
        todo = [it for it in items if it.key not in store.keys]
        state = CensusProgress(total=len(todo), skipped=len(items) - len(todo))
        report = progress or (lambda p: None)
        report(state)
        start = time.monotonic()
        args = (spec.work, spec.time_limit, spec.seed)
        opts = spec.options()
        if serial:
            for it in todo:
                report(replace(state, running=1, elapsed=time.monotonic() - start))
                row = run_one(it.text, *args, dict(opts, key=it.key, name=it.name, source=it.source))
                store.add(row)
                state = _tally(state, row, start, 0)
                report(state)
            n_workers = 0
        else:
            n_workers = len(c.scheduler_info()["workers"])
            state = _run_dask(c, todo, args, opts, store, state, report, start)
        store.compact()
    return CensusRun(str(out), state, n_workers)


#: Seconds of work one Dask task should hold: cheap instances are sent in chunks.
TASK_SECONDS = 1.0
MAX_CHUNK = 32


def run_many(jobs: list[tuple[str, dict]], work: str, time_limit: float | None, seed: int) -> list[dict]:
    """:func:`run_one` over a chunk of ``(text, options)`` pairs: one Dask task for cheap instances."""
    return [run_one(text, work, time_limit, seed, o) for text, o in jobs]


def _chunk_size(done_rows: int, work_seconds: float) -> int:
    """Instances per task: one until some are timed, then about :data:`TASK_SECONDS` of work."""
    if done_rows == 0:
        return 1
    mean = max(work_seconds / done_rows, 1e-4)
    return max(1, min(MAX_CHUNK, int(TASK_SECONDS / mean)))


def _run_dask(c, todo, args, opts, store, state, report, start):
    from distributed import as_completed

    threads = max(1, sum(c.nthreads().values()))
    window = 2 * threads + 2
    queue = list(reversed(todo))
    inflight: dict = {}
    timed = [0, 0.0]                      # rows finished, their seconds of work
    ac = as_completed()

    def submit() -> None:
        chunk = [queue.pop() for _ in range(min(len(queue), _chunk_size(*timed)))]
        if chunk:
            jobs = [(it.text, dict(opts, key=it.key, name=it.name, source=it.source)) for it in chunk]
            fut = c.submit(run_many, jobs, *args, pure=False)
            inflight[fut.key] = (chunk, jobs)
            ac.add(fut)

    for _ in range(window):
        submit()
    for fut in ac:
        chunk, jobs = inflight.pop(fut.key)
        try:
            rows = fut.result()
        except Exception as exc:   # the worker died (KilledWorker) or the task was lost
            msg = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
            rows = [failed_row(text, args[0], args[2], o, "failed", msg) for text, o in jobs]
        fut.release()
        for row in rows:
            store.add(row)
            timed[0] += 1
            timed[1] += row["time"] or 0.0
        submit()
        running = min(sum(len(ch) for ch, _ in inflight.values()), threads)
        for row in rows:
            state = _tally(state, row, start, running)
        report(state)
    return state
