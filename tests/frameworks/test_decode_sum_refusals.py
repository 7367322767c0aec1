"""``decode_sum`` refuses an aggregate no clients' words can give (nan, inf, a number past their sum) instead of
turning it into finite numbers; a true aggregate still decodes."""

import numpy as np
import pytest

from itsa.exceptions import VerificationError
from itsa.frameworks.flower_dp import FlowerPlan, decode_sum, encode_update, flower_aggregate


@pytest.fixture(scope="module")
def plan_and_aggregate():
    p = FlowerPlan(clients=5, dimension=7, clip=1, gamma=64, modulus=2**16)
    updates = [np.random.default_rng(i).normal(size=7) * 0.1 for i in range(5)]
    words = [encode_update(p, u, round_seed=3) for u in updates]
    return p, flower_aggregate(p, words), np.mean(updates, axis=0)


def test_a_true_aggregate_decodes(plan_and_aggregate):
    p, aggregate, mean = plan_and_aggregate
    out = decode_sum(p, aggregate, reporting=5, round_seed=3)
    assert np.all(np.isfinite(out)) and np.abs(out - mean).max() < 0.1


@pytest.mark.parametrize("value, says", [(np.nan, "nan or inf"), (np.inf, "nan or inf"), (-np.inf, "nan or inf"),
                                         (1e300, "beyond what 5 clients"), (-1e300, "beyond what 5 clients"),
                                         (1e17, "beyond what 5 clients")])
def test_an_aggregate_no_words_give_is_refused(plan_and_aggregate, value, says):
    p, aggregate, _ = plan_and_aggregate
    spoiled = np.array(aggregate, dtype=np.float64)
    spoiled[2] = value
    with pytest.raises(VerificationError, match=says):
        decode_sum(p, spoiled, reporting=5, round_seed=3)


@pytest.mark.parametrize("reporting", [0, -1, 6, 10**30, True, 6.5, "5"])
def test_a_reporting_count_no_round_has_is_refused(plan_and_aggregate, reporting):
    """0 clients divided by zero (all nan); 10^30 overflowed; True, 6.5 and more clients than the plan's were read."""
    from itsa.exceptions import InvalidOption

    p, aggregate, _ = plan_and_aggregate
    with pytest.raises(InvalidOption, match="reporting: the clients whose words are summed"):
        decode_sum(p, aggregate, reporting=reporting, round_seed=3)


@pytest.mark.parametrize("shape", [(6,), (8,), (2, 7)])
def test_an_aggregate_of_another_shape_is_refused(plan_and_aggregate, shape):
    p, aggregate, _ = plan_and_aggregate
    with pytest.raises(VerificationError, match="has shape"):
        decode_sum(p, np.zeros(shape), reporting=5, round_seed=3)
