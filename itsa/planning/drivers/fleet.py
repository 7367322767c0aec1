"""A fleet of plans: many deployments over a grid of overrides, one Parquet row per plan, on Dask.

``itsa plan A B --grid word_bits=16..24 epsilon=2,4,8 -o fleet.parquet``
plans every deployment at every point of the grid (the product of the
fields' values; the fields are the sweepable quantities of
:mod:`itsa.planning.drivers.sweep`), on the engine the census runs on
(:mod:`itsa._util.dask_run`: a local cluster by default, ``--scheduler`` to
join one) into the census's kind of table (:mod:`itsa._util.results_table`:
Parquet parts and a journal, ``--resume`` after an interruption, no row lost
or repeated).

The work on one plan, :func:`plan_row`, is a pure function of plain data:
the deployment file's text and path, the overrides as exact texts, the seed
and the time limit. It plans exactly what ``itsa plan FILE --seed S`` plans
for a file holding those values (the row's numbers are that plan's ``--json``
numbers), so a row is the same on one core, on a local cluster or a remote
one. Exact numbers are fraction strings (``"1/10"``); a certified number is
its interval's safe end as a decimal string (the ``eps`` upper bound's upper
end, ``eps_lower``'s lower end), never a float.

Examples
--------
>>> from itsa.planning.drivers.fleet import parse_grid, grid_points
>>> grid = parse_grid(["word_bits=16..17", "dropout=0,1/10"])
>>> [dict(p) for p in grid_points(grid)][:2]
[{'word_bits': '16', 'dropout': '0'}, {'word_bits': '16', 'dropout': '1/10'}]
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

from itsa._util.certified import fraction_text
from itsa._util.checks import run_seed
from itsa._util.dask_run import RunProgress, RunResult, check_cluster_options, dask_client, run_chunks, worker_count
from itsa._util.deadline import DEFAULT_TIME_LIMIT
from itsa._util.display import Kind
from itsa._util.files import exists, read_text
from itsa._util.results_table import Layout, ResultStore, check_folder, read_meta, read_rows
from itsa.exceptions import InvalidDeployment, InvalidInput, InvalidOption, ItsaError, TimeLimitReached, excerpt
from itsa.keys.examples import resolve_deployment
from itsa.planning.deployment import MAX_BYTES, Deployment, read_deployment
from itsa.planning.drivers.explore import override
from itsa.planning.drivers.sweep import Quantity, parse_sweep
from itsa.planning.planner import plan

__all__ = ["FLEET_COLUMNS", "FLEET_LAYOUT", "FLEET_SCHEMA_VERSION", "MAX_PLANS", "FleetProgress", "FleetRun",
           "PlanStatus", "parse_grid", "grid_points", "fleet_deployments", "plan_row", "plan_rows", "run_fleet",
           "read_fleet", "fleet_summary", "check_fleet", "check_fleet_output"]

#: Most plans in one fleet.
MAX_PLANS = 10**6
#: Version of the fleet table's layout (stored in every row and in the Parquet metadata).
FLEET_SCHEMA_VERSION = 1

_S, _I, _F = "string", "int64", "float64"
#: The grid's columns: one per sweepable quantity, the value as given (exact text), null off the grid.
GRID_COLUMNS = tuple(str(q) for q in Quantity)
#: Column name -> Arrow type name, in table order (docs/plan.md describes each).
FLEET_COLUMNS: dict[str, str] = {
    "key": _S, "deployment": _S, "source": _S, **dict.fromkeys(GRID_COLUMNS, _S),
    "seed": _I, "status": _S, "error": _S, "verdict": _S,
    "eps": _S, "eps_lower": _S, "eps_target": _S, "delta": _S, "mechanism": _S, "sigma_client": _S,
    "gamma": _S, "word": _I, "modulus": _S, "wrap": _S, "wrap_per": _S, "payload_bits": _S,
    "mse": _S, "mse_per_coordinate": _S, "limit_ratio": _S, "secagg_degree": _I, "secagg_threshold": _I,
    "reasons": _S, "premises": _S, "fixes": _S, "time": _F, "schema_version": _I,
}
FLEET_LAYOUT = Layout("plan fleet", "_fleet.json", FLEET_COLUMNS, FLEET_SCHEMA_VERSION,
                      b"itsa.planning.drivers.fleet.schema_version", InvalidOption, required=("deployment", "status"))


class PlanStatus(Kind):
    """How one plan of a fleet ended (the ``status`` column)."""

    OK = "ok"                 # planned: the verdict (feasible or infeasible) and its numbers hold
    FAILED = "failed"         # it raised (``error`` says why)
    TIMEOUT = "timeout"       # the plan's time limit stopped it


# -- the grid and the deployments ----------------------------------------------------------------

def parse_grid(specs: Sequence[str]) -> tuple[tuple[Quantity, tuple[str, ...]], ...]:
    """``["word_bits=16..24", "epsilon=2,4,8"]`` as ``((quantity, value texts), ...)``, each field once.

    The values are read as :func:`itsa.planning.drivers.sweep.parse_sweep` reads a sweep's and kept as exact
    texts (``1/10``), the form a worker receives and a row records.
    """
    grid, seen = [], set()
    for spec in specs:
        try:
            quantity, values = parse_sweep(spec)
        except InvalidOption as exc:            # the sweep's reading and wording, said of the grid
            text = str(exc).replace("sweep quantity", "grid field").replace("QUANTITY=", "FIELD=")
            raise InvalidOption(f"grid: {text.removeprefix('sweep: ')}") from None
        if quantity in seen:
            raise InvalidOption(f"grid: {quantity} given twice")
        seen.add(quantity)
        texts = tuple(dict.fromkeys(str(v) if isinstance(v, int) else fraction_text(v) for v in values))
        grid.append((quantity, texts))
    size = math.prod(len(v) for _, v in grid)
    if size > MAX_PLANS:
        raise InvalidOption(f"grid: at most {MAX_PLANS:,} plans per deployment, not {size:,}")
    return tuple(grid)


def grid_points(grid) -> list[tuple[tuple[str, str], ...]]:
    """Every point of the grid (the product of its fields' values, the first field slowest)."""
    names = [str(q) for q, _ in grid]
    return [tuple(zip(names, values)) for values in itertools.product(*(v for _, v in grid))]


def fleet_deployments(paths: Sequence[str | os.PathLike]) -> list[tuple[str, str]]:
    """``(path, text)`` of every deployment named: a file, a shipped name, or a folder (its ``*.yaml``).

    Raises :class:`~itsa.exceptions.InvalidInput` (one line) for a missing file, an empty folder,
    or two deployments of one name (the ``deployment`` column tells the rows apart).
    """
    found: list[tuple[str, str]] = []
    for given in paths:
        p = Path(given)
        files = sorted(p.glob("*.yaml")) if p.is_dir() else [resolve_deployment(os.fspath(given))]
        if p.is_dir() and not files:
            raise InvalidDeployment(f"{p}: a folder without deployment files (*.yaml)")
        found += [(str(f), read_text(f, InvalidDeployment, max_bytes=MAX_BYTES)) for f in files]
    names: dict[str, str] = {}
    for path, text in found:
        name = read_deployment(text, path).name
        if name in names:
            raise InvalidOption(f"fleet: two deployments named {name!r} ({names[name]} and {path}); rename one")
        names[name] = path
    return found


def _deployment(text: str, path: str, overrides) -> Deployment:
    d = read_deployment(text, path)
    for field, value in overrides:
        (quantity, (parsed,)) = parse_sweep(f"{field}={value}")
        d = override(d, quantity, parsed)
    return d


def check_fleet(deployments: Sequence[tuple[str, str]], grid) -> None:
    """Refuse, before any work, a plan of the fleet whose deployment the overrides make invalid (one line)."""
    for path, text in deployments:
        base = read_deployment(text, path)
        for quantity, values in grid:
            for value in values:
                try:
                    _deployment(text, path, ((str(quantity), value),))
                except InvalidInput as exc:
                    raise InvalidOption(f"grid: {base.name} at {quantity}={value}: {exc}") from None


def _key(name: str, overrides) -> str:
    return "|".join([name, *(f"{k}={v}" for k, v in overrides)])


# -- one plan ------------------------------------------------------------------------------------

def plan_row(text: str, path: str, overrides: Sequence[tuple[str, str]] = (), seed: int = 0,
             time_limit: float | None = DEFAULT_TIME_LIMIT) -> dict:
    """Plan one deployment at one grid point and return its row (never raises: a failure is a row).

    Parameters
    ----------
    text, path : str
        The deployment file's text and its path (the name, and ``servers:`` beside it).
    overrides : sequence of (field, value text)
        The grid point.
    seed, time_limit
        As ``itsa plan --seed --time-limit``.

    Examples
    --------
    >>> text = "clients: 100\\ndimension: 64\\nclip: 1\\nprivacy: {epsilon: 4}\\nencoding: {word_bits: 20}\\n"
    >>> row = plan_row(text, "small.yaml", [("word_bits", "24")])
    >>> row["key"], row["status"], row["word"], row["verdict"]
    ('small|word_bits=24', 'ok', 24, 'feasible')
    """
    start = time.perf_counter()
    row = dict.fromkeys(FLEET_COLUMNS)
    row.update(dict(overrides), seed=seed, source=path, schema_version=FLEET_SCHEMA_VERSION)
    try:
        d = _deployment(text, path, overrides)
        row.update(deployment=d.name, key=_key(d.name, overrides))
        row.update(_numbers(plan(d, time_limit=time_limit, seed=seed).to_dict()), status=PlanStatus.OK)
    except Exception as exc:   # every failure becomes a row, never a stopped fleet
        lines = str(exc).strip().splitlines()
        row.update(status=PlanStatus.TIMEOUT if isinstance(exc, TimeLimitReached) else PlanStatus.FAILED,
                   error=f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": "))
        if row["key"] is None:
            row.update(deployment=_name(text, path), key=_key(_name(text, path), overrides))
    row["time"] = time.perf_counter() - start
    return row


def _name(text: str, path: str) -> str:
    with contextlib.suppress(ItsaError):
        return read_deployment(text, path).name
    return Path(path).stem


def plan_rows(jobs: Sequence[tuple], seed: int, time_limit: float | None) -> list[dict]:
    """:func:`plan_row` over a chunk of ``(text, path, overrides)`` jobs: one Dask task."""
    return [plan_row(text, path, overrides, seed, time_limit) for text, path, overrides in jobs]


def _upper_end(c) -> str | None:
    return None if c is None else c["interval"][1]


def _numbers(p: dict) -> dict:
    """The row's numbers from a plan's ``--json`` object."""
    noise, enc, err, verdict = p["noise"], p["encoding"], p["error"], p["verdict"]
    secagg = (p.get("keys") or {}).get("secagg") or {}
    lower = noise.get("epsilon_lower")
    modulus = enc.get("modulus")
    return {
        "verdict": verdict["verdict"], "eps": _upper_end(noise["epsilon"]),
        "eps_lower": None if lower is None else lower["interval"][0], "eps_target": noise.get("target_epsilon"),
        "delta": noise.get("delta"), "mechanism": noise.get("mechanism"), "sigma_client": noise.get("sigma_client"),
        "gamma": enc.get("gamma"), "word": enc.get("word_bits"),
        "modulus": json.dumps(modulus) if isinstance(modulus, list) else modulus,
        "wrap": _upper_end(enc.get("wrap_probability")), "wrap_per": enc.get("per"),
        "payload_bits": p["payload"]["bits_per_client_per_round"]["interval"][1],
        "mse": _upper_end(err["mse_total"]), "mse_per_coordinate": err.get("mse_per_coordinate"),
        "limit_ratio": err.get("limit_ratio"), "secagg_degree": secagg.get("degree"),
        "secagg_threshold": secagg.get("threshold"), "reasons": json.dumps(verdict["reasons"]),
        "premises": json.dumps(verdict["premises"]), "fixes": json.dumps(verdict["fixes"], sort_keys=True),
    }


def _failed(jobs, seed: int, message: str) -> list[dict]:
    rows = []
    for text, path, overrides in jobs:
        row = dict.fromkeys(FLEET_COLUMNS)
        name = _name(text, path)
        row.update(dict(overrides), key=_key(name, overrides), deployment=name, source=path, seed=seed,
                   status=PlanStatus.FAILED, error=message, schema_version=FLEET_SCHEMA_VERSION)
        rows.append(row)
    return rows


_WARM_TEXT = "clients: 100\ndimension: 64\nclip: 1\nprivacy: {epsilon: 4}\nencoding: {word_bits: 20}\n"


def warm_fleet_worker() -> int:
    """Import the planner and plan a small deployment once in this (worker) process; its process id."""
    plan_row(_WARM_TEXT, "warm.yaml")
    return os.getpid()


# -- the run -------------------------------------------------------------------------------------

#: Where a fleet stands (the engine's :class:`~itsa._util.dask_run.RunProgress`, a row a plan).
FleetProgress = RunProgress


@dataclass(frozen=True, repr=False)
class FleetRun(RunResult):
    """Outcome of :func:`run_fleet`: the engine's run result (:class:`~itsa._util.dask_run.RunResult`, a row a
    plan), with the summary per deployment."""

    #: per deployment: plans, feasible ones and the cheapest feasible row (:func:`fleet_summary`)
    cheapest: tuple = ()
    unit = "plans"

    def rows(self) -> list[tuple[str, str]]:
        out = super().rows()
        for s in self.cheapest:
            best = s["cheapest"]
            text = ("no feasible configuration" if best is None else
                    f"{_point(best)}: {best['payload_bits']} bits per client per round, MSE <= {best['mse']}, "
                    f"eps <= {best['eps']} (certified upper bounds)")
            out.append((s["deployment"], f"{s['feasible']} of {s['plans']} feasible; cheapest {text}"))
        return out

    def to_dict(self) -> dict:
        """The ``itsa plan ... -o --json`` object: the table, the workers, the counts and the summary."""
        return {**super().to_dict(), "cheapest": list(self.cheapest)}


def _point(row: dict) -> str:
    given = [f"{c}={row[c]}" for c in GRID_COLUMNS if row.get(c) is not None]
    return " ".join(given) or "as in the file"


def _cost(row: dict) -> tuple:
    """A feasible plan's cost: its payload (bits per client per round), then its error, then its ε."""
    return (Fraction(row["payload_bits"]), Fraction(row["mse"] or 0), Fraction(row["eps"] or 0), row["key"])


def fleet_summary(rows: Sequence[dict]) -> tuple[dict, ...]:
    """Per deployment: plans, feasible ones, and the cheapest feasible row (:func:`_cost`), or ``None``."""
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["deployment"], []).append(r)
    out = []
    for name in sorted(by):
        ok = [r for r in by[name] if r["status"] == PlanStatus.OK and r["verdict"] == "feasible"]
        out.append({"deployment": name, "plans": len(by[name]), "feasible": len(ok),
                    "cheapest": min(ok, key=_cost) if ok else None})
    return tuple(out)


def read_fleet(path: str | os.PathLike) -> list[dict]:
    """Every row of a fleet's results folder (parts, then journal), unique by key, sorted by key."""
    return read_rows(path, FLEET_LAYOUT)


def _contents(jobs_texts: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each deployment's name -> the SHA-256 of its file's text: what its rows (keyed by the name) were planned
    from."""
    import hashlib  # a few deployments' texts, once a run: kept off the module's import

    return {read_deployment(text, path).name: hashlib.sha256(text.encode()).hexdigest() for path, text in jobs_texts}


def _check_resume(out, meta: dict) -> None:
    """A resumed fleet must be the same fleet (grid, seed, time limit, and each deployment's text, by its hash):
    its rows would not be comparable, and a row planned from an edited file is stale."""
    if not exists(Path(out) / FLEET_LAYOUT.meta):
        return
    old = read_meta(out, FLEET_LAYOUT)          # a metadata file that is not JSON: refused, never skipped
    missing = [key for key in ("grid", "seed", "time_limit", "contents") if key not in old]
    if missing or not isinstance(old["contents"], dict):    # written before the hashes were kept, or spoiled
        raise InvalidOption(f"{out}: keeps no record of its {(missing or ['contents'])[0]}, so its rows cannot be "
                            "checked against this fleet's (e.g. no hash of its deployments' files); choose another "
                            "output")
    for key in ("grid", "seed", "time_limit"):
        if old[key] != meta[key]:
            raise InvalidOption(f"{out}: was run with {key} {old[key]!r}, not {meta[key]!r}; "
                                "resume it with the same options, or choose another output")
    before = old["contents"]
    for name, digest in meta["contents"].items():
        if name in before and before[name] != digest:
            raise InvalidOption(f"{out}: the deployment {name!r} has changed since its rows were planned (its "
                                "file's text differs); choose another output, or restore the file")
    unrecorded = [name for name in meta["contents"] if name not in before]
    if unrecorded:                  # its rows, if any, were planned from a text nobody recorded: not checkable
        planned = {row.get("deployment") for row in read_rows(out, FLEET_LAYOUT)}
        stale = sorted(set(unrecorded) & planned)
        if stale:
            raise InvalidOption(f"{out}: holds rows of the deployment {stale[0]!r} but no record of the file's text "
                                "they were planned from, so they cannot be checked; choose another output")
    meta["contents"] = {**before, **meta["contents"]}      # the rows of a deployment not in this run stay checked


def run_fleet(deployments: Sequence[tuple[str, str]], grid=(), out: str | os.PathLike = "fleet.parquet", *,
              workers: int | None = None, scheduler: str | None = None, client=None, resume: bool = False,
              seed: int = 0, time_limit: float | None = DEFAULT_TIME_LIMIT, processes: bool = True,
              connect_timeout: float = 10.0, batch: int = 256,
              progress: Callable[[FleetProgress], None] | None = None) -> FleetRun:
    """Plan every deployment at every grid point, one row each into the results folder ``out``.

    Parameters
    ----------
    deployments : sequence of (path, text)
        From :func:`fleet_deployments`.
    grid : from :func:`parse_grid`
    workers, scheduler, client, processes, connect_timeout
        The cluster, as :func:`itsa.keys.census.run_census` takes it (``workers=0``: a serial loop here).
    resume : bool
        Skip the plans already in ``out`` (same grid, seed and time limit only).
    seed, time_limit
        Every plan's (``itsa plan --seed --time-limit``).
    progress : callable(FleetProgress), optional

    Examples
    --------
    >>> import tempfile, os
    >>> text = "clients: 100\\ndimension: 64\\nclip: 1\\nprivacy: {epsilon: 4}\\nencoding: {word_bits: 20}\\n"
    >>> out = os.path.join(tempfile.mkdtemp(), "f.parquet")
    >>> run = run_fleet([("small.yaml", text)], parse_grid(["word_bits=12,24"]), out, workers=0)
    >>> run.progress.done, [r["word"] for r in read_fleet(out)], run.cheapest[0]["cheapest"]["word"]
    (2, [12, 24], 12)
    """
    check_cluster_options(workers, scheduler, connect_timeout)
    run_seed(seed)
    check_fleet(deployments, grid)
    points = grid_points(grid)
    jobs = [(text, path, pt) for path, text in deployments for pt in points]
    keys = [_key(read_deployment(text, path).name, pt) for text, path, pt in jobs]
    meta = {"deployments": [p for p, _ in deployments], "grid": [[str(q), list(v)] for q, v in grid],
            "seed": seed, "time_limit": time_limit, "plans": len(jobs), "contents": _contents(deployments)}
    if resume:
        _check_resume(out, meta)
    serial = workers == 0 and client is None and scheduler is None
    cluster = contextlib.nullcontext() if serial else dask_client(client, scheduler, workers, processes,
                                                                     connect_timeout)
    with cluster as c, ResultStore(out, FLEET_LAYOUT, meta, resume=resume, batch=batch) as store:
        todo = [j for j, k in zip(jobs, keys) if k not in store.keys]
        state = FleetProgress(total=len(todo), skipped=len(jobs) - len(todo))
        report, start = progress or (lambda p: None), time.monotonic()
        report(state)

        def on_rows(rows, running):
            nonlocal state
            for row in rows:
                store.add(row)
            state = replace(state, done=state.done + len(rows), running=running, elapsed=time.monotonic() - start,
                            failed=state.failed + sum(r["status"] == PlanStatus.FAILED for r in rows),
                            timeout=state.timeout + sum(r["status"] == PlanStatus.TIMEOUT for r in rows))
            report(state)

        if c is None:
            for job in todo:
                on_rows(plan_rows([job], seed, time_limit), 0)
            n_workers = 0
        else:
            n_workers = worker_count(c)
            if todo:
                c.run(warm_fleet_worker)
            run_chunks(c, todo, plan_rows, (seed, time_limit), lambda j: j,
                       lambda js, msg: _failed(js, seed, msg), on_rows)
        store.compact()
    return FleetRun(str(out), state, n_workers, fleet_summary(read_fleet(out)))


def check_fleet_output(out: str | os.PathLike, resume: bool) -> None:
    """Refuse, before any work, an output the fleet cannot write (one line): a results folder as the
    census's (:func:`itsa._util.results_table.check_folder`) in a folder that exists."""
    folder = Path(out)
    if not str(out).strip() or not str(out).isprintable():
        raise InvalidOption(f"-o: must be a path of printable characters, not {excerpt(str(out))}")
    check_folder(folder, FLEET_LAYOUT, resume)
    if not folder.parent.is_dir():
        raise InvalidOption(f"{folder}: no folder {str(folder.parent)!r} to write it in")
