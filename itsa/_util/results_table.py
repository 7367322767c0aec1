"""A results table on disk: Parquet part files and a journal, crash-safe; the census's and the plan fleet's.

A table is a folder (the layout Dask, Spark and pyarrow read as one dataset)::

    RESULTS.parquet/
      part-000000.parquet ...   # row groups written atomically (temp file + rename)
      _journal.jsonl            # one JSON row per finished item, appended at once
      _META.json                # the layout's own file: schema version, what produced the table

Every finished row is appended to the journal immediately, and every
``batch`` rows the journal is turned into a new part file. A run killed at any
moment therefore loses only the items in flight; the next ``--resume`` (or
:func:`read_rows`) picks up the journal. Rows are unique by ``key`` (the
first one read wins). pyarrow and other Parquet readers skip files starting
with ``_``. What differs from one kind of table to another (its columns, its
version, the name of its metadata file) is a :class:`Layout`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from itsa._util.files import atomic_writer, check_output_file, exists, read_text
from itsa.exceptions import InvalidInput

__all__ = ["Layout", "ResultStore", "check_folder", "read_rows", "read_meta", "JOURNAL"]

JOURNAL = "_journal.jsonl"

_ARROW = {"string": "string", "int64": "int64", "bool": "bool_", "float64": "float64"}


@dataclass(frozen=True)
class Layout:
    """One kind of results table: what it is called, its metadata file, its columns and version.

    ``columns`` maps each column to its Arrow type name (``string``, ``int64``, ``bool``, ``float64``),
    in table order; the first is the key. ``error`` is the exception a bad folder raises.
    """

    what: str
    meta: str
    columns: dict
    version: int
    metadata_key: bytes
    error: type[InvalidInput] = InvalidInput

    @property
    def key(self) -> str:
        return next(iter(self.columns))

    def arrow_schema(self):
        """The :class:`pyarrow.Schema` of the table, with the version in its metadata."""
        import pyarrow as pa

        return pa.schema([(name, getattr(pa, _ARROW[t])()) for name, t in self.columns.items()],
                         metadata={self.metadata_key: str(self.version).encode()})

    def complete(self, row: dict) -> dict:
        """The row with every column (``None`` where it has none), in table order."""
        return {c: row.get(c) for c in self.columns}


def _parts(folder: Path) -> list[Path]:
    return sorted(folder.glob("part-*.parquet"))


def _journal_rows(folder: Path) -> list[dict]:
    path = folder / JOURNAL
    rows = []
    if exists(path):
        for line in read_text(path).splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                pass   # a line cut short by a kill: that item was in flight
    return rows


def check_folder(path: str | os.PathLike, layout: Layout, resume: bool = False) -> None:
    """Refuse, before anything is written, a results folder a run cannot write (one line, ``layout.error``):
    a path that is not a folder, a folder of something else, a table already holding rows without ``resume``,
    a folder whose metadata or journal is not a regular file."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise layout.error(f"{folder}: exists and is not a {layout.what} results folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / layout.meta).exists():
        raise layout.error(f"{folder}: a non-empty folder that is not a {layout.what} results folder")
    if folder.is_dir():                   # the files it writes: regular ones (a FIFO journal would block)
        for name in (layout.meta, JOURNAL):
            if exists(folder / name):
                check_output_file(folder / name)
    if not resume and folder.is_dir() and (_parts(folder) or _journal_rows(folder)):
        raise layout.error(f"{folder}: already holds results; pass --resume to continue it, "
                           "or choose another output")


def read_rows(path: str | os.PathLike, layout: Layout) -> list[dict]:
    """Every row of a results folder (parts, then journal), unique by key, sorted by key."""
    import pyarrow.parquet as pq

    folder = Path(path)
    if not (folder / layout.meta).exists():
        raise layout.error(f"{folder}: not a {layout.what} results folder (no {layout.meta})")
    rows: dict[str, dict] = {}
    for part in _parts(folder):
        for row in pq.read_table(part).to_pylist():
            rows.setdefault(row[layout.key], row)
    for row in _journal_rows(folder):
        rows.setdefault(row[layout.key], row)
    return [rows[k] for k in sorted(rows)]


def read_meta(path: str | os.PathLike, layout: Layout) -> dict:
    """The metadata a results folder was written with (``{}`` if it cannot be read)."""
    try:
        meta = json.loads((Path(path) / layout.meta).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


class ResultStore:
    """Append rows to a results folder; see the module notes.

    Parameters
    ----------
    path : path-like
        The results folder (created if missing).
    layout : Layout
    meta : dict
        What to keep in the layout's metadata file (the schema version is added).
    resume : bool
        Keep the rows already there (and skip their keys). Without it an
        existing non-empty results folder is refused.
    batch : int
        Rows per part file.
    """

    def __init__(self, path, layout: Layout, meta: dict, resume: bool = False, batch: int = 256):
        self.folder = Path(path)
        self.layout = layout
        check_folder(self.folder, layout, resume)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.batch = batch
        with atomic_writer(self.folder / layout.meta) as fh:
            json.dump({"schema_version": layout.version, **meta}, fh, indent=1)
        self.keys: set[str] = {r[layout.key] for r in read_rows(self.folder, layout)} if resume else set()
        self._pending: list[dict] = _journal_rows(self.folder)
        self._journal = open(self.folder / JOURNAL, "a", encoding="utf-8")
        self.flush()

    def add(self, row: dict) -> None:
        """Record one finished row (journal at once, a part file every ``batch`` rows)."""
        self._journal.write(json.dumps(self.layout.complete(row)) + "\n")
        self._journal.flush()
        self.keys.add(row[self.layout.key])
        self._pending.append(row)
        if len(self._pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Write the journal's rows as one part file, then empty the journal."""
        if not self._pending:
            return
        self._write_part(self._pending)
        self._pending = []
        self._journal.truncate(0)
        self._journal.seek(0)

    def _write_part(self, rows: list[dict]) -> Path:
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = _parts(self.folder)
        n = int(parts[-1].stem.split("-")[1]) + 1 if parts else 0
        path = self.folder / f"part-{n:06d}.parquet"
        table = pa.Table.from_pylist([self.layout.complete(r) for r in rows], schema=self.layout.arrow_schema())
        with atomic_writer(path, binary=True) as fh:
            pq.write_table(table, fh)
        return path

    def compact(self) -> None:
        """Rewrite every row as one part file sorted by key (the old parts are removed after)."""
        self.flush()
        old = _parts(self.folder)
        if not old:
            return
        new = self._write_part(read_rows(self.folder, self.layout))
        for p in old:
            if p != new:
                p.unlink()

    def close(self) -> None:
        self.flush()
        self._journal.close()
        (self.folder / JOURNAL).unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.close()
        else:
            self._journal.close()   # the rows stay in the journal, for --resume
