"""A griffe extension for the API reference: the docstrings' reST roles become links.

The docstrings cross-reference with Sphinx's roles (``:func:`solve```,
``:class:`~itsa.keys.census.store.ResultStore```, ``:mod:`.figures```), which
mkdocstrings would show as they are. Before rendering, each role is resolved
against the package (the name as written, in the docstring's module and class,
the module's imports, then ``itsa``'s public names) and replaced by an
autorefs cross-reference to the object's own path, shown as code (``~`` keeps
only the last name, as in Sphinx). A reference to an object that the
reference does not document (a private helper, another package) is marked
optional: it shows as code, unlinked, and is no warning.

Used by mkdocs.yml (``extensions: [scripts/griffe_roles.py]``).
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(func|class|mod|meth|data|attr|obj|exc):`([^`]+)`")


def _lookup(pkg: griffe.Module, path: str) -> str | None:
    """The canonical path of ``path`` inside ``pkg`` (aliases followed), or None."""
    if path != pkg.path and not path.startswith(pkg.path + "."):
        return None
    obj: Any = pkg
    for part in path.split(".")[1:]:
        try:
            obj = obj.members[part]
        except (KeyError, AttributeError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        if isinstance(obj, griffe.Alias):
            target = obj.target_path
            if target == path:
                return None
            resolved = _lookup(pkg, target)
            if resolved is None:
                return None
            obj = _object(pkg, resolved)
    return obj.path


def _object(pkg: griffe.Module, path: str) -> Any:
    obj: Any = pkg
    for part in path.split(".")[1:]:
        obj = obj.members[part]
    return obj


def _candidates(obj: Any, name: str) -> list[str]:
    """Where ``name``, written in ``obj``'s docstring, may live."""
    module = obj.module
    if name.startswith("."):
        parent = module.path.rsplit(".", 1)[0]
        return [f"{parent}{name}", f"{module.path}{name}"]
    out = [name, f"{module.path}.{name}"]
    if obj.is_class:
        out.append(f"{obj.path}.{name}")
    if obj.parent is not None and obj.parent.is_class:
        out.append(f"{obj.parent.path}.{name}")
    head, _, rest = name.partition(".")
    imported = module.members.get(head)
    if isinstance(imported, griffe.Alias):
        out.append(imported.target_path + (f".{rest}" if rest else ""))
    out.append(f"{module.package.path}.{name}")
    return out


def _replace(pkg: griffe.Module, obj: Any, text: str) -> str:
    def link(m: re.Match) -> str:
        written = m[2].strip()
        name = written.lstrip("~")
        shown = name.rsplit(".", 1)[-1] if written.startswith("~") else name.lstrip(".")
        target = next((p for p in map(lambda c: _lookup(pkg, c), _candidates(obj, name)) if p), None)
        code = f"<code>{html.escape(shown)}</code>"
        if target is None:
            return code
        return f'<autoref identifier="{target}" optional>{code}</autoref>'
    return ROLE.sub(link, text)


class RestRoles(griffe.Extension):
    """Turn the reST roles of every docstring of the package into autorefs links."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = _replace(pkg, obj, obj.docstring.value)


def _walk(obj: Any):
    yield obj
    for member in obj.members.values():
        if not isinstance(member, griffe.Alias):
            yield from _walk(member)
