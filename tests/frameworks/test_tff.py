"""TFF's distributed-DP aggregator: the port of its parameter arithmetic against TFF's own numbers, and the plan's
settings through the port (TFF computes the plan's scale and noise).

The golden values were computed by TFF 0.87.0 itself (``tensorflow-federated==0.87.0`` with TensorFlow 2.14.1 in
a separate Python 3.11 environment, outside the project: TFF is too heavy for the test extra): for each
argument set, ``DistributedDpSumFactory(**kwargs)`` with ``_client_dim`` set to the dimension, then its own
``_build_aggregation_factory()``, recording the arguments it passes to ``DiscretizationFactory``
(``scale_factor``) and to TF Privacy's distributed query (``l2_norm_bound``, ``local_stddev``,
``l1_norm_bound``), and its ``_padded_dim`` and ``_k_stddevs``. TFF's ``erfcinv`` is float32: ``k`` and what
follows from it agree to a few parts in 10⁸.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import arb_to_fractions
from itsa.frameworks.tff import clip_prob_to_num_stddevs, inflated_l2_norm_bound, tff_computes
from itsa.planning import load_deployment, plan
from itsa.planning.frameworks_units import TFF_SCALE_MARGIN, tff_settings
from itsa.planning.mechanism import NoiseInputs
from itsa.planning.rotation import Rotation
from itsa.privacy.coupled import conditional_shift
from itsa.privacy.lattice import dominating_epsilon
from itsa.privacy.neighbours import Rounding, sensitivity_ball

#: The cross-device plan's exported arguments (as the plan wrote them when the values below were recorded).
CROSS_DEVICE = {"noise_multiplier": 102.60353669840438, "expected_clients_per_round": 10000, "bits": 20,
                "l2_clip": 1.0, "modclip_prob": 1.0675503517754321e-14, "beta": 0.6065306597126334,
                "mechanism": "distributed_dgauss", "rotation_type": "dft", "auto_l2_clip": False}
#: The cross-device line pasted as the plan used to list it: no beta, no modclip_prob (TFF's defaults).
WITHOUT_BETA = {"noise_multiplier": 102.64672823379306, "expected_clients_per_round": 10000, "bits": 20,
                "l2_clip": 1.0, "mechanism": "distributed_dgauss", "rotation_type": "dft"}

#: (arguments, dimension, what TFF 0.87.0 computed)
GOLDEN = [
    (CROSS_DEVICE, 1200000, {"padded_dim": 1200000, "k_stddevs": 7.730939776988894,
                             "scale_factor": 658.3594580525541, "scaled_inflated_l2": 857.11991532681,
                             "scaled_local_stddev": 675.5000881503686}),
    (WITHOUT_BETA, 1200000, {"padded_dim": 1200000, "k_stddevs": 3.8905917704304565,
                             "scale_factor": 1307.6707411830166, "scaled_inflated_l2": 2403.1289631909444,
                             "scaled_local_stddev": 1342.2812318949584}),
    ({"noise_multiplier": 1.0, "expected_clients_per_round": 100, "bits": 16, "l2_clip": 1.0,
      "mechanism": "distributed_dgauss"}, 1000,
     {"padded_dim": 1000, "k_stddevs": 3.8905917704304565, "scale_factor": 2539.439388075893,
      "scaled_inflated_l2": 2571.0874114540356, "scaled_local_stddev": 253.94393880758932}),
    ({"noise_multiplier": 0.7, "expected_clients_per_round": 1000, "bits": 18, "l2_clip": 0.5,
      "mechanism": "distributed_skellam", "rotation_type": "hd", "beta": 0.6065306597126334, "modclip_prob": 1e-6},
     1290, {"padded_dim": 2048, "k_stddevs": 4.891638090977317, "scale_factor": 2424.000482816213,
            "scaled_inflated_l2": 1212.7448671078748, "scaled_local_stddev": 26.828769012664768,
            "l1_norm_bound": 54883}),
]
#: TFF's own words for 32 bits.
REFUSED_32 = "bits should be between 1 and 22"

CLOSE = 5e-7      # TFF's float32 erfcinv against the port's float32-rounded one: a few parts in 1e8, with room


@pytest.mark.parametrize("kwargs, dim, tff", GOLDEN)
def test_the_port_computes_what_tff_computed(kwargs, dim, tff):
    c = tff_computes(**kwargs, dimension=dim)
    assert c.refused == () and c.padded_dimension == tff["padded_dim"]
    assert c.k_stddevs == pytest.approx(tff["k_stddevs"], rel=CLOSE)
    assert c.scale == pytest.approx(tff["scale_factor"], rel=CLOSE)
    assert c.scaled_inflated_l2 == pytest.approx(tff["scaled_inflated_l2"], rel=CLOSE)
    if kwargs["mechanism"] == "distributed_dgauss":            # TF Privacy's sampler: ceil of the deviation
        assert c.share_sigma == math.ceil(tff["scaled_local_stddev"])
    else:
        assert c.share_sigma == pytest.approx(tff["scaled_local_stddev"], rel=CLOSE)
        assert c.scaled_l1 == tff["l1_norm_bound"]


def test_the_mechanism_names_are_tffs_own():
    """``DistributedDpSumFactory``'s mechanisms and default (distributed_dp.py: ``mechanism='distributed_skellam'``),
    asked of the mechanisms' rooms."""
    import inspect

    from itsa.frameworks.tff import DEFAULT_MECHANISM, DP_MECHANISMS, TFF_SOURCE

    assert DP_MECHANISMS == ("distributed_dgauss", "distributed_skellam")
    assert DEFAULT_MECHANISM == "distributed_skellam" == inspect.signature(tff_computes).parameters["mechanism"].default
    assert TFF_SOURCE.endswith("distributed_discrete_gaussian_query.py and distributed_skellam_query.py")


def test_tff_refuses_32_bits():
    c = tff_computes(noise_multiplier=1.0, expected_clients_per_round=1000, bits=32, l2_clip=1.0,
                     mechanism="distributed_dgauss", dimension=1290)
    assert any(REFUSED_32 in r for r in c.refused) and c.scale is None


def test_default_stddevs_and_the_inflated_bound_by_hand():
    """``k = √2 erfcinv(10⁻⁴) = 3.8906`` (TFF's default); ``β = 0``: ``c + γ√d``; ``β > 0``: TFF's eq. by hand."""
    assert clip_prob_to_num_stddevs(1e-4) == pytest.approx(3.8905917704304565, rel=1e-7)
    assert inflated_l2_norm_bound(1.0, 1 / 100, 0.0, 10000) == 2.0
    g, d = 1 / 64, 4096
    by_hand = math.sqrt(1 + g * g * d / 4 + math.sqrt(2 * math.log(1 / math.exp(-0.5))) * g * (1 + g * math.sqrt(d) / 2))
    assert inflated_l2_norm_bound(1.0, g, math.exp(-0.5), d) == pytest.approx(min(2.0, by_hand), rel=1e-6)


@pytest.fixture(scope="module")
def cross_device():
    return plan(load_deployment("cross-device"))


def test_the_plans_settings_name_every_argument_and_tff_computes_its_scale_and_noise(cross_device):
    p = cross_device
    s = p.frameworks.tff_settings
    assert set(s.kwargs) == {"noise_multiplier", "expected_clients_per_round", "bits", "l2_clip", "beta", "mechanism",
                             "rotation_type", "modclip_prob", "auto_l2_clip"}
    assert s.refused == () and s.not_as_planned == ()
    c = tff_computes(**s.kwargs, dimension=p.deployment.dimension)
    gamma, sigma = p.encoding.gamma, p.noise.sigma_client
    for scale in (c.scale, c.state_scale):
        assert gamma * (1 - 2 * TFF_SCALE_MARGIN) <= Fraction(scale) <= gamma
    assert c.share_sigma == math.ceil(sigma) >= sigma                      # the shares: at least the plan's
    # the file names no beta: the plan's own, exp(-32), rounded up to a float32 (a larger beta, a smaller norm bound)
    assert str(p.deployment.encoding.beta) == "exp(-32)" and s.kwargs["rotation_type"] == "dft"
    assert math.exp(-32) <= s.kwargs["beta"] <= math.exp(-32) * (1 + 2**-22)
    # TFF's per-client norm bound at its own scale (exact) is at most the plan's: its sensitivity is covered
    tff_norm = sensitivity_ball(gamma=Fraction(c.state_scale), clip=1, dimension=c.padded_dimension,
                                adjacency="replace-one", rounding="conditional", beta=p.deployment.encoding.beta)
    assert arb_to_fractions(tff_norm)[1] <= p.noise.sensitivity.upper()


def test_the_recorded_tff_run_of_the_settings_holds_the_plan():
    """What TFF itself computed from the arguments a cross-device plan exported when it was recorded: the scale
    the port aims at (at most the plan's γ, within TFF's float32 steps), shares at the ⌈σ⌉ the port gives."""
    tff = GOLDEN[0][2]
    c = tff_computes(**CROSS_DEVICE, dimension=GOLDEN[0][1])
    assert Fraction(tff["scale_factor"]) <= Fraction(c.scale) * (1 + 2 * TFF_SCALE_MARGIN)
    assert math.ceil(tff["scaled_local_stddev"]) == c.share_sigma


def test_without_beta_tff_gives_eps_11_3_with_the_settings_the_plans(cross_device):
    """Pasted without beta and modclip_prob, TFF picks its own scale and stochastic rounding: eps about 11.3 at
    the plan's survivors, rounds and delta; with the exported settings, at most the plan's."""
    p = cross_device
    d = p.deployment

    def eps(kwargs, rounding, beta):
        c = tff_computes(**kwargs, dimension=d.dimension)
        sens = sensitivity_ball(gamma=Fraction(c.state_scale), clip=1, dimension=c.padded_dimension,
                                adjacency="replace-one", rounding=rounding, beta=beta)
        failure = 0
        if rounding == "conditional":           # the plan's coupled shift at TFF's scale, TFF's beta
            shift = conditional_shift(gamma=Fraction(c.state_scale), clip=1, dimension=c.padded_dimension,
                                      beta=Fraction(kwargs["beta"]), adjacency="replace-one",
                                      failure=d.privacy.delta / (1000 * d.privacy.rounds))
            sens, failure = shift.norm.upper(), shift.failure
        return dominating_epsilon(sigma=Fraction(c.share_sigma), sensitivity=sens, rounds=d.privacy.rounds,
                                  delta=d.privacy.delta, survivors=d.survivors, dimension=c.padded_dimension,
                                  failure=failure)

    pasted = eps(WITHOUT_BETA, "stochastic", None)
    assert pasted is not None and 11.2 < float(pasted.upper()) < 11.4
    ours = eps(p.frameworks.tff_settings.kwargs, "conditional", d.encoding.beta)
    assert ours.upper() <= p.noise.epsilon.upper()


def test_k1000_is_refused_by_tff():
    p = plan(load_deployment("k1000"))
    s = p.frameworks.tff_settings
    assert any("bits 32" in r for r in s.refused) and any("caps its scale" in r for r in s.refused)
    assert any("rounds to nearest" in r for r in s.not_as_planned)
    assert any(n.startswith("refused by TFF") for n in p.frameworks.notes)


@settings(max_examples=40, deadline=None)
@given(clients=st.integers(2, 20000), bits=st.integers(12, 22), dimension=st.integers(1, 10**6),
       sigma=st.fractions(min_value=Fraction(1, 2), max_value=10**4, max_denominator=1000),
       gamma=st.fractions(min_value=1, max_value=10**5, max_denominator=100),
       skellam=st.booleans(), hd=st.booleans())
def test_settings_through_the_port_give_the_plans_scale_and_noise(clients, bits, dimension, sigma, gamma, skellam, hd):
    inputs = NoiseInputs(clients=clients, dimension=dimension, clip=Fraction(1),
                         rotation=Rotation.HADAMARD if hd else Rotation.DFT, rounding=Rounding.CONDITIONAL,
                         mechanism="skellam" if skellam else "dgauss")
    noise = SimpleNamespace(sigma_client=sigma, mechanism="skellam" if skellam else "dgauss")
    s = tff_settings(inputs, noise, gamma, bits)
    if s.refused:
        return
    c = tff_computes(**s.kwargs, dimension=dimension)
    if c.refused:       # only where the plan's scale needs a modclip_prob TFF's own checks then reject
        assert any("too small" in r for r in c.refused)
        return
    if any("least positive float32" in w for w in s.not_as_planned):
        # the plan's scale needs a modclip_prob below float32's reach: TFF takes the least one, at a larger scale,
        # which the settings say (never 0.0, which TFF refuses)
        assert 0 < s.kwargs["modclip_prob"] < 1e-44 and Fraction(c.state_scale) > gamma * (1 - 4 * TFF_SCALE_MARGIN)
        return
    # at most gamma always; TFF's float32 steps move its scale below the aimed gamma (1 - 2^-20) by up to about
    # 2^-19 at a small gamma (gamma = 1, 21 clients, 12 bits: 0.99999791), so within 2^-18 of gamma, except where
    # modclip_prob is near 1 (a float32 step there is a relative step of 1 - p: 891 clients, 12 bits, d = 1,
    # gamma 196 gives 195.9992), which the settings say
    assert Fraction(c.state_scale) <= gamma
    if s.kwargs["modclip_prob"] < 0.5:
        assert gamma * (1 - 4 * TFF_SCALE_MARGIN) <= Fraction(c.state_scale)
    else:
        assert any("modclip_prob" in w for w in s.not_as_planned)
    if skellam:     # the share is the plan's at TFF's scale: below it only where that scale is, which is said
        near_one = s.kwargs["modclip_prob"] >= 0.5
        low = sigma * Fraction(c.state_scale) / gamma if near_one else sigma
        assert low <= Fraction(c.share_sigma) <= sigma * (1 + Fraction(1, 2**16))
    else:
        assert c.share_sigma == max(1, math.ceil(sigma))


def test_cli_export_tff(cli, cross_device):
    r = cli("plan", "cross-device", "--export", "tff", "--quiet")
    assert r.exit_code == 0, r.output
    import json

    out = json.loads(r.output)
    assert out["DistributedDpSumFactory"] == cross_device.frameworks.tff_settings.kwargs     # one home: the section's
    assert out["refused_by_tff"] == [] and out["tff_computes"]["share_sigma"] == math.ceil(cross_device.noise.sigma_client)
    snippet = cli("plan", "cross-device", "--export", "tff", "--snippet", "--quiet").output
    compile(snippet, "snippet", "exec")
    s = cross_device.frameworks.tff_settings.kwargs
    assert "DistributedDpSumFactory(" in snippet and f"beta={s['beta']!r}" in snippet


def test_cli_export_tff_of_central_noise_is_one_line(cli):
    r = cli("plan", "hospitals", "--export", "tff", "--quiet")
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
