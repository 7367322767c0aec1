from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"

# Every random choice is seeded: hypothesis runs the same examples everywhere.
settings.register_profile("itsa", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("itsa")


@pytest.fixture(scope="session")
def example1():
    import itsa

    return itsa.examples.example1()


@pytest.fixture(scope="session")
def example2():
    import itsa

    return itsa.examples.example2()
