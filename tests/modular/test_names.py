"""One name per thing: each verb of ``itsa modular`` is the function of that name, no module is shadowed,
and the library's parameters follow the glossary (``radix``, ``carry``, ``arithmetic``, ``survivors``)."""

import importlib
import inspect
import pkgutil

import pytest

import itsa.modular as modular
from itsa_cli import main as cli

VERBS = ("margins", "rules", "digits", "payload", "converse", "distortion", "privacy", "audit", "clip-rate")
FORMER = {"staircase": "margins", "compatibility": "digits", "release_privacy": "privacy", "Staircase": "Margins",
          "Method": "Arithmetic", "compare": "compare_rules"}


def test_every_verb_is_an_exported_function_of_its_name():
    group = cli.get_command(None, "modular")
    assert set(group.commands) == set(VERBS)
    for verb in VERBS:
        name = verb.replace("-", "_")                # a verb of two words is the function of its snake-case name
        assert name in modular.__all__ and inspect.isfunction(getattr(modular, name)), verb
        assert callable(group.commands[verb].callback)


@pytest.mark.parametrize("old, new", sorted(FORMER.items()))
def test_former_names_are_aliases(old, new):
    assert getattr(modular, old) is getattr(modular, new)


def test_no_module_is_shadowed_by_a_function():
    for info in pkgutil.iter_modules(modular.__path__):
        assert info.name.startswith("_"), f"itsa.modular.{info.name} is public: it would clash with a name"
        assert inspect.ismodule(importlib.import_module(f"itsa.modular.{info.name}"))
    for verb in VERBS:
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"itsa.modular.{verb.replace('-', '_')}")


def test_parameters_follow_the_glossary():
    banned = {"rho", "target", "method", "w_max"}
    for name in modular.__all__:
        obj = getattr(modular, name)
        if inspect.isfunction(obj):
            assert not banned & set(inspect.signature(obj).parameters), name
    assert "survivors" in inspect.signature(modular.privacy).parameters
    assert "clients" not in inspect.signature(modular.privacy).parameters       # clients means K only


def test_every_public_function_and_class_has_a_parameters_section():
    from enum import Enum

    for name in modular.__all__:
        obj = getattr(modular, name)
        if name in ("Certified", "CarryBound") or (inspect.isclass(obj) and issubclass(obj, Enum)):
            continue                    # the shared certified type is documented in itsa._util; enums take none
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert "Parameters" in (obj.__doc__ or ""), name
