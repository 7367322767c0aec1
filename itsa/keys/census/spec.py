"""Census specs: which instances (the universe) and what to compute on each (the work).

A spec is a YAML mapping (``docs/census.md``)::

    universe:
      grid: {U: [3, 4], V: [1, 2], t: [0, 1]}
    work: search          # analyze | corrected | search | solve
    time_limit: 30        # seconds per instance (default 300; 0: none)

:func:`parse_spec` checks it and :func:`census_items` lists its instances, one
:class:`Item` per isomorphism class (:func:`~itsa.keys.census.canonical.canonical_key`).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from itsa._util.checks import choice, run_seed, whole_number
from itsa._util.checks import unknown as unknown_choice
from itsa._util.deadline import DEFAULT_TIME_LIMIT, check_seconds
from itsa._util.files import read_text
from itsa._util.safe_yaml import MAX_BYTES, load_yaml
from itsa.exceptions import InvalidSpec, ItsaError, excerpt
from itsa.keys.census.universe import Item, Universe, census_items, check_params
from itsa.keys.census.work import WORK_KINDS

__all__ = ["WORKS", "UNIVERSES", "InvalidSpec", "CensusSpec", "Item", "parse_spec", "load_spec"]

#: The work kinds a spec may name (the registry :data:`itsa.keys.census.work.WORK_KINDS`).
WORKS = tuple(WORK_KINDS)
UNIVERSES = ("grid", "random", "exhaustive", "files")
TOP_KEYS = {"universe", "work", "time_limit", "seed", "field", "search", "save", "name"}
SEARCH_KEYS = {"tries", "budget", "max_symbols"}
#: Longest census name (an instance's limit too).
MAX_NAME = 200


@dataclass(kw_only=True, frozen=True)
class CensusSpec:
    """A checked census spec (see the module notes).

    ``base`` is the folder the spec's relative paths (``files``) are read
    from; ``text`` the spec as written, stored beside the results.
    """

    universe: str
    params: dict
    work: str = "search"
    time_limit: float | None = None
    seed: int = 0
    field: int = 31
    search: dict = dataclasses.field(default_factory=dict)
    save: str | None = None
    name: str | None = None
    base: str = "."
    text: str = ""

    def options(self, out: str | os.PathLike | None = None) -> dict:
        """The plain-data options :func:`~itsa.keys.census.work.run_one` takes, for results in ``out``.

        Saved files (``save``) go under the results folder ``out``, in a folder whose
        name starts with ``_`` (outside the Parquet scan), so that two runs of one spec
        never write over each other's files; the rows record their paths relative to ``out``.

        >>> spec = parse_spec({"universe": {"grid": {"U": 3, "V": 1}}, "save": "schemes"})
        >>> o = spec.options("/data/r.parquet")
        >>> o["save_dir"], o["root"]
        ('/data/r.parquet/_schemes', '/data/r.parquet')
        """
        root = None if out is None else os.path.abspath(out)
        save = None if self.save is None or root is None else os.path.join(root, self.save)
        return {"field": self.field, "search": dict(self.search), "save_dir": save, "root": root}

    def items(self) -> list[Item]:
        """Every instance of the universe, one per isomorphism class, in a fixed order."""
        return census_items(self.where())

    def where(self) -> Universe:
        """The universe part of the spec."""
        return Universe(self.universe, self.params, self.seed, self.base)


def load_spec(path: str | os.PathLike) -> CensusSpec:
    """Read and check a spec file; errors name the file.

    >>> from itsa import examples
    >>> spec = load_spec(examples.path("census/grid-small"))
    >>> spec.universe, spec.work, len(spec.items())
    ('grid', 'search', 8)
    """
    text = read_text(path, InvalidSpec, max_bytes=MAX_BYTES)
    try:        # the one bounded YAML reader: alias bombs, deep nesting and huge scalars refused in one line
        data = load_yaml(text, InvalidSpec)
    except InvalidSpec as exc:
        raise InvalidSpec(f"{path}: {exc}") from None
    try:
        return parse_spec(data, base=str(Path(path).parent), text=text)
    except ItsaError as exc:
        raise InvalidSpec(f"{path}: {exc}") from None


def parse_spec(data: Any, base: str = ".", text: str = "") -> CensusSpec:
    """Check a parsed spec mapping.

    >>> parse_spec({"universe": {"grid": {"U": 3, "V": 2, "t": 1}}, "work": "corrected"}).work
    'corrected'
    >>> parse_spec({"universe": {"everything": {}}})
    Traceback (most recent call last):
    itsa.exceptions.InvalidSpec: universe: unknown universe 'everything' (choose from grid, random, exhaustive, files)
    """
    if not isinstance(data, dict):
        raise InvalidSpec("a spec is a mapping with 'universe' and 'work'")
    unknown = sorted(map(str, set(data) - TOP_KEYS))
    if unknown:
        raise InvalidSpec(unknown_choice("key", unknown[0], sorted(TOP_KEYS)))
    uni = data.get("universe")
    if not isinstance(uni, dict) or len(uni) != 1:
        raise InvalidSpec("universe: must name exactly one of " + ", ".join(UNIVERSES))
    (kind, params), = uni.items()
    choice("universe", kind, UNIVERSES, error=InvalidSpec, where="universe")
    work = data.get("work", "search")
    choice("work", work, WORKS, error=InvalidSpec, where="work")
    # seconds per instance: DEFAULT_TIME_LIMIT unless given, 0 for none; nan, inf and past MAX_SECONDS refused
    tl = check_seconds("time_limit", data.get("time_limit", DEFAULT_TIME_LIMIT), error=InvalidSpec) or None
    seed, fld = run_seed(data.get("seed", 0), error=InvalidSpec), data.get("field", 31)
    whole_number("field", fld, minimum=None, error=InvalidSpec)
    search = data.get("search") or {}
    if not isinstance(search, dict) or set(search) - SEARCH_KEYS:
        raise InvalidSpec(f"search: a mapping with keys among {', '.join(sorted(SEARCH_KEYS))}")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME or not name.isprintable()):
        raise InvalidSpec(f"name: a text of at most {MAX_NAME} printable characters, not {excerpt(name)}")
    save = _save_folder(data.get("save"))
    spec = CensusSpec(universe=kind, params=params, work=work, time_limit=tl, seed=seed, field=fld, search=search,
                      save=save, name=data.get("name"), base=base, text=text)
    check_params(spec.where())
    return spec


#: The folder of saved files for ``save: true``.
DEFAULT_SAVE = "_saved"


def _save_folder(save) -> str | None:
    """``save:`` as a folder inside the results folder, outside its Parquet scan.

    ``true`` is :data:`DEFAULT_SAVE`; a name gets a leading ``_`` (Parquet readers skip
    such folders, so pyarrow, pandas, Dask and DuckDB read the results folder as one
    table); a path that leaves the results folder (absolute, or through ``..``) is refused.

    >>> _save_folder(True), _save_folder("schemes"), _save_folder("_mine/x")
    ('_saved', '_schemes', '_mine/x')
    """
    if save is None or save is False:
        return None
    if save is True:
        return DEFAULT_SAVE
    if not isinstance(save, str) or not save.strip():
        raise InvalidSpec("save: true, or a folder name (inside the results folder) for saved schemes")
    norm = os.path.normpath(save)
    if os.path.isabs(save) or norm == ".." or norm.startswith(".." + os.sep) or norm == ".":
        raise InvalidSpec(f"save: {save!r} must be a folder inside the results folder, "
                          "such as 'schemes'")
    return norm if norm.startswith(("_", ".")) else "_" + norm
