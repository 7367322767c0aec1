"""Flower's own arithmetic against ``itsa check flower``: a round of SecAgg+ sums, run by Flower's functions.

Each client does what Flower's ``secaggplus_mod`` does to its update (the
weight ratio rounded to ``1/Q``, Flower's ``quantize``, the weight entry put
first with ``factor_combine``, a private mask and pairwise masks from
``pseudo_rand_gen``, ``parameters_mod``); the server does what
``SecAggPlusWorkflow`` does (the sum modulo ``M``, the private masks taken
off, ``factor_extract``, ``dequantize``, the offset and the weight ratio).
The aggregate must come back within the certified error when the check says
the sum never wraps, and must be wrong when it says the sum wraps.
"""

from __future__ import annotations

import logging
import math
from fractions import Fraction

import numpy as np
import pytest

flwr = pytest.importorskip("flwr")

from flwr.common.secure_aggregation.ndarrays_arithmetic import (  # noqa: E402
    factor_combine,
    factor_extract,
    parameters_addition,
    parameters_mod,
    parameters_multiply,
    parameters_subtraction,
)
from flwr.common.secure_aggregation.quantization import dequantize, quantize  # noqa: E402
from flwr.common.secure_aggregation.secaggplus_utils import pseudo_rand_gen  # noqa: E402
from flwr.server.workflow import SecAggPlusWorkflow  # noqa: E402

from itsa.frameworks.flower import FLOWER_DEFAULTS, check_flower, secaggplus_kwargs  # noqa: E402

DIMENSION = 6


def _seed(*parts: int) -> bytes:
    return b"".join(p.to_bytes(8, "little") for p in parts) + bytes(8)


def flower_round(updates: np.ndarray, weights: list[float], kw: dict, seed: int = 0):
    """One SecAgg+ sum through Flower's functions: ``(aggregate, exact reference, largest plain sum, ratio sum)``.

    The largest plain sum is the largest coordinate (weight entry included) of
    the clients' quantized vectors added as integers, without the modulus.

    Clients ``i`` and ``i + 1`` (on a ring) share a pairwise mask, added by the
    larger id and subtracted by the smaller, as Flower's clients do.
    """
    np.random.seed(seed)        # Flower's stochastic rounding draws from NumPy's global generator
    n = len(updates)
    q, m, c, w_max = kw["quantization_range"], kw["modulus_range"], kw["clipping_range"], kw["max_weight"]
    total = None
    plain = None
    reference = [Fraction(0)] * updates.shape[1]
    ratios = Fraction(0)
    dims = [(1,), (updates.shape[1],)]                       # the weight entry, then the update
    private = [pseudo_rand_gen(_seed(seed, i), m, dims) for i in range(n)]
    pairs = [pseudo_rand_gen(_seed(seed, i, 1), m, dims) for i in range(n)]     # clients i and i + 1 (mod n)
    for i in range(n):
        q_ratio = round(weights[i] / w_max * q)             # the client mod's weight entry
        params = parameters_multiply([updates[i]], q_ratio / q)
        quantized = factor_combine(q_ratio, quantize(params, c, q))
        plain = quantized if plain is None else [a.astype(object) + b for a, b in zip(plain, quantized)]
        masked = parameters_addition(quantized, private[i])
        for j, pair in (((i + 1) % n, pairs[i]), ((i - 1) % n, pairs[(i - 1) % n])):
            masked = parameters_addition(masked, pair) if i > j else parameters_subtraction(masked, pair)
        masked = parameters_mod(masked, m)
        total = masked if total is None else parameters_addition(total, masked)
        ratios += Fraction(q_ratio, q)
        for k, value in enumerate(params[0]):
            reference[k] += min(max(Fraction(float(value)), -Fraction(c)), Fraction(c))
    assert total is not None and plain is not None
    total = parameters_mod(total, m)
    for mask in private:                                     # the server removes the private masks
        total = parameters_subtraction(total, mask)
    q_total, recon = factor_extract(parameters_mod(total, m))
    inverse = q / q_total if q_total else float("inf")
    with np.errstate(all="ignore"):
        aggregate = dequantize(recon, c, q)
        for vec in aggregate:
            vec += -(n - 1) * c
            vec *= inverse
    return aggregate[0], [r / ratios for r in reference], max(int(v) for a in plain for v in np.ravel(a)), ratios


def _within(aggregate, reference, bound) -> bool:
    """Every coordinate within ``bound`` of the reference (a wrapped weight sum of 0 gives Flower's inf or nan)."""
    return all(math.isfinite(a) and abs(Fraction(float(a)) - r) <= bound for a, r in zip(aggregate, reference))


def _flower_warnings(build) -> list[str]:
    """What Flower logs at WARNING or above while ``build()`` runs."""
    records: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = logging.getLogger("flwr")
    handler = Catch(level=logging.WARNING)
    logger.addHandler(handler)
    try:
        build()
    finally:
        logger.removeHandler(handler)
    return records


def test_the_warning_catcher_sees_flowers_own_warning():
    assert _flower_warnings(lambda: SecAggPlusWorkflow(num_shares=1025, reconstruction_threshold=2))


def test_defaults_at_500_clients_sum_within_the_certified_error():
    check = check_flower(clients=500)
    assert str(check.verdict) == "passes"
    rng = np.random.default_rng(1)
    updates = rng.uniform(-8, 8, size=(500, DIMENSION))
    weights = list(rng.integers(1, 1001, size=500).astype(float))
    aggregate, reference, largest, ratios = flower_round(updates, weights, dict(FLOWER_DEFAULTS))
    assert largest < FLOWER_DEFAULTS["modulus_range"]
    assert _within(aggregate, reference, check.error_bound() / ratios)


@pytest.mark.parametrize("clients, wraps", [(1023, False), (1024, True), (2000, True)])
def test_defaults_at_the_clip_wrap_from_1024_clients_as_the_check_says(clients, wraps):
    check = check_flower(clients=clients)
    assert check.can_wrap is wraps and check.max_cohort == 1023
    updates = np.full((clients, DIMENSION), 8.0)
    aggregate, reference, largest, ratios = flower_round(updates, [1000.0] * clients, dict(FLOWER_DEFAULTS))
    assert (largest >= FLOWER_DEFAULTS["modulus_range"]) is wraps
    assert _within(aggregate, reference, check.error_bound() / ratios) is not wraps


def test_defaults_at_2100_clients_wrap_near_zero():
    check = check_flower(clients=2100)
    assert check.zero_wrap == "always" and check.zero_wrap_margin() > Fraction(1, 1000)
    rng = np.random.default_rng(2)
    updates = rng.uniform(-1e-3, 1e-3, size=(2100, DIMENSION))
    # a quarter of max_weight: the weight entries sum to 2100 Q/4 < M, so only the data coordinates wrap
    aggregate, reference, _, ratios = flower_round(updates, [250.0] * 2100, dict(FLOWER_DEFAULTS))
    assert ratios * FLOWER_DEFAULTS["quantization_range"] < FLOWER_DEFAULTS["modulus_range"]
    assert not any(_within([a], [r], check.error_bound() / ratios) for a, r in zip(aggregate, reference))


def test_an_export_builds_flowers_workflow_without_warning_and_sums_within_its_error():
    export = secaggplus_kwargs(degree=34, threshold=20, gamma=1024, word_bits=32, clip=1, clients=1000)
    assert _flower_warnings(lambda: SecAggPlusWorkflow(**export.kwargs)) == []
    workflow = SecAggPlusWorkflow(**export.kwargs)
    assert (workflow.num_shares, workflow.reconstruction_threshold) == (35, 20)
    rng = np.random.default_rng(3)
    updates = rng.normal(size=(1000, DIMENSION))
    updates /= np.maximum(1, np.linalg.norm(updates, axis=1, keepdims=True))     # clipped to l2 norm 1
    aggregate, reference, largest, ratios = flower_round(updates, [1000.0] * 1000, export.kwargs)
    assert largest < export.kwargs["modulus_range"]
    assert _within(aggregate, reference, export.check.error_bound() / ratios)


def test_a_raised_word_is_what_flowers_sum_needs():
    export = secaggplus_kwargs(degree=4, threshold=3, gamma=2**20, word_bits=16, clip=1, clients=300)
    assert export.kwargs["modulus_range"] > 2**16 and str(export.check.verdict) == "passes"
    assert _flower_warnings(lambda: SecAggPlusWorkflow(**export.kwargs)) == []
    updates = np.full((300, DIMENSION), 1.0)
    aggregate, reference, _, ratios = flower_round(updates, [1000.0] * 300, export.kwargs)
    assert _within(aggregate, reference, export.check.error_bound() / ratios)


def test_the_k1000_deployment_as_flower_arguments():
    """The shipped k1000 deployment's encoding (1,000 clients, clip 1, gamma 2^20, a 32-bit word; a tenth may
    drop out) with the SecAgg+ degree and threshold for it, as Flower runs it."""
    from itsa.keys.secagg import secagg_parameters

    keys = secagg_parameters(1000, "1/20", "1/10")
    export = secaggplus_kwargs(degree=keys.degree, threshold=keys.threshold, gamma=2**20, word_bits=32, clip=1,
                               clients=1000, noise_kind="distributed", dropout="1/10", corrupt="1/20")
    assert export.kwargs["num_shares"] == keys.degree + 1 and str(export.check.verdict) == "passes"
    assert export.check.secagg.bounds is not None and export.check.secagg.bounds["meets_targets"]
    assert _flower_warnings(lambda: SecAggPlusWorkflow(**export.kwargs)) == []
    rng = np.random.default_rng(4)
    updates = rng.normal(size=(1000, DIMENSION))
    updates /= np.maximum(1, np.linalg.norm(updates, axis=1, keepdims=True))
    aggregate, reference, largest, ratios = flower_round(updates, [1000.0] * 1000, export.kwargs)
    assert largest < export.kwargs["modulus_range"]
    assert _within(aggregate, reference, export.check.error_bound() / ratios)


@pytest.mark.parametrize("num_shares", [4, 5])
def test_an_even_num_shares_crashes_flowers_client_as_the_check_says(num_shares):
    """Flower's ring gives each client ``2 (s // 2) + 1`` neighbours, itself included, but it creates ``s`` shares."""
    from flwr.client.mod.secure_aggregation.secaggplus_mod import SecAggPlusState, _setup, _share_keys
    from flwr.common import ConfigRecord
    from flwr.common.secure_aggregation.secaggplus_constants import Key

    layout = check_flower(clients=100, num_shares=num_shares).layout
    crashes = bool(layout.problems)
    assert crashes is (num_shares % 2 == 0)
    clients = []
    for nid in range(1, layout.neighbourhood + 1):          # one neighbourhood, as the server forwards it
        state = SecAggPlusState()
        state.nid = nid
        setup = {Key.SAMPLE_NUMBER: 100, Key.SHARE_NUMBER: layout.shares_sent, Key.THRESHOLD: layout.threshold,
                 Key.CLIPPING_RANGE: 8.0, Key.TARGET_RANGE: 2**22, Key.MOD_RANGE: 2**32, Key.MAX_WEIGHT: 1000.0}
        clients.append((state, _setup(state, ConfigRecord(setup))))
    keys = {str(s.nid): [k[Key.PUBLIC_KEY_1], k[Key.PUBLIC_KEY_2]] for s, k in clients}
    if crashes:
        with pytest.raises(IndexError):
            _share_keys(clients[0][0], ConfigRecord(keys))
    else:
        assert len(_share_keys(clients[0][0], ConfigRecord(keys))[Key.DESTINATION_LIST]) == layout.degree
