"""Reading and writing files the way every itsa command should.

A read failure becomes one :class:`InvalidInstance` line naming the file; a
write goes to a temporary file in the same folder and is renamed into place
only when complete, so nothing half-written is ever left behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .exceptions import InvalidInstance


def read_text(path: str | os.PathLike) -> str:
    """The UTF-8 text of ``path``; :class:`InvalidInstance` naming it if unreadable."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInstance(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInstance(f"{path}: cannot read: {exc}") from None


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False):
    """Yield a file handle whose content replaces ``path`` only if the block succeeds."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InvalidInstance(f"cannot write {os.fspath(path)!r}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
