"""The wheel is the product: it holds every module and data file of the tree, and, installed as a user
installs it (not editable), it runs the main job and every shipped deployment from outside the checkout.

The wheel is built without dependencies from a copy of the tree's package folders (so that nothing left
in a developer's ``build/`` folder can stand in for a forgotten module), then installed with
``pip install --no-deps --target``; the installed copy is put first on ``PYTHONPATH`` and run from a
temporary directory, so ``import itsa`` finds the installed package, not the source tree. The
environment's own dependencies serve it. The installed package's doctests are the slow job's
(``test_installed_doctests``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Where each source folder lands in the wheel, written independently of the build script.
FOLDERS = {"itsa": "itsa", "cli": "itsa_cli", "instances": "itsa/instances", "specs": "itsa/specs",
           "deployments": "itsa/deployments"}
#: What the build reads besides the folders.
BUILD_FILES = ["pyproject.toml", "setup.py", "README.md", "LICENSE"]


def _tree_files(folder: Path) -> list[Path]:
    """Every file of a source folder a wheel must carry: all but byte-code caches."""
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def expected_members(root: Path = ROOT) -> set[str]:
    """The wheel's paths of every file of the tree's package folders."""
    members = set()
    for folder, target in FOLDERS.items():
        for path in _tree_files(root / folder):
            members.add(f"{target}/{path.relative_to(root / folder).as_posix()}")
    return members


def build_wheel(source: Path, out: Path) -> Path:
    """Copy ``source``'s package folders and build files to a clean folder and build the wheel there."""
    clean = out / "src"
    clean.mkdir()
    for folder in FOLDERS:
        shutil.copytree(source / folder, clean / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in BUILD_FILES:
        shutil.copy2(source / name, clean / name)
    dist = out / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--disable-pip-version-check", "-w", str(dist), str(clean)],
                   check=True, capture_output=True, text=True)
    (wheel,) = dist.glob("itsa-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """``run(*args)``: ``python -m itsa ARGS`` with the installed wheel first on the path, outside the checkout."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check",
                    "--target", str(target), str(wheel)], check=True, capture_output=True, text=True)
    cwd = tmp_path_factory.mktemp("elsewhere")
    env = {**os.environ, "PYTHONPATH": str(target)}

    def run(*args: str, module: str | None = "itsa", timeout: float = 300) -> subprocess.CompletedProcess:
        command = [sys.executable, *(["-m", module] if module else []), *args]
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)

    run.target = target  # type: ignore[attr-defined]
    return run


def test_wheel_holds_the_tree(wheel):
    members = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(expected_members() - members)
    assert not missing, f"the wheel lacks {len(missing)} files of the tree: {missing[:20]}"


def test_wheel_carries_nothing_outside_the_tree(wheel):
    members = {m for m in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in m}
    assert members == expected_members()


def test_a_forgotten_subpackage_fails_the_check(tmp_path):
    """The check catches what the old hand-written list did: a package list that leaves one out."""
    source = tmp_path / "tree"
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, source / name)
    script = (source / "setup.py").read_text(encoding="utf-8")
    forgetful = script.replace('exclude=["*__pycache__*"])\n    for',
                               'exclude=["*__pycache__*", "itsa.planning.mechanisms"])\n    for')
    assert forgetful != script
    (source / "setup.py").write_text(forgetful, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    members = set(zipfile.ZipFile(build_wheel(source, out)).namelist())
    missing = expected_members(source) - members
    assert "itsa/planning/mechanisms/dgauss.py" in missing


def test_installed_package_is_the_wheel(installed):
    done = installed("-c", "import itsa, itsa_cli; print(itsa.__file__); print(itsa_cli.__file__)", module=None)
    assert done.returncode == 0, done.stderr
    for line in done.stdout.split():
        assert Path(line).is_relative_to(installed.target), line


def test_installed_main_job(installed):
    """The README's first command, as a user runs it after ``pip install .``."""
    done = installed("plan", "k1000")
    assert done.returncode == 0, done.stderr
    assert "verdict" in done.stdout and "feasible" in done.stdout


def _shipped_deployments() -> list[str]:
    return sorted(p.stem for p in (ROOT / "deployments").glob("*.yaml"))


@pytest.mark.parametrize("name", _shipped_deployments())
def test_installed_plans_every_shipped_deployment(installed, name):
    """Each shipped deployment plans from the installed package: exit 0, or 3 where the file says it is infeasible."""
    text = (ROOT / "deployments" / f"{name}.yaml").read_text(encoding="utf-8")
    infeasible = text.lstrip().startswith("# An infeasible deployment")
    done = installed("plan", name, "--json")
    assert done.returncode == (3 if infeasible else 0), done.stderr
    assert json.loads(done.stdout)["verdict"]["verdict"] == ("infeasible" if infeasible else "feasible")


@pytest.mark.parametrize("args", [("analyze", "example-1"), ("build", "example-1"), ("verify", "example-2"),
                                  ("examples",)])
def test_installed_paper_examples(installed, args):
    done = installed(*args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


@pytest.mark.slow
def test_installed_doctests(installed):
    """The installed package's doctests (``pytest --pyargs itsa``), run outside the checkout."""
    done = installed("-q", "-p", "no:cacheprovider", "--pyargs", "itsa", "--doctest-modules",
                     module="pytest", timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:]
