from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
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

    return itsa.examples.example1()


@pytest.fixture(scope="session")
def example2():
    import itsa

    return itsa.examples.example2()
