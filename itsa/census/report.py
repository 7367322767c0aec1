"""Tables and figures of a census, the ones a paper shows.

:func:`census_tables` turns the rows into plain tables (header, rows);
:func:`census_report` writes each as CSV beside a figure (PNG or SVG):

* ``converse-by-regime``: share of instances (with a verified rate) where the
  printed converse ``min{e*, K-1}`` is beaten, by regime; the corrected bound
  is never beaten (a valid bound), and its count is in the table to show it;
* ``certified-by-K``: share of instances certified optimal, by ``K``;
* ``gaps``: histogram of ``upper - lower`` over instances with both;
* ``grid-rate``: homogeneous instances: lower and upper bounds against
  ``(U, V, t)``, beside the published ``min{U+V+t-2, UV-1}``;
* ``open``: the open instances (the figure counts them by ``K`` and status).

Exact values stay fraction strings in the CSV files.
"""

from __future__ import annotations

import csv
import os
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

__all__ = ["census_summary", "census_tables", "census_report", "REPORTS"]

REPORTS = ("converse-by-regime", "certified-by-K", "gaps", "grid-rate", "open")


def _F(x) -> Fraction | None:
    return None if x is None else Fraction(x)


def _share(a: int, b: int) -> str:
    return f"{a / b:.4f}" if b else ""


def census_summary(rows: list[dict]) -> dict:
    """Counts over the whole table: instances, by status, optimal, printed converse beaten.

    >>> census_summary([{"status": "ok", "verdict": "optimal", "upper": "2", "printed_beaten": True,
    ...                  "lower": "2", "lower_corrected": "2"}])["printed_beaten"]
    1
    """
    ok = [r for r in rows if r["status"] == "ok"]
    with_upper = [r for r in ok if r["upper"] is not None]
    return {
        "instances": len(rows),
        "ok": len(ok),
        "failed": sum(r["status"] == "failed" for r in rows),
        "timeout": sum(r["status"] == "timeout" for r in rows),
        "optimal": sum(r["verdict"] == "optimal" for r in ok),
        "with_verified_rate": len(with_upper),
        "printed_beaten": sum(bool(r["printed_beaten"]) for r in with_upper),
        "corrected_violated": sum(_F(r["upper"]) < _F(r["lower_corrected"]) for r in with_upper
                                  if r["lower_corrected"] is not None),
        "fractional_upper": sum(_F(r["upper"]).denominator > 1 for r in with_upper),
    }


def census_tables(rows: list[dict]) -> dict[str, tuple[list[str], list[list]]]:
    """Every report table as ``(header, rows)``, keyed by the names of :data:`REPORTS`."""
    ok = [r for r in rows if r["status"] == "ok"]
    return {
        "converse-by-regime": _by_regime(ok),
        "certified-by-K": _by_K(ok),
        "gaps": _gaps(ok),
        "grid-rate": _grid(ok),
        "open": _open(rows),
    }


def _by_regime(ok):
    groups = defaultdict(list)
    for r in ok:
        if r["upper"] is not None:
            groups[r["regime"]].append(r)
    header = ["regime", "instances", "printed_beaten", "share_printed_beaten", "corrected_violated"]
    out = []
    for regime in sorted(groups):
        g = groups[regime]
        beaten = sum(bool(r["printed_beaten"]) for r in g)
        bad = sum(r["lower_corrected"] is not None and _F(r["upper"]) < _F(r["lower_corrected"]) for r in g)
        out.append([regime, len(g), beaten, _share(beaten, len(g)), bad])
    return header, out


def _by_K(ok):
    groups = defaultdict(list)
    for r in ok:
        groups[r["K"]].append(r)
    header = ["K", "instances", "optimal", "share_optimal"]
    return header, [[K, len(g), n, _share(n, len(g))]
                    for K, g in sorted(groups.items()) for n in [sum(r["verdict"] == "optimal" for r in g)]]


def _gaps(ok):
    c = Counter(_F(r["gap"]) for r in ok if r["gap"] is not None)
    return ["gap", "instances"], [[str(g), n] for g, n in sorted(c.items())]


def _grid(ok):
    header = ["U", "V", "t", "lower", "upper", "verdict", "published"]
    out = []
    for r in ok:
        if r["homogeneous_V"] is not None:
            U, V, t = r["U"], r["homogeneous_V"], r["homogeneous_t"]
            out.append([U, V, t, r["lower"], r["upper"], r["verdict"], min(U + V + t - 2, U * V - 1)])
    return header, sorted(out)


def _open(rows):
    header = ["key", "name", "K", "regime", "lower", "upper", "status", "error"]
    return header, [[r["key"], r["name"], r["K"], r["regime"], r["lower"], r["upper"], r["status"], r["error"]]
                    for r in rows if r["verdict"] != "optimal"]


# -- writing ---------------------------------------------------------------
def census_report(path: str | os.PathLike, out_dir: str | os.PathLike, fmt: str = "png") -> dict[str, list[str]]:
    """Write every table as ``NAME.csv`` and its figure as ``NAME.png`` (or ``.svg``) under ``out_dir``.

    Returns the files written, by report name (plus ``summary``).

    >>> import os, tempfile
    >>> from itsa import examples
    >>> from itsa.census import load_spec, run_census
    >>> out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    >>> _ = run_census(load_spec(examples.path("census/grid-small")), out, workers=0)
    >>> files = census_report(out, tempfile.mkdtemp())
    >>> sorted(files) == sorted(REPORTS + ("summary",))
    True
    """
    from .._files import atomic_writer
    from ..exceptions import InvalidInstance
    from .store import read_rows

    if fmt not in ("png", "svg"):
        raise InvalidInstance(f"figure format {fmt!r}: use png or svg")
    rows = read_rows(path)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInstance(f"cannot create {os.fspath(out)!r}: {exc.strerror}") from None
    written: dict[str, list[str]] = {}
    summary = census_summary(rows)
    with atomic_writer(out / "summary.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerows([["quantity", "value"], *summary.items()])
    written["summary"] = [str(out / "summary.csv")]
    for name, (header, table) in census_tables(rows).items():
        with atomic_writer(out / f"{name}.csv") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            w.writerows(table)
        fig_path = out / f"{name}.{fmt}"
        _save(_FIGURES[name](header, table), fig_path, fmt, name)
        written[name] = [str(out / f"{name}.csv"), str(fig_path)]
    return written


def _save(fig, path, fmt, title):
    from ..draw import _save_atomically

    _save_atomically(fig, Path(path), fmt, title)


def _figure(title: str):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.6), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=10)
    return fig, ax


def _bars(title, labels, values, ylabel, ylim=None):
    fig, ax = _figure(title)
    ax.bar([str(x) for x in labels], values, color="tab:blue")
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(*ylim)
    if not labels:
        ax.text(0.5, 0.5, "no instance", ha="center", transform=ax.transAxes)
    return fig


def _fig_regime(header, table):
    return _bars("printed converse min{e*, K-1} beaten by a verified scheme",
                 [r[0] for r in table], [float(r[3] or 0) for r in table], "share of instances", (0, 1))


def _fig_K(header, table):
    return _bars("certified optimal (lower = verified upper)",
                 [r[0] for r in table], [float(r[3] or 0) for r in table], "share of instances", (0, 1))


def _fig_gaps(header, table):
    return _bars("gap: verified upper - lower bound", [r[0] for r in table], [r[1] for r in table], "instances")


def _fig_grid(header, table):
    fig, ax = _figure("homogeneous family: bounds vs min{U+V+t-2, UV-1}")
    x = range(len(table))
    ax.plot(x, [r[6] for r in table], "ks", mfc="none", ms=11, label="published optimum", zorder=1)
    ax.scatter(x, [float(Fraction(r[3])) if r[3] else float("nan") for r in table], marker="^", label="lower")
    ax.scatter(x, [float(Fraction(r[4])) if r[4] else float("nan") for r in table], marker="v", label="upper")
    ax.set_xticks(list(x), [f"{r[0]},{r[1]},{r[2]}" for r in table], rotation=90, fontsize=7)
    ax.set_xlabel("(U, V, t)")
    ax.set_ylabel("key rate")
    ax.legend(fontsize=8)
    return fig


def _fig_open(header, table):
    c = Counter((r[2], r[6]) for r in table)
    Ks = sorted({k for k, _ in c}, key=lambda k: (k is None, k))
    fig, ax = _figure("open instances by K")
    bottom = [0] * len(Ks)
    for status in ("ok", "timeout", "failed"):
        vals = [c[(k, status)] for k in Ks]
        ax.bar([str(k) for k in Ks], vals, bottom=bottom, label="open" if status == "ok" else status)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("instances")
    ax.legend(fontsize=8)
    return fig


_FIGURES = {"converse-by-regime": _fig_regime, "certified-by-K": _fig_K, "gaps": _fig_gaps,
            "grid-rate": _fig_grid, "open": _fig_open}
