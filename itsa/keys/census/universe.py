"""The four universes of a census spec: grid, random, exhaustive, files.

Each yields :class:`Item` s in a fixed order, one per
isomorphism class: an instance whose canonical key was already listed is
dropped (a grid point with ``t >= K`` repeats ``t = K``; two random draws may
be isomorphic; two files may hold the same instance).
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass
from math import comb
from pathlib import Path

from itsa._util.checks import read_whole
from itsa._util.checks import unknown as unknown_choice
from itsa._util.files import is_regular_file
from itsa.exceptions import InvalidInput, InvalidSpec, ItsaError
from itsa.keys.census.canonical import canonical_key
from itsa.keys.census.work import text_key
from itsa.keys.model.instance import MAX_USERS, Instance
from itsa.keys.model.io import parse_instance

__all__ = ["census_items", "check_params", "instance_yaml"]

#: Largest number of candidate instances an exhaustive universe may enumerate (and of instances a random one draws).
MAX_CANDIDATES = 2_000_000
#: Most values a list or a range ``a..b`` of a spec may hold (a grid of more points is not a census one runs).
MAX_VALUES = 10_000
#: Largest set count (``max_security_sets``, ``max_collusion_sets``) a random universe draws up to.
MAX_SETS = 1000
#: Most random draws (users placed and sets drawn, summed over the instances) a random universe may make before
#: any work: its instances are listed up front, so this bounds the time and memory of listing them.
MAX_DRAWS = 5 * 10**7
GRID_KEYS = {"U", "V", "t", "servers"}
RANDOM_KEYS = {"n", "seed", "U", "max_users", "max_security_sets", "max_collusion_sets",
               "density", "regimes", "full_collusion"}
EXHAUSTIVE_KEYS = {"U", "K", "M", "N"}


@dataclass(frozen=True)
class Item:
    """One instance of a census: its canonical key, name, YAML text and origin.

    ``name`` is ``None`` for an instance file that names none (``name: null``).
    """

    key: str
    name: str | None
    text: str
    source: str


@dataclass(frozen=True)
class Universe:
    """What a census spec says of its universe: its kind, its parameters, the seed and base folder."""

    kind: str
    params: dict
    seed: int = 0
    base: str = "."


def instance_yaml(instance: Instance) -> str:
    """The instance as YAML text in the public format (explicit sets).

    >>> from itsa import Instance, parse_instance
    >>> import yaml
    >>> inst = Instance.from_users([2, 1, 1], [[(1, 1), (3, 1)]], [[], [(2, 1)]], name="x")
    >>> print(instance_yaml(inst), end="")
    name: "x"
    servers: [2, 1, 1]
    security_sets:
      - [[1, 1], [3, 1]]
    collusion_sets:
      - []
      - [[2, 1]]
    >>> parse_instance(yaml.safe_load(instance_yaml(inst))) == inst
    True
    """
    def fam(masks):
        return "".join(f"  - {json.dumps([list(p) for p in instance.labels(m)])}\n" for m in masks)
    head = "" if instance.name is None else f"name: {json.dumps(instance.name)}\n"
    return (f"{head}servers: {json.dumps(list(instance.servers))}\n"
            f"security_sets:\n{fam(instance.security_sets)}collusion_sets:\n{fam(instance.collusion_sets)}")


def _values(x, where: str, lo: int = 0, hi: int | None = None) -> list[int]:
    """An int, a list of ints, or a range ``"a..b"`` (inclusive), as a list: at most :data:`MAX_VALUES` values,
    each in ``[lo, hi]``, the range's size checked before it is listed.

    >>> _values("2..4", "U"), _values(3, "U")
    ([2, 3, 4], [3])
    >>> _values("1..1000000000", "U")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidSpec: U: at most 10000 values (a list or a range a..b), not '1..1000000000'
    """
    from itsa.exceptions import excerpt

    if isinstance(x, str) and ".." in x:
        a, _, b = x.partition("..")
        try:
            low, high = read_whole(where, a, minimum=0), read_whole(where, b, minimum=0)
        except InvalidInput:
            raise InvalidSpec(f"{where}: {excerpt(x)} is not a range a..b") from None
        if high - low + 1 > MAX_VALUES:
            raise InvalidSpec(f"{where}: at most {MAX_VALUES} values (a list or a range a..b), not {excerpt(x)}")
        x = list(range(low, high + 1))
    vals = x if isinstance(x, list) else [x]
    if len(vals) > MAX_VALUES:
        raise InvalidSpec(f"{where}: at most {MAX_VALUES} values (a list or a range a..b), not {len(vals):,}")
    bound = f">= {lo}" if hi is None else f"in {lo}..{hi}"
    if not vals or any(isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi)
                       for v in vals):
        raise InvalidSpec(f"{where}: expected whole numbers {bound} (an int, a list, or 'a..b'), got {excerpt(x)}")
    return vals


def _check_keys(params, allowed: set, where: str) -> dict:
    if not isinstance(params, dict):
        raise InvalidSpec(f"{where}: expected a mapping with keys among {', '.join(sorted(allowed))}")
    unknown = sorted(map(str, set(params) - allowed))
    if unknown:
        raise InvalidSpec(f"{where}: " + unknown_choice("key", unknown[0], sorted(allowed)))
    return params


def check_params(spec: Universe) -> None:
    """Check the universe's parameters (cheaply: nothing is enumerated)."""
    p, kind = spec.params, spec.kind
    where = f"universe.{kind}"
    if kind == "files":
        _files(spec)
        return
    if kind == "grid":
        _check_keys(p, GRID_KEYS, where)
        if "servers" in p:
            if "U" in p or "V" in p:
                raise InvalidSpec(f"{where}: give either servers or U and V")
            servers = p["servers"]
            if not isinstance(servers, list) or not all(isinstance(s, list) for s in servers):
                raise InvalidSpec(f"{where}.servers: a list of server lists such as [[2, 1, 1]]")
            if len(servers) > MAX_VALUES:
                raise InvalidSpec(f"{where}.servers: at most {MAX_VALUES} server lists, not {len(servers):,}")
            for s in servers:
                _values(s, f"{where}.servers", lo=1, hi=MAX_USERS)
        else:
            for k in ("U", "V"):
                if k not in p:
                    raise InvalidSpec(f"{where}: missing {k}")
                _values(p[k], f"{where}.{k}", lo=1, hi=MAX_USERS)
        _values(p.get("t", 0), f"{where}.t", hi=MAX_USERS)
    elif kind == "random":
        _check_keys(p, RANDOM_KEYS, where)
        if "n" not in p:
            raise InvalidSpec(f"{where}: missing n (how many instances)")
        _random_params(p, where)
    else:
        _check_keys(p, EXHAUSTIVE_KEYS, where)
        for k in EXHAUSTIVE_KEYS:
            if k not in p:
                raise InvalidSpec(f"{where}: missing {k}")
            _values(p[k], f"{where}.{k}", lo=1, hi=MAX_USERS)
        total = _exhaustive_candidates(p)
        if total > MAX_CANDIDATES:
            raise InvalidSpec(f"{where}: {_how_many(total)} candidate instances to enumerate "
                              f"(limit {MAX_CANDIDATES:,}); narrow K, U, M or N")


def _how_many(n: int) -> str:
    """``n`` with thousands separators, or its order of magnitude when it is huge.

    >>> _how_many(123_456), _how_many(10 ** 116 + 7)
    ('123,456', 'more than 10^116')
    """
    return f"{n:,}" if n < 10 ** 15 else f"more than 10^{len(str(n)) - 1}"


def census_items(spec: Universe) -> list[Item]:
    """Every instance of ``spec``'s universe, one per isomorphism class."""
    gen = {"grid": _grid, "random": _random, "exhaustive": _exhaustive, "files": _files}[spec.kind]
    seen, out = set(), []
    for item in gen(spec):
        if item.key not in seen:
            seen.add(item.key)
            out.append(item)
    return out


def _item(inst: Instance, source: str, text: str | None = None) -> Item:
    return Item(canonical_key(inst), inst.name, text or instance_yaml(inst), source)


# -- grid ----------------------------------------------------------------
def _grid(spec: Universe):
    p = spec.params
    ts = _values(p.get("t", 0), "t")
    if "servers" in p:
        tops = [tuple(s) for s in p["servers"]]
    else:
        tops = [(V,) * U for U in _values(p["U"], "U") for V in _values(p["V"], "V")]
    for servers, t in itertools.product(tops, ts):
        if len(set(servers)) == 1:
            name = f"homogeneous-U{len(servers)}-V{servers[0]}-t{t}"
        else:
            name = f"servers-{'-'.join(map(str, servers))}-t{t}"
        text = (f"name: {name}\nservers: {json.dumps(list(servers))}\n"
                f"security_sets: [all]\ncollusion_sets: {{all_users_up_to: {t}}}\n")
        yield _item(parse_instance({"name": name, "servers": list(servers), "security_sets": ["all"],
                                    "collusion_sets": {"all_users_up_to": t}}),
                    f"grid servers={list(servers)} t={t}", text)


# -- random --------------------------------------------------------------
def _random_params(p: dict, where: str) -> dict:
    n = _values(p["n"], f"{where}.n", lo=1, hi=MAX_CANDIDATES)[0]
    Us = _values(p.get("U", "3..4"), f"{where}.U", lo=1, hi=MAX_USERS)
    dens = p.get("density")
    if dens is not None and (isinstance(dens, bool) or not isinstance(dens, (int, float)) or not 0 <= dens <= 1):
        raise InvalidSpec(f"{where}.density: a probability in [0, 1], got {dens!r}")
    regimes = p.get("regimes")
    if regimes is not None:
        from itsa.keys.bounds.analysis import REGIMES

        if not isinstance(regimes, dict) or set(regimes) - set(REGIMES) or not regimes:
            raise InvalidSpec(f"{where}.regimes: a mapping from regimes ({', '.join(REGIMES)}) to shares")
        if any(isinstance(s, bool) or not isinstance(s, (int, float)) or s < 0 for s in regimes.values()) \
                or abs(sum(regimes.values()) - 1) > 1e-9:
            raise InvalidSpec(f"{where}.regimes: shares must be >= 0 and sum to 1")
    seed = p.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidSpec(f"{where}.seed: {seed!r} is not a whole number")
    full = p.get("full_collusion", False)
    if not isinstance(full, bool):
        raise InvalidSpec(f"{where}.full_collusion: true or false, got {full!r}")
    users = _values(p.get("max_users", 5), f"{where}.max_users", lo=1, hi=MAX_USERS)[0]
    max_s = _values(p.get("max_security_sets", 4), f"{where}.max_security_sets", lo=1, hi=MAX_SETS)[0]
    max_t = _values(p.get("max_collusion_sets", 5), f"{where}.max_collusion_sets", lo=1, hi=MAX_SETS)[0]
    draws = (1 if regimes is None else 200) * n * (max(users, max(Us)) + 20 * (max_s + max_t))
    if draws > MAX_DRAWS:
        raise InvalidSpec(f"{where}: {n:,} instances of up to {users} users and {max_s} + {max_t} sets take up to "
                          f"{draws:,} random draws to list (limit {MAX_DRAWS:,}"
                          f"{', 200 tries an instance with regimes' if regimes is not None else ''}); lower n or the maxima")
    return {"n": n, "seed": seed, "U": (min(Us), max(Us)), "max_users": users, "max_S": max_s, "max_T": max_t,
            "density": dens, "regimes": regimes, "full_collusion": full}


def _draw(rng: random.Random, p: dict, name: str) -> Instance:
    U = rng.randint(*p["U"])
    servers = [1] * U
    for _ in range(rng.randint(0, max(0, p["max_users"] - U))):
        servers[rng.randrange(U)] += 1
    K = sum(servers)

    def subset() -> int:
        if p["density"] is None:
            return rng.randrange(1 << K)
        return sum(1 << i for i in range(K) if rng.random() < p["density"])
    full = (1 << K) - 1
    S = _family(subset, rng.randint(1, p["max_S"]), ())
    T = _family(subset, rng.randint(1, p["max_T"]), () if p["full_collusion"] else (full,))
    return Instance(tuple(servers), S, T, name=name)


def _family(subset, size: int, forbidden: tuple) -> tuple[int, ...]:
    """``size`` distinct sets drawn by ``subset()``, none in ``forbidden`` (fewer if the
    draws keep repeating: a family never holds the same set twice)."""
    out: list[int] = []
    for _ in range(20 * size):
        if len(out) == size:
            break
        s = subset()
        if s not in out and s not in forbidden:
            out.append(s)
    return tuple(out) or (0,)


def _random(spec: Universe):
    p = _random_params(spec.params, "universe.random")
    seed = spec.seed if p["seed"] is None else p["seed"]
    rng = random.Random(f"census:{seed}")
    if p["regimes"] is None:
        for i in range(p["n"]):
            yield _item(_draw(rng, p, f"random-{seed}-{i}"), f"random seed={seed} #{i}")
        return
    from itsa.keys.bounds.analysis import analyze

    quota = {r: round(s * p["n"]) for r, s in p["regimes"].items()}
    for i in range(200 * p["n"]):
        if not any(quota.values()):
            return
        inst = _draw(rng, p, f"random-{seed}-{i}")
        regime = analyze(inst, corrected=False).regime
        if quota.get(regime):
            quota[regime] -= 1
            yield _item(inst, f"random seed={seed} #{i} ({regime})")
    raise InvalidSpec(f"universe.random.regimes: {200 * p['n']} draws did not fill {quota}")


# -- exhaustive ----------------------------------------------------------
def _compositions(K: int, U: int):
    """Server sizes up to reordering: non-increasing, each >= 1."""
    def rec(left, parts, cap):
        if parts == 0:
            if left == 0:
                yield ()
            return
        for v in range(min(cap, left - (parts - 1)), 0, -1):
            for rest in rec(left - v, parts - 1, v):
                yield (v,) + rest
    return list(rec(K, U, K))


def _exhaustive_candidates(p: dict) -> int:
    total = 0
    for U in _values(p["U"], "U", 1):
        for K in _values(p["K"], "K", 1):
            if K < U:
                continue
            if 2 ** K > MAX_CANDIDATES:       # the families of one set alone are past the limit: a lower bound
                return total + 2 ** K
            fam = sum(comb(2 ** K, M) for M in _values(p["M"], "M", 1)) * \
                sum(comb(2 ** K, N) for N in _values(p["N"], "N", 1))
            total += len(_compositions(K, U)) * fam
    return total


def _exhaustive(spec: Universe):
    p = spec.params
    for U in _values(p["U"], "U", 1):
        for K in _values(p["K"], "K", 1):
            if K < U:
                continue
            for servers in _compositions(K, U):
                for M in _values(p["M"], "M", 1):
                    for N in _values(p["N"], "N", 1):
                        for S in itertools.combinations(range(2 ** K), M):
                            for T in itertools.combinations(range(2 ** K), N):
                                inst = Instance(servers, S, T)
                                key = canonical_key(inst)
                                inst = Instance(servers, S, T, name=key)
                                yield Item(key, key, instance_yaml(inst), "exhaustive")


# -- files ---------------------------------------------------------------
def _files(spec: Universe):
    import yaml

    p = spec.params
    if isinstance(p, str):
        p = {"dir": p}
    p = _check_keys(p, {"dir", "glob"}, "universe.files")
    if not isinstance(p.get("dir"), str):
        raise InvalidSpec("universe.files: a folder name, or {dir: FOLDER, glob: '*.yaml'}")
    folder = Path(spec.base) / p["dir"]
    if not folder.is_dir():
        raise InvalidSpec(f"universe.files: {folder} is not a folder")
    paths = sorted(q for q in folder.glob(p.get("glob", "*.yaml")) if is_regular_file(q))    # a FIFO: never opened
    if not paths:
        raise InvalidSpec(f"universe.files: no file matches {p.get('glob', '*.yaml')} in {folder}")
    return (_file_item(path, yaml) for path in paths)


def _file_item(path: Path, yaml) -> Item:
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        inst = parse_instance(yaml.safe_load(text), default_name=path.stem)
    except (ItsaError, yaml.YAMLError):
        # Recorded as a failed row by the census (run_one raises on it, with its message).
        return Item(text_key(text), path.stem, text, f"file {path}")
    return Item(canonical_key(inst), inst.name, text, f"file {path}")
