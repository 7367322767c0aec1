"""Reading instances from YAML (the public file format; see README).

Every problem with the input becomes one :class:`InvalidInstance` whose
message names the file and the place in it.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from itsa._util.bitset import mask_of
from itsa._util.checks import is_whole, whole_number
from itsa._util.checks import unknown as unknown_choice
from itsa._util.files import read_text
from itsa._util.safe_yaml import MAX_BYTES, load_yaml
from itsa.exceptions import InvalidInstance, excerpt
from itsa.keys.model.instance import MAX_USERS, Instance
from itsa.keys.model.quantities import check_size

TOP_KEYS = {"name", "servers", "security_sets", "collusion_sets"}
GENERATOR_KEYS = {"subsets_of", "min_size", "max_size", "all_users_up_to"}
MAX_FAMILY = 2_000_000
#: Longest instance name (characters).
MAX_NAME = 200


def load_instance(path: str | Path) -> Instance:
    """Read an instance from a YAML file.

    Raises
    ------
    InvalidInstance
        If the file is missing, unreadable, not YAML, beyond a limit of
        :mod:`itsa._util.safe_yaml` (size, nesting, values after alias expansion,
        duplicate keys), or not a valid instance; the message names the file
        and quotes at most a short excerpt of the offending value.
    """
    path = Path(path)
    text = read_text(path, InvalidInstance, max_bytes=MAX_BYTES)
    try:
        return parse_instance(load_yaml(text, InvalidInstance), default_name=path.stem)
    except InvalidInstance as exc:
        raise InvalidInstance(f"{path}: {exc}") from None


def parse_instance(data: Any, default_name: str | None = None) -> Instance:
    """Build an :class:`Instance` from the parsed YAML structure.

    Examples
    --------
    >>> inst = parse_instance({"servers": [2, 1, 1], "security_sets": ["all"],
    ...                        "collusion_sets": {"all_users_up_to": 1}})
    >>> inst.M, inst.N
    (1, 5)
    """
    if not isinstance(data, dict):
        raise InvalidInstance(f"the top level must be a mapping, not {_kind(data)}")
    unknown = sorted(map(str, set(data) - TOP_KEYS))
    if unknown:
        raise InvalidInstance(unknown_choice("key", unknown[0], sorted(TOP_KEYS)))
    for key in ("servers", "security_sets", "collusion_sets"):
        if key not in data:
            raise InvalidInstance(f"missing key {key!r}")
    name = data.get("name", default_name)
    if name is not None and not isinstance(name, (str, int)):
        raise InvalidInstance(f"name: must be a string, not {_kind(name)}")
    if name is not None and len(str(name)) > MAX_NAME:
        raise InvalidInstance(f"name: {len(str(name)):,} characters (limit {MAX_NAME}): {excerpt(name)}")
    servers = data["servers"]
    if not isinstance(servers, list) or not servers:
        raise InvalidInstance("servers: must be a non-empty list of user counts")
    for u, v in enumerate(servers, 1):
        whole_number(f"servers: server {u}", v, minimum=None, error=InvalidInstance)
        if v < 1:
            raise InvalidInstance(f"servers: server {u} has {v} users; each server needs at least 1")
    if sum(servers) > MAX_USERS:
        raise InvalidInstance(f"servers: {excerpt(sum(servers), 30)} users in all; "
                              f"itsa handles at most {MAX_USERS}")
    topo = Instance(tuple(servers), (0,), (0,))
    dups: list[tuple[str, int, int]] = []
    fams = [_family(data[key], key, topo, dups) for key in ("security_sets", "collusion_sets")]
    instance = Instance(topo.servers, fams[0], fams[1], None if name is None else str(name),
                        _duplicate_warning(dups))
    check_size(instance)
    return instance


def _duplicate_warning(dups: list[tuple[str, int, int]]) -> tuple[str, ...]:
    """One warning for every duplicate user merged, however many there are."""
    if not dups:
        return ()
    where, u, v = dups[0]
    n_sets = len({w for w, _, _ in dups})
    return (f"{len(dups)} duplicate user(s) merged in {n_sets} set(s) (first: {where}: [{u}, {v}])",)


def _family(spec: Any, where: str, topo: Instance, dups: list) -> tuple[int, ...]:
    if isinstance(spec, list):
        if not spec:
            raise InvalidInstance(f"{where}: the family is empty")
        return tuple(_set(s, f"{where}[{i}]", topo, dups) for i, s in enumerate(spec))
    if isinstance(spec, dict):
        unknown = sorted(map(str, set(spec) - GENERATOR_KEYS))
        if unknown:
            raise InvalidInstance(f"{where}: unknown generator key {excerpt(unknown[0])}")
        if "all_users_up_to" in spec:
            if set(spec) != {"all_users_up_to"}:
                raise InvalidInstance(f"{where}: all_users_up_to takes no other keys")
            t = _size(spec["all_users_up_to"], f"{where}.all_users_up_to")
            return _generate(range(topo.K), 0, min(t, topo.K), where)
        if "subsets_of" in spec:
            base = _set(spec["subsets_of"], f"{where}.subsets_of", topo, dups, allow_all=False)
            idx = [i for i in range(topo.K) if base >> i & 1]
            lo = _size(spec.get("min_size", 0), f"{where}.min_size")
            hi = _size(spec.get("max_size", len(idx)), f"{where}.max_size")
            if lo > hi:
                raise InvalidInstance(f"{where}: min_size {excerpt(lo, 20)} > max_size {excerpt(hi, 20)}")
            fam = _generate(idx, lo, min(hi, len(idx)), where)
            if not fam:
                raise InvalidInstance(f"{where}: no subset of {len(idx)} users has size in [{excerpt(lo, 20)}, {excerpt(hi, 20)}]")
            return fam
        raise InvalidInstance(f"{where}: a generator needs 'subsets_of' or 'all_users_up_to'")
    raise InvalidInstance(f"{where}: a family is a list of sets or a generator mapping, not {_kind(spec)}")


def _generate(idx, lo: int, hi: int, where: str) -> tuple[int, ...]:
    """All subsets of ``idx`` with size in ``[lo, hi]``: by size, then lexicographically."""
    from math import comb

    total = sum(comb(len(idx), r) for r in range(lo, hi + 1))
    if total > MAX_FAMILY:
        raise InvalidInstance(f"{where}: the generator gives {total} sets (limit {MAX_FAMILY})")
    return tuple(mask_of(c) for r in range(lo, hi + 1) for c in itertools.combinations(idx, r))


def _set(spec: Any, where: str, topo: Instance, dups: list, allow_all: bool = True) -> int:
    if allow_all and spec == "all":
        return topo.full_mask
    if not isinstance(spec, list):
        hint = " or the string 'all'" if allow_all else ""
        raise InvalidInstance(f"{where}: a set is a list of users [u, v]{hint}, not {_kind(spec)}")
    mask = 0
    for j, user in enumerate(spec):
        if not (isinstance(user, list) and len(user) == 2 and all(map(is_whole, user))):
            raise InvalidInstance(f"{where}[{j}]: a user is a pair [u, v] of whole numbers, not {excerpt(user)}")
        u, v = user
        if not (1 <= u <= topo.U) or not (1 <= v <= topo.servers[u - 1]):
            raise InvalidInstance(f"{where}[{j}]: user [{excerpt(u, 20)}, {excerpt(v, 20)}] is outside "
                                  f"the topology (servers: {excerpt(list(topo.servers))})")
        bit = 1 << topo.index(u, v)
        if mask & bit:
            dups.append((where, u, v))
        mask |= bit
    return mask


def _size(x: Any, where: str) -> int:
    whole_number(where, x, minimum=0, error=InvalidInstance)
    return x




def _kind(x: Any) -> str:
    return "nothing" if x is None else f"a {type(x).__name__}"
