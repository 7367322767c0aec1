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
:class:`~itsa.keys.census.store.ResultStore` at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, Unreachable
from itsa.keys.census.schema import RowStatus
from itsa.keys.census.spec import CensusSpec
from itsa.keys.census.store import ResultStore
from itsa.keys.census.work import failed_row, run_one, warm_up

__all__ = ["CensusProgress", "CensusRun", "SchedulerUnreachable", "run_census", "run_many",
           "warm_worker", "WORKER_CONFIG"]


class SchedulerUnreachable(Unreachable):
    """The Dask scheduler named by ``--scheduler`` does not answer."""


@dataclass(kw_only=True, frozen=True)
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


@dataclass(frozen=True, repr=False)
class CensusRun(Displayable):
    """Outcome of :func:`run_census`: the final progress and where the table is."""

    path: str
    progress: CensusProgress
    workers: int

    def headline(self) -> str:
        p = self.progress
        return (f"{p.done} instances in {p.elapsed:.1f} s ({p.failed} failed, {p.timeout} timed out, "
                f"{p.skipped} already done) -> {self.path}")

    def rows(self) -> list[tuple[str, str]]:
        return [("results", self.path), ("workers", str(self.workers))]

    def to_dict(self) -> dict:
        """The ``itsa census --json`` object: the table's folder, the workers and the final counts."""
        return {"output": self.path, "workers": self.workers, **asdict(self.progress)}


def _tally(p: CensusProgress, row: dict, start: float, running: int) -> CensusProgress:
    return replace(p, done=p.done + 1, running=running, elapsed=time.monotonic() - start,
                   failed=p.failed + (row["status"] == RowStatus.FAILED),
                   timeout=p.timeout + (row["status"] == RowStatus.TIMEOUT))


#: Dask settings of the local cluster a census starts (see the module notes).
WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.worker-saturation": float("inf"),
    "distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1,
                                            "OPENBLAS_NUM_THREADS": 1},
}


def warm_worker(work: str, field: int = 31) -> int:
    """Import itsa and run ``work`` once on a small instance in this (worker) process.

    Returns the process id (so that a caller can count the warmed workers).
    """
    warm_up(work, {"field": field})
    return os.getpid()


@contextlib.contextmanager
def _no_sigint():
    """SIGINT ignored while worker processes start: they inherit it, so a Ctrl-C sent to
    the whole process group reaches only this process (which stops the census cleanly)."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:        # not the main thread: leave the signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def _client(client, scheduler: str | None, workers: int | None, processes: bool, connect_timeout: float):
    from distributed import Client

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
    with local_cluster(workers or os.cpu_count() or 1, processes) as c:
        yield c


@contextlib.contextmanager
def local_cluster(n: int, processes: bool = True):
    """A :class:`distributed.LocalCluster` of ``n`` one-thread workers with :data:`WORKER_CONFIG`,
    and its client; worker processes ignore SIGINT (see :func:`_no_sigint`) and log only critical
    errors (a task's error reaches the client anyway; a heartbeat lost while an interrupted census
    shuts its cluster down is not one, so Ctrl-C stays one line). The workers' scratch space is a
    temporary folder removed with the cluster."""
    import logging
    import tempfile

    import dask
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory(prefix="itsa-census-") as scratch:
        with dask.config.set({**WORKER_CONFIG, "temporary-directory": scratch}), _no_sigint():
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                   dashboard_address=":0", silence_logs=logging.CRITICAL)
            c = Client(cluster)
        try:
            yield c
        finally:
            c.close()
            cluster.close()


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
    if scheduler and workers is not None:
        raise InvalidOption("local workers and a running scheduler exclude each other: give one of them")
    items = spec.items()
    serial = workers == 0 and client is None and scheduler is None
    cluster = contextlib.nullcontext() if serial else _client(client, scheduler, workers, processes,
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
            n_workers = len(c.scheduler_info()["workers"])
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


#: Seconds of measured work one Dask task should hold: cheap instances are sent in chunks.
TASK_SECONDS = 0.5
MAX_CHUNK = 64


def run_many(jobs: list[tuple[str, dict]], work: str, time_limit: float | None, seed: int) -> list[dict]:
    """:func:`run_one` over a chunk of ``(text, options)`` pairs: one Dask task for cheap instances."""
    return [run_one(text, work, time_limit, seed, o) for text, o in jobs]


def _chunk_size(done_rows: int, work_seconds: float, left: int = 1 << 30, threads: int = 1) -> int:
    """Instances per task: one until some are timed, then about :data:`TASK_SECONDS` of work,
    and at most a quarter of each thread's share of what is left (so the run ends evenly).

    >>> _chunk_size(0, 0.0), _chunk_size(100, 1.0), _chunk_size(100, 1.0, left=40, threads=2)
    (1, 50, 5)
    """
    if done_rows == 0:
        return 1
    mean = max(work_seconds / done_rows, 1e-4)
    return max(1, min(MAX_CHUNK, int(TASK_SECONDS / mean), left // (4 * threads)))


def _run_dask(c, todo, args, opts, store, state, report, start):
    from distributed import as_completed

    threads = max(1, sum(c.nthreads().values()))
    window = 2 * threads + 2
    queue = list(reversed(todo))
    inflight: dict = {}
    timed_rows, timed_seconds = 0, 0.0    # rows finished, their seconds of work
    ac = as_completed()

    def submit() -> None:
        size = _chunk_size(timed_rows, timed_seconds, len(queue), threads)
        chunk = [queue.pop() for _ in range(min(len(queue), size))]
        if chunk:
            jobs = [(it.text, dict(opts, key=it.key, name=it.name, source=it.source)) for it in chunk]
            fut = c.submit(run_many, jobs, *args, pure=False)
            inflight[fut.key] = (chunk, jobs, fut)
            ac.add(fut)

    try:
        for _ in range(window):
            submit()
        for fut in ac:
            chunk, jobs, _ = inflight.pop(fut.key)
            try:
                rows = fut.result()
            except Exception as exc:   # the worker died (KilledWorker) or the task was lost
                msg = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
                rows = [failed_row(text, args[0], args[2], o, RowStatus.FAILED, msg) for text, o in jobs]
            fut.release()
            for row in rows:
                store.add(row)
                timed_rows += 1
                timed_seconds += row["time"] or 0.0
            submit()
            running = min(sum(len(ch) for ch, _, _ in inflight.values()), threads)
            for row in rows:
                state = _tally(state, row, start, running)
            report(state)
    except BaseException:
        _drop_quietly(c, [f for _, _, f in inflight.values()])
        raise
    return state


def _drop_quietly(c, futures) -> None:
    """Cancel the tasks in flight and silence Dask's loggers in this process, so that an
    interrupted census ends with one line and no 'Couldn't gather keys' noise."""
    import logging

    for name in ("distributed", "distributed.client", "distributed.scheduler", "distributed.worker",
                 "distributed.nanny", "distributed.core", "distributed.batched", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    with contextlib.suppress(Exception):
        c.cancel(futures, force=True)
