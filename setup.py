"""The package list, found rather than written: every package under ``itsa/`` and every folder
under the shipped trees is in the wheel, so a new subpackage cannot be left out.

The metadata is in ``pyproject.toml``; this file only computes what a static list would forget.
``tests/test_wheel.py`` builds the wheel and holds it against the tree.
"""

from setuptools import find_namespace_packages, setup

#: Packages whose import name differs from their folder: the command line and the shipped data.
MAPPED = {
    "itsa_cli": "cli",                 # the click front end, installed under a distinct name
    "itsa.instances": "instances",     # instances every command takes by name
    "itsa.specs": "specs",             # census specs for itsa census NAME
    "itsa.deployments": "deployments",  # deployments for itsa plan NAME
}
#: Data each package ships beside its modules (what a command reads at run time).
DATA = ["py.typed", "*.yaml", "*.json"]


def packages() -> list[str]:
    """``itsa`` and its subpackages, then each mapped folder and its subfolders under its import name."""
    found = find_namespace_packages(include=["itsa", "itsa.*"], exclude=["*__pycache__*"])
    for name, folder in MAPPED.items():
        found += [name] + [f"{name}.{sub}" for sub in find_namespace_packages(where=folder, exclude=["*__pycache__*"])]
    return sorted(found)


setup(packages=packages(), package_dir={"itsa": "itsa", **MAPPED}, package_data={"": DATA})
