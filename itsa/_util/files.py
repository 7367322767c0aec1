"""Reading and writing files the way every itsa command should.

Reading: an input must be a regular file. Anything else (a FIFO, a device,
a folder, a socket) is refused in one :class:`InvalidInput` line naming the
file (the caller picks the subclass: instance, scheme, deployment ...)
before a byte is read, and the file is opened without blocking, so a FIFO
ends at once instead of waiting for a writer.

Writing: itsa writes only regular files and never replaces what is not one.
:func:`check_output_file` refuses, before any work, a name that exists and is
not a regular file, a name whose folder is not a folder, an empty name and a
name too long for the file system. A write goes to a temporary file in the
same folder, renamed into place only when complete (:func:`atomic_writer`),
or linked to a new name that must not exist (:func:`write_new`), so nothing
half-written is ever left behind. The temporary file is removed on an error,
on Ctrl-C (``SIGINT``) and on ``SIGTERM``/``SIGHUP``; after a ``SIGKILL``,
which nothing can catch, it is left under a recognizable name
(``.NAME.itsa-XXXXXXXX.tmp``, locked by its writer while it lives) and the
next write into the same folder removes it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from itsa.exceptions import InvalidInput, InvalidOutputPath, excerpt

__all__ = ["exists", "is_regular_file", "read_text", "check_input_file", "check_output_file", "check_distinct_files", "atomic_writer", "write_new", "safe_stem",
           "check_output_dir", "output_dir", "remove_stale_temporaries", "TEMP_MARK"]

#: What the name of every temporary file itsa writes contains (``.NAME.itsa-XXXXXXXX.tmp``).
TEMP_MARK = ".itsa-"
_TEMP = re.compile(r"\..*" + re.escape(TEMP_MARK) + r"[A-Za-z0-9_]{8}\.tmp\Z", re.S)
_TEMP_EXTRA = len(TEMP_MARK) + 8 + len(".tmp") + 2       # the dots around NAME, the mark, 8 letters, .tmp


def _shown(path) -> str:
    """``path`` quoted for a message, cut if long."""
    return excerpt(os.fspath(path))


def _named(path) -> str:
    """``path`` as it was given, for the start of a read error; quoted and cut if long or unprintable."""
    name = os.fspath(path)
    return name if len(name) <= 200 and name.isprintable() else _shown(name)


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, word in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "not a regular file"


# -- reading -----------------------------------------------------------------------------------------

def exists(path: str | os.PathLike) -> bool:
    """Whether ``path`` names anything; ``False`` for a name the file system refuses (too long, a NUL...).

    :meth:`pathlib.Path.exists` raises on a name too long; a caller that only
    asks then reads gets the read's one line instead.

    >>> exists("/"), exists("x" * 300)
    (True, False)
    """
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a regular file (a link: what it points to); ``False`` for a refused name."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def check_input_file(path: str | os.PathLike, error: type[InvalidInput] = InvalidInput) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it names a regular file; ``error`` in one line otherwise.

    Nothing is opened: a FIFO or a device is refused by its type alone.

    >>> check_input_file("/")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidInput: /: is a folder, not a regular file
    """
    if not os.fspath(path).strip():
        raise error("the path is empty: give a file, or the name of a shipped example (itsa examples)")
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _read_error(path, exc, error) from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{_named(path)}: is {_kind(st.st_mode)}, not a regular file")
    return Path(path)


def _read_error(path, exc: OSError, error: type[InvalidInput]) -> InvalidInput:
    if isinstance(exc, FileNotFoundError):
        return error(f"{_named(path)}: no such file")
    if exc.errno == errno.ENAMETOOLONG:
        return error(f"{_named(path)}: the name is too long for the file system")
    if isinstance(exc, NotADirectoryError):
        return error(f"{_named(path)}: no such file (a folder on its way is a file)")
    return error(f"{_named(path)}: cannot read: {exc.strerror or exc}")


def _open_regular(path, error: type[InvalidInput]) -> int:
    """A descriptor of the regular file ``path``, opened without blocking and checked again once open."""
    check_input_file(path, error)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _read_error(path, exc, error) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):          # replaced between the check and the open
        os.close(fd)
        raise error(f"{_named(path)}: is {_kind(mode)}, not a regular file")
    os.set_blocking(fd, True)
    return fd


def read_text(path: str | os.PathLike, error: type[InvalidInput] = InvalidInput,
              max_bytes: int | None = None) -> str:
    """The UTF-8 text of the regular file ``path``; ``error`` naming it if unreadable or too large.

    ``max_bytes`` refuses a larger file before reading it. A path that is not
    a regular file (a FIFO, a device, a folder) is refused without blocking.
    """
    fd = _open_regular(path, error)
    try:
        with os.fdopen(fd, "rb") as fh:
            if max_bytes is not None and os.fstat(fh.fileno()).st_size > max_bytes:
                raise error(f"{path}: {os.fstat(fh.fileno()).st_size:,} bytes exceed the limit of {max_bytes:,}")
            data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)    # a file may grow while read
        if max_bytes is not None and len(data) > max_bytes:
            raise error(f"{path}: more than {max_bytes:,} bytes (the limit)")
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise error(f"{_named(path)}: cannot read: {exc.strerror or exc}") from None


# -- writing -----------------------------------------------------------------------------------------

def check_output_file(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path` if itsa may write a regular file there; one line otherwise.

    Refused (:class:`InvalidOutputPath`), before any work: an empty name; a
    name that exists and is not a regular file (a folder, a FIFO, a device, a
    socket; a link is judged by what it points to); a name whose folder is not
    a folder or cannot be written; a name too long for the file system. An
    existing regular file is fine: it will be replaced whole.

    >>> check_output_file("")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOutputPath: the path is empty: give a file name to write
    >>> check_output_file("/")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOutputPath: cannot write '/': it is a folder (itsa writes only regular files)
    """
    name = os.fspath(path)
    if not name.strip():
        raise InvalidOutputPath("the path is empty: give a file name to write")
    if "\0" in name:
        raise InvalidOutputPath(f"cannot write {_shown(name)}: a file name holds no NUL character")
    out = Path(name)
    try:
        st: os.stat_result | None = os.stat(out)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _write_error(out, exc) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InvalidOutputPath(f"cannot write {_shown(name)}: it is {_kind(st.st_mode)} "
                                "(itsa writes only regular files)")
    if name.endswith(os.sep):
        raise InvalidOutputPath(f"cannot write {_shown(name)}: the name ends in {os.sep!r} (a folder's name)")
    folder = out.absolute().parent
    try:
        fst = os.stat(folder)
    except OSError as exc:
        raise _write_error(out, exc) from None
    if not stat.S_ISDIR(fst.st_mode):
        raise InvalidOutputPath(f"cannot write {_shown(name)}: {_shown(folder)} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidOutputPath(f"cannot write {_shown(name)}: the folder {_shown(folder)} is not writable")
    if len(os.fsencode(out.name)) > _name_max(folder):
        raise InvalidOutputPath(f"cannot write {_shown(name)}: the name is too long for the file system "
                                f"({len(os.fsencode(out.name))} bytes, at most {_name_max(folder)})")
    return out


def _same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode when both exist (links, ``./x`` and ``x``), else the
    same absolute path with its links resolved."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def check_distinct_files(reads: dict[str, str | os.PathLike | None], writes: dict[str, str | os.PathLike | None]
                         ) -> None:
    """Refuse, before any work, an output that is one of the inputs, or two outputs that are one file (the
    second write would destroy the first, or the input would be replaced by what was read from it).

    ``reads`` and ``writes`` map what the user gave (an option's name, say) to a path, ``None`` when not given.

    >>> check_distinct_files({"DEPLOYMENT": "plan.yaml"}, {"--markdown": "./plan.yaml"})
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOutputPath: --markdown: 'plan.yaml' is DEPLOYMENT, which is read: write elsewhere
    """
    outputs = [(name, path) for name, path in writes.items() if path is not None]
    for i, (name, path) in enumerate(outputs):
        for source, read in reads.items():
            if read is not None and _same_file(path, read):
                raise InvalidOutputPath(f"{name}: {_shown(read)} is {source}, which is read: write elsewhere")
        for other, earlier in outputs[:i]:
            if _same_file(path, earlier):
                raise InvalidOutputPath(f"{name}: {_shown(path)} is also {other}'s file: give each its own")


def _write_error(out: Path, exc: OSError) -> InvalidOutputPath:
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidOutputPath(f"cannot write {_shown(out)}: the name is too long for the file system")
    if isinstance(exc, FileNotFoundError):
        return InvalidOutputPath(f"cannot write {_shown(out)}: its folder does not exist")
    if isinstance(exc, NotADirectoryError):
        return InvalidOutputPath(f"cannot write {_shown(out)}: a folder on its way is not a folder")
    return InvalidOutputPath(f"cannot write {_shown(out)}: {exc.strerror or exc}")


def _name_max(folder: Path) -> int:
    """The longest file name (bytes) the file system of ``folder`` takes."""
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return 255


def _temp_prefix(out: Path) -> str:
    """``.NAME`` + the mark, NAME cut so that the whole temporary name fits the file system."""
    room = max(1, _name_max(out.absolute().parent) - _TEMP_EXTRA)
    stem = os.fsencode(out.name)[:room].decode("utf-8", "ignore") or "f"
    return f".{stem}{TEMP_MARK}"


#: The folders this process has already cleaned of stale temporary files (once per folder and process).
_CLEANED: set[str] = set()


def remove_stale_temporaries(folder: str | os.PathLike) -> list[str]:
    """Remove the temporary files a killed itsa writer left in ``folder``; the names removed.

    A temporary file is stale when nobody holds its lock: a live writer holds
    it from the file's creation to its rename, and the system releases it when
    the writer dies, ``SIGKILL`` included. Only regular files with the mark of
    :data:`TEMP_MARK` are considered.
    """
    removed: list[str] = []
    try:
        entries = list(os.scandir(os.fspath(folder)))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMP.match(entry.name):
            continue
        with contextlib.suppress(OSError):
            fd = os.open(entry.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_CLOEXEC", 0))
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    continue
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)     # fails while its writer lives
                if os.stat(entry.path, follow_symlinks=False).st_ino == st.st_ino:
                    os.unlink(entry.path)
                    removed.append(entry.name)
            finally:
                os.close(fd)
    return removed


def _locked_temporary(out: Path) -> tuple[int, str]:
    """A new temporary file beside ``out``, ``0o600``, locked by this process (its descriptor and name)."""
    folder = out.absolute().parent
    key = os.fspath(folder)
    if key not in _CLEANED:
        remove_stale_temporaries(folder)
        _CLEANED.add(key)
    for _ in range(100):
        try:
            fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(out), suffix=".tmp", dir=folder)
        except OSError as exc:
            raise _write_error(out, exc) from None
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            same = os.stat(tmp, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:       # another writer took it for stale before the lock was ours
            same = False
        if same:
            return fd, tmp
        os.close(fd)
    raise InvalidOutputPath(f"cannot write {_shown(out)}: no temporary file could be made beside it")


class _Terminated(SystemExit):
    """``SIGTERM`` or ``SIGHUP`` during a write: the temporary file goes, then the process exits."""


def _terminate(signum, frame) -> None:
    raise _Terminated(128 + signum)


@contextlib.contextmanager
def _signals_end_the_write() -> Iterator[None]:
    """While the block runs, ``SIGTERM`` and ``SIGHUP`` raise (so cleanup runs) where they would kill.

    Only in the main thread, and only for a signal left at its default action.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
            kept[sig] = signal.signal(sig, _terminate)
    try:
        yield
    finally:
        for sig, old in kept.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def _temporary(out: Path) -> Iterator[tuple[IO[bytes], str]]:
    """A locked temporary file beside ``out`` (a binary handle and its name), removed at the end in any case.

    Errors of the file system become one :class:`InvalidOutputPath` line.
    """
    with _signals_end_the_write():
        fd, tmp = _locked_temporary(out)
        fh = os.fdopen(fd, "wb")
        try:
            yield fh, tmp
        except OSError as exc:
            raise _write_error(out, exc) from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            fh.close()


def _still_writable(out: Path) -> None:
    """Just before the rename: ``out`` is still missing or a regular file (nothing else is replaced)."""
    try:
        st = os.stat(out)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise InvalidOutputPath(f"cannot write {_shown(out)}: it is {_kind(st.st_mode)} "
                                "(itsa writes only regular files)")


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False, mode: int = 0o666) -> Iterator[IO[Any]]:
    """Yield a file handle whose content replaces ``path`` only if the block succeeds.

    ``path`` is checked first (:func:`check_output_file`) and again just before
    the rename: what is not a regular file is never replaced. The file gets
    ``mode`` less the umask (``0o600``: the owner alone reads it, from its
    creation on: the temporary file is made ``0o600``).

    >>> import tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "note.txt")
    >>> with atomic_writer(out) as fh:
    ...     _ = fh.write("kept")
    >>> open(out).read(), os.listdir(os.path.dirname(out))
    ('kept', ['note.txt'])
    """
    out = check_output_file(path)
    with _temporary(out) as (raw, tmp):
        fh: IO[Any] = raw if binary else io.TextIOWrapper(raw, encoding="utf-8")
        yield fh
        fh.flush()
        os.fsync(raw.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(raw.fileno(), mode & ~umask)
        _still_writable(out)
        os.replace(tmp, out)


def write_new(path: str | os.PathLike, data: bytes, mode: int = 0o600,
              exists: InvalidOutputPath | None = None) -> Path:
    """Write ``data`` to the new file ``path`` (it must not exist), whole or not at all, never over a file.

    ``data`` goes to a temporary file (``mode`` from its creation), which is
    then hard-linked to ``path`` (a link fails on an existing name, so a file
    that appeared after the check is not replaced) and removed. Without hard
    links (``EPERM``, ``ENOTSUP``, ``EXDEV`` ...) the file is created with
    ``O_EXCL`` instead. ``exists`` is the error raised when the name is taken.
    """
    taken = exists or InvalidOutputPath(f"cannot write {_shown(path)}: it exists (choose a new name)")
    out = check_output_file(path)
    if os.path.lexists(out):
        raise taken
    with _temporary(out) as (fh, tmp):
        os.fchmod(fh.fileno(), mode)
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
        try:
            os.link(tmp, out)
        except FileExistsError:
            raise taken from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK,
                                 errno.ENOSYS):
                raise
            _write_exclusive(out, data, mode, taken)
    return out


def _write_exclusive(out: Path, data: bytes, mode: int, taken: InvalidOutputPath) -> None:
    """Create ``out`` (it must not exist) with ``mode`` and write ``data``; a partial file is removed."""
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    except FileExistsError:
        raise taken from None
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(out)
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
