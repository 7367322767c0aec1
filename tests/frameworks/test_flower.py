"""``itsa check flower`` and the Flower export, without Flower: goldens, Flower's rules, properties, the CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.frameworks._flower_rules import quantizer_levels, resolve_shares
from itsa.frameworks.flower import CONVENTION, FLOWER_DEFAULTS, check_flower, secaggplus_kwargs
from itsa_cli import main

# --- the goldens: Flower's defaults (max_weight 1000, clipping_range 8, Q = 2^22, M = 2^32) ---

def test_flower_defaults_at_2000_clients_can_wrap_and_1023_never_does():
    r = check_flower(clients=2000)
    assert r.can_wrap and r.max_cohort == 1023 and str(r.verdict) == "wraps"
    assert r.to_dict()["can_wrap"] is True and r.to_dict()["max_cohort"] == 1023


def test_flower_defaults_at_500_clients_pass():
    r = check_flower(clients=500)
    assert not r.can_wrap and str(r.verdict) == "passes" and not r.fixes


def test_the_offset_alone_wraps_from_2048_clients():
    assert check_flower(clients=2047).zero_wrap == "no"
    r = check_flower(clients=2048)
    assert r.zero_wrap == "always" and r.zero_wrap_cohort == 2048
    assert r.levels.zero_low == r.levels.zero_high == 2**21


def test_near_zero_margin_at_2100_clients():
    r = check_flower(clients=2100)
    # n (2^21 - 1 - 2^-20 - eta 2^18) >= 2^32
    eta = (2**21 - 1 - Fraction(1, 2**20) - Fraction(2**32, 2100)) / 2**18
    assert r.zero_wrap_margin() == eta and Fraction(19, 100) < eta < Fraction(2, 10)


@pytest.mark.parametrize("q, fits", [(2**31 - 1, True), (2**31, False)])
def test_the_int32_cast_holds_quantization_ranges_below_2_to_the_31(q, fits):
    r = check_flower(clients=2, quantization_range=q, modulus_range=2**40)
    assert r.int32_ok is fits
    assert (str(r.verdict) == "fails") is not fits


def test_the_error_bound_is_n_steps_and_the_variance_n_quarter_steps_squared():
    r = check_flower(clients=500)
    step = Fraction(16, 2**22)
    assert r.levels.step == step
    assert r.variance_bound() == 500 * step**2 / 4
    assert 500 * step < r.error_bound() < 500 * step * (1 + Fraction(1, 10**6))


@pytest.mark.parametrize("l2, clamped", [(8, False), ("17/2", True)])
def test_an_l2_clip_above_the_clipping_range_is_clamped(l2, clamped):
    assert check_flower(clients=10, clip=l2).to_dict()["clip"]["clamped"] is clamped


# --- Flower's rules for the shares (setup_stage and _check_init_params) ---

def test_a_float_num_shares_is_a_fraction_of_the_cohort_made_odd():
    layout = resolve_shares(0.1, 0.5, clients=1000)
    # round(100.0) = 100 is even -> 101; round(0.5 * 101) = round(50.5) = 50 (Python rounds half to even)
    assert (layout.shares_sent, layout.neighbourhood, layout.degree, layout.threshold) == (101, 101, 100, 50)


def test_num_shares_1_is_every_client_and_small_float_shares_too():
    assert resolve_shares(1, 2, clients=40).neighbourhood == 40
    assert resolve_shares(0.01, 2, clients=40).neighbourhood == 40      # round(0.4) = 0 <= 2 -> n


def test_the_shares_count_the_client_itself():
    layout = resolve_shares(35, 20, clients=1000)
    assert (layout.neighbourhood, layout.degree) == (35, 34)


def test_an_even_int_num_shares_crashes_every_client():
    layout = resolve_shares(4, 2, clients=100)
    assert layout.neighbourhood == 5 and layout.shares_sent == 4 and layout.problems
    r = check_flower(clients=100, num_shares=4)
    assert str(r.verdict) == "fails" and r.fixes["num_shares"] == 5


@pytest.mark.parametrize("kw, reason", [({"num_shares": 2}, "greater than 2"),
                                        ({"num_shares": 5, "reconstruction_threshold": 5}, "less than"),
                                        ({"reconstruction_threshold": 1.5}, "(0, 1]"),
                                        ({"modulus_range": 3 * 2**30}, "power of 2"),
                                        ({"modulus_range": 2**22}, "greater than quantization_range"),
                                        ({"num_shares": "three"}, "must be a number")])
def test_what_flower_refuses_is_refused_with_its_reason(kw, reason):
    with pytest.raises(InvalidOption, match=reason.replace("(", r"\(").replace(")", r"\)")):
        check_flower(clients=100, **kw)


def test_flowers_own_overflow_warning_is_reported():
    assert any("Flower warns" in note for note in check_flower(clients=2000, num_shares=1025).notes)


# --- properties ---

@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10**6), st.integers(1, 2**30), st.integers(1, 40))
def test_max_cohort_is_the_wrap_threshold(clients, q, extra_bits):
    m = 1 << max(q.bit_length() + 1, 2 + extra_bits)
    r = check_flower(clients=clients, quantization_range=q, modulus_range=m)
    assert r.can_wrap is (clients > r.max_cohort)
    assert (r.max_cohort + 1) * q >= m > r.max_cohort * q


@settings(max_examples=80, deadline=None)
@given(st.floats(1e-3, 1e3, allow_nan=False), st.integers(1, 2**31 - 1))
def test_levels_are_flowers_float64_values(clip, q):
    levels = quantizer_levels(clip, q)
    pre = (np.clip(np.array([clip, 0.0]), -clip, clip) + clip) * (q / (2 * clip))     # Flower's quantize
    assert levels.top == int(np.ceil(pre[0]))
    assert (levels.zero_low, levels.zero_high) == (math.floor(pre[1]), math.ceil(pre[1]))


@pytest.mark.parametrize("kw", [{"clients": 2000}, {"clients": 5000, "quantization_range": 2**20},
                                {"clients": 100, "num_shares": 6},
                                {"clients": 3, "quantization_range": 2**31, "modulus_range": 2**33},
                                {"clients": 2100, "dropout": "1/20", "corrupt": "1/20"}])
def test_the_fix_passes(kw):
    r = check_flower(**kw)
    assert str(r.verdict) != "passes" and r.fixes
    fixed = check_flower(**{**kw, **r.fixes})
    assert str(fixed.verdict) == "passes", fixed.problems


def test_the_secagg_row_is_the_secagg_bounds_at_flowers_degree_and_threshold():
    secagg = pytest.importorskip("itsa.keys.secagg")
    r = check_flower(clients=2100, num_shares=31, reconstruction_threshold=18, dropout="1/20", corrupt="1/20",
                     modulus_range=2**34)
    direct = secagg.secagg_bounds(2100, 30, 18, "1/20", "1/20", "semi-honest")
    assert r.secagg.bounds == direct.to_dict() and direct.meets_targets and str(r.verdict) == "passes"
    weak = check_flower(clients=2100, dropout="1/20", corrupt="1/20", modulus_range=2**34)
    assert str(weak.verdict) == "fails" and weak.secagg.problems


# --- the export: a plan's degree, threshold, scale, word and clip as SecAggPlusWorkflow's arguments ---

def test_the_export_maps_the_degree_to_shares_with_the_client_itself():
    e = secaggplus_kwargs(degree=34, threshold=20, gamma=1024, word_bits=32, clip=1, clients=1000)
    assert e.kwargs == {"num_shares": 35, "reconstruction_threshold": 20, "max_weight": 1000.0,
                        "clipping_range": 1.0, "quantization_range": 2048, "modulus_range": 2**32}
    assert "num_shares = k + 1" in CONVENTION and str(e.check.verdict) == "passes"
    assert e.to_dict()["SecAggPlusWorkflow"] == e.kwargs


def test_the_snippet_is_python_with_the_arguments():
    e = secaggplus_kwargs(degree=34, threshold=20, gamma=1024, word_bits=32, clip=1, clients=1000, noise_kind="central",
                          noise_multiplier="1.1")
    namespace: dict = {}
    code = e.snippet().replace("from flwr.server.workflow import SecAggPlusWorkflow", "") \
        .replace("from flwr.server.strategy import DifferentialPrivacyClientSideFixedClipping, FedAvg", "")
    exec(compile(code, "snippet", "exec"), {"SecAggPlusWorkflow": lambda **kw: kw, "FedAvg": lambda: None,
                                            "DifferentialPrivacyClientSideFixedClipping": lambda s, **kw: kw},
         namespace)
    assert namespace["secaggplus"] == e.kwargs
    assert namespace["dp_strategy"] == {"noise_multiplier": 1.1, "clipping_norm": 1.0, "num_sampled_clients": 1000}


def test_distributed_noise_has_no_flower_wrapper():
    e = secaggplus_kwargs(degree=34, threshold=20, gamma=1024, word_bits=32, clip=1, clients=1000, noise_kind="distributed")
    assert e.dp_wrapper is None and "no counterpart" in e.dp_note


def test_the_complete_graph_is_num_shares_1_0():
    assert secaggplus_kwargs(degree=9, threshold=5, gamma=4, word_bits=16, clip=1, clients=10).kwargs["num_shares"] == 1.0


def test_a_word_too_small_for_flowers_offset_is_raised():
    e = secaggplus_kwargs(degree=4, threshold=3, gamma=2**20, word_bits=16, clip=1, clients=300)
    assert e.kwargs["modulus_range"] == 2**30 and e.notes and str(e.check.verdict) == "passes"


@pytest.mark.parametrize("kw, reason", [({"degree": 5}, "even"), ({"threshold": 40}, "at most the degree"),
                                        ({"gamma": 2**31}, "int32")])
def test_what_flower_cannot_carry_is_refused(kw, reason):
    base = {"degree": 34, "threshold": 20, "gamma": 1024, "word_bits": 32, "clip": 1, "clients": 1000}
    with pytest.raises(InvalidOption, match=reason):
        secaggplus_kwargs(**{**base, **kw})


# --- the command line ---

def test_cli_defaults_at_2000_clients_wrap_and_exit_1():
    out = CliRunner().invoke(main, ["check", "flower", "--clients", "2000"])
    assert out.exit_code == 1 and "can wrap" in out.output and "1,023" in out.output


def test_cli_json_has_can_wrap_max_cohort_and_verdict_first():
    out = CliRunner().invoke(main, ["check", "flower", "--clients", "500", "--json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert list(data)[:4] == ["schema_version", "can_wrap", "max_cohort", "verdict"]
    assert (data["can_wrap"], data["max_cohort"], data["verdict"]) == (False, 1023, "passes")
    assert data["keywords"] == {**FLOWER_DEFAULTS, "num_shares": 3, "reconstruction_threshold": 2}


def test_cli_reads_flowers_float_forms():
    out = CliRunner().invoke(main, ["check", "flower", "-n", "1000", "--num-shares", "0.1",
                                    "--reconstruction-threshold", "0.5", "--json"])
    assert json.loads(out.output)["shares"] == {**json.loads(out.output)["shares"], "neighbourhood": 101,
                                                "threshold": 50}


@pytest.mark.parametrize("args", [["--num-shares", "2"], ["--dropout", "1"], ["--clients", "0"],
                                  ["--quantization-range", "1.5"]])
def test_cli_bad_input_is_one_line_and_exit_2(args):
    base = ["check", "flower", "--clients", "100"]
    out = CliRunner().invoke(main, base + args if "--clients" not in args else ["check", "flower"] + args)
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1 and "Traceback" not in out.output
