"""Figures of a census, one per question, in the style a paper prints.

:func:`census_figures` takes the tables of :func:`~itsa.keys.census.report.census_tables`
and returns one :class:`matplotlib.figure.Figure` per table that has something
to show, and a short line for each that has not (no data, or one value only):
empty axes are never drawn.

Both styles share the rules of a printed figure: colours that stay apart in
greyscale and for colour-blind readers (Okabe-Ito hues, each series also
hatched), integer ticks on count axes, the ``n`` of every bar printed on it, a
logarithmic count axis when the largest count is 20 times the smallest or more,
and a legend only when there is more than one series, listing only the series
present. ``paper`` has no titles (the caption is the paper's);
``annotated`` titles each figure with its question.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from fractions import Fraction

from itsa.keys.census.schema import RowStatus
from itsa.keys.optimum import SolveVerdict
from itsa.keys.output.draw import Style

__all__ = ["census_figures", "SERIES_COLOURS", "SERIES_HATCHES"]


#: Okabe-Ito hues, in an order whose greyscale values stay apart; each series is also hatched.
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
SERIES_HATCHES = ("", "///", "...", "xxx", "\\\\\\", "ooo")

#: Counts whose largest is at least this many times the smallest get a log axis (on a
#: linear one the small bars would be under 5% of its height, hard to read).
LOG_RATIO = 20

_QUESTIONS = {
    "converse-by-regime": "printed converse min{e*, K-1} beaten by a verified scheme",
    "certified-by-K": "share certified optimal, by K and regime",
    "printed-gap": "printed converse minus the optimum, on the optimal instances",
    "gaps": "gap: verified upper - proved lower bound",
    "grid-rate": "homogeneous family: optimum against min{U+V+t-2, UV-1}",
    "open": "instances not certified optimal, by K",
}


def census_figures(tables: dict, style: str = "paper", partial: bool = False) -> tuple[dict, list[str]]:
    """One figure per table with at least two values, and a note for every other table.

    Returns ``(figures, notes)``: figures by report name, and lines such as
    ``"open: no open instance (no figure)"``. With ``partial`` (the table of an
    interrupted census) a note speaks of the instances done so far, never of all.

    >>> figs, notes = census_figures({"open": (["key", "name", "K", "regime", "lower", "upper",
    ...                                         "status", "error"], [])})
    >>> figs, notes
    ({}, ['open: no open instance (no figure)'])
    """
    figures, notes = {}, []
    for name, (_header, rows) in tables.items():
        fig_or_note = _BUILDERS[name](rows, style)
        if isinstance(fig_or_note, str):
            notes.append(f"{name}: {_so_far(fig_or_note) if partial else fig_or_note} (no figure)")
        else:
            if style == Style.ANNOTATED:
                fig_or_note.suptitle(_QUESTIONS[name], fontsize=9)
            figures[name] = fig_or_note
    return figures, notes


#: The words of a note that claim the whole universe, and what a partial table says instead.
_WHOLE = ((", all with", ", each with"), ("on all ", "on the "), ("all ", "the "),
          ("every one of the ", "each of the "))


def _so_far(note: str) -> str:
    """A note about the instances done so far (a partial table), never about all of them.

    >>> _so_far("every one of the 82 instances with both bounds has gap 0")
    'so far (partial census): each of the 82 instances with both bounds has gap 0'
    >>> _so_far("8 homogeneous instance(s), all with closed form 3")
    'so far (partial census): 8 homogeneous instance(s), each with closed form 3'
    """
    for whole, part in _WHOLE:
        note = note.replace(whole, part)
    return "so far (partial census): " + note


# -- building blocks -------------------------------------------------------
def _figure(style: str, wide: bool = False):
    from matplotlib.figure import Figure

    size = (6.0, 3.6) if style == Style.ANNOTATED else ((5.0 if wide else 3.5), 2.5)
    fig = Figure(figsize=size, dpi=150, layout="constrained")
    ax = fig.add_subplot()
    ax.tick_params(labelsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def _count_axis(ax, counts) -> None:
    """Integer ticks; a log scale when the counts span :data:`LOG_RATIO` or more."""
    from matplotlib.ticker import MaxNLocator

    positive = [c for c in counts if c > 0]
    if positive and max(positive) >= LOG_RATIO * min(positive):
        ax.set_yscale("log")
        ax.set_ylim(0.5, max(positive) * 3)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, max(positive, default=1) * 1.18)


def _grouped_bars(ax, categories: list, series: dict, labels: dict | None = None) -> None:
    """Bars of every series side by side per category, each bar labelled with its n
    (``labels[series][i]``, default the value). A legend only for two series or more."""
    import numpy as np

    x = np.arange(len(categories))
    k = len(series)
    width = 0.8 / k
    for i, (name, values) in enumerate(series.items()):
        bars = ax.bar(x + (i - (k - 1) / 2) * width, values, width, label=name,
                      color=SERIES_COLOURS[i % len(SERIES_COLOURS)], edgecolor="black", linewidth=0.5,
                      hatch=SERIES_HATCHES[i % len(SERIES_HATCHES)])
        text = (labels or {}).get(name) or [f"{v:g}" for v in values]
        ax.bar_label(bars, labels=[t if v else "" for t, v in zip(text, values)], fontsize=6, padding=1)
    ax.set_xticks(x, [str(c) for c in categories])
    if k > 1:     # above the axes, never over a bar
        ax.figure.legend(fontsize=7, frameon=False, ncols=min(k, 4), loc="outside upper center",
                         handlelength=1.5, columnspacing=1.0)


def _for_scope(text: str, scopes) -> str:
    """``text``, with the short name of the scope of the optima it shows (the summary gives
    it in full), wrapped for an axis label."""
    from itsa.keys.converse.registry import scope_name

    scopes = sorted({s for s in scopes if s})
    scope = scope_name(scopes[0]) if len(scopes) == 1 else "the scope of each lower bound (CSV)"
    return "\n".join(textwrap.wrap(f"{text}, for {scope}", 34))


def _pivot(rows, cat: int, ser: int, val: int):
    """``{series: {category: value}}`` from table rows, with the sorted categories."""
    table: dict = defaultdict(dict)
    for r in rows:
        table[r[ser]][r[cat]] = r[val]
    cats = sorted({r[cat] for r in rows}, key=lambda c: (Fraction(c) if isinstance(c, str) else c))
    return cats, dict(sorted(table.items()))


# -- one builder per table: a Figure, or the line that replaces it ---------
def _fig_regime(rows, style):
    if len(rows) < 2:
        return _one_regime_note(rows)
    fig, ax = _figure(style)
    regimes = [r[0] for r in rows]
    shares = [float(r[3] or 0) for r in rows]
    _grouped_bars(ax, regimes, {"beaten": shares}, {"beaten": [f"{r[2]}/{r[1]}" for r in rows]})
    ax.set_ylim(0, 1.15)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_ylabel("share printed bound beaten", fontsize=8)
    ax.set_xlabel("regime", fontsize=8)
    return fig


def _one_regime_note(rows):
    if not rows:
        return "no instance with a verified rate"
    regime, n, beaten = rows[0][:3]
    return f"all {n} instances with a verified rate are in regime {regime}; the printed bound is beaten on {beaten}"


def _fig_K(rows, style):
    if len(rows) < 2:
        if not rows:
            return "no instance"
        K, regime, n, opt, _, scope = rows[0]
        return f"{opt} of {n} instances (K = {K}, {regime}) certified optimal" + (f", for {scope}" if scope else "")
    fig, ax = _figure(style, wide=True)
    cats, shares = _pivot(rows, 0, 1, 4)
    _, n = _pivot(rows, 0, 1, 2)
    _grouped_bars(ax, cats, {reg: [float(shares[reg].get(K) or 0) for K in cats] for reg in shares},
                  {reg: [str(n[reg].get(K, "")) for K in cats] for reg in shares})
    ax.set_ylim(0, 1.12)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_xlabel("K (users)", fontsize=8)
    ax.set_ylabel(_for_scope("share certified optimal", (r[5] for r in rows)), fontsize=7)
    return fig


def _fig_printed_gap(rows, style):
    values = {r[1] for r in rows}
    if len(values) < 2:
        if not rows:
            return "no optimal instance"
        return (f"on all {sum(r[2] for r in rows)} optimal instances the printed bound minus the optimum "
                f"is {rows[0][1]} ({_for_scope('optimal', (r[3] for r in rows))})").replace("\n", " ")
    fig, ax = _figure(style, wide=True)
    cats, counts = _pivot(rows, 1, 0, 2)
    series = {reg: [counts[reg].get(c, 0) for c in cats] for reg in counts}
    _grouped_bars(ax, cats, series)
    _count_axis(ax, [v for vs in series.values() for v in vs])
    ax.set_xlabel("printed converse − optimum", fontsize=8)
    ax.set_ylabel(_for_scope("optimal instances", (r[3] for r in rows)), fontsize=7)
    return fig


def _fig_gaps(rows, style):
    if len(rows) < 2:
        return "no instance with both bounds" if not rows else \
            f"every one of the {rows[0][1]} instances with both bounds has gap {rows[0][0]}"
    fig, ax = _figure(style)
    counts = [r[1] for r in rows]
    _grouped_bars(ax, [r[0] for r in rows], {"instances": counts})
    _count_axis(ax, counts)
    ax.set_xlabel("verified upper − proved lower", fontsize=8)
    ax.set_ylabel("instances", fontsize=8)
    return fig


def _fig_grid(rows, style):
    from matplotlib.ticker import MaxNLocator

    closed = {r[6] for r in rows}
    if len(closed) < 2:
        if not rows:
            return "no homogeneous instance"
        return f"{len(rows)} homogeneous instance(s), all with closed form {rows[0][6]}"
    fig, ax = _figure(style)
    lo, hi = min(closed), max(closed)
    ax.plot([lo - 0.5, hi + 0.5], [lo - 0.5, hi + 0.5], color="grey", lw=0.6, ls="--", zorder=0)
    optimal = [r for r in rows if r[5] == SolveVerdict.OPTIMAL]
    other = [r for r in rows if r[5] != SolveVerdict.OPTIMAL]
    if optimal:
        points = _counted((r[6], Fraction(r[3])) for r in optimal)
        ax.scatter([x for x, _ in points], [float(y) for _, y in points], marker="o",
                   facecolor=SERIES_COLOURS[0], edgecolor="black", lw=0.5, s=22, label="certified optimum",
                   zorder=3)
        _label_counts(ax, points)
    if other:
        for r in other:
            lo_r = float(Fraction(r[3])) if r[3] else None
            up_r = float(Fraction(r[4])) if r[4] else None
            ax.plot([r[6]] * 2, [lo_r if lo_r is not None else up_r, up_r if up_r is not None else lo_r],
                    color=SERIES_COLOURS[1], lw=1.5, zorder=2)
        points = _counted((r[6], Fraction(r[3])) for r in other if r[3])
        ax.scatter([x for x, _ in points], [float(y) for _, y in points],
                   marker="^", facecolor="white", edgecolor=SERIES_COLOURS[1], s=22, label="open: lower–upper",
                   zorder=3)
        _label_counts(ax, points)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("min{U+V+t−2, UV−1}", fontsize=8)
    ax.set_ylabel(_for_scope("key rate; certified optimum", (r[7] for r in optimal)) if optimal else "key rate",
                  fontsize=7)
    if optimal and other:
        ax.legend(fontsize=7, frameon=False)
    return fig


def _counted(points) -> dict:
    """``{(x, y): how many instances sit there}``, in first-seen order."""
    from collections import Counter

    return dict(Counter(points))


def _label_counts(ax, points: dict) -> None:
    """``×n`` beside every point that stands for n > 1 instances drawn on top of each other."""
    for (x, y), n in points.items():
        if n > 1:
            ax.annotate(f"×{n}", (x, float(y)), xytext=(4, -3), textcoords="offset points",
                        fontsize=6, ha="left", va="top", zorder=4)


def _fig_open(rows, style):
    from collections import Counter

    if not rows:
        return "no open instance"
    c = Counter((r[2], "open" if r[6] == RowStatus.OK else r[6]) for r in rows)
    Ks = sorted({k for k, _ in c}, key=lambda k: (k is None, k))
    if len(Ks) < 2:
        return f"{len(rows)} instance(s) not certified optimal, all with K = {Ks[0]}"
    fig, ax = _figure(style)
    series = {s: [c[(k, s)] for k in Ks] for s in ("open", "timeout", "failed") if any(c[(k, s)] for k in Ks)}
    _grouped_bars(ax, Ks, series)
    _count_axis(ax, [v for vs in series.values() for v in vs])
    ax.set_xlabel("K (users)", fontsize=8)
    ax.set_ylabel("instances", fontsize=8)
    return fig


_BUILDERS = {"converse-by-regime": _fig_regime, "certified-by-K": _fig_K, "printed-gap": _fig_printed_gap,
             "gaps": _fig_gaps, "grid-rate": _fig_grid, "open": _fig_open}
