"""Tables of a census, one per question a paper asks of it (figures: :mod:`.figures`).

:func:`census_tables` turns the rows into plain tables (header, rows);
:func:`census_report` writes each as CSV beside its figure (PDF, SVG or PNG):

* ``converse-by-regime``: share of instances (with a verified rate) where the
  printed converse ``min{e*, K-1}`` is beaten, by regime; the corrected bound
  is never beaten (a valid bound), and its count is in the table to show it;
* ``certified-by-K``: share of instances certified optimal, by ``K`` and
  regime, with the scope of the lower bounds that certify them;
* ``printed-gap``: on the optimal instances, the paper's printed converse
  minus the optimum, by regime (positive: the printed bound is wrong there);
* ``gaps``: histogram of ``upper - lower`` over instances with both;
* ``grid-rate``: homogeneous instances: lower and upper bounds against
  ``(U, V, t)``, beside the closed form ``min{U+V+t-2, UV-1}``;
* ``open``: the open instances (the figure counts them by ``K`` and status).

"Optimal" always carries its scope (:func:`scope_of`): the schemes the lower
bound is proved for. Exact values stay fraction strings in the CSV files.
"""

from __future__ import annotations

import csv
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from itsa._util.checks import choice
from itsa._util.display import Displayable
from itsa.keys.census.schema import RowStatus
from itsa.keys.converse.registry import scope_of
from itsa.keys.optimum import SolveVerdict
from itsa.keys.output.draw import FORMATS, STYLES

__all__ = ["census_summary", "coverage", "census_tables", "census_report", "REPORTS", "scope_of", "FORMATS",
           "report_notes", "CensusReport", "write_report"]

#: One census row: a column name to its value (strings, ints, floats, booleans or None).
Row = dict[str, Any]

REPORTS = ("converse-by-regime", "certified-by-K", "printed-gap", "gaps", "grid-rate", "open")


def _scopes(rows: list[Row]) -> str:
    """The scopes of the rows' lower bounds, joined (one string when they agree)."""
    scopes = {scope_of(r["lower_class"]) for r in rows if r["lower_class"]}
    return "; ".join(sorted(s for s in scopes if s is not None))     # None: no lower class


def _share(a: int, b: int) -> str:
    return f"{a / b:.4f}" if b else ""


def census_summary(rows: list[Row], universe: int | None = None) -> dict[str, Any]:
    """Counts over the whole table: instances, by status, optimal (and for which schemes:
    ``optimal_scope``), printed converse beaten.

    ``universe`` is how many instances the census's universe holds (``None``: not known);
    ``partial`` says the table holds fewer (an interrupted census: every count is of the
    instances done), ``None`` when the universe is not known.

    >>> s = census_summary([{"status": "ok", "verdict": "optimal", "upper": "2", "printed_beaten": True,
    ...                      "lower": "2", "lower_corrected": "2", "lower_class": "general"}])
    >>> s["printed_beaten"], s["optimal"], s["optimal_scope"]
    (1, 1, 'every scheme of the model (any encoders, relays and keys)')
    >>> census_summary([], universe=5488)["partial"]
    True
    """
    ok = [r for r in rows if r["status"] == RowStatus.OK]
    with_upper = [r for r in ok if r["upper"] is not None]
    return {
        "instances": len(rows),
        "universe": universe,
        "partial": None if universe is None else len(rows) < universe,
        "ok": len(ok),
        "failed": sum(r["status"] == RowStatus.FAILED for r in rows),
        "timeout": sum(r["status"] == RowStatus.TIMEOUT for r in rows),
        "optimal": sum(r["verdict"] == SolveVerdict.OPTIMAL for r in ok),
        "optimal_scope": _scopes([r for r in ok if r["verdict"] == SolveVerdict.OPTIMAL]),
        "with_verified_rate": len(with_upper),
        "printed_beaten": sum(bool(r["printed_beaten"]) for r in with_upper),
        "corrected_violated": sum(Fraction(r["upper"]) < Fraction(r["lower_corrected"]) for r in with_upper
                                  if r["lower_corrected"] is not None),
        "fractional_upper": sum(Fraction(r["upper"]).denominator > 1 for r in with_upper),
    }


def coverage(summary: dict[str, Any]) -> str:
    """One line on how much of the universe a table holds; a partial one says so.

    >>> coverage({"instances": 82, "universe": 5488, "partial": True})
    'instances done: 82 of the 5,488 in the universe (partial: the census was interrupted; every count is of the 82 done; continue it with --resume)'
    >>> coverage({"instances": 8, "universe": 8, "partial": False})
    'instances done: 8 of the 8 in the universe (complete)'
    """
    n, size = summary["instances"], summary["universe"]
    if size is None:
        return f"instances done: {n:,} (the size of the universe was not recorded with this table)"
    if summary["partial"]:
        return (f"instances done: {n:,} of the {size:,} in the universe (partial: the census was "
                f"interrupted; every count is of the {n:,} done; continue it with --resume)")
    return f"instances done: {n:,} of the {size:,} in the universe (complete)"


def census_tables(rows: list[Row]) -> dict[str, tuple[list[str], list[list]]]:
    """Every report table as ``(header, rows)``, keyed by the names of :data:`REPORTS`."""
    ok = [r for r in rows if r["status"] == RowStatus.OK]
    return {
        "converse-by-regime": _by_regime(ok),
        "certified-by-K": _by_K(ok),
        "printed-gap": _printed_gap(ok),
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
        bad = sum(r["lower_corrected"] is not None and Fraction(r["upper"]) < Fraction(r["lower_corrected"])
                  for r in g)
        out.append([regime, len(g), beaten, _share(beaten, len(g)), bad])
    return header, out


def _by_K(ok):
    groups = defaultdict(list)
    for r in ok:
        groups[(r["K"], r["regime"])].append(r)
    header = ["K", "regime", "instances", "optimal", "share_optimal", "scope"]
    out = []
    for (K, regime), g in sorted(groups.items()):
        opt = [r for r in g if r["verdict"] == SolveVerdict.OPTIMAL]
        out.append([K, regime, len(g), len(opt), _share(len(opt), len(g)), _scopes(opt)])
    return header, out


def _printed_gap(ok):
    """On the optimal instances: printed converse minus optimum, counted by regime."""
    groups = defaultdict(list)
    for r in ok:
        if r["verdict"] == SolveVerdict.OPTIMAL and r["lower_printed"] is not None:
            groups[(r["regime"], Fraction(r["lower_printed"]) - Fraction(r["lower"]))].append(r)
    return ["regime", "printed_minus_optimum", "instances", "scope"], \
        [[regime, str(d), len(g), _scopes(g)] for (regime, d), g in sorted(groups.items())]


def _gaps(ok):
    c = Counter(Fraction(r["gap"]) for r in ok if r["gap"] is not None)
    return ["gap", "instances"], [[str(g), n] for g, n in sorted(c.items())]


def _grid(ok):
    header = ["U", "V", "t", "lower", "upper", "verdict", "published", "scope"]
    out = []
    for r in ok:
        if r["homogeneous_V"] is not None:
            U, V, t = r["U"], r["homogeneous_V"], r["homogeneous_t"]
            out.append([U, V, t, r["lower"], r["upper"], r["verdict"], min(U + V + t - 2, U * V - 1),
                        scope_of(r["lower_class"]) or ""])
    return header, sorted(out)


def _open(rows):
    header = ["key", "name", "K", "regime", "lower", "upper", "status", "error"]
    return header, [[r["key"], r["name"], r["K"], r["regime"], r["lower"], r["upper"], r["status"], r["error"]]
                    for r in rows if r["verdict"] != SolveVerdict.OPTIMAL]


# -- writing ---------------------------------------------------------------
def census_report(path: str | os.PathLike, out_dir: str | os.PathLike, fmt: str = "pdf",
                  style: str = "paper") -> dict[str, list[str]]:
    """Write every table as ``NAME.csv`` and its figure as ``NAME.pdf`` (``.svg``, ``.png``) under ``out_dir``.

    A table with no data, or with one value only, gets no figure: a line saying
    so goes into ``summary.csv`` (quantity ``note``) instead of empty axes. On a
    partial table (an interrupted census) the summary gives the universe's size and
    ``partial``, and the notes speak of the instances done so far, never of all.
    ``style`` is ``"paper"`` (no titles: the caption is the paper's) or
    ``"annotated"`` (each figure titled with its question).

    Returns the files written, by report name (plus ``summary``).

    >>> import os, tempfile
    >>> from itsa import examples
    >>> from itsa.keys.census import load_spec, run_census
    >>> out = os.path.join(tempfile.mkdtemp(), "r.parquet")
    >>> _ = run_census(load_spec(examples.path("census/grid-small")), out, workers=0)
    >>> files = census_report(out, tempfile.mkdtemp(), fmt="png")
    >>> sorted(files) == sorted(REPORTS + ("summary",))
    True
    """
    from itsa._util.files import atomic_writer
    from itsa.exceptions import InvalidInstance
    from itsa.keys.census.figures import census_figures
    from itsa.keys.census.store import read_rows, universe_size

    choice("figure format", fmt, FORMATS)
    choice("figure style", style, STYLES)
    rows = read_rows(path)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInstance(f"cannot create {os.fspath(out)!r}: {exc.strerror}") from None
    tables = census_tables(rows)
    summary = census_summary(rows, universe_size(path))
    figures, notes = census_figures(tables, style, partial=bool(summary["partial"]))
    written: dict[str, list[str]] = {}
    with atomic_writer(out / "summary.csv") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerows([["quantity", "value"], *summary.items(), *(("note", n) for n in notes)])
    written["summary"] = [str(out / "summary.csv")]
    for name, (header, table) in tables.items():
        with atomic_writer(out / f"{name}.csv") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            w.writerows(table)
        written[name] = [str(out / f"{name}.csv")]
        if name in figures:
            fig_path = out / f"{name}.{fmt}"
            _save(figures[name], fig_path, fmt, name)
            written[name].append(str(fig_path))
    return written


def _save(fig, path, fmt, title):
    from itsa.keys.output.draw import save_atomically

    save_atomically(fig, Path(path), fmt, title)


def report_notes(out_dir: str | os.PathLike) -> list[str]:
    """The notes of a written report (the tables that got a line instead of a figure)."""
    with open(Path(out_dir) / "summary.csv", encoding="utf-8") as fh:
        return [row[1] for row in csv.reader(fh) if row and row[0] == "note"]


#: Summary keys that the report's first line (:func:`coverage`) or its "optimal" row already says.
_IN_HEADLINE = ("instances", "universe", "partial", "optimal_scope")


@dataclass(frozen=True, repr=False)
class CensusReport(Displayable):
    """A written census report: its ``tally`` (:func:`census_summary`), its notes and the files written, by report name."""

    out_dir: str
    tally: dict[str, Any]
    notes: tuple[str, ...]
    files: dict[str, list[str]]

    def headline(self) -> str:
        return coverage(self.tally)

    def counts(self) -> list[tuple[str, str]]:
        """The summary's counts as ``(quantity, text)``; "optimal" says for which schemes."""
        scope = self.tally.get("optimal_scope")
        return [(key, f"{val}" + (f" (lower bound proved for {scope})" if key == "optimal" and scope else ""))
                for key, val in self.tally.items() if key not in _IN_HEADLINE]

    @property
    def file_count(self) -> int:
        return sum(map(len, self.files.values()))

    def rows(self) -> list[tuple[str, str]]:
        return (self.counts() + [("note", n) for n in self.notes]
                + [("written", f"{self.file_count} files to {self.out_dir}")])

    def to_dict(self) -> dict[str, Any]:
        """The ``itsa census report --json`` object."""
        return {"summary": dict(self.tally), "notes": list(self.notes), "files": dict(self.files)}


def write_report(path: str | os.PathLike, out_dir: str | os.PathLike, fmt: str = "pdf",
                 style: str = "paper") -> CensusReport:
    """:func:`census_report`, with the table's summary and the report's notes: the answer of ``itsa census report``."""
    from itsa.keys.census.store import read_rows, universe_size

    files = census_report(path, out_dir, fmt=fmt, style=style)
    summary = census_summary(read_rows(path), universe_size(path))
    return CensusReport(str(out_dir), summary, tuple(report_notes(out_dir)), files)
