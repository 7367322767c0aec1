"""The package's face: every verb a function of the same name, no module shadowed, every public name documented."""

import importlib
import inspect
import pkgutil
import types
from enum import Enum

import pytest

import itsa.privacy as privacy
from itsa_cli.privacy import privacy as group

VERBS = sorted(group.commands)


def test_every_verb_is_an_exported_function_of_its_name():
    assert VERBS == ["account", "binomial", "calibrate", "noise", "release", "sample", "sensitivity",
                     "weights"]
    for verb in VERBS:
        assert verb in privacy.__all__ and inspect.isfunction(getattr(privacy, verb)), verb


def test_no_module_is_shadowed_by_a_function():
    for info in pkgutil.iter_modules(privacy.__path__):
        module = importlib.import_module(f"itsa.privacy.{info.name}")
        assert getattr(privacy, info.name) is module, info.name
    from itsa.privacy import account, weights

    assert callable(account) and callable(weights)


def test_old_names_still_import_from_the_package():
    from itsa.privacy import hamilton_weights, sensitivity_report

    assert hamilton_weights is privacy.weights and sensitivity_report is privacy.sensitivity


def _has_parameters(obj) -> bool:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return any(name not in ("self", "cls") for name in signature.parameters)


@pytest.mark.parametrize("name", [n for n in privacy.__all__ if not n.isupper()])
def test_every_public_function_and_class_has_a_parameters_section(name):
    obj = getattr(privacy, name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)) or (inspect.isclass(obj) and issubclass(obj, Enum)):
        pytest.skip(f"{name}: not a function or a class with parameters")
    if not _has_parameters(obj):
        pytest.skip(f"{name}: takes no parameters")
    doc = inspect.getdoc(obj) or ""
    assert "Parameters\n----------" in doc, f"{name} has no Parameters section"


def test_the_default_delta_is_one_constant():
    from fractions import Fraction

    assert privacy.DEFAULT_DELTA == Fraction(1, 10**5)
    for verb in ("account", "calibrate", "sensitivity"):
        assert inspect.signature(getattr(privacy, verb)).parameters["delta"].default is privacy.DEFAULT_DELTA
    assert isinstance(privacy.conversion, types.ModuleType)
