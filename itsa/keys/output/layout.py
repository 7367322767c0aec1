"""Where the nodes of a topology figure go: servers and their users, in two layouts.

``radial`` puts the servers evenly on a circle and fans each server's users
out around it on the unit circle; ``spring`` is networkx's force layout with a
fixed seed. :func:`positions` returns either, scaled to the unit disc.
"""

from __future__ import annotations

import math

from itsa._util.display import Kind
from itsa.keys.model.instance import Instance

__all__ = ["Layout", "LAYOUTS", "Point", "Segment", "Positions", "positions", "nearest"]


class Layout(Kind):
    """Topology layouts: servers on a circle (radial) or a force layout (spring)."""

    RADIAL = "radial"
    SPRING = "spring"


LAYOUTS = tuple(Layout)

#: Seed of the spring layout, so that a figure is the same on every run.
SPRING_SEED = 7


def _graph(inst: Instance):
    """The two-hop topology: nodes ``("s", u)`` and ``("k", i)``."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(("s", u) for u in range(1, inst.U + 1))
    g.add_nodes_from(("k", i) for i in range(inst.K))
    g.add_edges_from((("s", a), ("s", b)) for a in range(1, inst.U + 1)
                     for b in range(a + 1, inst.U + 1))
    g.add_edges_from((("k", i), ("s", inst.server_of(i))) for i in range(inst.K))
    return g


#: A point of the figure's plane, and a line between two points.
Point = tuple[float, float]
Segment = tuple[Point, Point]
#: Where each node goes: ``("s", u)`` for server ``u`` (1-based), ``("k", i)`` for user bit ``i``.
Positions = dict[tuple[str, int], Point]


def _radial(inst: Instance) -> Positions:
    """Servers evenly on a circle of radius 0.45 (server 1 on top, clockwise), so that
    the figure is symmetric; users on the unit circle, each server's users fanned out
    around it at one common spacing, small enough that neighbouring fans never meet."""
    K, U, V = inst.K, inst.U, inst.servers
    sector = 2 * math.pi / U
    step = 2 * math.pi / (K + U)
    if U > 1:
        step = min(step, min(2 * sector / (V[u] + V[(u + 1) % U] + 1) for u in range(U)))
    pos: Positions = {}
    for u, v in enumerate(V, 1):
        centre = math.pi / 2 - sector * (u - 1)
        pos[("s", u)] = (0.45 * math.cos(centre), 0.45 * math.sin(centre))
        for j in range(v):
            a = centre - step * (j - (v - 1) / 2)
            pos[("k", inst.index(u, j + 1))] = (math.cos(a), math.sin(a))
    return pos


def positions(inst: Instance, layout: str) -> Positions:
    import networkx as nx

    if layout == Layout.RADIAL:
        return _radial(inst)
    g = _graph(inst)
    pos = nx.spring_layout(g, seed=SPRING_SEED, k=1.6 / math.sqrt(len(g)), iterations=300)
    scale = max(math.hypot(x, y) for x, y in pos.values()) or 1.0
    return {k: (float(x) / scale, float(y) / scale) for k, (x, y) in pos.items()}


def nearest(points: list[tuple[float, float]]) -> list[float]:
    out = []
    for i, (x, y) in enumerate(points):
        out.append(min((math.hypot(x - a, y - b) for j, (a, b) in enumerate(points) if j != i),
                       default=1.0))
    return out
