"""The planner is an adapter: it reads the :class:`~itsa.planning.Deployment`, the sections take numbers.

What this holds:

- **statically**, for every module of the package (walked, not listed) but the readers, that no function or method
  (public or private) has a parameter named ``deployment`` or annotated with
  ``Deployment``, that the module never names the ``Deployment`` class, and
  that it reaches no attribute only a deployment (or a plan's ``deployment``)
  has (``.privacy``, ``.overflow_per``, ``.deployment``): a section cannot
  read a deployment it is not given;
- **dynamically**, that while a flat plan with keys and a gate, and a PSA
  layering, are sized from their files, no function of those modules is
  called with a ``Deployment`` among its arguments, and that the file's
  ``clients`` reaches the noise, the encoding (its scale, or the layering's
  stages), the keys and the gate as an ``int`` (a ``clients`` argument, or
  the ``clients`` field of the :class:`~itsa.planning.mechanism.NoiseInputs`
  the planner builds once, which a flat word's
  :class:`~itsa.planning.flat.FlatInputs` holds).

Which modules still take a deployment, and why (they are not checked here):
``planner`` (the adapter itself), ``deployment`` (the reader), and
``explore``, ``sweep``, the run wing (``run.simulate``, ``run.from_plan``, ``run.setup``) and
``protocols.run``, which re-plan or run variants of a deployment or a plan (a
protocol's own module takes its keys section and numbers: it is checked).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

import pytest

import itsa.planning
from itsa.planning import Deployment, load_deployment, plan
from itsa.planning.flat import FlatInputs
from itsa.planning.mechanism import NoiseInputs

#: The modules that read a deployment or a plan, and why (the adapter, the reader, the drivers that re-plan,
#: the run wing that runs variants of a plan, a protocol's round run); every other module is a section.
READERS = ("itsa.planning.planner", "itsa.planning.deployment", "itsa.planning.protocols.run")
WINGS_THAT_READ = ("itsa.planning.drivers", "itsa.planning.run")


def _sections():
    """Every module of ``itsa.planning`` (walked, not listed) but the readers and the package faces."""
    names = [m.name for m in pkgutil.walk_packages(itsa.planning.__path__, "itsa.planning.") if not m.ispkg]
    return tuple(importlib.import_module(n) for n in sorted(names)
                 if n not in READERS and not n.startswith(tuple(w + "." for w in WINGS_THAT_READ)))


#: The sections' modules: each function takes numbers (or a value object of numbers), never a deployment.
SECTIONS = _sections()
#: Attributes only a deployment has (or a plan, through its deployment).
DEPLOYMENT_ONLY = {"privacy", "overflow_per", "deployment"}

#: A flat deployment with SecAgg+ keys and a gate, as a file holds it (150 clients: not a default anywhere).
FLAT = """
clients: 150
dropout: 1/10
dimension: 20
clip: 1
privacy: {epsilon: 4, delta: 1e-6, rounds: 5}
noise: {mechanism: dgauss}
encoding: {word_bits: 32}
gate: {budget: 20, flag_rate: 1/100}
protocol: {secagg+: {corrupt: 1/20}}
"""
#: A PSA layering (its own noise and encoding sections) with SecAgg+ keys.
LAYERED = """
clients: 150
dimension: 20
clip: 1
privacy: {epsilon: 4, delta: 1e-6, rounds: 5}
noise: central
encoding: {radix: 5, layers: 3, stages: each}
protocol: {secagg+: {corrupt: 1/20}}
"""
#: The sections each plan must hand the clients to, as a number.
WALKS = {
    "flat": (FLAT, ("flat.size_flat", "noise.size_noise", "scale.wrap_at", "sections.size_deployment_keys",
                    "registry.size_protocol_keys", "gate.size_gate", "accounting.account_noise",
                    "frameworks_units.frameworks_section", "beside.beside_plan")),
    "layered": (LAYERED, ("noise.size_layered_noise", "layered.layered_encoding", "sections.size_deployment_keys",
                          "registry.size_protocol_keys", "accounting.account_noise")),
}


def _tree(module) -> ast.Module:
    return ast.parse(Path(inspect.getfile(module)).read_text(encoding="utf-8"))


@pytest.mark.parametrize("module", SECTIONS, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_a_section_takes_no_deployment(module):
    tree = _tree(module)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
                assert arg.arg != "deployment", f"{module.__name__}.{node.name} takes a deployment"
                text = "" if arg.annotation is None else ast.unparse(arg.annotation)
                assert "Deployment" not in text.replace("InvalidDeployment", ""), \
                    f"{module.__name__}.{node.name}({arg.arg}: {text})"
        elif isinstance(node, ast.Name):
            assert node.id != "Deployment", f"{module.__name__} names Deployment (line {node.lineno})"
        elif isinstance(node, ast.alias):
            assert node.name != "Deployment", f"{module.__name__} imports Deployment"
        elif isinstance(node, ast.Attribute) and not isinstance(node.value, ast.Call):   # noise_shares(...).privacy
            assert node.attr not in DEPLOYMENT_ONLY, \
                f"{module.__name__} reads .{node.attr} (line {node.lineno}), a deployment's"


@pytest.mark.parametrize("walk", WALKS)
def test_the_clients_reach_the_sections_as_a_number(tmp_path, walk):
    text, sections = WALKS[walk]
    (tmp_path / "walk.yaml").write_text(text, encoding="utf-8")
    deployment = load_deployment(tmp_path / "walk.yaml")
    assert deployment.clients == 150
    files = {inspect.getfile(m) for m in SECTIONS}
    seen: dict[str, list] = {}
    offenders: list[str] = []

    def watch(frame, event, arg):
        if event != "call" or frame.f_code.co_filename not in files:
            return
        code = frame.f_code
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        where = f"{Path(code.co_filename).stem}.{code.co_name}"
        for name in names:
            value = frame.f_locals.get(name)
            if isinstance(value, Deployment):
                offenders.append(f"{where}({name})")
            if isinstance(value, FlatInputs):
                value = value.noise
            clients = value.clients if isinstance(value, NoiseInputs) else value if name == "clients" else None
            if clients is not None:
                seen.setdefault(where, []).append(clients)

    sys.setprofile(watch)
    try:
        p = plan(deployment, time_limit=0)
    finally:
        sys.setprofile(None)
    assert offenders == []
    assert p.keys is not None and (p.gate is not None) is (walk == "flat")
    for section in sections:
        assert section in seen, f"{section} was not called with the clients"
        assert all(type(c) is int and c == 150 for c in seen[section]), (section, seen[section])
