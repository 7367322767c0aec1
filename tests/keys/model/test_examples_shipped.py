"""The shipped instances (itsa.keys.examples) and ``itsa examples``: usable from any directory."""

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

import itsa
from itsa._util.schema import SCHEMA_VERSION
from tests.conftest import INSTANCES


def test_names_cover_every_file_of_the_checkout():
    files = {p.relative_to(INSTANCES).with_suffix("").as_posix() for p in INSTANCES.rglob("*.yaml")}
    assert set(itsa.keys.examples.names()) == files
    assert itsa.keys.examples.names()[:2] == ("example-1", "example-2")


def test_examples_equal_the_files():
    assert itsa.keys.examples.example1() == itsa.load_instance(INSTANCES / "example-1.yaml")
    assert itsa.keys.examples.example2() == itsa.load_instance(INSTANCES / "example-2.yaml")
    assert itsa.keys.examples.scheme("example-2").rate == Fraction(7, 2)


@pytest.mark.parametrize("U,V,t", [(3, 2, 1), (3, 2, 2), (3, 3, 2), (4, 2, 1)])
def test_homogeneous_builder_matches_shipped_files(U, V, t):
    name = f"homogeneous-U{U}-V{V}-t{t}"
    shipped = itsa.keys.examples.load(name)
    assert itsa.keys.examples.homogeneous(U, V, t) == shipped
    assert itsa.parse_instance(yaml.safe_load(itsa.keys.examples.homogeneous_yaml(U, V, t))) == shipped
    assert itsa.homogeneous_parameters(shipped) == (U, V, t)


def test_unknown_name_and_bad_parameters():
    with pytest.raises(itsa.InvalidInstance, match="no shipped example"):
        itsa.keys.examples.load("example-3")
    with pytest.raises(itsa.InvalidInstance, match="t: must be"):
        itsa.keys.examples.homogeneous(3, 2, -1)
    assert itsa.keys.examples.resolve("no-such-thing") == Path("no-such-thing")


def test_cli_examples_lists_one_line_each(cli):
    res = cli("examples")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    shipped = list(itsa.keys.examples.names()) + list(itsa.keys.examples.deployment_names())
    assert [ln.split()[0] for ln in lines] == shipped
    assert "Example 1 of the paper" in lines[0]
    assert "deployment (itsa plan k1000): The deployment sized" in lines[shipped.index("k1000")]
    d = json.loads(cli("examples", "--json").stdout)
    assert d["schema_version"] == SCHEMA_VERSION and d["examples"][1]["name"] == "example-2"
    assert "k1000" in [e["name"] for e in d["deployments"]]


def test_a_mistyped_name_gets_the_nearest_shipped_one(cli):
    res = cli("plan", "k100")
    assert res.exit_code == 2 and "did you mean 'k1000'?" in res.stderr
    res = cli("plan", "example-1")
    assert res.exit_code == 2 and "shipped key-rate instance, not a deployment" in res.stderr
    res = cli("analyze", "exmple-2")
    assert res.exit_code == 2 and "did you mean 'example-2'?" in res.stderr
    res = cli("analyze", "k1000")
    assert res.exit_code == 2 and "shipped deployment, not a key-rate instance (itsa plan k1000)" in res.stderr
    res = cli("plan", "nothing-like-any-name")
    assert res.exit_code == 2 and "did you mean" not in res.stderr


def test_cli_examples_homogeneous_yaml(cli):
    res = cli("examples", "--homogeneous", "3,2,1")
    assert res.exit_code == 0
    assert res.stdout == (INSTANCES / "homogeneous-U3-V2-t1.yaml").read_text()
    bad = cli("examples", "--homogeneous", "3,2")
    assert bad.exit_code == 2 and "U,V,t" in bad.stderr


def _run_outside(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_readme_first_command_from_outside_the_checkout(tmp_path):
    """``itsa analyze example-1`` against the installed package, from a temporary directory."""
    itsa_exe = Path(sys.executable).with_name("itsa")
    res = _run_outside(tmp_path, str(itsa_exe), "analyze", "example-1", "--json")
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert (d["e_star"], d["a_star"], d["S_I"]) == (2, 2, [[1, 3]])
    res = _run_outside(tmp_path, sys.executable, "-c",
                       "import itsa; print(itsa.keys.examples.example2().K, itsa.keys.examples.names()[0])")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["8", "example-1"]
    res = _run_outside(tmp_path, str(itsa_exe), "examples")
    assert res.returncode == 0 and res.stdout.startswith("example-1")


def test_census_specs_ship_apart_from_the_instances():
    from itsa import examples
    from itsa.keys.census import load_spec

    assert examples.spec_names() == ("grid-small", "minimal")
    assert not [n for n in examples.names() if n.startswith("census/")]
    for name in ("minimal", "minimal.yaml", "census/minimal"):
        assert examples.spec_path(name) == examples.spec_path("minimal")
    assert examples.resolve_spec("grid-small") == examples.spec_path("grid-small")
    assert load_spec(examples.resolve_spec("census/grid-small")).work
    with pytest.raises(itsa.InvalidInput, match="did you mean 'minimal'"):
        examples.spec_path("minmal")


def test_require_names_the_extra(monkeypatch):
    import sys

    from itsa._util.extras import EXTRAS, require

    monkeypatch.setitem(sys.modules, "galois", None)        # as if not installed
    with pytest.raises(itsa.MissingExtra, match=r"pip install '\.\[crosscheck\]' in "):
        require("galois")
    with pytest.raises(ImportError):                        # still an ImportError for old callers
        require("galois")
    assert {extra for extra, _ in EXTRAS.values()} == {"census", "draw", "crosscheck", "testing", "flower"}


@pytest.mark.parametrize("missing, extra", [("pyarrow", "census"), ("matplotlib", "draw")])
def test_library_parts_name_their_extra(missing, extra):
    """Without an extra, the library (not only the CLI) says which to install, in one line."""
    import subprocess
    import sys

    from itsa._util.extras import install_advice

    code = (f"import sys; sys.modules[{missing!r}] = None\n"
            "import itsa\n"
            "try:\n"
            "    if " + repr(extra) + " == 'census':\n"
            "        import itsa.keys.census\n"
            "    else:\n"
            "        from itsa import examples\n"
            "        from itsa.keys.output import draw\n"
            "        draw.instance_figure(itsa.analyze(examples.load('example-1')))\n"
            "except itsa.MissingExtra as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # the advice works from a checkout (the folder this itsa runs from), not only from a package index
    assert out.stdout.strip().endswith(f": {install_advice(extra)}") and out.stdout.count("\n") == 1
    assert f"pip install '.[{extra}]' in " in out.stdout
