"""§VII through itsa.privacy: an authorized set's RDP (Theorem 3), Proposition 3's ratio, Fig. 2a, §IX-D."""

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from itsa.exceptions import InvalidOption
from itsa.modular import Status, decade_fill, fill_leading_ratio, fill_sensitivities, leading_ratio, release_privacy
from itsa.modular._privacy_audit import checks
from itsa_cli import main as cli


def test_sealed_layers_cost_nothing():
    # Theorem 3: only the authorized layers compose
    kw = dict(survivors=1000, radix=3, layers=4, scaled_scale=4, dimension=10, delta="1e-6")
    coarse = release_privacy(authorized=[4], **kw).curve.coefficient()
    two = release_privacy(authorized=[4, 3], **kw).curve.coefficient()
    every = release_privacy(authorized=[4, 3, 2, 1], **kw).curve.coefficient()
    assert coarse < two < every


def test_full_range_block_is_exactly_neutral():
    # Proposition 3, eq. 35-36: Σ D_ℓ = D_flat, ratio exactly 1
    for radix, layers in ((3, 4), (5, 3), (7, 2)):
        d = [(radix - 1) * radix ** i for i in range(layers)]
        assert leading_ratio(d, radix ** layers - 1) == 1


@pytest.mark.parametrize("k, printed", [(0, "0.975"), (4, "3.26"), (5, "1.03"), (9, "3.18"), (15, "0.61")])
def test_fig2a_ratios(k, printed):
    # §IX-B, Fig. 2a, with the fill reading of itsa.modular.domain
    ball = fill_leading_ratio(k)
    assert abs(float(ball.mid()) - float(printed)) < 0.006


def test_fig2a_full_fill_is_80_over_81_squared():
    d = fill_sensitivities(Fraction(1))
    assert leading_ratio(d.layers, d.flat) == Fraction(80, 81) ** 2
    assert fill_sensitivities(decade_fill(5)).active == (True, True, True, False)


def test_privacy_checks():
    by_key = {c.key: c for c in checks()}
    assert by_key["flat-totals"].status is Status.READING and "cks" in by_key["flat-totals"].reading
    assert by_key["tau-one-half"].status is Status.DISAGREES
    assert by_key["prop3-neutral"].itsa.startswith("1 ")


def test_bad_scaled_scale_and_layers():
    with pytest.raises(InvalidOption):
        release_privacy(survivors=10, authorized=[1], scaled_scale="1/4", dimension=1)
    with pytest.raises(InvalidOption):
        release_privacy(survivors=10, authorized=[9], scaled_scale=1, dimension=1)


def test_cli_privacy():
    res = CliRunner().invoke(cli, ["modular", "privacy", "--survivors", "1000", "-s", "4", "-d", "10", "--authorized",
                                   "4,3", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["authorized"] == [4, 3] and data["epsilon"]["epsilon"]["direction"] == "upper bound"
    assert (data["survivors"], data["layers"], data["dimension"], data["scaled_scale"]) == (1000, 4, 10, "4")
    assert data["delta"] == "1/100000"               # itsa.privacy.DEFAULT_DELTA, the one default of both parts
    assert {p["tau"]["direction"] for p in data["per_layer"]} == {"upper bound"}
    bad = CliRunner().invoke(cli, ["modular", "privacy", "--survivors", "1000", "--authorized", "x"])
    assert bad.exit_code == 2
