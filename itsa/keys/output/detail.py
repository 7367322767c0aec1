"""The per-configuration table of an analysis, selected and streamed in bounded memory.

An instance within the limits can have tens of millions of configurations
``(u, m, n)``; their table is produced in chunks of :data:`CHUNK` rows, never
as a whole, and user sets are formatted once per distinct set (a bounded
cache). :func:`select` picks the rows (every one, the critical ones, those
attaining ``e*``, or one configuration); :func:`iter_rows` yields plain dicts;
:func:`iter_json_rows` yields the same rows as JSON text, faster.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from itsa._util.checks import unknown
from itsa._util.display import Kind
from itsa.exceptions import InvalidOption
from itsa.keys.bounds.analysis import Analysis


#: ``only=`` choices of :func:`select`.
class RowFilter(Kind):
    """Which configurations ``analyze --detail`` lists: the critical ones, or those with ``c = e*``."""

    CRITICAL = "critical"
    E_STAR = "e-star"


ONLY = tuple(RowFilter)
#: Rows decoded per NumPy pass.
CHUNK = 1 << 15
#: Most rows a caller should print without asking for them explicitly (``--force``).
MAX_ROWS = 1_000_000
_CACHE = 1 << 16


def select(a: Analysis, only: str | None = None, config=None, max_rows: int | None = None) -> np.ndarray:
    """Boolean array ``[u-1, m-1, n-1]`` of the rows kept.

    Parameters
    ----------
    only : {"critical", "e-star"}, optional
        Keep the critical configurations (``|A| = |S̄|``) or those with ``c = e*``.
    config : str or (u, m, n), optional
        Keep this one configuration (1-based, as ``itsa.keys.output.draw.parse_config`` reads it).
    max_rows : int, optional
        Raise :class:`~itsa.InvalidOption` when more rows than this are kept
        (the CLI passes :data:`MAX_ROWS` unless ``--force``).

    Examples
    --------
    >>> from itsa import examples, analyze
    >>> a = analyze(examples.load("example-1"))
    >>> int(select(a).sum()), int(select(a, "e-star").sum()), int(select(a, config="1,4,16").sum())
    (192, 8, 1)
    """
    conf = a.configurations
    if only is None:
        keep = np.ones(conf.shape, dtype=bool)
    elif only == RowFilter.CRITICAL:
        keep = conf.critical.copy()
    elif only == RowFilter.E_STAR:
        keep = conf.c == a.e_star
    else:
        raise InvalidOption(unknown("row filter", only, ONLY))
    if config is not None:
        from itsa.keys.output.draw import parse_config

        u, m, n = parse_config(config, a.instance)
        one = np.zeros(conf.shape, dtype=bool)
        one[u - 1, m - 1, n - 1] = keep[u - 1, m - 1, n - 1]
        keep = one
    rows = int(keep.sum())
    if max_rows is not None and rows > max_rows:
        raise InvalidOption(f"--detail would print {rows:,} configurations (limit {max_rows:,}): "
                            "select with --only critical|e-star or --config u,m,n, or pass --force")
    return keep


def _chunks(a: Analysis, keep: np.ndarray):
    conf = a.configurations
    shape = conf.shape
    flat = keep.reshape(-1)
    D = conf.D.reshape(-1, conf.D.shape[-1])
    c, crit = conf.c.reshape(-1), conf.critical.reshape(-1)
    for lo in range(0, flat.size, CHUNK):
        idx = lo + np.flatnonzero(flat[lo:lo + CHUNK])
        if not len(idx):
            continue
        u, m, n = np.unravel_index(idx, shape)
        words = D[idx]
        if words.shape[1] == 1:
            masks = words[:, 0].tolist()
        else:
            masks = [int.from_bytes(r.tobytes(), "little") for r in words.astype("<u8")]
        in_U = np.packbits(conf.in_U[:, m, n].T, axis=1, bitorder="little")
        in_F = np.packbits(conf.in_F[:, m, n].T, axis=1, bitorder="little")
        yield (zip((u + 1).tolist(), (m + 1).tolist(), (n + 1).tolist(), masks,
                   map(bytes, in_U), map(bytes, in_F), c[idx].tolist(), crit[idx].tolist()))


class _Memo(dict):
    """A dict that forgets everything when it grows past ``_CACHE`` entries."""

    def get_or(self, key, make):
        val = self.get(key)
        if val is None:
            if len(self) >= _CACHE:
                self.clear()
            val = self[key] = make(key)
        return val


def _servers(bits: bytes) -> list[int]:
    return [i + 1 for i in np.flatnonzero(np.unpackbits(np.frombuffer(bits, np.uint8),
                                                        bitorder="little")).tolist()]


def iter_rows(a: Analysis, keep: np.ndarray | None = None) -> Iterator[dict[str, Any]]:
    """One dict per kept configuration, in index order (``u``, then ``m``, then ``n``).

    Keys: ``u, m, n, U_mn, F_mn, D, A, c, critical``; user sets are sorted
    lists of ``[u, v]``, servers 1-based lists.

    >>> from itsa import examples, analyze
    >>> a = analyze(examples.load("example-1"))
    >>> row = next(iter_rows(a, select(a, config="1,4,16")))
    >>> row["U_mn"], row["F_mn"], row["A"], row["c"]
    ([2], [3], [[1, 1], [2, 1]], 2)
    """
    inst, sbar = a.instance, a.S_bar
    keep = select(a) if keep is None else keep
    servers = _Memo()

    def fmt(mask):
        return [list(p) for p in inst.labels(mask)]

    for chunk in _chunks(a, keep):
        for u, m, n, D, iu, jf, c, crit in chunk:
            yield {"u": u, "m": m, "n": n,
                   "U_mn": list(servers.get_or(iu, _servers)), "F_mn": list(servers.get_or(jf, _servers)),
                   "D": fmt(D), "A": fmt(D & sbar), "c": c, "critical": crit}


def iter_json_rows(a: Analysis, keep: np.ndarray | None = None) -> Iterator[str]:
    """The rows of :func:`iter_rows` as ``json.dumps`` text, one string each.

    >>> from itsa import examples, analyze
    >>> a = analyze(examples.load("example-1"))
    >>> [json.loads(s) for s in iter_json_rows(a)] == list(iter_rows(a))
    True
    """
    inst, sbar = a.instance, a.S_bar
    keep = select(a) if keep is None else keep
    servers, users = _Memo(), _Memo()

    def fmt_servers(bits):
        return json.dumps(_servers(bits))

    def fmt_users(mask):
        return json.dumps([list(p) for p in inst.labels(mask)])

    for chunk in _chunks(a, keep):
        for u, m, n, D, iu, jf, c, crit in chunk:
            yield (f'{{"u": {u}, "m": {m}, "n": {n}, "U_mn": {servers.get_or(iu, fmt_servers)}, '
                   f'"F_mn": {servers.get_or(jf, fmt_servers)}, "D": {users.get_or(D, fmt_users)}, '
                   f'"A": {users.get_or(D & sbar, fmt_users)}, "c": {c}, '
                   f'"critical": {"true" if crit else "false"}}}')
