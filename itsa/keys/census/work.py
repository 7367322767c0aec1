"""The work of a census on one instance: a pure function of plain data.

:func:`run_one` takes the instance's YAML text and returns one row of the
results table (a dict of plain values, :mod:`itsa.keys.census.schema`). The same
function runs in a serial loop, on a local Dask cluster and on a remote one.
It never raises: a failure, or an instance past its time limit, is a row
with ``status`` ``"failed"`` or ``"timeout"`` and the message in ``error``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.checks import unknown
from itsa._util.deadline import Deadline
from itsa._util.plain import frac
from itsa.exceptions import InvalidSpec
from itsa.keys.census.schema import COLUMNS, SCHEMA_VERSION, RowStatus
from itsa.keys.optimum import SolveVerdict

__all__ = ["run_one", "failed_row", "hard_limit", "text_key", "warm_up"]


def hard_limit(time_limit: float | None) -> float | None:
    """Seconds after which an instance is stopped: ``1.1 · time_limit + 1``.

    ``solve`` receives ``time_limit`` itself and is expected to stop on its
    own; the margin only catches a stage that overruns.
    """
    return None if time_limit is None else 1.1 * time_limit + 1


def failed_row(text: str, work: str, seed: int, options: dict | None, status: str, error: str) -> dict:
    """A row for an instance whose work did not finish (``failed`` or ``timeout``)."""
    row = dict.fromkeys(COLUMNS)
    row.update(_identity(text, options or {}), work=work, seed=seed, status=status,
               error=error, verdict=SolveVerdict.OPEN, schema_version=SCHEMA_VERSION)
    if row["key"] is None:
        row["key"] = text_key(text)
    row.update(_sizes(text))
    return row


def _sizes(text: str) -> dict:
    """``U, K, M, N, servers`` of an instance text, or nothing if it does not parse."""
    import yaml

    from itsa.keys.model.io import parse_instance

    try:
        inst = parse_instance(yaml.safe_load(text))
    except Exception:
        return {}
    return {"U": inst.U, "K": inst.K, "M": inst.M, "N": inst.N, "servers": ",".join(map(str, inst.servers))}


def text_key(text: str) -> str:
    """The canonical key of an instance's YAML text, or ``invalid-<hash>`` if it is not one."""
    import hashlib

    import yaml

    from itsa.exceptions import ItsaError
    from itsa.keys.census.canonical import canonical_key
    from itsa.keys.model.io import parse_instance

    try:
        return canonical_key(parse_instance(yaml.safe_load(text)))
    except (ItsaError, yaml.YAMLError):
        return "invalid-" + hashlib.sha256(text.encode()).hexdigest()[:20]


def run_one(instance_yaml_text: str, work: str, time_limit: float | None, seed: int,
            options: dict | None = None) -> dict:
    """Run ``work`` on one instance and return its row.

    Parameters
    ----------
    instance_yaml_text : str
        The instance in the public YAML format.
    work : {"analyze", "corrected", "search", "solve"}
    time_limit : float or None
        Seconds; past :func:`hard_limit` the work is stopped (it runs in a
        forked child process when a limit is set) and the row says
        ``timeout``.
    seed : int
    options : dict, optional
        ``field`` (prime of the search, default 31), ``search`` (keyword
        arguments of :func:`itsa.search_min_rate`: tries, budget,
        max_symbols), ``save_dir`` (folder for the verified schemes and
        proofs, saved as ``KEY.scheme.json`` and ``KEY.proof.md``), ``root``
        (the row's ``scheme_path`` and ``proof_path`` are relative to it),
        ``key``, ``name``, ``source`` (carried into the row).

    Examples
    --------
    >>> from itsa import examples
    >>> text = examples.path("homogeneous-U3-V2-t1").read_text()
    >>> row = run_one(text, "search", None, 0)
    >>> row["status"], row["lower"], row["upper"], row["lower_printed"], row["verdict"]
    ('ok', '4', '4', '5', 'optimal')
    """
    options = options or {}
    start = time.perf_counter()
    limit = hard_limit(time_limit)
    if limit is None:
        outcome = _guarded(instance_yaml_text, work, time_limit, seed, options)
    else:
        warm_up(work, options)
        outcome = _in_child(limit, _guarded, (instance_yaml_text, work, time_limit, seed, options))
    status, payload = outcome
    if status == RowStatus.OK:
        row = payload
    else:
        row = failed_row(instance_yaml_text, work, seed, options, status, payload)
    row["time"] = time.perf_counter() - start
    return row


_WARM: set = set()
#: A small instance whose work imports (once per process) every module the work needs.
_WARM_TEXT = "servers: [2, 1, 1]\nsecurity_sets: [all, [[1, 1]]]\ncollusion_sets: [[], [[2, 1]]]\n"


def warm_up(work: str, options: dict) -> None:
    """Run the work once in this process (once per process and work), so that the imports
    and caches are paid before the first instance and inherited by forked children
    (otherwise every child imports the lazily loaded modules again)."""
    if work in _WARM or not WORK_KINDS[work].warm:
        return
    _WARM.add(work)
    import scipy.optimize  # noqa: F401  (the LP solver, loaded lazily by the library)

    _guarded(_WARM_TEXT, work, None, 0, {"field": options.get("field", 31)})
    import gc

    gc.freeze()   # children then do not copy the parent's objects when their collector runs


def _guarded(text, work, time_limit, seed, options):
    try:
        return RowStatus.OK, _compute(text, work, time_limit, seed, options)
    except Exception as exc:   # every failure becomes a row, never a crashed census
        return RowStatus.FAILED, _message(exc)


def _message(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {msg[0] if msg else ''}".rstrip(": ")


def _in_child(limit: float, fn, args: tuple):
    """``fn(*args)`` (returning ``(status, payload)``) in a forked child, killed after ``limit`` seconds.

    A bare ``os.fork`` (not :mod:`multiprocessing`, which Dask's daemonic
    worker processes may not use); the row comes back pickled through a pipe.
    """
    import contextlib
    import pickle
    import select
    import signal

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # child: compute, send, leave without running any cleanup of the parent's
        try:
            os.close(r)
            try:
                data = pickle.dumps(fn(*args))
            except BaseException as exc:   # pragma: no cover - a row that cannot be pickled
                data = pickle.dumps((RowStatus.FAILED, _message(exc)))
            with os.fdopen(w, "wb") as fh:
                fh.write(data)
        finally:
            os._exit(0)
    os.close(w)
    chunks, finished, clock = [], False, Deadline(limit)
    try:
        while True:
            left = clock.left() or 0.0
            if clock.expired() or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                return RowStatus.TIMEOUT, f"stopped after {limit:.3g} s" + (
                    f" (time_limit {args[2]} s)" if fn is _guarded else "")
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        finished = True
    finally:
        os.close(r)
        if not finished:     # interrupted (Ctrl-C): the child must not outlive the census
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not chunks:
        return RowStatus.FAILED, f"the process running the instance died (wait status {status})"
    return pickle.loads(b"".join(chunks))


def run_chunk(jobs: list[tuple[str, dict]], work: str, time_limit: float | None, seed: int) -> list[dict]:
    """:func:`run_one` over ``(text, options)`` pairs, the same rows; with a time limit, one forked child
    runs the instances in turn (a fork per chunk, not per instance), each stopped past its own
    :func:`hard_limit` as :func:`run_one` stops it, the rest then run in a new child.

    A fork costs 15 ms in a quiet single-threaded process and about 26 ms in a Dask worker (its threads
    and its memory), as much as a cheap instance's work: forking once per chunk gives that time back to
    the instances. A row's ``time`` is measured from the previous row's arrival (the child's fork for
    the first).
    """
    limit = hard_limit(time_limit)
    if limit is None or len(jobs) <= 1:
        return [run_one(text, work, time_limit, seed, o) for text, o in jobs]
    warm_up(work, jobs[0][1])
    rows: list[dict] = []
    while len(rows) < len(jobs):
        rest = jobs[len(rows):]
        for (text, o), ((status, payload), seconds) in zip(rest, _in_child_each(limit, work, time_limit, seed,
                                                                               rest)):
            row = payload if status == RowStatus.OK else failed_row(text, work, seed, o, status, payload)
            row["time"] = seconds
            rows.append(row)
    return rows


def _in_child_each(limit: float, work: str, time_limit, seed: int, jobs: list) -> list:
    """``[((status, payload), seconds)]`` of a prefix of ``jobs`` run in turn in one forked child: every
    row is sent (length, pickle) as it finishes; an instance past ``limit`` or a child that dies ends the
    prefix with its row (timeout or failed), and the child is killed (see :func:`_in_child`)."""
    import contextlib
    import pickle
    import signal

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # child: compute each, send each, leave without running any cleanup of the parent's
        try:
            os.close(r)
            with os.fdopen(w, "wb") as fh:
                for text, options in jobs:
                    try:
                        data = pickle.dumps(_guarded(text, work, time_limit, seed, options))
                    except BaseException as exc:   # pragma: no cover - a row that cannot be pickled
                        data = pickle.dumps((RowStatus.FAILED, _message(exc)))
                    fh.write(len(data).to_bytes(8, "little") + data)
                    fh.flush()
        finally:
            os._exit(0)
    os.close(w)
    out: list = []
    finished = False
    try:
        while len(out) < len(jobs):
            start, clock = time.perf_counter(), Deadline(limit)
            head = _read_exactly(r, 8, clock)
            size = None if head is None or len(head) < 8 else int.from_bytes(head, "little")
            body = None if size is None else _read_exactly(r, size, clock)
            if clock.expired():
                out.append(((RowStatus.TIMEOUT, f"stopped after {limit:.3g} s (time_limit {time_limit} s)"),
                            time.perf_counter() - start))
                break
            if body is None or len(body) != size:
                out.append(((RowStatus.FAILED, "the process running the instance died"), time.perf_counter() - start))
                break
            out.append((pickle.loads(body), time.perf_counter() - start))
        finished = len(out) == len(jobs) and out[-1][0][0] != RowStatus.TIMEOUT
    finally:
        os.close(r)
        if not finished:     # a timeout, a death, or Ctrl-C: the child must not outlive the census
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return out


def _read_exactly(fd: int, n: int, clock: Deadline) -> bytes | None:
    """``n`` bytes from ``fd``, or fewer (``None`` for none) at its end or when ``clock`` expires."""
    import select

    parts, got = [], 0
    while got < n:
        left = clock.left() or 0.0
        if clock.expired() or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts) if parts else None


# -- the work itself -------------------------------------------------------
def _identity(text: str, options: dict) -> dict:
    return {"key": options.get("key"), "name": options.get("name"), "instance": text,
            "source": options.get("source")}


def _compute(text: str, work: str, time_limit, seed: int, options: dict) -> dict:
    import yaml

    from itsa.keys.bounds.analysis import analyze
    from itsa.keys.bounds.published import homogeneous_parameters
    from itsa.keys.census.canonical import canonical_key
    from itsa.keys.model.io import parse_instance

    kind = WORK_KINDS.get(work)
    if kind is None:
        raise InvalidSpec(unknown("work", work, WORK_KINDS))
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    inst = parse_instance(yaml.safe_load(text), default_name=options.get("name"))
    row = dict.fromkeys(COLUMNS)
    row.update(_identity(text, options), work=work, seed=seed, status=RowStatus.OK, schema_version=SCHEMA_VERSION)
    row["key"] = row["key"] or canonical_key(inst)
    row["name"] = inst.name if inst.name is not None else row["name"]
    a = analyze(inst, corrected=kind.corrected)
    timings["analyze"] = time.perf_counter() - t0
    row.update(_analysis_columns(a))
    hom = homogeneous_parameters(inst)
    if hom:
        row["homogeneous_V"], row["homogeneous_t"] = hom[1], hom[2]
    lower = upper = None
    if kind.corrected:
        lower = a.key_rate_lower.value
        row.update(lower_corrected=frac(lower), lower=frac(lower), lower_class="corrected", lower_certified=True)
    if kind.run is not None:
        lower, upper = kind.run(inst, lower, time_limit, seed, options, row, timings)
    if upper is not None:
        row["printed_beaten"] = upper < a.key_rate_lower_printed.value
        if lower is not None:
            row["gap"] = frac(upper - lower)
    if row["verdict"] is None:
        settled = lower is not None and lower == upper
        row["verdict"] = SolveVerdict.OPTIMAL if settled else SolveVerdict.OPEN
    row["timings"] = json.dumps({k: round(v, 6) for k, v in timings.items()})
    return row


def _users(inst, mask) -> str:
    return json.dumps([list(p) for p in inst.labels(mask)])


def _analysis_columns(a) -> dict:
    inst, s = a.instance, a.sets
    return {
        "U": inst.U, "K": inst.K, "M": inst.M, "N": inst.N,
        "servers": ",".join(map(str, inst.servers)),
        "regime": a.regime, "a_star": s.a_star, "e_star": s.e_star,
        "S_bar": _users(inst, s.S_bar), "S_I": _users(inst, s.S_I), "Q1": _users(inst, s.Q1),
        "Q2": _users(inst, s.Q2), "Q": _users(inst, s.Q),
        "S_bar_size": s.S_bar.bit_count(), "Q_size": s.Q.bit_count(),
        "R_X": frac(a.R_X.value), "R_Y": frac(a.R_Y.value),
        "upper_claimed": frac(a.key_rate_upper.value),
        "lp_b_star": None if a.lp is None else frac(a.lp.b_star),
        "lower_printed": frac(a.key_rate_lower_printed.value),
    }


def _search(inst, lower, time_limit, seed, options, row, timings):
    """The bounded scalar search for a verified scheme (the upper end); the lower end stays."""
    from itsa.keys.search.scalar import search_min_rate

    t0 = time.perf_counter()
    field = options.get("field", 31)
    res = search_min_rate(inst, field=field, seed=seed, **(options.get("search") or {}))
    timings["search"] = time.perf_counter() - t0
    row["field"] = field
    scheme = res.scheme
    if scheme is None:          # not found
        return lower, None
    row.update(upper=frac(res.rate), upper_L=scheme.L, upper_shape=res.shape)
    if options.get("save_dir"):
        from itsa.keys.schemes.scheme import save_scheme

        row["scheme_path"] = _save(options, row["key"], ".scheme.json",
                                   lambda path: save_scheme(inst, scheme, path))
    return lower, res.rate


def _save(options: dict, key: str, suffix: str, write) -> str:
    """Write one file of an instance as ``save_dir/KEY{suffix}``; return its path as the row
    records it: relative to ``options["root"]`` (the results folder) when given."""
    folder = options["save_dir"]
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{key}{suffix}")
    write(path)
    root = options.get("root")
    return os.path.relpath(path, root) if root else path


def _solve(inst, lower, time_limit, seed, options, row, timings):
    """``itsa.solve`` (the certified-optimum work), imported only when asked for."""
    from itsa.keys.optimum import solve

    result = solve(inst, time_limit=time_limit, seed=seed, field=options.get("field"))
    sol = result.to_dict()
    lo, up = sol["lower"], sol.get("upper") or {}
    paths = _save_solution(result, row["key"], options) if options.get("save_dir") else {}
    lower = None if lo.get("value") is None else Fraction(lo["value"])
    upper = None if up.get("value") is None else Fraction(up["value"])
    row.update(lower=frac(lower), lower_converse=frac(lower), lower_class=lo.get("class"),
               lower_certified=lo.get("certified"), lower_method=lo.get("method"),
               skipped=json.dumps(sol.get("skipped") or {}), upper=frac(upper), upper_L=up.get("L"),
               verdict=sol.get("verdict"), field=options.get("field"),
               open_why=result.search.why() if result.verdict is SolveVerdict.OPEN and result.search else None,
               scheme_path=paths.get("scheme"), proof_path=paths.get("proof"))
    timings.update({f"solve.{k}": v for k, v in (sol.get("timings") or {}).items()})
    return lower, upper


def _save_solution(result, key: str, options: dict) -> dict[str, str]:
    """The proof (Markdown) and the scheme of a solved instance, saved as ``KEY.proof.md`` and
    ``KEY.scheme.json`` (the files of :func:`itsa.keys.optimum.save_solution`, named by key)."""
    from itsa.keys.converse.proof import write_proof
    from itsa.keys.schemes.scheme import save_scheme

    paths = {}
    if result.lower.bound is not None:
        paths["proof"] = _save(options, key, ".proof.md",
                               lambda p: write_proof(result.lower.bound, result.instance, p))
    if result.upper is not None:
        paths["scheme"] = _save(options, key, ".scheme.json",
                                lambda p: save_scheme(result.instance, result.upper.scheme, p))
    return paths


@dataclass(frozen=True)
class WorkKind:
    """One census work kind: what a row of ``work: NAME`` computes beyond the analysis.

    ``run(inst, lower, time_limit, seed, options, row, timings)`` fills the
    row's columns and returns its ``(lower, upper)`` ends; ``corrected`` says
    whether the corrected bound is computed first; ``warm`` whether a
    worker runs the work once on a small instance before the first real one.
    """

    name: str
    corrected: bool
    run: Callable | None
    warm: bool = True


#: Every work kind, each including the one before (``solve`` replaces ``search``). Adding one
#: is one entry here plus its function.
WORK_KINDS: dict[str, WorkKind] = {k.name: k for k in (
    WorkKind("analyze", corrected=False, run=None),
    WorkKind("corrected", corrected=True, run=None),
    WorkKind("search", corrected=True, run=_search),
    WorkKind("solve", corrected=True, run=_solve, warm=False),
)}
