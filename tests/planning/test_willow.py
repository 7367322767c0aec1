"""Willow through the protocol room: its published regimes, its packing, the committee's exact bounds, the plan.

Golden values are Willow's own: the regime table of
google/secure-aggregation ``willow/src/shell/parameters.rs`` and the packing
test of ``willow/src/shell/parameters_generation.rs``
(``test_generate_packing_config``), both at commit
194d5b06232590d858a82ce8e948ee7f851a815a (2025-11-21).
"""

import json
import re
from fractions import Fraction
from itertools import combinations

import flint
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidDeployment, InvalidOption
from itsa.planning import load_deployment, parse_deployment, plan
from itsa.planning.protocols import PROTOCOLS, parse_protocol
from itsa.planning.protocols.run import check_protocol_simulation
from itsa.planning.protocols.willow import (
    REGIMES,
    SOURCE,
    Packing,
    WillowKeys,
    WillowProtocol,
    choose_regime,
    committee_bounds,
    packing,
)
from itsa_cli import main
from itsa_cli._common import EXIT_INFEASIBLE

#: parameters.rs at the commit above, transcribed: (name, max length, KAHE log_n, log_t, moduli, AHE log_n, t,
#: moduli, s_flood); every regime: bound <= 2^32, clients <= 10M, decryptors <= 100.
PARAMETERS_RS = (
    ("1K", 1000, 12, 56, (274877816833, 274877718529), 12, 109965, (1099510824961, 1099508760577), "3.0834e+16"),
    ("100K", 100_000, 13, 168, (1125899906629633, 1125899905744897, 1125899905351681, 1125899903827969), 12,
     6582404323, (281474976546817, 281474975662081), "3.0834e+16"),
    ("10M", 10_000_000, 14, 224, (2305843009211596801, 2305843009211400193, 2305843009210515457,
                                  2305843009210023937), 12, 7121256483, (281474976546817, 281474975662081),
     "3.0834e+16"),
)
#: The bit sizes the file's comments give: each KAHE modulus, and the AHE moduli's total.
COMMENTED_BITS = {"1K": (38, 80), "100K": (50, 96), "10M": (61, 96)}

#: A small deployment whose noise is given (no calibration), in a 16-bit word.
SMALL = {"clients": 200, "dimension": 16, "clip": 1, "dropout": "1/10", "noise": {"kind": "central", "sigma": 4},
         "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 16, "gamma": 4}, "overflow": "1e-6"}
WILLOW = {"willow": {"decryptors": 40, "decryptor_dropout": 20, "corrupt": "1/100"}}


def test_the_table_is_parameters_rs():
    got = tuple((r.name, r.max_length, r.kahe_log_n, r.kahe_log_t, r.kahe_moduli, r.ahe_log_n, r.ahe_t,
                 r.ahe_moduli, r.ahe_s_flood) for r in REGIMES)
    assert got == PARAMETERS_RS
    assert all((r.max_bound, r.max_clients, r.max_decryptors) == (2**32, 10_000_000, 100) for r in REGIMES)
    assert "parameters.rs" in SOURCE and "194d5b06232590d858a82ce8e948ee7f851a815a" in SOURCE


@pytest.mark.parametrize("regime", REGIMES, ids=lambda r: r.name)
def test_the_moduli_are_what_the_file_says_they_are(regime):
    # an independent check of the transcription: primes of the commented sizes, NTT-friendly for their rings
    kahe_bits, ahe_total = COMMENTED_BITS[regime.name]
    assert all(flint.fmpz(q).is_prime() and q.bit_length() == kahe_bits for q in regime.kahe_moduli)
    assert all(q % 2 ** (regime.kahe_log_n + 1) == 1 for q in regime.kahe_moduli)
    assert all(flint.fmpz(q).is_prime() and q % 2 ** (regime.ahe_log_n + 1) == 1 for q in regime.ahe_moduli)
    assert sum(q.bit_length() for q in regime.ahe_moduli) == ahe_total


def test_the_packing_is_willows_own_test():
    # test_generate_packing_config: 2^8 clients, 24 plaintext bits
    clients = 2**8
    assert packing(24, bound=7, clients=clients, length=1024) == Packing(11, 2, 512)
    assert packing(24, bound=2**16 - 1, clients=clients, length=32) == Packing(24, 1, 32)
    assert packing(24, bound=2**16 - 1, clients=clients, length=2**16) == Packing(24, 1, 65536)
    # test_generate_packing_config_plaintext_bits_too_small: 8 bits, bound 2^8, 2 clients
    assert isinstance(packing(8, bound=2**8, clients=2, length=10), str)
    assert "above Willow's 2^63" in packing(224, bound=2**32, clients=2**32)


@pytest.mark.parametrize(("length", "bound", "clients", "decryptors", "name"), [
    (1000, 2**32, 10_000_000, 100, "1K"), (1001, 1, 1, 1, "100K"), (100_000, 1, 1, 1, "100K"),
    (100_001, 1, 1, 1, "10M"), (10_000_000, 1, 1, 1, "10M"), (10_000_001, 1, 1, 1, None),
    (1, 2**32 + 1, 1, 1, None), (1, 1, 10_000_001, 1, None), (1, 1, 1, 101, None)])
def test_the_regime_is_the_first_that_fits(length, bound, clients, decryptors, name):
    r = choose_regime(length=length, bound=bound, clients=clients, decryptors=decryptors)
    assert (None if r is None else r.name) == name


def _enumerated(n: int, D: int, f: int, corrupt: int, dropped: int) -> tuple[Fraction, Fraction]:
    """Every committee of D of the n clients (the first ``corrupt`` corrupt, the last ``dropped`` dropped)."""
    bad_security = bad_correctness = total = 0
    for committee in combinations(range(n), D):
        total += 1
        bad_security += sum(i < corrupt for i in committee) >= D - f
        bad_correctness += sum(i >= n - dropped for i in committee) > f
    return Fraction(bad_security, total), Fraction(bad_correctness, total)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_committee_bounds_are_the_enumerated_ones(data):
    n = data.draw(st.integers(1, 11))
    D = data.draw(st.integers(1, n))
    f = data.draw(st.integers(0, D - 1))
    corrupt, dropped = data.draw(st.integers(0, n)), data.draw(st.integers(0, n))
    assert committee_bounds(clients=n, decryptors=D, tolerated=f, corrupt=corrupt,
                            dropped=dropped) == _enumerated(n, D, f, corrupt, dropped)


def test_a_one_member_committee_fails_as_often_as_its_member():
    assert committee_bounds(clients=100, decryptors=1, tolerated=0, corrupt=3, dropped=7) == (Fraction(3, 100),
                                                                                             Fraction(7, 100))


@pytest.mark.parametrize(("body", "message"), [
    ({"decryptor_dropout": 1}, "protocol.willow.decryptors: missing"),
    ({"decryptors": 0}, "protocol.willow.decryptors: must be a whole number"),
    ({"decryptors": 4, "decryptor_dropout": 4}, "protocol.willow.decryptor_dropout"),
    ({"decryptors": 4, "corrupt": 1}, "protocol.willow.corrupt: must lie in [0, 1)"),
    ({"decryptors": 4, "threshold": 2}, "protocol.willow: unknown key 'threshold'"),
])
def test_a_bad_willow_mapping_is_one_line(body, message):
    with pytest.raises(InvalidDeployment, match=re.escape(message)):
        parse_protocol({"willow": body})


def test_willow_is_registered_and_parsed_through_the_registry():
    assert PROTOCOLS["willow"] is WillowProtocol
    p = parse_protocol(WILLOW)
    assert p == WillowProtocol(decryptors=40, decryptor_dropout=20, corrupt=Fraction(1, 100))
    assert parse_protocol(p.to_dict()) == p
    with pytest.raises(InvalidDeployment, match="at most the 30 clients"):
        parse_deployment({**SMALL, "clients": 30, "protocol": WILLOW})


def test_a_willow_plan_reports_its_regime_and_exact_bounds():
    p = plan(parse_deployment({**SMALL, "protocol": WILLOW}))
    keys = p.keys
    assert isinstance(keys, WillowKeys) and keys.regime.name == "1K" and p.verdict.feasible
    # 200 clients of 16-bit words: base 2^24 (200 x 65535 < 2^24), 2 per 56-bit coefficient
    assert keys.packing == Packing(24, 2, 8, 1)
    assert (keys.corrupt_clients, keys.dropped_clients) == (2, 20)
    assert (keys.security, keys.correctness) == committee_bounds(clients=200, decryptors=40, tolerated=20,
                                                                 corrupt=2, dropped=20)
    assert keys.security == 0                       # 2 corrupt clients can never be 20 decryptors
    d = keys.to_dict()
    assert d["protocol"] == "willow" and d["willow"]["regime"] == "1K" and d["reasons"] == []


def test_a_committee_that_cannot_survive_the_dropout_is_infeasible():
    raw = {**SMALL, "protocol": {"willow": {"decryptors": 40, "decryptor_dropout": 1, "corrupt": 0}}}
    p = plan(parse_deployment(raw))
    assert not p.verdict.feasible and any("correctness failure" in r for r in p.verdict.reasons)


def test_willow_has_no_simulated_round():
    with pytest.raises(InvalidOption, match="willow has no simulated round"):
        check_protocol_simulation(parse_deployment({**SMALL, "protocol": WILLOW}))


def _cli(tmp_path, raw: dict, *args: str):
    path = tmp_path / "d.yaml"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return CliRunner().invoke(main, ["plan", str(path), *args])


def test_outside_every_regime_the_plan_is_infeasible_with_willows_reason(tmp_path):
    out = _cli(tmp_path, {**SMALL, "encoding": {"word_bits": 33, "gamma": 4}, "protocol": WILLOW}, "--json")
    assert out.exit_code == EXIT_INFEASIBLE == 3
    d = json.loads(out.stdout)
    assert d["keys"]["willow"]["regime"] is None and d["verdict"]["verdict"] == "infeasible"
    assert any("outside every published Willow regime" in r and "bound 8,589,934,591 > 4,294,967,296" in r
               for r in d["verdict"]["reasons"])


def test_a_bad_willow_file_and_a_simulation_are_refused_with_exit_2(tmp_path):
    out = _cli(tmp_path, {**SMALL, "protocol": {"willow": {"decryptors": 4, "decryptor_dropout": 9}}})
    assert out.exit_code == 2 and "protocol.willow.decryptor_dropout" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    out = _cli(tmp_path, {**SMALL, "protocol": WILLOW}, "--simulate", "1")
    assert out.exit_code == 2 and "willow has no simulated round" in out.stderr


def test_the_shipped_willow_deployment():
    d = load_deployment("cross-device-willow")
    assert isinstance(d.protocol, WillowProtocol)
    keys = d.protocol.size(clients=d.clients, dropout=d.dropout, dimension=d.dimension, name=d.name,
                           bits_per_round=None, payload_bits=20, time_limit=None, seed=0, report=None)
    # 1.2M coordinates, base 2^34 (10,000 x (2^20 - 1)): 6 per 224-bit coefficient, 200,000 in 13 polynomials
    assert keys.regime.name == "10M" and keys.packing == Packing(34, 6, 200_000, 13) and keys.reasons == ()
    assert keys.ciphertext_bits() == 13 * 2**14 * 4 * 61


def test_a_committee_beyond_every_regime_is_infeasible_not_summed(tmp_path):
    # 10^6 decryptors of 10^7 clients would be a sum of a million huge terms: Willow refuses it first
    raw = {**SMALL, "clients": 10**7, "dimension": 4, "encoding": {"word_bits": 8, "gamma": 4},
           "protocol": {"willow": {"decryptors": 10**6}}}
    out = _cli(tmp_path, raw, "--json")
    assert out.exit_code == EXIT_INFEASIBLE
    d = json.loads(out.stdout)
    assert d["keys"]["willow"]["security_failure"] is None and d["keys"]["willow"]["regime"] is None
    assert any("decryptors 1,000,000 > 100" in r for r in d["verdict"]["reasons"])


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_the_fix_is_the_fewest_tolerated_dropouts_that_meet_both_targets(data):
    from itsa.keys.secagg.certified import CORRECTNESS_TARGET, SECURITY_TARGET
    from itsa.planning.protocols.willow import smallest_tolerance

    n = data.draw(st.integers(50, 2000))
    D = data.draw(st.integers(1, min(n, 60)))
    corrupt, dropped = data.draw(st.integers(0, n // 4)), data.draw(st.integers(0, n // 2))
    meets = [f for f in range(D) if all(b < t for b, t in zip(
        committee_bounds(clients=n, decryptors=D, tolerated=f, corrupt=corrupt, dropped=dropped),
        (SECURITY_TARGET, CORRECTNESS_TARGET)))]
    assert smallest_tolerance(clients=n, decryptors=D, corrupt=corrupt, dropped=dropped) == (
        meets[0] if meets else None)


def test_an_infeasible_committee_offers_the_fewest_dropouts_that_work():
    raw = {**SMALL, "protocol": {"willow": {"decryptors": 40, "decryptor_dropout": 1, "corrupt": 0}}}
    p = plan(parse_deployment(raw))
    fix = p.verdict.fixes["willow_decryptor_dropout"]
    fixed = plan(parse_deployment({**SMALL, "protocol": {"willow": {"decryptors": 40, "corrupt": 0,
                                                                     "decryptor_dropout": fix["decryptor_dropout"]}}}))
    assert fixed.verdict.feasible
    one_less = {"decryptors": 40, "corrupt": 0, "decryptor_dropout": fix["decryptor_dropout"] - 1}
    assert not plan(parse_deployment({**SMALL, "protocol": {"willow": one_less}})).verdict.feasible
