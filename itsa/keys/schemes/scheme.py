"""Linear key schemes: the data model and the public JSON format.

A scheme gives every user ``(u, v)`` the key ``Z_{u,v} = F_{u,v} N``: an
``L x d`` matrix ``F_{u,v}`` over ``F_q`` times the vector ``N`` of ``d``
i.i.d. uniform key symbols (``d = key_symbols``). Messages are
``X_{u,v} = W_{u,v} + Z_{u,v}`` and ``Y_u = Σ_v X_{u,v}`` (docs/model.md §1, §4).

JSON format (users absent from ``keys`` have key 0; ``construction`` and
``seed`` are optional and may be ``null``)::

    {"field": 7, "L": 1, "key_symbols": 2,
     "keys": {"1,1": [[1, 0]], "1,3": [[0, 1]], "2,1": [[6, 6]]},
     "construction": "condition-2", "seed": 0}
"""

from __future__ import annotations

import dataclasses as dc
import json
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from itsa._util.checks import is_whole, whole_number
from itsa._util.checks import unknown as unknown_choice
from itsa._util.display import Displayable, user
from itsa._util.files import atomic_writer, read_text
from itsa.exceptions import InvalidInstance, InvalidOption, InvalidScheme, excerpt
from itsa.keys.model.instance import Instance
from itsa.keys.schemes.linalg import check_field

TOP_KEYS = ("field", "L", "key_symbols", "keys", "construction", "seed", "instance")
#: Largest ``L`` (input symbols per user) of a scheme.
MAX_L = 4096
#: Largest ``key_symbols`` ``d``.
MAX_KEY_SYMBOLS = 65_536
#: Most key-matrix entries, users with a key times ``L·d``.
MAX_KEY_ENTRIES = 10_000_000
#: Largest scheme file (bytes), checked before reading.
MAX_SCHEME_BYTES = 64 * 2**20
Matrix = tuple[tuple[int, ...], ...]


@dc.dataclass(frozen=True, repr=False)
class Scheme(Displayable):
    """A linear key scheme over a prime field (docs/model.md §4).

    Parameters
    ----------
    field : int
        The prime ``q``.
    L : int
        Input symbols per user, ``>= 1``.
    key_symbols : int
        ``d``, the length of the source key ``N``, ``>= 0``.
    keys : mapping or iterable of pairs
        User bit index -> ``L`` rows of ``d`` integers. Entries are reduced
        mod ``q``; all-zero matrices are dropped (an absent user has key 0).
        Stored as a tuple of ``(index, matrix)`` pairs sorted by index.
    construction : str, optional
        Name of the construction that produced the scheme (keyword only, like ``seed``).
    seed : int, optional
        Random seed of the construction.

    Raises
    ------
    InvalidScheme
        On a non-prime field, bad sizes, or badly shaped matrices.

    Examples
    --------
    >>> s = Scheme(7, 1, 2, {0: [[1, 0]], 2: [[0, 1]], 3: [[-1, -1]]})
    >>> s.key_matrix(3).tolist(), s.rate
    ([[6, 6]], Fraction(2, 1))
    >>> s.key_matrix(1).tolist()
    [[0, 0]]
    >>> s
    <Scheme over F_7: L = 1, 2 key symbols, rate 2, keys on 3 users>
    """

    field: int
    L: int
    key_symbols: int
    keys: Any = ()
    _: dc.KW_ONLY                       # the scheme is (q, L, d, keys); its provenance is named
    construction: str | None = None
    seed: int | None = None

    def __post_init__(self):
        check_field(self.field, InvalidScheme)
        whole_number("L", self.L, minimum=1, error=InvalidScheme)
        whole_number("key_symbols", self.key_symbols, minimum=0, error=InvalidScheme)
        if self.construction is not None and not isinstance(self.construction, str):
            raise InvalidScheme(f"construction must be a string or null, not {excerpt(self.construction)}")
        if self.seed is not None:
            whole_number("seed", self.seed, minimum=None, error=InvalidScheme)
        items = list(self.keys.items() if isinstance(self.keys, Mapping) else self.keys)
        check_sizes(self.L, self.key_symbols, len(items))
        q, out, seen = self.field, [], set()
        for i, mat in items:
            if not is_whole(i) or i < 0:
                raise InvalidScheme(f"key owner {excerpt(i)} is not a user bit index")
            if i in seen:
                raise InvalidScheme(f"user index {i} has two keys")
            seen.add(i)
            norm = _normalise_matrix(mat, self.L, self.key_symbols, q, f"key of user index {i}")
            if any(any(r) for r in norm):
                out.append((i, norm))
        object.__setattr__(self, "keys", tuple(sorted(out)))

    # -- derived -----------------------------------------------------------
    @property
    def rate(self) -> Fraction:
        """Source key rate ``R_{ZΣ} = key_symbols / L`` (exact)."""
        return Fraction(self.key_symbols, self.L)

    def trimmed(self) -> Scheme:
        """The same keys on as few key symbols as they use: ``key_symbols`` becomes their rank.

        With ``M`` all keys stacked (``K·L × d``), ``Z_i = F_i N = F'_i N'`` where
        ``N'`` is ``N`` seen through the echelon rows of ``M`` (uniform, since
        they are independent) and ``F'_i`` is ``F_i`` on the pivot columns. The
        keys' joint distribution is unchanged, so the verifier's verdict is too;
        the rate drops to ``rank(M) / L``, and ``construction`` (if any) gains
        `` (trimmed)``. Returns ``self`` when nothing drops.

        >>> s = Scheme(7, 1, 3, {0: [[1, 0, 0]], 1: [[6, 0, 0]]})
        >>> s.trimmed().key_symbols, s.trimmed().rate
        (1, Fraction(1, 1))
        """
        from itsa.keys.schemes.linalg import pivot_columns

        stacked = [row for _, mat in self.keys for row in mat]
        keep = pivot_columns(stacked, self.field) if stacked else []
        if len(keep) == self.key_symbols:
            return self
        keys = {i: [[row[c] for c in keep] for row in mat] for i, mat in self.keys}
        made = None if self.construction is None else f"{self.construction} (trimmed)"
        return dc.replace(self, key_symbols=len(keep), keys=keys, construction=made)

    @property
    def key_map(self) -> Mapping[int, Matrix]:
        """Read-only mapping user index -> key matrix (nonzero keys only)."""
        return MappingProxyType(dict(self.keys))

    @property
    def key_users(self) -> tuple[int, ...]:
        """Indices of the users with a nonzero key."""
        return tuple(i for i, _ in self.keys)

    def key_matrix(self, i: int) -> np.ndarray:
        """``F_i`` as a fresh ``L x d`` int64 array (zeros if user ``i`` has no key)."""
        mat = dict(self.keys).get(i)
        if mat is None:
            return np.zeros((self.L, self.key_symbols), dtype=np.int64)
        return np.array(mat, dtype=np.int64).reshape(self.L, self.key_symbols)

    # -- display -----------------------------------------------------------
    def headline(self) -> str:
        made = f"{self.construction} " if self.construction else ""
        return (f"{made}over F_{self.field}: L = {self.L}, {self.key_symbols} key symbols, "
                f"rate {self.rate}, keys on {len(self.keys)} users")

    def rows(self) -> list[tuple[str, str]]:
        """Keys by user bit index (a scheme does not know its instance; see ``describe``)."""
        return [(f"user #{i}", "; ".join(" ".join(map(str, r)) for r in mat)) for i, mat in self.keys]

    def key_rows(self, instance: Instance) -> list[tuple[str, str]]:
        """Each user ``(u,v)`` with its key matrix ``F_(u,v)`` (``Z_(u,v) = F_(u,v) · N``): one line per symbol, ``0`` when it has no key.

        >>> from itsa import examples
        >>> examples.scheme("example-1").key_rows(examples.example1())[:2]
        [('(1,1)', '  1   0'), ('(1,2)', '0')]
        """
        rows = []
        for i in range(instance.K):
            mat = self.key_matrix(i)
            text = "0" if not mat.any() else "\n".join(" ".join(f"{x:>3}" for x in r) for r in mat.tolist())
            rows.append((user(*instance.label(i)), text))
        return rows

    def describe(self, instance: Instance) -> str:
        """Every key as ``Z(u,v) = F N`` lines, users written ``(u,v)``.

        >>> from itsa import examples
        >>> print(examples.scheme("example-1").describe(examples.example1()))
        Z(1,1) = [1 0] N
        Z(1,3) = [0 1] N
        Z(2,1) = [6 6] N
        """
        return "\n".join(f"Z{user(*instance.label(i))} = "
                         + "; ".join("[" + " ".join(map(str, r)) + "]" for r in mat) + " N"
                         for i, mat in self.keys)

    def check_fits(self, instance: Instance) -> None:
        """Raise :class:`InvalidScheme` if a key belongs to a user outside ``instance``."""
        for i, _ in self.keys:
            if i >= instance.K:
                raise InvalidScheme(
                    f"the scheme gives a key to user index {i}, but the instance has only "
                    f"{instance.K} users")


def check_sizes(L: int, d: int, users: int) -> None:
    """Refuse a scheme beyond :data:`MAX_L`, :data:`MAX_KEY_SYMBOLS` or :data:`MAX_KEY_ENTRIES`.

    Called before any matrix is read or allocated.

    >>> check_sizes(10**8, 1, 1)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidScheme: L = 100000000 exceeds the limit of 4096
    """
    if L > MAX_L:
        raise InvalidScheme(f"L = {excerpt(L, 30)} exceeds the limit of {MAX_L}")
    if d > MAX_KEY_SYMBOLS:
        raise InvalidScheme(f"key_symbols = {excerpt(d, 30)} exceeds the limit of {MAX_KEY_SYMBOLS}")
    if users * L * d > MAX_KEY_ENTRIES:
        raise InvalidScheme(f"{users} key matrices of {L} x {d} entries exceed the limit of "
                            f"{MAX_KEY_ENTRIES:,} entries")


def _normalise_matrix(mat, L: int, d: int, q: int, where: str) -> Matrix:
    if not isinstance(mat, (list, tuple, np.ndarray)):
        raise InvalidScheme(f"{where}: must be a list of {L} rows, not {_kind(mat)}")
    rows = list(mat)
    if len(rows) != L:
        raise InvalidScheme(f"{where}: has {len(rows)} rows, expected L = {L}")
    out = []
    for r, row in enumerate(rows, 1):
        if not isinstance(row, (list, tuple, np.ndarray)):
            raise InvalidScheme(f"{where}: row {r} must be a list of {d} integers, not {_kind(row)}")
        row = list(row)
        if len(row) != d:
            raise InvalidScheme(f"{where}: row {r} has {len(row)} entries, expected key_symbols = {d}")
        vals = []
        for c, x in enumerate(row, 1):
            if isinstance(x, np.integer):
                x = int(x)
            if not is_whole(x):
                raise InvalidScheme(f"{where}: entry ({r}, {c}) = {excerpt(x)} is not an integer")
            vals.append(x % q)
        out.append(tuple(vals))
    return tuple(out)


def _kind(x) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", type(None): "null"}.get(
        type(x), type(x).__name__)


def _parse_user(label) -> tuple[int, int]:
    if not isinstance(label, str):
        raise InvalidScheme(f"keys: user label {excerpt(label)} must be a string \"u,v\"")
    parts = label.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return int(parts[0].strip()), int(parts[1].strip())
    except ValueError:
        raise InvalidScheme(f"keys: user label {excerpt(label)} is not of the form \"u,v\"") from None


def scheme_from_dict(instance: Instance, data: Any, field: int | None = None) -> Scheme:
    """Build a :class:`Scheme` from the parsed JSON structure.

    Parameters
    ----------
    instance : Instance
        Gives the topology the ``"u,v"`` labels must fit.
    data : object
        The parsed JSON.
    field : int, optional
        Read the integer entries over this prime instead of ``data["field"]``
        (the file's ``field`` must still be present and valid).

    Examples
    --------
    >>> inst = Instance.from_users([2, 1, 1], [[(1, 1)]], [[]])
    >>> s = scheme_from_dict(inst, {"field": 5, "L": 1, "key_symbols": 1,
    ...     "keys": {"1,1": [[1]], "3,1": [[-1]]}})
    >>> s.keys
    ((0, ((1,),)), (3, ((4,),)))
    """
    if not isinstance(data, dict):
        raise InvalidScheme(f"the top level must be a JSON object, not {_kind(data)}")
    unknown = sorted(map(str, set(data) - set(TOP_KEYS)))
    if unknown:
        raise InvalidScheme(unknown_choice("key", unknown[0], TOP_KEYS))
    for key in ("field", "L", "key_symbols", "keys"):
        if key not in data:
            raise InvalidScheme(f"missing key {key!r}")
    _check_instance(instance, data.get("instance"))
    q, L, d = data["field"], data["L"], data["key_symbols"]
    check_field(q, InvalidScheme)
    if field is not None:
        check_field(field, InvalidOption, "requested ")
        q = field
    whole_number("L", L, minimum=1, error=InvalidScheme)
    whole_number("key_symbols", d, minimum=0, error=InvalidScheme)
    keys = data["keys"]
    if not isinstance(keys, dict):
        raise InvalidScheme(f"keys: must be a mapping \"u,v\" -> matrix, not {_kind(keys)}")
    check_sizes(L, d, min(len(keys), instance.K))
    mats: dict[int, Matrix] = {}
    for label, mat in keys.items():
        u, v = _parse_user(label)
        try:
            i = instance.index(u, v)
        except InvalidInstance:
            raise InvalidScheme(
                f"keys: unknown user {excerpt(label)}: outside the topology "
                f"{excerpt(list(instance.servers))}") from None
        if i in mats:
            raise InvalidScheme(f"keys: user ({u},{v}) is listed twice")
        mats[i] = _normalise_matrix(mat, L, d, q, f"keys: user {excerpt(label)}")
    return Scheme(field=q, L=L, key_symbols=d, keys=mats, construction=data.get("construction"), seed=data.get("seed"))


def _check_instance(instance: Instance, recorded: Any) -> None:
    """Refuse a scheme file made for another instance (files without the record are read as they are)."""
    if recorded is None:
        return
    if not isinstance(recorded, dict) or not isinstance(recorded.get("fingerprint"), str):
        raise InvalidScheme('instance: must be {"name": ..., "fingerprint": "..."}')
    if recorded["fingerprint"] != instance.fingerprint:
        theirs = excerpt(recorded.get("name") or recorded["fingerprint"], 60)
        raise InvalidScheme(f"the scheme was made for instance {theirs} (fingerprint {excerpt(recorded['fingerprint'], 40)}), "
                            f"not for {instance.name or 'this instance'} (fingerprint {instance.fingerprint})")


def scheme_to_dict(instance: Instance, scheme: Scheme) -> dict:
    """The JSON structure of ``scheme`` (inverse of :func:`scheme_from_dict`).

    Examples
    --------
    >>> inst = Instance.from_users([2, 1, 1], [[(1, 1)]], [[]])
    >>> scheme_to_dict(inst, Scheme(5, 1, 1, {0: [[1]], 3: [[4]]}))["keys"]
    {'1,1': [[1]], '3,1': [[4]]}
    """
    scheme.check_fits(instance)
    keys = {}
    for i, mat in scheme.keys:
        u, v = instance.label(i)
        keys[f"{u},{v}"] = [list(r) for r in mat]
    return {"field": scheme.field, "L": scheme.L, "key_symbols": scheme.key_symbols,
            "keys": keys, "construction": scheme.construction, "seed": scheme.seed,
            "instance": {"name": instance.name, "fingerprint": instance.fingerprint}}


def dumps_scheme(instance: Instance, scheme: Scheme) -> str:
    """The scheme as JSON text, one key matrix per line."""
    data = scheme_to_dict(instance, scheme)
    lines = ["{"]
    for k in ("field", "L", "key_symbols"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(data[k])},")
    lines.append('  "keys": {')
    entries = [f"    {json.dumps(lab)}: {json.dumps(mat)}" for lab, mat in data["keys"].items()]
    lines.append(",\n".join(entries))
    lines.append("  },")
    lines.append(f'  "construction": {json.dumps(data["construction"])},')
    lines.append(f'  "seed": {json.dumps(data["seed"])},')
    lines.append(f'  "instance": {json.dumps(data["instance"])}')
    lines.append("}")
    return "\n".join(x for x in lines if x) + "\n"


def load_scheme(instance: Instance, path: str | Path, field: int | None = None) -> Scheme:
    """Read a scheme for ``instance`` from a JSON file.

    ``field``, if given, re-reads the file's integers mod that prime (see
    :func:`scheme_from_dict`).

    Raises
    ------
    InvalidScheme
        One line naming the file and the problem.
    """
    path = Path(path)
    text = read_text(path, InvalidScheme, max_bytes=MAX_SCHEME_BYTES)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidScheme(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno}, "
                            f"column {exc.colno})") from None
    except ValueError as exc:       # an integer beyond Python's str-conversion limit
        raise InvalidScheme(f"{path}: not readable JSON: {' '.join(str(exc).split())[:120]}") from None
    except RecursionError:          # the parser's own nesting limit, before any of ours
        raise InvalidScheme(f"{path}: JSON nested too deeply") from None
    try:
        return scheme_from_dict(instance, data, field=field)
    except InvalidScheme as exc:
        raise InvalidScheme(f"{path}: {exc}") from None


def save_scheme(instance: Instance, scheme: Scheme, path: str | Path) -> None:
    """Write ``scheme`` as JSON, atomically (a temporary file, then a rename).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> inst = Instance.from_users([2, 1, 1], [[(1, 1)]], [[]])
    >>> s = Scheme(5, 1, 1, {0: [[1]], 3: [[4]]})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "s.json"
    ...     save_scheme(inst, s, p)
    ...     load_scheme(inst, p) == s
    True
    """
    text = dumps_scheme(instance, scheme)
    with atomic_writer(path) as fh:
        fh.write(text)
