import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"

settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def example1():
    import itsa

    return itsa.load_instance(INSTANCES / "example-1.yaml")


@pytest.fixture(scope="session")
def example2():
    import itsa

    return itsa.load_instance(INSTANCES / "example-2.yaml")
