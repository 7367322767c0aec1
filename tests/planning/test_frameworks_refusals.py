"""The plan's frameworks section says what each export will do: dp-accounting's refusal has one home
(:func:`~itsa.planning.frameworks_units.dp_accounting_refusal`), and TFF's ``modclip_prob`` is a value TFF takes."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from itsa.exceptions import InvalidOption
from itsa.frameworks.dp_accounting import events_from_event
from itsa.frameworks.tff import tff_export
from itsa.planning.frameworks_units import clients_note, dp_accounting_refusal, tff_settings
from itsa.planning.mechanism import NoiseInputs
from itsa.privacy.events import SkellamEvent
from itsa.privacy.subsampled import PoissonSampledEvent

SKELLAM = SkellamEvent(variance=Fraction(10**6), sensitivity=Fraction(10), dimension=16)


def test_a_distributed_cohort_is_refused_before_planning_and_central_noise_is_not():
    assert "sampled cohort" in dp_accounting_refusal(population=10**6, distributed=True)
    assert dp_accounting_refusal(population=10**6, distributed=False) is None
    assert dp_accounting_refusal(population=None, distributed=True) is None


@pytest.mark.parametrize("event", [SKELLAM, PoissonSampledEvent(event=SKELLAM, rate=Fraction(1, 10))])
def test_the_writer_refuses_exactly_what_the_row_says(event):
    reason = dp_accounting_refusal(population=None, distributed=True, event=event)
    assert reason is not None and reason.startswith("Skellam: no bound of the form xi + rho q")
    with pytest.raises(InvalidOption) as raised:
        events_from_event(event)
    assert str(raised.value) == f"export dp-accounting: {reason}"
    # a dominating Gaussian pair is what the export writes then: no refusal
    assert dp_accounting_refusal(population=None, distributed=True, event=event, pair=object()) is None


def test_a_scale_below_float32s_reach_gets_the_least_positive_modclip_prob_and_says_why():
    inputs = NoiseInputs(clients=100, dimension=1000, clip=Fraction(1), rotation="dft", rounding="stochastic")
    s = tff_settings(inputs, SimpleNamespace(sigma_client=Fraction(40), mechanism="dgauss"), Fraction(300), 22)
    least = float(np.nextafter(np.float32(0), np.float32(1)))
    assert s.kwargs["modclip_prob"] == least and s.refused == ()
    assert any("least positive float32" in w and "no modclip_prob TFF takes" in w for w in s.not_as_planned)
    c = tff_export(s, 1000)
    assert c.computed.refused == ()                       # TFF takes it (no "not 0.0"), at a larger scale
    assert c.computed.state_scale > 300 and "above gamma" in c.comparison()[0]


def test_the_same_settings_at_a_narrower_word_keep_the_plans_scale():
    inputs = NoiseInputs(clients=100, dimension=1000, clip=Fraction(1), rotation="dft", rounding="stochastic")
    s = tff_settings(inputs, SimpleNamespace(sigma_client=Fraction(40), mechanism="dgauss"), Fraction(300), 13)
    assert 0 < s.kwargs["modclip_prob"] < 1e-4 and s.not_as_planned == ()
    assert "at most gamma" in tff_export(s, 1000).comparison()[0]


def test_the_clients_note_states_the_number_exported():
    cohort = SimpleNamespace(expected=5000, low=4477, high=5542)
    note = clients_note(clients=5542, survivors=4030, cohort=cohort)
    assert "expected_clients_per_round is 5542" in note and "expected 5000" in note and "4030" in note
    assert "expected 5000 clients" in clients_note(clients=5000, survivors=4500,
                                                  cohort=SimpleNamespace(expected=5000, low=5000, high=5000))
