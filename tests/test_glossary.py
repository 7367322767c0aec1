"""The code follows docs/glossary.md: one name per quantity, in the library and on the command line.

Every ``--option`` of every verb is on the page and every option the page
names exists; every library name the page gives in a ``library`` column is
a parameter of a public function or a field of a public result; the names
the page says are not used are no parameter of a public function and no
option.
"""

import inspect
import re

import click
import pytest

import itsa
import itsa.keys.census
import itsa.keys.converse
import itsa.keys.examples
import itsa.modular
import itsa.planning
import itsa.planning.accounting
import itsa.planning.deployment
import itsa.planning.drivers.explore
import itsa.planning.drivers.fleet
import itsa.planning.frameworks_units
import itsa.planning.noise
import itsa.planning.planner
import itsa.privacy
import itsa.privacy.matrix
from itsa_cli import main
from tests.test_house import ROOT

PAGE = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
#: The packages whose public names the glossary speaks of (their ``__all__``, or every public name).
PARTS = (itsa, itsa.privacy, itsa.privacy.matrix, itsa.modular, itsa.planning, itsa.planning.accounting,
         itsa.planning.deployment, itsa.planning.drivers.explore, itsa.planning.drivers.fleet,
         itsa.planning.frameworks_units, itsa.planning.noise,
         itsa.planning.planner, itsa.keys.census, itsa.keys.converse, itsa.keys.examples)


def cli_options() -> dict[str, set[str]]:
    """``--option -> {verb, ...}`` over every verb of every group."""
    found: dict[str, set[str]] = {}

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(None):
                walk(cmd.get_command(None, name), path + [name])
            return
        for param in cmd.params:
            for opt in param.opts + param.secondary_opts:
                if opt.startswith("--"):
                    found.setdefault(opt, set()).add(" ".join(path))
    walk(main, [])
    return found


def table_cells(column: str) -> list[str]:
    """The cells of ``column`` in every table of the page whose header has it."""
    cells = []
    for table in re.findall(r"((?:^\|.*\|\n)+)", PAGE, re.M):
        lines = table.splitlines()
        header = [c.strip() for c in lines[0].strip("|").split("|")]
        if column in header:
            i = header.index(column)
            cells += [row.strip("|").split("|")[i].strip() for row in lines[2:]]
    return cells


def public_names(parts=PARTS) -> set[str]:
    """Every parameter of every public callable of the parts, and every field of their results."""
    names: set[str] = set()
    for part in parts:
        for name in getattr(part, "__all__", [n for n in vars(part) if not n.startswith("_")]):
            obj = getattr(part, name)
            if callable(obj):
                try:
                    names |= set(inspect.signature(obj).parameters)
                except (TypeError, ValueError):
                    pass
            if inspect.isclass(obj):
                names |= {n for n in dir(obj) if not n.startswith("_")} | set(getattr(obj, "__dataclass_fields__", {}))
            names.add(name)
    return names


def test_every_option_of_every_verb_is_on_the_page():
    named = set(re.findall(r"--[a-z][a-z-]*", PAGE))
    missing = sorted(set(cli_options()) - named)
    assert not missing, f"options the glossary does not name: {missing}"


def old_options() -> set[str]:
    """The options of the page's table of old names (read, and named nowhere else)."""
    return set(re.findall(r"--[a-z][a-z-]*", PAGE.split("## Old names still read")[1].split("## ")[0]))


def test_every_option_on_the_page_exists():
    ghosts = sorted(set(re.findall(r"--[a-z][a-z-]*", PAGE)) - set(cli_options()))
    assert not ghosts, f"options the glossary names that no verb has: {ghosts}"


def test_every_library_name_on_the_page_exists():
    known = public_names()
    given = {n for cell in table_cells("library") for n in re.findall(r"`([a-z_][a-z0-9_]*)", cell)}
    unknown = sorted(given - known)
    assert not unknown, f"library names on the page that no public function or result has: {unknown}"


#: The names the page says are not used: each written `name` (`the name to say instead`).
NOT_USED = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)` \((?:say )?`", PAGE.split("## Names not used")[1])


def test_the_page_names_names_not_used():
    assert {"rho", "w_max", "target", "K_eff"} <= set(NOT_USED)


#: Names the page keeps for one meaning in one part: ``rho`` is zCDP's ρ in the privacy part (its
#: name in dp-accounting) and never the radix of the layered digits.
SCOPED = {"rho": tuple(part for part in PARTS if part not in (itsa.privacy, itsa.privacy.matrix))}


@pytest.mark.parametrize("name", NOT_USED)
def test_a_name_not_used_is_not_used(name):
    options = cli_options()
    assert name not in public_names(SCOPED.get(name, PARTS)), f"{name} is a public parameter"
    option = "--" + name.replace("_", "-").lower()
    assert option not in options or option in old_options(), f"{option} is an option"
