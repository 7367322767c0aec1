"""dp-accounting's events of a zCDP-form bound: the JSON round-trips through dp-accounting, and its RDP
accountant's epsilon is the certified one's (itsa's never above it by more than rounding, within 1 %)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.frameworks.dp_accounting import (
    dp_accounting_events,
    events_from_curve,
    events_from_event,
    float_up,
    named_tuple_from_json,
)
from itsa.privacy.rdp import gaussian_curve

dp = pytest.importorskip("dp_accounting")


def _rebuilt(export):
    """The export's JSON, as text and back, rebuilt by dp-accounting's own ``from_named_tuple``."""
    text = json.dumps(export.to_dict()["dp_event"])
    return dp.DpEvent.from_named_tuple(named_tuple_from_json(json.loads(text)))


def test_the_json_is_dp_accountings_own_named_tuple_form():
    export = dp_accounting_events(rho=Fraction(1, 200), xi="1/1000", rounds=100)
    event = dp.SelfComposedDpEvent(dp.ZCDpEvent(0.005, 0.001), 100)
    assert _rebuilt(export) == event
    own = event.to_named_tuple()
    assert export.event == {**own._asdict(), "event": own.event._asdict()}


def test_a_sampled_tree_round_trips():
    export = dp_accounting_events(rho="0.02", rounds=50, sampling_rate="1/100")
    assert _rebuilt(export) == dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(0.01, dp.ZCDpEvent(0.02, 0.0)), 50)
    # dp-accounting 0.6 accounts a Poisson-sampled event only over Gaussians: said, and no itsa epsilon claimed
    assert not dp.rdp.RdpAccountant().supports(_rebuilt(export))
    assert export.epsilon("1e-5") is None and export.to_dict()["notes"]


@pytest.mark.parametrize("rho, xi, rounds, delta", [(Fraction(50, 121), 0, 1, "1e-5"),
                                                     (Fraction(1, 200), 0, 1000, "1e-6"),
                                                     (Fraction(1, 200), Fraction(1, 10**4), 1000, "1e-6"),
                                                     (Fraction(3, 7), Fraction(1, 50), 20, "1e-8")])
def test_rdp_accountant_epsilon_matches_the_certified_one(rho, xi, rounds, delta):
    export = dp_accounting_events(rho=rho, xi=xi, rounds=rounds)
    accountant = dp.rdp.RdpAccountant()
    accountant.compose(_rebuilt(export))
    theirs = accountant.get_epsilon(float(Fraction(delta)))
    ours = export.epsilon(delta)
    assert ours is not None and str(ours.direction) == "upper bound"
    assert float(ours.upper()) <= theirs * (1 + 1e-9)          # a continuous order search: never worse
    assert float(ours.upper()) >= theirs * 0.99                # the same curve: within 1 %


def test_a_curve_exports_its_certified_coefficient():
    export = events_from_curve(gaussian_curve(Fraction(11, 10)), rounds=10)
    assert Fraction(50, 121) <= export.rho < Fraction(50, 121) * (1 + Fraction(1, 10**12))
    assert export.event["event"]["rho"] >= 50 / 121 and export.xi == 0


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=0, max_value=10**6))
def test_float_up_is_the_least_double_above(x):
    f = float_up(x)
    assert Fraction(f) >= x
    assert f == 0 or Fraction(math.nextafter(f, -math.inf)) < x


def test_bad_numbers_are_refused():
    with pytest.raises(InvalidOption):
        dp_accounting_events(rho=-1)
    with pytest.raises(InvalidOption):
        dp_accounting_events(rho=1, sampling_rate=0)


def test_the_sharp_distributed_discrete_gaussian_exports_its_first_branch():
    from itsa.privacy.events import DistributedDiscreteGaussianEvent
    from itsa.privacy.subsampled import PoissonSampledEvent

    event = DistributedDiscreteGaussianEvent(sensitivity=64, scale=20, survivors=10, dimension=100, bound="sharp")
    export = events_from_event(event, rounds=30)
    assert Fraction(64**2, 2 * 10 * 20**2) <= export.rho < Fraction(64**2, 2 * 10 * 20**2) * (1 + Fraction(1, 10**12))
    assert export.xi > 0 and Fraction(export.event_xi()) >= export.xi
    accountant = dp.rdp.RdpAccountant()
    accountant.compose(_rebuilt(export))
    theirs = accountant.get_epsilon(1e-6)
    ours = export.epsilon("1e-6")
    assert ours is not None and theirs * 0.99 <= float(ours.upper()) <= theirs * (1 + 1e-9)
    # the first branch bounds the event: at every order, xi + rho q is at least the sharp minimum
    for q in (2, 5, 17):
        assert float(event.rdp(q).upper()) <= float(export.xi + export.rho * q) * (1 + 1e-12)
    sampled = events_from_event(PoissonSampledEvent(event=event, rate=Fraction(1, 10)), rounds=30)
    assert sampled.event["event"]["class_name"] == "PoissonSampledDpEvent" and sampled.epsilon("1e-6") is None


def test_an_event_without_a_zcdp_form_is_refused():
    from itsa.privacy.events import SkellamEvent

    with pytest.raises(InvalidOption, match="no bound of the form"):
        events_from_event(SkellamEvent(variance=100, sensitivity=1))
