"""What every framework a plan is exported to answers: the :class:`FrameworkTarget` interface, and its registry.

A target checks a deployment before any planning or writing (:meth:`~FrameworkTarget.check`: the
refusals, one line each), writes a plan in the framework's own objects
(:meth:`~FrameworkTarget.export`, with the notes on the choices it made),
says what the plan's epsilon needs that the framework's run does not provide
by itself (:meth:`~FrameworkTarget.premises`), and describes itself in one
line (:attr:`~FrameworkTarget.help`), from which ``itsa plan --export``'s
help and :func:`itsa.frameworks.export.export_plan`'s docstring are built.
The targets register themselves (:func:`register`) where they are defined
(:mod:`itsa.frameworks.export`, which imports this room, never the other way);
:func:`targets` lists them in that order.

Examples
--------
>>> from itsa.frameworks.export import Framework
>>> [t.name for t in targets()] == list(Framework)
True
>>> targets()[-1].help.startswith("tff (")
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["FrameworkTarget", "register", "targets", "targets_help"]


class FrameworkTarget(ABC):
    """One framework a plan is exported to (``itsa plan --export NAME``)."""

    #: The name ``--export`` takes (a member of :class:`itsa.frameworks.export.Framework`).
    name: str
    #: What the export holds, ``NAME (...)``: the option's help and the docstrings join these.
    help: str

    def check(self, deployment) -> None:
        """Refuse (:class:`~itsa.exceptions.InvalidOption`, one line) a deployment with no counterpart here,
        before any planning or writing; a target that takes every deployment refuses none."""
        return None

    @abstractmethod
    def export(self, plan) -> tuple[Any, list[str]]:
        """``(export, notes)``: the plan in the framework's objects, and the notes on the choices made."""

    def premises(self, plan, export) -> tuple[str, ...]:
        """What the plan's epsilon needs that the framework's run does not provide by itself (none here)."""
        return ()


_TARGETS: dict[str, FrameworkTarget] = {}


def register(t: FrameworkTarget) -> FrameworkTarget:
    """Add ``t`` to the registry (in order), and return it."""
    _TARGETS[str(t.name)] = t
    return t


def targets() -> tuple[FrameworkTarget, ...]:
    """Every registered target, in the order registered."""
    return tuple(_TARGETS.values())


def targets_help(last: str = " or ") -> str:
    """The targets' lines joined: ``flower (...), dp-accounting (...) or tff (...)``."""
    lines = [t.help for t in targets()]
    return lines[0] if len(lines) == 1 else ", ".join(lines[:-1]) + last + lines[-1]
