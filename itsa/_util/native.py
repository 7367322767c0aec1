"""Native libraries' own printing kept off standard output.

A C or C++ library writes to file descriptor 1 directly, past Python's
``sys.stdout``: HiGHS (1.16 and newer) prints a banner when a model is
constructed, before any option can turn its output off. A script that reads
``itsa … --json`` from a pipe would get that banner in front of its JSON.
:func:`quiet_native_stdout` points descriptor 1 at the null device for the
duration of a block, flushing both Python's and C's buffers on the way in and
out, so nothing a native call wrote can surface later.

>>> with quiet_native_stdout():
...     pass
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_native_stdout"]

_LOCK = threading.Lock()


def _flush_c_streams() -> None:
    """``fflush(NULL)``: every C stdio stream's buffer written out (a no-op where libc is not found)."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no libc symbol table (e.g. Windows)
        pass


@contextmanager
def quiet_native_stdout() -> Iterator[None]:
    """Send whatever native code writes to descriptor 1 inside the block to the null device.

    Python's own buffer is flushed on the way in and out, so Python-level
    output inside the block is dropped too, buffered or not. Where descriptor 1
    cannot be duplicated (closed, or none at all, as under some notebook
    kernels), the block runs as is. The redirection is process-wide, so other
    threads' writes to descriptor 1 during the block are dropped as well; the
    guard is not re-entrant (keep blocks to one native call).
    """
    with _LOCK:
        _flush_python_stdout()
        _flush_c_streams()
        saved = _duplicate_stdout()
        if saved is None:
            yield
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            yield
        finally:
            _flush_python_stdout()
            _flush_c_streams()
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)


def _flush_python_stdout() -> None:
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError, OSError):   # replaced, closed or detached
        pass


def _duplicate_stdout() -> int | None:
    try:
        return os.dup(1)
    except OSError:
        return None
