"""One engine for many independent pieces of work on Dask: the census's and the plan fleet's.

The work on one item is a pure function of plain data (an instance's or a
deployment's text and a few options) that returns one row; this module only
moves items to workers and rows back:

* :func:`dask_client`: with no client and no scheduler address, a
  :class:`distributed.LocalCluster` of one-thread worker processes
  (:func:`local_cluster`, settings :data:`WORKER_CONFIG`); with an address,
  that running cluster (a laptop's, or one started on SLURM/PBS with
  dask-jobqueue); an address that does not answer is
  :class:`SchedulerUnreachable`;
* :func:`run_chunks`: items go out in the order given, cheap ones in chunks of
  about :data:`TASK_SECONDS` of measured work (each row's ``time``), never
  more than a share of what is left, so that the last tasks end together; at
  most ``2 · threads + 2`` tasks in flight; every finished chunk's rows are
  handed to a callback at once (a results table journals them), and a task
  whose worker died becomes failed rows, never a stopped run;
* an interruption cancels the tasks in flight quietly (:func:`drop_quietly`).

Worker processes ignore SIGINT while they start (a terminal sends Ctrl-C to
the whole process group; only the caller should stop the run).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass

from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, Unreachable

__all__ = ["RunProgress", "RunResult", "SchedulerUnreachable", "WORKER_CONFIG", "TASK_SECONDS", "MAX_CHUNK", "local_cluster", "dask_client",
           "chunk_size", "run_chunks", "map_in_order", "drop_quietly", "check_cluster_options", "worker_count",
           "max_workers", "MAX_CONNECT_TIMEOUT", "WORKERS_PER_CORE"]


@dataclass(kw_only=True, frozen=True)
class RunProgress:
    """Where a run on the engine stands (a census's instances, a fleet's plans): handed to the ``progress``
    callback after each finished row or chunk.

    ``total`` counts the rows this run computes (``skipped`` ones, already in the table, are not in it);
    ``running`` is the number submitted and not finished, at most the number of worker threads.
    """

    total: int
    done: int = 0
    running: int = 0
    failed: int = 0
    timeout: int = 0
    skipped: int = 0
    elapsed: float = 0.0


@dataclass(frozen=True, repr=False)
class RunResult(Displayable):
    """The outcome of a run on the engine (a census's instances, a fleet's plans): the final progress, where the
    table is, and the workers; a run whose rows are not instances names them (``unit``).

    >>> r = RunResult("out.parquet", RunProgress(total=3, done=3, elapsed=1.25), 2)
    >>> r.headline()
    '3 instances in 1.2 s (0 failed, 0 timed out, 0 already done) -> out.parquet'
    """

    path: str
    progress: RunProgress
    workers: int
    #: What a row of the table is.
    unit = "instances"

    def headline(self) -> str:
        p = self.progress
        return (f"{p.done} {self.unit} in {p.elapsed:.1f} s ({p.failed} failed, {p.timeout} timed out, "
                f"{p.skipped} already done) -> {self.path}")

    def rows(self) -> list[tuple[str, str]]:
        return [("results", self.path), ("workers", str(self.workers))]

    def to_dict(self) -> dict:
        """The ``--json`` object: the table's folder, the workers and the final counts."""
        return {"output": self.path, "workers": self.workers, **asdict(self.progress)}


class SchedulerUnreachable(Unreachable):
    """The Dask scheduler named by ``--scheduler`` does not answer."""


#: Dask settings of the local cluster a run starts: no statistical profiler (a thread walking the stack
#: every 10 ms), the scheduler hands tasks out at once (the run's own window bounds what is in flight),
#: one BLAS thread per worker, and Dask's own monitors slowed down: the event loops' tick (every 20 ms by
#: default), the system monitor (every 0.5 s, in the scheduler, each nanny and each worker) and the nanny's
#: memory monitor (every 0.1 s). With Dask's defaults an idle local cluster of two workers takes about 9.5%
#: of a core (5.5% in this process: scheduler, nannies, client; 2% in each worker), with these 2%: on a
#: two-core machine that is CPU taken from the two workers.
WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.worker-saturation": float("inf"),
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "10s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1,
                                            "OPENBLAS_NUM_THREADS": 1},
}

#: Seconds of measured work one Dask task should hold: cheap items are sent in chunks.
TASK_SECONDS = 0.5
#: Most items in one task.
MAX_CHUNK = 64


#: Local worker processes a run may start, per core of the machine: past a few per core they only share the cores
#: and each holds its own interpreter's memory (a thousand would exhaust it before any started).
WORKERS_PER_CORE = 4
#: Longest wait for a scheduler to answer, in seconds: a cluster that has not answered in an hour will not.
MAX_CONNECT_TIMEOUT = 3600


def max_workers() -> int:
    """The most local worker processes a run may start: :data:`WORKERS_PER_CORE` per core, at least 8."""
    return max(8, WORKERS_PER_CORE * (os.cpu_count() or 1))


def check_cluster_options(workers: int | None, scheduler: str | None, connect_timeout: float | None = None) -> None:
    """Refuse, before any work, the options of a cluster a run cannot use (one line each): local workers together
    with a running scheduler, more local workers than :func:`max_workers`, a negative count, and a connect
    timeout that is not a finite number of seconds in ``(0, MAX_CONNECT_TIMEOUT]`` (``nan``, ``inf``, ``1e300``).

    >>> check_cluster_options(10**5, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: workers: at most ... local worker processes on this machine ..., not 100000
    >>> check_cluster_options(None, "tcp://h:8786", float("nan"))
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: connect timeout: must be a number of seconds in (0, 3600], not nan
    """
    from itsa._util.checks import whole_number
    from itsa.exceptions import excerpt

    if scheduler and workers is not None:
        raise InvalidOption("local workers and a running scheduler exclude each other: give one of them")
    if workers is not None:
        whole_number("workers", workers, minimum=0)
        if workers > max_workers():
            raise InvalidOption(f"workers: at most {max_workers()} local worker processes on this machine "
                                f"({WORKERS_PER_CORE} per core; more only share the cores), not {workers}")
    if connect_timeout is not None:
        ok = not isinstance(connect_timeout, bool) and isinstance(connect_timeout, (int, float))
        if not ok or not 0 < connect_timeout <= MAX_CONNECT_TIMEOUT:
            raise InvalidOption(f"connect timeout: must be a number of seconds in (0, {MAX_CONNECT_TIMEOUT}], "
                                f"not {excerpt(connect_timeout)}")


@contextlib.contextmanager
def _no_sigint():
    """SIGINT ignored while worker processes start: they inherit it, so a Ctrl-C sent to
    the whole process group reaches only this process (which stops the run cleanly)."""
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
def local_cluster(n: int, processes: bool = True):
    """A :class:`distributed.LocalCluster` of ``n`` one-thread workers with :data:`WORKER_CONFIG`,
    and its client; worker processes ignore SIGINT (see :func:`_no_sigint`) and log only critical
    errors (a task's error reaches the client anyway; a heartbeat lost while an interrupted run
    shuts its cluster down is not one, so Ctrl-C stays one line). The workers' scratch space is a
    temporary folder removed with the cluster."""
    import logging
    import tempfile

    import dask
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory(prefix="itsa-dask-") as scratch:
        with dask.config.set({**WORKER_CONFIG, "temporary-directory": scratch}), _no_sigint():
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                   dashboard_address=":0", silence_logs=logging.CRITICAL)
            c = Client(cluster)
        try:
            yield c
        finally:
            c.close()
            cluster.close()


@contextlib.contextmanager
def dask_client(client=None, scheduler: str | None = None, workers: int | None = None, processes: bool = True,
                connect_timeout: float = 10.0):
    """The client a run uses: ``client`` if given, else one joined to ``scheduler``, else a local cluster
    of ``workers`` processes (default: all cores)."""
    from distributed import Client

    if client is not None:
        yield client
        return
    if scheduler is not None:
        c = _join(Client, scheduler, connect_timeout)
        with c:
            yield c
        return
    with local_cluster(workers or os.cpu_count() or 1, processes) as c:
        yield c


def _join(client_type, scheduler: str, connect_timeout: float):
    """A client joined to ``scheduler`` within ``connect_timeout`` seconds (and a grace of
    :data:`JOIN_GRACE`), or :class:`SchedulerUnreachable` in one line.

    Dask's own ``timeout`` bounds the TCP connection, not the handshake after it: a peer that accepts and never
    answers held the join for ever. The join runs on a daemon thread that the run stops waiting for (it ends
    with the process).
    """
    import threading

    done: dict = {}

    def join() -> None:
        try:
            done["client"] = client_type(scheduler, timeout=connect_timeout)
        except BaseException as exc:  # noqa: BLE001  handed to the caller's thread below
            done["error"] = exc

    thread = threading.Thread(target=join, name="itsa-dask-join", daemon=True)
    thread.start()
    thread.join(connect_timeout + JOIN_GRACE)
    if thread.is_alive():
        raise SchedulerUnreachable(f"cannot reach the Dask scheduler at {scheduler!r}: no answer within "
                                   f"{connect_timeout:g} s (a peer that accepts and never answers)")
    exc = done.get("error")
    if isinstance(exc, (OSError, ValueError, TypeError)):
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise SchedulerUnreachable(f"cannot reach the Dask scheduler at {scheduler!r}: {first}") from None
    if exc is not None:
        raise exc
    return done["client"]


#: Seconds a join may take past its connect timeout (the handshake after the connection).
JOIN_GRACE = 5.0


def worker_count(c) -> int:
    """The workers of a client's cluster."""
    return len(c.scheduler_info()["workers"])


def chunk_size(done_rows: int, work_seconds: float, left: int = 1 << 30, threads: int = 1) -> int:
    """Items per task: one until some are timed, then about :data:`TASK_SECONDS` of work,
    and at most a quarter of each thread's share of what is left (so the run ends evenly).

    >>> chunk_size(0, 0.0), chunk_size(100, 1.0), chunk_size(100, 1.0, left=40, threads=2)
    (1, 50, 5)
    """
    if done_rows == 0:
        return 1
    mean = max(work_seconds / done_rows, 1e-4)
    return max(1, min(MAX_CHUNK, int(TASK_SECONDS / mean), left // (4 * threads)))


def run_chunks(c, todo: Sequence, task: Callable, args: tuple, job: Callable, failed: Callable,
               on_rows: Callable) -> None:
    """Run ``task(jobs, *args)`` over chunks of ``todo`` on the client ``c``'s workers.

    Parameters
    ----------
    c : distributed.Client
    todo : sequence
        The items, in the order they should go out (the dearest first).
    task : callable
        ``task(jobs, *args) -> rows``, run on a worker: one row (a dict with a ``time`` in seconds)
        per job, in order. A module-level function, so that it pickles by name.
    job : callable
        ``job(item)``: the plain data a worker needs for one item.
    failed : callable
        ``failed(jobs, message) -> rows``: the rows of a chunk whose task raised or whose worker died.
    on_rows : callable
        ``on_rows(rows, running)``, called in this process as each chunk finishes (``running``: items
        submitted and not finished, at most the threads).

    An exception (a Ctrl-C) cancels the tasks in flight quietly and is passed on.
    """
    from distributed import as_completed

    threads = max(1, sum(c.nthreads().values()))
    window = 2 * threads + 2
    queue = list(reversed(todo))
    inflight: dict = {}
    timed_rows, timed_seconds = 0, 0.0    # rows finished, their seconds of work
    ac = as_completed()

    def submit() -> None:
        size = chunk_size(timed_rows, timed_seconds, len(queue), threads)
        chunk = [queue.pop() for _ in range(min(len(queue), size))]
        if chunk:
            jobs = [job(it) for it in chunk]
            fut = c.submit(task, jobs, *args, pure=False)
            inflight[fut.key] = (jobs, fut)
            ac.add(fut)

    try:
        for _ in range(window):
            submit()
        for fut in ac:
            jobs, _ = inflight.pop(fut.key)
            try:
                rows = fut.result()
            except Exception as exc:   # the worker died (KilledWorker) or the task was lost
                rows = failed(jobs, f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}")
            fut.release()
            for row in rows:
                timed_rows += 1
                timed_seconds += row.get("time") or 0.0
            submit()
            on_rows(rows, min(sum(len(j) for j, _ in inflight.values()), threads))
    except BaseException:
        drop_quietly(c, [f for _, f in inflight.values()])
        raise


def map_in_order(c, task: Callable, calls: Iterable[tuple], on_result: Callable,
                 check: Callable[[], None] | None = None) -> None:
    """Run ``task(*args)`` for each ``args`` of ``calls`` on the client ``c``'s workers and hand the results to
    ``on_result`` in the order of ``calls`` (a result that finishes early waits for those before it).

    At most ``2 · threads + 2`` tasks are in flight, so ``calls`` (a generator) is read as the run goes and
    this process holds at most that many results; ``check()`` is called after each result (a clock that
    raises stops the run). An exception cancels the tasks in flight quietly and is passed on.

    """
    from distributed import as_completed

    threads = max(1, sum(c.nthreads().values()))
    todo, pending, finished, following = enumerate(calls), {}, {}, 0
    ac = as_completed()

    def submit() -> None:
        item = next(todo, None)
        if item is not None:
            fut = c.submit(task, *item[1], pure=False)
            pending[fut.key] = (item[0], fut)
            ac.add(fut)

    try:
        for _ in range(2 * threads + 2):
            submit()
        for fut in ac:
            index, _ = pending.pop(fut.key)
            finished[index] = fut.result()
            fut.release()
            while following in finished:
                on_result(finished.pop(following))
                following += 1
            if check is not None:
                check()
            submit()
    except BaseException:
        drop_quietly(c, [f for _, f in pending.values()])
        raise


def drop_quietly(c, futures) -> None:
    """Cancel the tasks in flight and silence Dask's loggers in this process, so that an
    interrupted run ends with one line and no 'Couldn't gather keys' noise."""
    import logging

    for name in ("distributed", "distributed.client", "distributed.scheduler", "distributed.worker",
                 "distributed.nanny", "distributed.core", "distributed.batched", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    with contextlib.suppress(Exception):
        c.cancel(futures, force=True)
