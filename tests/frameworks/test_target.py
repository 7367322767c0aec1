"""The framework targets: one interface (check, export, premises, help) that each target answers, one registry."""

import pytest
from click.testing import CliRunner

from itsa.exceptions import InvalidOption
from itsa.frameworks import target as target_module
from itsa.frameworks.export import TARGETS, Framework, check_export, export_help, export_plan
from itsa.frameworks.target import FrameworkTarget, register, targets, targets_help
from itsa.planning import parse_deployment
from itsa_cli import main


def test_every_framework_has_one_registered_target_in_order():
    assert [t.name for t in targets()] == list(Framework) == list(TARGETS)
    for t in targets():
        assert isinstance(t, FrameworkTarget) and t.help.startswith(f"{t.name} (")


@pytest.mark.parametrize("name", list(Framework))
def test_the_help_and_the_docstring_come_from_the_registry(name):
    line = TARGETS[name].help
    assert line in export_help() and line in export_plan.__doc__
    result = CliRunner().invoke(main, ["plan", "--help"], terminal_width=400)
    assert result.exit_code == 0 and line in " ".join(result.output.split())


def test_check_export_asks_the_target():
    layered = parse_deployment({"clients": 50, "dimension": 8, "clip": 1, "noise": "central",
                                "privacy": {"epsilon": 2, "delta": "1e-6"},
                                "encoding": {"radix": 5, "layers": 3, "stages": "each"}})
    with pytest.raises(InvalidOption, match="export flower: Flower's SecAgg\\+ sums one flat word"):
        check_export(layered, "flower")
    assert check_export(layered, "dp-accounting") is Framework.DP_ACCOUNTING   # its target refuses none


def test_a_registered_target_joins_the_help():
    class Probe(FrameworkTarget):
        name = "probe"
        help = "probe (a target for this test)"

        def export(self, plan):
            return None, []

    try:
        register(Probe())
        assert targets()[-1].name == "probe" and targets_help().endswith(" or probe (a target for this test)")
        assert Probe().check(None) is None and Probe().premises(None, None) == ()
    finally:
        target_module._TARGETS.pop("probe", None)
    assert [t.name for t in targets()] == list(Framework)
