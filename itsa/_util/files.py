"""Reading and writing files the way every itsa command should.

A read failure becomes one :class:`InvalidInput` line naming the file (the
caller picks the subclass: instance or scheme); a
write goes to a temporary file in the same folder and is renamed into place
only when complete, so nothing half-written is ever left behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from itsa.exceptions import InvalidInput, InvalidOutputPath


def read_text(path: str | os.PathLike, error: type[InvalidInput] = InvalidInput,
              max_bytes: int | None = None) -> str:
    """The UTF-8 text of ``path``; ``error`` naming it if unreadable or too large.

    ``max_bytes`` refuses a larger file before reading it.
    """
    if not os.fspath(path).strip():
        raise error("the path is empty: give a file, or the name of a shipped example (itsa examples)")
    path = Path(path)
    try:
        if max_bytes is None:
            return path.read_text(encoding="utf-8")
        if path.is_file() and path.stat().st_size > max_bytes:
            raise error(f"{path}: {path.stat().st_size:,} bytes exceed the limit of {max_bytes:,}")
        with open(path, "rb") as fh:        # a device or a pipe has no size: read one byte more
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise error(f"{path}: more than {max_bytes:,} bytes (the limit)")
        return data.decode("utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False, mode: int = 0o666) -> Iterator[IO[Any]]:
    """Yield a file handle whose content replaces ``path`` only if the block succeeds.

    The file gets ``mode`` less the umask (``0o600``: the owner alone reads it,
    from its creation on: the temporary file is made ``0o600``).
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InvalidOutputPath(f"cannot write {os.fspath(path)!r}: {exc.strerror}") from None
    try:
        fh: IO[Any] = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, mode & ~umask)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InvalidOutputPath(f"cannot write {os.fspath(path)!r}: {exc.strerror or exc}") from None
        raise


def safe_stem(name: str) -> str:
    """``name`` made safe as one file-name component (no separators, no ``..``).

    >>> safe_stem("../x/y z")
    '_x_y_z'
    """
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).lstrip(".")
    return stem or "instance"


def check_output_dir(path: str | os.PathLike) -> Path:
    """Refuse, before any work, a folder ``path`` that :func:`output_dir` could not create; create nothing.

    The folder must be a folder if it exists; otherwise its nearest existing
    parent must be a folder this process can write into.

    >>> check_output_dir("/dev/null/out")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOutputPath: cannot create '/dev/null/out': '/dev/null' is not a folder
    """
    out = Path(path)
    if out.exists():
        if not out.is_dir():
            raise InvalidOutputPath(f"cannot create {os.fspath(out)!r}: a file of that name exists")
        return out
    parent = out.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise InvalidOutputPath(f"cannot create {os.fspath(out)!r}: {os.fspath(parent)!r} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidOutputPath(f"cannot create {os.fspath(out)!r}: {os.fspath(parent)!r} is not writable")
    return out


def output_dir(path: str | os.PathLike) -> Path:
    """The folder ``path``, created if missing; :class:`InvalidOutputPath` in one line if it cannot be."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidOutputPath(f"cannot create {os.fspath(out)!r}: {exc.strerror}") from None
    return out
