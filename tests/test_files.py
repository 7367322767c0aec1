"""Files itsa reads and writes (``itsa._util.files``): only regular files, nothing replaced that is not one,
no temporary file outliving its writer, no input that blocks.

Every special file here is made by the test in its own temporary folder (``os.mkfifo``; a character
device with ``os.mknod`` only when running as root); the machine's own ``/dev`` is never touched.
"""

import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap

import pytest

from itsa._util.files import (
    TEMP_MARK,
    atomic_writer,
    check_input_file,
    check_output_file,
    read_text,
    remove_stale_temporaries,
    write_new,
)
from itsa.exceptions import InvalidInput, InvalidOutputPath
from tests.guard import ends

LONG = "n" * 300          # longer than any file system's name limit (255 bytes)


def no_hang(seconds: float = 10):
    """Fail, instead of hanging the suite, if the block blocks (an ``open`` of a FIFO waits for a writer)."""
    return ends(seconds)


def fifo(tmp_path, name="pipe"):
    path = tmp_path / name
    os.mkfifo(path)
    return path


def char_device(tmp_path, name="null"):
    """A node like ``/dev/null`` (major 1, minor 3) in ``tmp_path``; the test is skipped unless root."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("making a device node needs root")
    path = tmp_path / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc.strerror}")
    return path


def unix_socket(tmp_path):
    path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(os.fspath(path))
    except OSError as exc:          # a folder name too long for a socket address
        pytest.skip(f"cannot bind a socket here: {exc.strerror}")
    return path, sock


def kind_of(path):
    return stat.S_IFMT(os.lstat(path).st_mode)


def temporaries(folder):
    return sorted(name for name in os.listdir(folder) if TEMP_MARK in name)


# -- what a writer refuses ---------------------------------------------------------------------------

def test_no_special_file_is_ever_replaced(tmp_path):
    specials = [fifo(tmp_path), tmp_path / "folder"]
    specials[1].mkdir()
    path, sock = unix_socket(tmp_path)
    specials.append(path)
    with sock:
        for special in specials:
            before = kind_of(special)
            with pytest.raises(InvalidOutputPath, match="itsa writes only regular files") as info:
                with atomic_writer(special) as fh:
                    fh.write("report")
            assert "\n" not in str(info.value)
            assert kind_of(special) == before
    assert temporaries(tmp_path) == []


def test_a_device_node_is_refused_and_left_as_it_is(tmp_path):
    node = char_device(tmp_path)
    with pytest.raises(InvalidOutputPath, match="a character device"):
        with atomic_writer(node) as fh:
            fh.write("report")
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    with pytest.raises(InvalidOutputPath, match="a character device"):
        write_new(node, b"record")
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_link_is_judged_by_what_it_points_to(tmp_path):
    link = tmp_path / "link.md"
    link.symlink_to(fifo(tmp_path))
    with pytest.raises(InvalidOutputPath, match="FIFO"):
        check_output_file(link)


@pytest.mark.parametrize("name, message", [
    ("", "the path is empty"),
    ("  ", "the path is empty"),
    (LONG, "too long for the file system"),
    (f"{LONG}/r.md", "too long for the file system"),
    ("missing/r.md", "its folder does not exist"),
    ("plain.txt/r.md", "not a folder"),
    ("r.md/", "ends in"),
])
def test_bad_names_are_one_line(tmp_path, monkeypatch, name, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(InvalidOutputPath, match=message) as info:
        check_output_file(name)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_a_name_that_fits_but_whose_temporary_would_not_is_written(tmp_path):
    out = tmp_path / ("a" * 250 + ".md")
    with atomic_writer(out) as fh:
        fh.write("kept")
    assert out.read_text() == "kept" and temporaries(tmp_path) == []


def test_a_regular_file_is_replaced_whole(tmp_path):
    out = tmp_path / "r.md"
    out.write_text("old")
    with atomic_writer(out) as fh:
        fh.write("new")
    assert out.read_text() == "new"
    with pytest.raises(RuntimeError), atomic_writer(out) as fh:
        fh.write("half")
        raise RuntimeError("stopped")
    assert out.read_text() == "new" and temporaries(tmp_path) == []


def test_a_special_file_that_appears_during_the_write_is_not_replaced(tmp_path):
    out = tmp_path / "r.md"
    with pytest.raises(InvalidOutputPath, match="FIFO"):
        with atomic_writer(out) as fh:
            fh.write("report")
            os.mkfifo(out)
    assert stat.S_ISFIFO(os.lstat(out).st_mode) and temporaries(tmp_path) == []


def test_write_new_never_overwrites(tmp_path):
    out = tmp_path / "record.json"
    write_new(out, b"{}")
    assert out.read_bytes() == b"{}" and stat.S_IMODE(out.stat().st_mode) == 0o600
    with pytest.raises(InvalidOutputPath, match="exists"):
        write_new(out, b"[]")
    assert out.read_bytes() == b"{}" and temporaries(tmp_path) == []


# -- temporary files and signals ---------------------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys, time
    from itsa._util.files import atomic_writer, write_new
    out, how = sys.argv[1], sys.argv[2]
    if how == "record":
        import itsa._util.files as files
        real = files._temporary
        def slow(path):
            cm = real(path)
            pair = cm.__enter__()
            print("ready", flush=True)
            time.sleep(60)
            return cm, pair
        files._temporary = slow
        write_new(out, b"x" * 1000)
    with atomic_writer(out) as fh:
        fh.write("x" * 100_000)
        print("ready", flush=True)
        time.sleep(60)
""")


def _killed_writer(tmp_path, sig, how="report"):
    """A writer stopped by ``sig`` while its temporary file exists; its exit code."""
    out = tmp_path / "out.md"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, os.fspath(out), how], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert len(temporaries(tmp_path)) == 1
        proc.send_signal(sig)
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_no_temporary_file_outlives_a_terminated_writer(tmp_path, sig):
    code = _killed_writer(tmp_path, sig)
    assert code != 0
    assert temporaries(tmp_path) == [] and not (tmp_path / "out.md").exists()


@pytest.mark.parametrize("how", ["report", "record"])
def test_the_next_writer_removes_what_a_killed_one_left(tmp_path, how):
    _killed_writer(tmp_path, signal.SIGKILL, how)
    assert len(temporaries(tmp_path)) == 1            # nothing can catch SIGKILL
    subprocess.run([sys.executable, "-c", "import sys; from itsa._util.files import atomic_writer\n"
                    "with atomic_writer(sys.argv[1]) as fh: fh.write('next')", os.fspath(tmp_path / "next.md")],
                   check=True, timeout=60)
    assert temporaries(tmp_path) == [] and (tmp_path / "next.md").read_text() == "next"


def test_a_live_writer_keeps_its_temporary_file(tmp_path):
    out = tmp_path / "r.md"
    with atomic_writer(out) as fh:
        fh.write("live")
        assert remove_stale_temporaries(tmp_path) == []
        assert len(temporaries(tmp_path)) == 1
    assert out.read_text() == "live"


def test_only_marked_files_are_removed(tmp_path):
    keep = [tmp_path / ".r.md.tmp", tmp_path / "r.itsa-abcdefgh.tmp", tmp_path / ".r.md.itsa-abc.tmp"]
    for path in keep:
        path.write_text("mine")
    stale = tmp_path / f".r.md{TEMP_MARK}abcd_123.tmp"
    stale.write_text("left by a killed writer")
    assert remove_stale_temporaries(tmp_path) == [stale.name]
    assert all(path.exists() for path in keep)


# -- what a reader refuses ---------------------------------------------------------------------------

def test_a_fifo_input_is_refused_at_once(tmp_path):
    pipe = fifo(tmp_path)
    with no_hang(), pytest.raises(InvalidInput, match="FIFO") as info:
        read_text(pipe, max_bytes=100)
    assert "\n" not in str(info.value)
    with no_hang(), pytest.raises(InvalidInput, match="FIFO"):
        read_text(pipe)


def test_special_inputs_are_refused(tmp_path):
    with pytest.raises(InvalidInput, match="a folder"):
        read_text(tmp_path)
    with pytest.raises(InvalidInput, match="too long"):
        read_text(tmp_path / LONG)
    with pytest.raises(InvalidInput, match="no such file"):
        check_input_file(tmp_path / "missing.yaml")
    with pytest.raises(InvalidInput, match="character device"):
        read_text(char_device(tmp_path), max_bytes=10)
