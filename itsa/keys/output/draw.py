"""Pictures of an instance: the two-hop topology with one configuration highlighted.

Servers sit on an inner circle joined by their broadcast links; each server's
users ``(u, v)`` fan out around it. Users are coloured by their role in the
security structure (in some ``S_m``, implicit ``S_I``, outside ``S̄``) and
ringed when they are in ``Q``; one configuration ``(u, m, n)`` is overlaid:
the eavesdropping server ``u`` and what it receives, the colluders ``T_n``,
``S_m ∩ K_u`` and the servers of ``U^(m,n)`` and ``F^(m,n)``.

Two styles: ``paper`` (the default) is the figure alone with a compact
legend of the roles present, for a paper to caption; ``annotated`` adds the
title, the configuration line and a box with every set of the configuration.

matplotlib is imported lazily, inside the functions, so ``import itsa`` stays
light; no pyplot global state is used (a bare :class:`matplotlib.figure.Figure`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from itsa._util import display
from itsa._util.checks import choice
from itsa._util.display import Displayable, Kind
from itsa._util.files import atomic_writer, check_output_file
from itsa._util.plain import plain
from itsa.exceptions import InvalidOption, InvalidOutputPath
from itsa.keys.bounds.analysis import Analysis
from itsa.keys.model.instance import Instance
from itsa.keys.output.layout import LAYOUTS, Layout, Segment, nearest, positions
from itsa.typing import Config

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

class Format(Kind):
    """Figure formats, picked by the file's extension."""

    PNG = "png"
    SVG = "svg"
    PDF = "pdf"


FORMATS = tuple(Format)
class Style(Kind):
    """Figure styles: plain for a paper, or annotated with the quantities."""

    PAPER = "paper"
    ANNOTATED = "annotated"


STYLES = tuple(Style)


# Okabe-Ito palette: distinguishable under the common colour-vision deficiencies.
EXPLICIT = "#E69F00"      # user in some S_m
IMPLICIT = "#CC79A7"      # user in S_I
OUTSIDE = "#E6E6E6"       # user outside S̄
HALO_T = "#0072B2"        # colluder, in T_n
HALO_S = "#009E73"        # in S_m ∩ K_u
SERVER_U = "#F0E442"      # server in U^(m,n)
SERVER_F = "#999999"      # server in F^(m,n): grey, apart from the blue halo and in greyscale
SERVER_OTHER = "#FFFFFF"
EAVESDROPPER = "#D55E00"  # server u, and the links it listens on
LINK = "#A0A0A0"
BROADCAST = "#4D4D4D"

_DPI = 150
_LEGEND_IN = 3.6     # width of the legend column, inches (annotated style)
_NOTES_PT = 10.5     # font size of the text box under the plot


#: matplotlib settings every saved figure uses, for a publisher's checks: TrueType
#: (Type 42) fonts embedded in PDF, never Type 3 (IEEE PDF eXpress and others reject
#: those), and SVG text drawn as outlines, so that no viewer needs matplotlib's own
#: math fonts (whose script letters sit at private-use code points); the SVG keeps
#: its title in its metadata.
PUBLICATION_RC: dict[Any, Any] = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "path",
                  "svg.hashsalt": "itsa", "mathtext.fontset": "dejavusans"}

#: Most users drawn in one figure (time grows quickly beyond it).
MAX_DRAW_USERS = 1000

@dataclass(kw_only=True, frozen=True, repr=False)
class DrawnFigure(Displayable):
    """What :func:`draw_instance` wrote, and which configuration it shows.

    ``config`` is 1-based ``(u, m, n)``; ``default`` says it was chosen as the
    first configuration, in index order, with ``c = e*``.
    """

    path: Path
    format: str
    layout: str
    config: Config
    c: int
    e_star: int
    critical: bool
    default: bool
    caption: str           # the figure's title text (annotated style)
    instance: Instance | None = field(default=None, compare=False, repr=False)   # the instance drawn

    def headline(self) -> str:
        how = "first with c = e*" if self.default else "chosen"
        return (f"wrote {self.path} ({self.format}, layout {self.layout}): configuration "
                f"{display.config(self.config)} {how}, c = {self.c}, e* = {self.e_star}, "
                f"{'critical' if self.critical else 'not critical'}")

    def rows(self) -> list[tuple[str, str]]:
        return [("file", str(self.path)), ("configuration (u,m,n)", display.config(self.config)),
                ("c, e*", f"{self.c}, {self.e_star}")]

    def to_dict(self) -> dict[str, Any]:
        """The ``itsa draw --json`` object: the file, its format and layout, the configuration shown."""
        return plain({"instance": None if self.instance is None else self.instance.name,
                        "path": str(self.path), "format": self.format, "layout": self.layout,
                        "configuration": list(self.config), "default": self.default, "c": self.c,
                        "e_star": self.e_star, "critical": self.critical})


def output_format(path: str | os.PathLike) -> str:
    """The image format named by the extension of ``path`` (``"png"``, ``"svg"`` or ``"pdf"``).

    Raises :class:`InvalidOutputPath` for any other extension.

    >>> output_format("figure.SVG")
    'svg'
    """
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FORMATS:
        raise InvalidOutputPath(f"cannot draw to {os.fspath(path)!r}: the extension must be "
                              f".png, .svg or .pdf, not {('.' + ext) if ext else 'none'}")
    return ext


def parse_config(spec: str | tuple[int, int, int], instance: Instance) -> Config:
    """Read and check a configuration ``"u,m,n"`` (1-based) against an instance.

    Raises :class:`InvalidOption` if ``spec`` is not three integers or one
    of them is out of range.

    >>> from itsa import examples
    >>> parse_config("1,8,21", examples.load("example-2"))
    (1, 8, 21)
    """
    if isinstance(spec, str):
        parts = [p.strip() for p in spec.strip().strip("()").split(",")]
        try:
            values = tuple(int(p) for p in parts)
        except ValueError:
            values = ()
        if len(values) != 3 or len(parts) != 3:
            raise InvalidOption(f"configuration {spec!r}: expected three integers u,m,n "
                                  "(1-based), e.g. 1,8,21")
    else:
        values = tuple(spec)
        if len(values) != 3 or not all(isinstance(x, int) and not isinstance(x, bool)
                                       for x in values):
            raise InvalidOption(f"configuration {spec!r}: expected three integers (u, m, n)")
    for name, x, hi, what in zip("umn", values, (instance.U, instance.M, instance.N),
                                 ("server", "security set", "collusion set")):
        if not 1 <= x <= hi:
            raise InvalidOption(f"configuration {values}: {name} = {x} is out of range; "
                                  f"the {what} index runs 1..{hi}")
    return values


def default_config(analysis: Analysis) -> Config:
    """The first configuration ``(u, m, n)``, in index order, with ``c_{u,m,n} = e*``."""
    return analysis.e_star_configuration


def instance_figure(analysis: Analysis, config: str | Config | None = None,
                    layout: str = "radial", style: str = "paper") -> tuple[Figure, DrawnFigure]:
    """Build the figure (not saved); see :func:`draw_instance` for the parameters.

    Returns the :class:`matplotlib.figure.Figure` and a :class:`DrawnFigure`
    whose ``path`` and ``format`` are empty.

    Raises :class:`itsa.MissingExtra` (one line) without the ``draw`` extra.
    """
    from itsa._util.extras import require

    for package in ("matplotlib", "networkx"):
        require(package)
    choice("layout", layout, LAYOUTS)
    choice("style", style, STYLES)
    inst = analysis.instance
    if inst.K > MAX_DRAW_USERS:
        raise InvalidOption(f"cannot draw {inst.K:,} users: a figure shows at most {MAX_DRAW_USERS:,} "
                            "(the layout and the labels take minutes beyond that)")
    default = config is None
    cfg = default_config(analysis) if config is None else parse_config(config, inst)
    fig, title = _Painter(analysis, cfg, layout, default).paint(style)
    u, m, n = cfg
    conf = analysis.configurations
    info = DrawnFigure(path=Path(), format="", layout=layout, config=cfg, c=int(conf.c[u - 1, m - 1, n - 1]),
                       e_star=analysis.e_star, critical=bool(conf.critical[u - 1, m - 1, n - 1]), default=default, caption=title)
    return fig, info


def draw_instance(analysis: Analysis, path: str | os.PathLike,
                  config: str | Config | None = None, layout: str = "radial",
                  style: str = "paper") -> DrawnFigure:
    """Draw the topology of an analysed instance, with one configuration, to PDF, SVG or PNG.

    Parameters
    ----------
    analysis : Analysis
        From :func:`itsa.analyze`.
    path : path-like
        Output file; its extension (``.pdf``, ``.svg`` or ``.png``) picks the format. The
        file appears whole or not at all (written beside it, then renamed).
    config : str or (int, int, int), optional
        The configuration ``(u, m, n)`` to highlight, 1-based, or ``"u,m,n"``.
        Default: the first, in index order, with ``c_{u,m,n} = e*``.
    layout : {"radial", "spring"}
        ``radial``: servers on an inner circle, each one's users fanned out
        around it on an outer circle. ``spring``: networkx's force-directed
        layout, seeded. Both are deterministic.
    style : {"paper", "annotated"}
        ``paper``: the figure and a legend of the roles present, nothing
        else (the caption is the paper's). ``annotated``: also a title, the
        configuration line and a box listing the configuration's sets.

    Returns
    -------
    DrawnFigure
        The written path and the configuration shown, with its ``c`` and
        whether it is critical.

    Raises
    ------
    InvalidOutputPath
        Unsupported extension or unwritable path.
    InvalidOption
        Bad ``config``, ``layout`` or ``style``.

    Notes
    -----
    The sets drawn are those of docs/model.md §2 (paper Sec. II-A): ``U^(m,n)``,
    ``F^(m,n)``, ``S_I``, ``S̄``, ``c_{u,m,n}``, critical when
    ``|A_{u,m,n}| = |S̄|``, and ``Q``.

    Examples
    --------
    >>> import tempfile, os
    >>> from itsa import analyze, examples
    >>> a = analyze(examples.load("example-2"))
    >>> out = os.path.join(tempfile.mkdtemp(), "example-2.png")
    >>> d = draw_instance(a, out, config="1,8,21")
    >>> d.config, d.c, d.critical, os.path.getsize(out) > 0
    ((1, 8, 21), 2, True, True)
    """
    fmt = output_format(path)
    path = check_output_file(path)            # only a regular file, checked before the figure is made
    fig, info = instance_figure(analysis, config, layout, style)
    save_atomically(fig, path, fmt, info.caption)
    return DrawnFigure(path=path, format=fmt, layout=info.layout, config=info.config, c=info.c, e_star=info.e_star,
                       critical=info.critical, default=info.default, caption=info.caption,
                       instance=analysis.instance)


# -- saving -----------------------------------------------------------------

def save_atomically(fig, path: Path, fmt: str, title: str) -> None:
    import matplotlib

    meta = {"svg": {"Title": title, "Date": None}, "pdf": {"Title": title, "CreationDate": None},
            "png": {"Title": title, "Software": None}}[fmt]
    with atomic_writer(path, binary=True) as fh, matplotlib.rc_context(PUBLICATION_RC):
        fig.savefig(fh, format=fmt, dpi=_DPI, metadata=meta)


# -- painting ---------------------------------------------------------------

def _visible_len(text: str) -> int:
    """Rough count of the characters mathtext shows (markup stripped)."""
    return len(re.sub(r"\\[A-Za-z]+|[${}_^]", lambda t: "x" if len(t[0]) > 1 else "", text))


def _wrap(line: str, width: int) -> list[str]:
    """Greedy word wrap by visible length; words never split (math has no spaces)."""
    out, cur = [], ""
    for word in line.split(" "):
        trial = f"{cur} {word}" if cur else word
        if cur and _visible_len(trial) > width:
            out.append(cur)
            cur = "      " + word
        else:
            cur = trial
    return out + [cur]


def _fmt_users(inst: Instance, mask: int) -> str:
    if mask == inst.full_mask and inst.K > 3:
        return f"all {inst.K} users"
    return inst.describe(mask)


def _fmt_servers(servers: list[int]) -> str:
    return "{" + ", ".join(map(str, servers)) + "}" if servers else "∅"


class _Painter:
    """One figure: geometry in data units, sizes converted to points once."""

    def __init__(self, analysis: Analysis, cfg: Config, layout: str, default: bool):
        self.a, self.inst, self.cfg, self.layout, self.default = \
            analysis, analysis.instance, cfg, layout, default
        u, m, n = cfg
        conf = analysis.configurations
        self.c = int(conf.c[u - 1, m - 1, n - 1])
        self.critical = bool(conf.critical[u - 1, m - 1, n - 1])
        self.U_mn = conf.U_servers(m, n)
        self.F_mn = conf.F_servers(m, n)
        self.S_m = self.inst.security_sets[m - 1]
        self.T_n = self.inst.collusion_sets[n - 1]
        self.SK = self.S_m & self.inst.server_masks[u - 1]
        self.D = conf.D_mask(u, m, n)

    # sizes ------------------------------------------------------------------
    def _axes_inches(self) -> float:
        """Side of the square plot: grows with the number of nodes, within 7..12 in."""
        return max(7.0, min(12.0, 0.2 * (self.inst.K + self.inst.U)))

    def _geometry(self):
        inst = self.inst
        self.pos = positions(inst, self.layout)
        users = [self.pos[("k", i)] for i in range(inst.K)]
        servers = [self.pos[("s", u)] for u in range(1, inst.U + 1)]
        if self.layout == Layout.RADIAL:
            gap = min(nearest(users)) if inst.K > 1 else 1.0
        else:   # tolerate a few crowded pairs rather than shrink every node
            near = sorted(nearest(users + servers))
            gap = near[len(near) // 5]
        self.r = min(0.09, 0.36 * gap)                       # user radius
        s_gap = min(nearest(servers)) if inst.U > 1 else 1.0
        self.h = max(1.35 * self.r, min(0.12, 0.3 * s_gap))   # server half-size
        self.halo = 1.38 * self.r
        self.lim = 1.0 + self.halo + 0.04

    def paint(self, style: str = "paper"):
        self._geometry()
        u, m, n = self.cfg
        title = f"{self.inst.name or 'instance'}: configuration (u, m, n) = ({u}, {m}, {n})"
        rel = "= e*" if self.c == self.a.e_star else f"< e* = {self.a.e_star}"
        plain = f"{title}; c = {self.c} {rel}, {'critical' if self.critical else 'not critical'}"
        fig = self._paper() if style == Style.PAPER else self._annotated(title, rel)
        return fig, plain

    def _bottom(self) -> float:
        """The lowest height a node reaches (with its halo), in data units: the plot ends there."""
        lowest = min(y for _, y in self.pos.values())
        return max(-self.lim, lowest - max(self.halo, self.h) - 0.04)

    def _plot(self, ax, ax_in: float, bottom: float | None = None) -> None:
        ax.set_xlim(-self.lim, self.lim)
        ax.set_ylim(-self.lim if bottom is None else bottom, self.lim)
        ax.set_aspect("equal")
        ax.set_axis_off()
        self.ppu = ax_in * 72 / (2 * self.lim)               # points per data unit
        self._edges(ax)
        self._users(ax)
        self._servers(ax)

    def _paper(self):
        """The plot and a compact legend of the roles present: no title, no text box."""
        from matplotlib.figure import Figure

        ax_in = max(3.2, min(7.0, 0.12 * (self.inst.K + self.inst.U)))
        self.lw = ax_in / 7.0                                # line widths scale with the plot
        fig = Figure(figsize=(ax_in + 2.1, ax_in), dpi=_DPI, layout="constrained")
        ax = fig.add_subplot()
        self._plot(ax, ax_in)
        self._legend(fig, loc="outside right center", fontsize=7, markerscale=0.6, headings=False)
        return fig

    def _annotated(self, title: str, rel: str):
        """The diagnostic figure: title, configuration line, the plot, legend and the sets."""
        from matplotlib.figure import Figure

        u, m, n = self.cfg
        notes = self._notes()
        ax_in, legend_in = self._axes_inches(), _LEGEND_IN
        title_in, pad = 0.95, 0.15
        notes_in = 0.24 * len(notes) + 0.2
        bottom = self._bottom()                 # no blank band between the lowest node and the notes
        ax_h = ax_in * (self.lim - bottom) / (2 * self.lim)
        W, H = ax_in + legend_in + 2 * pad, ax_h + title_in + notes_in + pad
        self.lw = 1.0
        fig = Figure(figsize=(W, H), dpi=_DPI)
        ax = fig.add_axes((pad / W, (notes_in + pad) / H, ax_in / W, ax_h / H))
        self._plot(ax, ax_in, bottom)
        sub = (f"$c_{{{u},{m},{n}}}$ = {self.c} {rel.replace('e*', '$e^*$')}, "
               f"{'critical' if self.critical else 'not critical'}"
               f"{' (first configuration attaining $e^*$)' if self.default else ''}"
               f"  ·  layout {self.layout}")
        fig.text(0.5, 1 - 0.32 / H, title, ha="center", va="center", fontsize=15,
                 fontweight="bold")
        fig.text(0.5, 1 - 0.7 / H, sub, ha="center", va="center", fontsize=12)
        fig.text(pad / W, pad / H, "\n".join(notes), ha="left", va="bottom", fontsize=_NOTES_PT,
                 linespacing=1.5, bbox=dict(boxstyle="round,pad=0.5", fc="#F7F7F7",
                                           ec="#BBBBBB"))
        self._legend(fig, loc="upper left", bbox_to_anchor=((ax_in + 2 * pad) / W, 1 - title_in / H),
                     fontsize=11, markerscale=1.0, headings=True)
        return fig

    def _notes(self) -> list[str]:
        inst, a = self.inst, self.a
        u, m, n = self.cfg
        sb = a.S_bar.bit_count()
        lines = [
            f"Eavesdropping server $u$ = {u};  colluders $T_{{{n}}}$ = {_fmt_users(inst, self.T_n)};"
            f"  $S_{{{m}}}\\cap\\mathcal{{K}}_{{{u}}}$ = {_fmt_users(inst, self.SK)}",
            f"$\\mathcal{{U}}^{{\\;({m},{n})}}$ = {_fmt_servers(self.U_mn)};"
            f"  $\\mathcal{{F}}^{{\\;({m},{n})}}$ = {_fmt_servers(self.F_mn)};"
            f"  $S_{{{m}}}$ = {_fmt_users(inst, self.S_m)}",
            f"$D_{{{u},{m},{n}}}$ = {_fmt_users(inst, self.D)};"
            f"  $A_{{{u},{m},{n}}}=D\\cap\\bar{{S}}$ = {_fmt_users(inst, self.D & a.S_bar)}",
            f"$c_{{{u},{m},{n}}}$ = {self.c},  $e^*$ = {a.e_star},  $a^*$ = {a.a_star},"
            f"  $|\\bar{{S}}|$ = {sb},  $|Q|$ = {a.Q.bit_count()} of K = {inst.K}:"
            f"  {'critical' if self.critical else 'not critical'}"
            f" ($|A|$ = {(self.D & a.S_bar).bit_count()}); regime {a.regime}",
        ]
        width_pt = (self._axes_inches() + _LEGEND_IN) * 72
        return [w for line in lines for w in _wrap(line, int(width_pt / (0.6 * _NOTES_PT)))]

    # drawing ----------------------------------------------------------------
    def _edges(self, ax):
        from matplotlib.collections import LineCollection

        inst, pos, u = self.inst, self.pos, self.cfg[0]
        plain: list[Segment] = []
        listen_bc: list[Segment] = []
        listen_up: list[Segment] = []
        bc: list[Segment] = []
        for i in range(inst.K):
            s = inst.server_of(i)
            seg = (pos[("k", i)], pos[("s", s)])
            (listen_up if s == u else plain).append(seg)
        for a in range(1, inst.U + 1):
            for b in range(a + 1, inst.U + 1):
                seg = (pos[("s", a)], pos[("s", b)])
                (listen_bc if u in (a, b) else bc).append(seg)
        ax.add_collection(LineCollection(plain, colors=LINK, linewidths=1.0 * self.lw, zorder=1))
        ax.add_collection(LineCollection(bc, colors=BROADCAST, linewidths=1.8 * self.lw, zorder=1))
        ax.add_collection(LineCollection(listen_up + listen_bc, colors=EAVESDROPPER,
                                         linewidths=2.6 * self.lw, zorder=1))

    def _users(self, ax):
        from matplotlib.patches import Circle, Wedge

        inst, a = self.inst, self.a
        explicit = a.S_bar & ~a.S_I
        longest = max(len(f"({x},{y})") for x, y in inst.users)
        fs = max(4.0, min(13.0, 2.9 * self.r * self.ppu / longest))
        for i in range(inst.K):
            x, y = self.pos[("k", i)]
            bit = 1 << i
            in_t, in_s = bool(self.T_n & bit), bool(self.SK & bit)
            if in_t and in_s:
                ax.add_patch(Wedge((x, y), self.halo, 90, 270, fc=HALO_T, alpha=0.55, lw=0, zorder=2))
                ax.add_patch(Wedge((x, y), self.halo, 270, 90, fc=HALO_S, alpha=0.55, lw=0, zorder=2))
            elif in_t or in_s:
                ax.add_patch(Circle((x, y), self.halo, fc=HALO_T if in_t else HALO_S,
                                    alpha=0.55, lw=0, zorder=2))
            fill = EXPLICIT if explicit & bit else IMPLICIT if a.S_I & bit else OUTSIDE
            in_q = bool(a.Q & bit)
            lw = (max(1.8, 0.16 * self.r * self.ppu) if in_q else 0.8) * self.lw
            ax.add_patch(Circle((x, y), self.r, fc=fill, ec="black" if in_q else "#777777",
                                lw=lw, zorder=3))
            uu, vv = inst.label(i)
            ax.text(x, y, f"({uu},{vv})", ha="center", va="center", fontsize=fs, zorder=4)

    def _servers(self, ax):
        from matplotlib.patches import FancyBboxPatch

        h, u = self.h, self.cfg[0]
        fs = max(5.0, min(13.0, 0.42 * h * self.ppu))
        for s in range(1, self.inst.U + 1):
            x, y = self.pos[("s", s)]
            fill = SERVER_U if s in self.U_mn else SERVER_F if s in self.F_mn else SERVER_OTHER
            eav = s == u
            ax.add_patch(FancyBboxPatch(
                (x - h, y - h), 2 * h, 2 * h, boxstyle=f"round,pad=0,rounding_size={0.3 * h}",
                fc=fill, ec=EAVESDROPPER if eav else "black", lw=(4.0 if eav else 1.4) * self.lw, zorder=3))
            ax.text(x, y, f"server\n{s}", ha="center", va="center", fontsize=fs,
                    fontweight="bold", zorder=4, linespacing=1.1)

    def roles(self) -> set[str]:
        """The roles present in this figure (the legend lists these and no other)."""
        inst, a = self.inst, self.a
        u = self.cfg[0]
        explicit = a.S_bar & ~a.S_I
        present = {"eavesdropper", "receives"}
        present |= {name for name, mask in (("explicit", explicit), ("implicit", a.S_I),
                                            ("outside", inst.full_mask & ~a.S_bar), ("in_q", a.Q),
                                            ("colluder", self.T_n), ("s_cap_k", self.SK)) if mask}
        present |= {"server_u"} if self.U_mn else set()
        present |= {"server_f"} if self.F_mn else set()
        if any(s not in self.U_mn and s not in self.F_mn for s in range(1, inst.U + 1)):
            present.add("server_other")
        if any(inst.server_of(i) != u for i in range(inst.K)):
            present.add("hop1")
        if inst.U >= 3:
            present.add("broadcast")
        return present

    def _legend(self, fig, *, fontsize: float, markerscale: float, headings: bool, **where):
        from matplotlib.lines import Line2D

        u, m, n = self.cfg
        k = markerscale

        def dot(fc, ec="#777777", lw=0.8, ms=12, marker="o", alpha=1.0):
            return Line2D([], [], ls="none", marker=marker, ms=ms * k, mfc=fc, mec=ec, mew=lw * k,
                          alpha=alpha)

        groups = [
            ("Users (fill: role)", [
                ("explicit", dot(EXPLICIT), "in some $S_m$ (explicit)"),
                ("implicit", dot(IMPLICIT), "implicit, in $S_I$"),
                ("outside", dot(OUTSIDE), "outside $\\bar{S}$"),
                ("in_q", dot("white", "black", 2.6), "in $Q$ (thick outline)")]),
            (f"Configuration ({u}, {m}, {n})", [
                ("colluder", dot(HALO_T, lw=0, ms=17, alpha=0.55), f"colluder, in $T_{{{n}}}$ (halo)"),
                ("s_cap_k", dot(HALO_S, lw=0, ms=17, alpha=0.55),
                 f"in $S_{{{m}}}\\cap\\mathcal{{K}}_{{{u}}}$ (halo)"),
                ("eavesdropper", dot("white", EAVESDROPPER, 3.0, 16, "s"), f"eavesdropping server $u$ = {u}"),
                ("receives", Line2D([], [], color=EAVESDROPPER, lw=2.6 * k), f"what server {u} receives"),
                ("server_u", dot(SERVER_U, "black", 1.2, 16, "s"), f"server in $\\mathcal{{U}}^{{\\;({m},{n})}}$"),
                ("server_f", dot(SERVER_F, "black", 1.2, 16, "s"), f"server in $\\mathcal{{F}}^{{\\;({m},{n})}}$"),
                ("server_other", dot(SERVER_OTHER, "black", 1.2, 16, "s"), "other server")]),
            ("Links", [
                ("hop1", Line2D([], [], color=LINK, lw=1.0 * k), "user to its server (hop 1)"),
                ("broadcast", Line2D([], [], color=BROADCAST, lw=1.8 * k), "server broadcast (hop 2)")]),
        ]
        present = self.roles()
        entries, heads = [], set()
        for head, items in groups:
            shown = [(h, label) for role, h, label in items if role in present]
            if shown and headings:
                heads.add(head)
                entries.append((Line2D([], [], ls="none"), head))
            entries += shown
        handles, labels = zip(*entries)
        leg = fig.legend(handles, labels, frameon=False, fontsize=fontsize, handlelength=1.6,
                         borderaxespad=0.0, labelspacing=0.75 if headings else 0.5, **where)
        for text in leg.get_texts():
            if text.get_text() in heads:
                text.set_fontweight("bold")
