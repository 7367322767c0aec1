import atexit
import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

# Dask's scratch space (its lock files, spilled data) goes to a folder of this run, removed at its end,
# not to a dask-scratch-space folder left behind in the system's temporary directory.
_DASK_SCRATCH = tempfile.mkdtemp(prefix="itsa-tests-dask-")
os.environ["DASK_TEMPORARY_DIRECTORY"] = _DASK_SCRATCH
atexit.register(shutil.rmtree, _DASK_SCRATCH, ignore_errors=True)
INSTANCES = ROOT / "instances"

# Every random choice is seeded: hypothesis runs the same examples everywhere.
settings.register_profile("itsa", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("itsa")


@pytest.fixture(scope="session")
def cli():
    """The ``itsa`` command line run in-process by click's ``CliRunner``.

    ``cli(*args, input=None)`` returns click's ``Result`` (``exit_code``,
    ``stdout``, ``stderr``, ``output``). Every argument is passed through
    ``str``, so paths and numbers can be given as they are; the program is
    named ``itsa``, as installed, so usage lines read ``Usage: itsa VERB``.
    """
    from click.testing import CliRunner

    from itsa_cli import main

    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(main, [str(a) for a in args], input=input, prog_name="itsa")

    return invoke


@pytest.fixture(scope="session")
def example1():
    import itsa

    return itsa.keys.examples.example1()


@pytest.fixture(scope="session")
def example2():
    import itsa

    return itsa.keys.examples.example2()


#: ``python -c`` code: the ``itsa`` command line, with an observer on the census's progress
#: reports (the ``progress`` callback of :func:`itsa.keys.census.run_census`, called after each
#: finished row is in the journal). At the first report of ``{rows}`` or more rows done it writes
#: that count to file descriptor ``{fd}`` and holds the census there, with work left, until a
#: signal ends it (SIGINT raises KeyboardInterrupt in the held loop, as it would anywhere).
HELD_CENSUS = """
import os, time
import itsa.keys.census
from itsa_cli import main

_run_census = itsa.keys.census.run_census

def run_census(*args, progress=None, **kwargs):
    def observe(p):
        if progress is not None:
            progress(p)
        if p.done >= {rows}:
            os.write({fd}, b"%d\\n" % p.done)
            while True:              # idle until a signal ends the census
                time.sleep(0.01)
    return _run_census(*args, progress=observe, **kwargs)

itsa.keys.census.run_census = run_census
main()
"""


@contextlib.contextmanager
def held_census(args, rows: int, **popen):
    """``itsa census ARGS`` in a child process, held once it has reported ``rows`` finished rows.

    Yields ``(proc, done)``: the running child and the count of rows it had finished, all in
    its journal, when it was held (see :data:`HELD_CENSUS`). The caller signals it; a child
    still running on the way out is killed (its whole group if it has one of its own).
    The wait has a bound only to turn a hang into a failure: it ends at the census's report.
    """
    ready_r, ready_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-c", HELD_CENSUS.format(fd=ready_w, rows=rows),
                             "census", *map(str, args)], pass_fds=(ready_w,), **popen)
    os.close(ready_w)
    try:
        readable = select.select([ready_r], [], [], 600)[0]
        reported = os.read(ready_r, 64).decode() if readable else ""
        if not reported:
            why = proc.communicate(timeout=60)[1] if readable else "no report in 600 s"
            pytest.fail(f"the census (exit status {proc.returncode}) did not report {rows} rows: {why}")
        assert proc.poll() is None
        yield proc, int(reported)
    finally:
        os.close(ready_r)
        if proc.poll() is None:
            if popen.get("start_new_session"):
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            proc.communicate()
