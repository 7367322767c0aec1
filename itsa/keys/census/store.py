"""The results table on disk: Parquet part files, a journal, crash-safe.

``RESULTS.parquet`` is a folder (the layout Dask, Spark and pyarrow read as
one dataset)::

    RESULTS.parquet/
      part-000000.parquet ...   # row groups written atomically (temp file + rename)
      _journal.jsonl            # one JSON row per finished instance, appended at once
      _census.json              # schema version, the spec that produced the table, its universe size

Every finished row is appended to the journal immediately, and every
``batch`` rows the journal is turned into a new part file. A run killed at any
moment therefore loses only the instances in flight; the next ``--resume``
(or :func:`read_results`) picks up the journal. Rows are unique by ``key``
(the first one read wins). pyarrow and other Parquet readers skip files
starting with ``_``; :func:`read_results` includes the journal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from itsa._util.files import atomic_writer, check_output_file, exists, read_text
from itsa.exceptions import InvalidSpec
from itsa.keys.census.schema import COLUMNS, SCHEMA_VERSION, arrow_schema

__all__ = ["ResultStore", "read_results", "read_rows", "universe_size"]

JOURNAL = "_journal.jsonl"
META = "_census.json"


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
                pass   # a line cut short by a kill: that instance was in flight
    return rows


def _check_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise InvalidSpec(f"{folder}: exists and is not a census results folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / META).exists():
        raise InvalidSpec(f"{folder}: a non-empty folder that is not a census results folder")
    if folder.is_dir():                   # the files it writes: regular ones (a FIFO journal would block)
        for name in (META, JOURNAL):
            if exists(folder / name):
                check_output_file(folder / name)


def read_rows(path: str | os.PathLike) -> list[dict]:
    """Every row of a results folder (parts, then journal), unique by key, sorted by key."""
    import pyarrow.parquet as pq

    folder = Path(path)
    if not (folder / META).exists():
        raise InvalidSpec(f"{folder}: not a census results folder (no {META})")
    rows: dict[str, dict] = {}
    for part in _parts(folder):
        for row in pq.read_table(part).to_pylist():
            rows.setdefault(row["key"], row)
    for row in _journal_rows(folder):
        rows.setdefault(row["key"], row)
    return [rows[k] for k in sorted(rows)]


def universe_size(path: str | os.PathLike) -> int | None:
    """How many instances the universe of the census in ``path`` holds (``None``: not recorded,
    as in tables written before it was)."""
    try:
        meta = json.loads((Path(path) / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    size = meta.get("universe") if isinstance(meta, dict) else None
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def read_results(path: str | os.PathLike):
    """The results table as a :class:`pyarrow.Table` (see :func:`read_rows`)."""
    import pyarrow as pa

    return pa.Table.from_pylist([_complete(r) for r in read_rows(path)], schema=arrow_schema())


def _complete(row: dict) -> dict:
    return {c: row.get(c) for c in COLUMNS}


class ResultStore:
    """Append rows to a results folder; see the module notes.

    Parameters
    ----------
    path : path-like
        The results folder (created if missing).
    spec_text : str
        The spec, stored in ``_census.json``.
    resume : bool
        Keep the rows already there (and skip their keys). Without it an
        existing non-empty results folder is refused.
    batch : int
        Rows per part file.
    universe : int, optional
        How many instances the spec's universe holds (kept in ``_census.json``, so that a
        report on a partial table says how much of it is done: :func:`universe_size`).
    """

    def __init__(self, path, spec_text: str = "", resume: bool = False, batch: int = 256,
                 universe: int | None = None):
        self.folder = Path(path)
        _check_folder(self.folder)
        if not resume and self.folder.is_dir() and (_parts(self.folder) or _journal_rows(self.folder)):
            raise InvalidSpec(f"{self.folder}: already holds results; pass --resume to continue it, "
                              "or choose another output")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.batch = batch
        meta = {"schema_version": SCHEMA_VERSION, "spec": spec_text, "universe": universe}
        with atomic_writer(self.folder / META) as fh:
            json.dump(meta, fh, indent=1)
        self.keys: set[str] = {r["key"] for r in read_rows(self.folder)} if resume else set()
        self._pending: list[dict] = _journal_rows(self.folder)
        self._journal = open(self.folder / JOURNAL, "a", encoding="utf-8")
        self.flush()

    def add(self, row: dict) -> None:
        """Record one finished row (journal at once, a part file every ``batch`` rows)."""
        self._journal.write(json.dumps(_complete(row)) + "\n")
        self._journal.flush()
        self.keys.add(row["key"])
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
        table = pa.Table.from_pylist([_complete(r) for r in rows], schema=arrow_schema())
        with atomic_writer(path, binary=True) as fh:
            pq.write_table(table, fh)
        return path

    def compact(self) -> None:
        """Rewrite every row as one part file sorted by key (the old parts are removed after)."""
        self.flush()
        old = _parts(self.folder)
        if not old:
            return
        rows = read_rows(self.folder)
        new = self._write_part(rows)
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
