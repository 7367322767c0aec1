"""Instances that ship with itsa: the paper's examples, the homogeneous family, the audit files.

The files are the repository's ``instances/`` folder, installed as package
data; every function here works from any directory, in a source checkout or
an installed package. Names are file stems, with ``audit/`` for the files
behind itsa's audit findings (``docs/audit.md``).

The census specs that ship with itsa (the repository's ``specs/`` folder) are
not instances: :func:`spec_names` lists them and :func:`spec_path` finds one
by name, which is what ``itsa census NAME`` runs.

Examples
--------
>>> from itsa import examples
>>> examples.example1().servers
(3, 2, 2)
>>> "example-2" in examples.names()
True
>>> examples.homogeneous(3, 2, 1) == examples.load("homogeneous-U3-V2-t1")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from itsa._util.checks import whole_number
from itsa._util.display import Displayable
from itsa._util.files import exists, is_regular_file
from itsa.exceptions import InvalidInput, InvalidInstance
from itsa.keys.model.instance import MAX_USERS, Instance
from itsa.keys.model.io import load_instance, parse_instance

__all__ = ["names", "describe", "path", "load", "scheme", "example1", "example2",
           "homogeneous", "homogeneous_yaml", "resolve", "spec_names", "spec_path", "resolve_spec",
           "suggest", "deployment_names", "resolve_deployment", "describe_deployment", "Catalogue", "catalogue", "HomogeneousFile",
           "homogeneous_file"]

#: The prefix under which census specs were once listed among the instances (still accepted).
SPEC_PREFIX = "census/"


def _shipped(folder: str) -> Path:
    """A shipped data folder: package data inside ``itsa/``, or the checkout's top-level folder."""
    installed = Path(str(files("itsa") / folder))    # wheel: package data inside itsa/
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / folder    # source checkout, editable


def _root() -> Path:
    """The folder of shipped instances."""
    return _shipped("instances")


def _find(root: Path, name: str) -> Path | None:
    for candidate in (name, f"{name}.yaml"):
        p = root / candidate
        if is_regular_file(p) and root.resolve() in p.resolve().parents:
            return p
    return None


def names() -> tuple[str, ...]:
    """Every shipped instance name, the paper's examples first.

    >>> names()[:2]
    ('example-1', 'example-2')
    """
    root = _root()
    found = [p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml")]
    return tuple(sorted(found, key=lambda n: (n.count("/"), not n.startswith("example"), n)))


def path(name: str) -> Path:
    """The file of a shipped instance (``name`` with or without ``.yaml``).

    Also accepts a shipped scheme file name such as ``example-1.scheme.json``.

    Raises
    ------
    InvalidInstance
        If no shipped file has that name.
    """
    found = _find(_root(), name)
    if found is None and name.startswith(SPEC_PREFIX):      # the specs' old home: a census name
        found = _find(_shipped("specs"), name[len(SPEC_PREFIX):])
    if found is None:
        hint = _did_you_mean(name.removesuffix(".yaml"), names()) or " (see itsa.keys.examples.names())"
        raise InvalidInstance(f"{name}: no shipped example of that name{hint}")
    return found


def resolve(path_or_name: str | Path) -> Path:
    """``path_or_name`` if such a file exists, else the shipped file of that name.

    What the command line does with its ``PATH`` arguments, so that
    ``itsa analyze example-1`` works from any directory. A name that is
    neither is returned unchanged (reading it then reports the missing file);
    an empty one is refused (``Path("")`` would be the current folder).
    """
    if not str(path_or_name).strip():
        raise InvalidInstance("the path is empty: give a file, or the name of a shipped example "
                              "(itsa examples)")
    p = Path(path_or_name)
    if exists(p):
        return p
    found = _find(_root(), str(path_or_name))
    return p if found is None else found


def suggest(path_or_name: str | Path, choices: tuple[str, ...] | None = None) -> str:
    """``"; did you mean 'NAME'?"`` for a misspelled shipped name, else ``""``.

    A shipped deployment's name given where an instance is read says where it belongs.

    >>> suggest("exmaple-1")
    "; did you mean 'example-1'?"
    >>> suggest("no-such-thing.yaml")
    ''
    >>> suggest("k1000")
    "; 'k1000' is a shipped deployment, not a key-rate instance (itsa plan k1000)"
    """
    stem = str(path_or_name).removesuffix(".yaml")
    hint = _did_you_mean(stem, names() if choices is None else choices)
    if not hint and choices is None and stem in deployment_names():
        return f"; {stem!r} is a shipped deployment, not a key-rate instance (itsa plan {stem})"
    return hint


def _did_you_mean(name: str, choices) -> str:
    import difflib

    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""


def spec_names() -> tuple[str, ...]:
    """Every shipped census spec name (run one with ``itsa census NAME -o OUT``).

    >>> spec_names()
    ('grid-small', 'minimal')
    """
    return tuple(sorted(p.stem for p in _shipped("specs").glob("*.yaml")))


def spec_path(name: str) -> Path:
    """The file of a shipped census spec: ``minimal``, ``minimal.yaml`` or ``census/minimal``.

    >>> spec_path("census/minimal").name
    'minimal.yaml'

    Raises
    ------
    InvalidInput
        If no shipped spec has that name.
    """
    found = _find(_shipped("specs"), name.removeprefix(SPEC_PREFIX))
    if found is None:
        raise InvalidInput(f"{name}: no shipped census spec of that name{_did_you_mean(name, spec_names())}"
                           f" (shipped: {', '.join(spec_names())})")
    return found


def resolve_spec(path_or_name: str | Path) -> Path:
    """``path_or_name`` if such a file exists, else the shipped census spec of that name.

    What ``itsa census NAME`` does. A name that is neither is returned
    unchanged, unless it is close to a shipped name (then a did-you-mean).

    Raises
    ------
    InvalidInput
        If ``path_or_name`` is no file but looks like a misspelled shipped name.
    """
    p = Path(path_or_name)
    if exists(p):
        return p
    found = _find(_shipped("specs"), str(path_or_name).removeprefix(SPEC_PREFIX))
    if found is not None:
        return found
    hint = _did_you_mean(str(path_or_name).removeprefix(SPEC_PREFIX).removesuffix(".yaml"), spec_names())
    if hint:
        raise InvalidInput(f"{p}: no such file{hint}")
    return p


def describe(name: str) -> str:
    """The first sentence of the file's header comment: one line per example.

    >>> describe("example-1")
    'Example 1 of the paper (Fig. 1); docs/model.md §5.'
    >>> describe("example-2")
    'Example 2 of the paper (Sec. V-A); the 28 collusion sets copied from the paper text (search "T_{28}"); docs/model.md §5.'
    """
    return _first_sentence(path(name))


def describe_deployment(name: str) -> str:
    """The first sentence of a shipped deployment's header comment.

    >>> describe_deployment("k1000").startswith("The deployment sized in docs/plan.md")
    True
    """
    found = _find(_shipped("deployments"), name)
    if found is None:
        raise InvalidInput(f"{name}: no shipped deployment of that name{_did_you_mean(name, deployment_names())}")
    return _first_sentence(found)


def _first_sentence(file: Path) -> str:
    lines = []
    for line in file.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    first = re.split(r"(?<!Fig)(?<!Sec)\.\s", " ".join(lines), maxsplit=1)
    return first[0].rstrip(".") + "."


def load(name: str) -> Instance:
    """The shipped instance ``name`` (see :func:`names`).

    >>> load("audit/overlap-S-inside-T").K
    3
    """
    return load_instance(path(name))


def scheme(name: str):
    """The scheme printed in the paper for a shipped example (``example-1``, ``example-2``).

    >>> scheme("example-2").rate
    Fraction(7, 2)
    """
    from itsa.keys.schemes.scheme import load_scheme

    return load_scheme(load(name), path(f"{name}.scheme.json"))


def example1() -> Instance:
    """Example 1 of the paper (Fig. 1; docs/model.md §5).

    >>> example1().describe(example1().collusion_sets[15])
    '{(1,2), (2,2), (3,1), (3,2)}'
    """
    return load("example-1")


def example2() -> Instance:
    """Example 2 of the paper (Sec. V-A; docs/model.md §5).

    >>> example2().K, example2().N
    (8, 28)
    """
    return load("example-2")


def _check_homogeneous(U, V, t) -> None:
    for label, x, low in (("U", U, 1), ("V", V, 1), ("t", t, 0)):
        whole_number(f"homogeneous: {label}", x, minimum=low, error=InvalidInstance)
    if U * V > MAX_USERS:           # before a list or a text of U entries is built
        raise InvalidInstance(f"homogeneous: U V = {U * V:,} users in all; itsa handles at most {MAX_USERS}")


def homogeneous_yaml(U: int, V: int, t: int) -> str:
    """The YAML text of the homogeneous instance (docs/model.md §6.3).

    ``U`` servers with ``V`` users each, every input protected, any ``t``
    users may collude; in the format of the shipped ``homogeneous-*`` files.

    >>> print(homogeneous_yaml(3, 2, 1), end="")  # doctest: +ELLIPSIS
    # Homogeneous family (docs/model.md §6.3): U = 3 servers with V = 2 users each,
    ...
    servers: [2, 2, 2]
    security_sets: [all]
    collusion_sets: {all_users_up_to: 1}
    """
    _check_homogeneous(U, V, t)
    return (f"# Homogeneous family (docs/model.md §6.3): U = {U} servers with V = {V} users each,\n"
            f"# every input protected, any t = {t} users may collude.\n"
            "# External optimum (arXiv 2601.06836): min{U+V+t-2, UV-1}.\n"
            f"name: homogeneous-U{U}-V{V}-t{t}\n"
            f"servers: [{', '.join([str(V)] * U)}]\n"
            "security_sets: [all]\n"
            f"collusion_sets: {{all_users_up_to: {t}}}\n")


def homogeneous(U: int, V: int, t: int) -> Instance:
    """The homogeneous instance: ``U`` servers of ``V`` users, all protected, any ``t`` collude.

    >>> homogeneous(3, 2, 1).N          # ∅ and the 6 single users
    7
    """
    _check_homogeneous(U, V, t)
    return parse_instance({"name": f"homogeneous-U{U}-V{V}-t{t}", "servers": [V] * U,
                           "security_sets": ["all"], "collusion_sets": {"all_users_up_to": t}})


def deployment_names() -> tuple[str, ...]:
    """Every shipped deployment (the repository's ``deployments/`` folder; ``itsa plan NAME`` sizes one).

    >>> "k1000" in deployment_names()
    True
    """
    return tuple(sorted(p.stem for p in _shipped("deployments").glob("*.yaml")))


def resolve_deployment(path_or_name: str | Path) -> Path:
    """``path_or_name`` if such a file exists, else the shipped deployment of that name (else unchanged).

    Raises
    ------
    InvalidDeployment
        If ``path_or_name`` is no file but looks like a misspelled shipped deployment (a did-you-mean),
        or names a shipped instance (a key-rate instance is not a deployment).
    """
    from itsa.exceptions import InvalidDeployment

    p = Path(path_or_name)
    if exists(p) or not str(path_or_name).strip():
        return p
    found = _find(_shipped("deployments"), str(path_or_name))
    if found is not None:
        return found
    stem = str(path_or_name).removesuffix(".yaml")
    hint = _did_you_mean(stem, deployment_names())
    if hint:
        raise InvalidDeployment(f"{p}: no such file{hint}")
    if _find(_root(), stem) is not None:
        raise InvalidDeployment(f"{p}: no such file; {stem!r} is a shipped key-rate instance, not a deployment "
                                f"(shipped deployments: {', '.join(deployment_names())})")
    if len(p.parts) == 1 and not p.suffix:
        raise InvalidDeployment(f"{p}: no such file, nor a shipped deployment ({', '.join(deployment_names())})")
    return p


@dataclass(frozen=True, repr=False)
class Catalogue(Displayable):
    """The shipped instances and deployments, each ``(name, description)``: the answer of ``itsa examples``."""

    entries: tuple[tuple[str, str], ...]
    deployments: tuple[tuple[str, str], ...] = ()

    def headline(self) -> str:
        return f"{len(self.entries)} shipped instances, {len(self.deployments)} shipped deployments"

    def rows(self) -> list[tuple[str, str]]:
        return list(self.entries) + [(n, f"deployment (itsa plan {n}): {d}") for n, d in self.deployments]

    def to_dict(self) -> dict:
        return {"examples": [{"name": n, "description": d} for n, d in self.entries],
                "deployments": [{"name": n, "description": d} for n, d in self.deployments]}


def catalogue() -> Catalogue:
    """Every shipped instance and deployment with its one-line description (:func:`names`, :func:`describe`,
    :func:`deployment_names`, :func:`describe_deployment`).

    >>> c = catalogue()
    >>> c.rows()[0][0], "k1000" in dict(c.deployments)
    ('example-1', True)
    """
    return Catalogue(tuple((name, describe(name)) for name in names()),
                     tuple((name, describe_deployment(name)) for name in deployment_names()))


@dataclass(frozen=True, repr=False)
class HomogeneousFile(Displayable):
    """The YAML file of one homogeneous instance: ``itsa examples --homogeneous U,V,t``."""

    U: int
    V: int
    t: int
    text: str

    def headline(self) -> str:
        return f"homogeneous-U{self.U}-V{self.V}-t{self.t}"

    def rows(self) -> list[tuple[str, str]]:
        return [("yaml", self.text)]

    def to_dict(self) -> dict:
        return {"U": self.U, "V": self.V, "t": self.t, "yaml": self.text}


def homogeneous_file(U: int, V: int, t: int) -> HomogeneousFile:
    """:func:`homogeneous_yaml`, checked to be an instance itsa reads (:func:`homogeneous`).

    >>> homogeneous_file(3, 2, 1).text == homogeneous_yaml(3, 2, 1)
    True
    """
    text = homogeneous_yaml(U, V, t)
    homogeneous(U, V, t)              # refuse an instance itsa cannot read
    return HomogeneousFile(U, V, t, text)
