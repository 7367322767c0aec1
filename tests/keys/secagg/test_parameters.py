"""secagg_parameters and secagg_bounds: the choice, its certified bounds, the dropout it tolerates, its cost."""

import json
from fractions import Fraction

import pytest

from itsa.exceptions import Infeasible, InvalidOption
from itsa.keys.secagg import secagg_bounds, secagg_cost, secagg_parameters
from itsa.keys.secagg.certified import CORRECTNESS_TARGET, PER_EVENT, SECURITY_TARGET
from itsa.keys.secagg.parameters import PUBLIC_KEY_BYTES, SHARE_BYTES


@pytest.mark.parametrize("adversary, degree, threshold", [("semi-honest", 34, 20), ("semi-malicious", 62, 44)])
def test_the_published_example(adversary, degree, threshold):
    p = secagg_parameters(10_000, "1/20", "0.05", adversary)
    assert (p.degree, p.threshold, p.reproduction, p.agrees, p.full_graph) == (
        degree, threshold, (degree, threshold), True, False)
    assert p.bounds.meets_targets
    assert p.bounds.security.high < SECURITY_TARGET and p.bounds.correctness.high < CORRECTNESS_TARGET
    assert (p.bounds.corrupt_clients, p.bounds.dropped_clients) == (500, 500)


def test_the_threshold_below_the_choice_breaks_the_per_client_budget():
    at = secagg_bounds(10_000, 34, 20, "1/20", "1/20")
    below = secagg_bounds(10_000, 34, 19, "1/20", "1/20")
    assert below.security.low - below.disconnection.high >= PER_EVENT > at.security.high - at.disconnection.low
    assert below.correctness.high < at.correctness.low          # a lower threshold is easier to reach


def test_the_tolerated_dropout_is_the_last_that_passes():
    p = secagg_parameters(1000, "1/20", "1/20")
    assert p.tolerated_dropout is not None and p.tolerated_dropout >= p.bounds.dropped_clients
    last = secagg_bounds(1000, p.degree, p.threshold, "1/20", Fraction(p.tolerated_dropout, 1000))
    over = secagg_bounds(1000, p.degree, p.threshold, "1/20", Fraction(p.tolerated_dropout + 1, 1000))
    assert last.correctness.high < CORRECTNESS_TARGET and last.disconnection.high < PER_EVENT
    assert over.correctness.low >= CORRECTNESS_TARGET or over.disconnection.low >= PER_EVENT


def test_full_secagg_is_the_full_graph():
    p = secagg_parameters(3, "0", "0")
    assert (p.degree, p.threshold, p.full_graph, p.reproduction) == (2, 2, True, None)
    assert "falls back" in p.reproduction_note
    b = secagg_bounds(100, 99, 6, "1/20", "1/20")
    assert b.disconnection.high == 0
    # the full graph's threshold under the same bounds: one more than the corrupt clients
    assert secagg_parameters(100, "1/20", "1/20").full_threshold == 6


def test_the_cost_of_a_round():
    c = secagg_cost(34, dimension=1000, payload_bits=20)
    assert (c.key_agreements, c.shares_sent, c.shares_revealed, c.masked_input_bytes) == (68, 68, 34, 2500)
    assert c.upload_bytes == 2 * PUBLIC_KEY_BYTES + 34 * 2 * SHARE_BYTES + 2500 + 34 * SHARE_BYTES
    assert c.download_bytes == 34 * 2 * PUBLIC_KEY_BYTES + 34 * 2 * SHARE_BYTES


def test_the_json_form_has_degree_and_threshold_at_its_top():
    d = json.loads(json.dumps(secagg_parameters(1000, "0.05", "0.05").to_dict()))
    assert (d["degree"], d["threshold"]) == (30, 17)
    assert d["bounds"]["security_failure"]["direction"] == "upper bound"
    assert d["cost"]["key_agreements"] == 60


@pytest.mark.parametrize("call, message", [
    (lambda: secagg_parameters(100, "1", "0"), "corrupt"),
    (lambda: secagg_parameters(100, "0.5", "0.5"), "9/10"),
    (lambda: secagg_parameters(1000, "0.33", "0.33", "semi-malicious"), "2 dropout"),
    (lambda: secagg_parameters(100, "0.05", "0.05", "none"), "none expects"),
    (lambda: secagg_parameters(100, "0.05", "0.05", "evil"), "unknown adversary"),
    (lambda: secagg_parameters(1, "0", "0"), "clients"),
    (lambda: secagg_bounds(100, 33, 10, "0", "0"), "even degree"),
    (lambda: secagg_bounds(100, 34, 35, "0", "0"), "threshold"),
])
def test_bad_input_is_refused_in_one_line(call, message):
    with pytest.raises(InvalidOption, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_two_clients_cannot_share_a_secret():
    with pytest.raises(Infeasible, match="at least 3 clients.*t >= 2"):
        secagg_parameters(2, "0", "0")


def test_itsa_exports_the_function_and_its_result():
    import itsa

    assert itsa.secagg_parameters is secagg_parameters
    assert isinstance(itsa.secagg_parameters(100, "0", "0"), itsa.SecAggParameters)
