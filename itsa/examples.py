"""Instances that ship with itsa: the paper's examples, the homogeneous family, the audit files.

The files are the repository's ``instances/`` folder, installed as package
data; every function here works from any directory, in a source checkout or
an installed package. Names are file stems, with ``audit/`` for the files
behind itsa's audit findings (``docs/audit.md``).

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
from importlib.resources import files
from pathlib import Path

from .exceptions import InvalidInstance
from .instance import Instance
from .instance_io import _is_int, load_instance, parse_instance

__all__ = ["names", "describe", "path", "load", "scheme", "example1", "example2",
           "homogeneous", "homogeneous_yaml", "resolve"]


def _root() -> Path:
    """The folder of shipped instances."""
    installed = Path(str(files("itsa") / "instances"))    # wheel: package data inside itsa/
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent / "instances"    # source checkout, editable


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
    root = _root()
    for candidate in (name, f"{name}.yaml"):
        p = root / candidate
        if p.is_file() and root in p.resolve().parents:
            return p
    raise InvalidInstance(f"{name}: no shipped example of that name (see itsa.examples.names())")


def resolve(path_or_name: str | Path) -> Path:
    """``path_or_name`` if such a file exists, else the shipped file of that name.

    What the command line does with its ``PATH`` arguments, so that
    ``itsa analyze example-1`` works from any directory. A name that is
    neither is returned unchanged (reading it then reports the missing file).
    """
    p = Path(path_or_name)
    if p.exists():
        return p
    try:
        return path(str(path_or_name))
    except InvalidInstance:
        return p


def describe(name: str) -> str:
    """The first sentence of the file's header comment: one line per example.

    >>> describe("example-1")
    'Example 1 of the paper (Fig. 1); docs/model.md §5.'
    >>> describe("example-2")
    'Example 2 of the paper (Sec. V-A); the 28 collusion sets copied from the paper text (search "T_{28}"); docs/model.md §5.'
    """
    lines = []
    for line in path(name).read_text(encoding="utf-8").splitlines():
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
    from .scheme import load_scheme

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
        if not _is_int(x) or x < low:
            raise InvalidInstance(f"homogeneous: {label} must be a whole number >= {low}, not {x!r}")


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
