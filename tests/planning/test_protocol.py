"""The deployment's protocol: keys for its own clients (SecAgg+, the multi-server model) and the protocol run."""

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from itsa._util.certified import Certified
from itsa.exceptions import InvalidDeployment, InvalidOption
from itsa.keys.secagg import secagg_bounds, secagg_parameters
from itsa.planning import load_deployment, parse_deployment, plan
from itsa.planning.protocols import (
    MultiServerKeys,
    SecAggKeys,
    SecAggProtocol,
    parse_protocol,
    size_protocol_keys,
    split_clients,
)
from itsa.planning.protocols.multi_server import SchemeRun
from itsa.planning.protocols.run import ProtocolTally, protocol_sum
from itsa.planning.protocols.secagg import SecAggRun
from itsa.planning.run.from_plan import simulate_plan
from itsa.planning.sections import servers_warning
from itsa_cli import main
from itsa_cli._common import EXIT_INFEASIBLE

#: A small deployment whose noise is given (no calibration), in a 32-bit word.
SMALL = {"clients": 40, "dimension": 16, "clip": 1, "dropout": "1/10", "noise": {"kind": "central", "sigma": 4},
         "privacy": {"delta": "1e-6"}, "encoding": {"word_bits": 32, "gamma": 4},
         "overflow": {"probability": "1/2", "per": "coordinate"}}
SECAGG = {"secagg+": {"corrupt": "1/20", "adversary": "semi-honest"}}


def _cli(tmp_path, raw: dict, *args):
    import yaml

    (tmp_path / "d.yaml").write_text(yaml.safe_dump(raw))
    return CliRunner().invoke(main, ["plan", str(tmp_path / "d.yaml"), "--quiet", *args])


# -- the file's protocol ------------------------------------------------------------------------------


@pytest.mark.parametrize("raw, message", [
    ({"secagg": {}}, "unknown protocol"),
    ({"secagg+": {"corrupt": "1/20", "rho": 1}}, "unknown key 'rho'"),
    ({"secagg+": {"corrupt": 1}}, "corrupt: must lie in [0, 1)"),
    ({"secagg+": {"corrupt": "1/20", "adversary": "none"}}, "the adversary none expects corrupt 0"),
    ({"secagg+": {"degree": 10}}, "give degree and threshold together"),
    ({"secagg+": {"degree": 10, "threshold": 11}}, "threshold"),
    ({"multi-server": {"collusion": 1}}, "servers: missing"),
    ({"multi-server": {"servers": 0}}, "servers"),
    ({"secagg+": {}, "multi-server": {"servers": 3}}, "one key"),
])
def test_a_bad_protocol_is_one_line(raw, message):
    with pytest.raises(InvalidDeployment, match=message.replace("[", r"\[").replace(")", r"\)")):
        parse_protocol(raw)


@pytest.mark.parametrize("extra, message", [
    ({"protocol": SECAGG, "servers": "example-2"}, "not both"),
    ({"protocol": {"secagg+": {"degree": 7, "threshold": 4}}}, "even degree"),
    ({"protocol": {"secagg+": {"degree": 40, "threshold": 4}}}, "at most clients - 1 = 39"),
    ({"protocol": {"multi-server": {"servers": 41}}}, "at most the 40 clients"),
])
def test_the_protocol_is_checked_against_the_clients(extra, message):
    with pytest.raises(InvalidDeployment, match=message):
        parse_deployment({**SMALL, **extra})


def test_the_clients_split_as_evenly_as_possible():
    assert split_clients(1000, 3) == (334, 333, 333) and split_clients(6, 3) == (2, 2, 2)
    assert sum(split_clients(997, 7)) == 997 and max(split_clients(997, 7)) - min(split_clients(997, 7)) == 1


def test_k1000_ships_with_secagg():
    d = load_deployment("k1000")
    assert d.protocol == SecAggProtocol(corrupt=Fraction(1, 20)) and d.servers is None
    assert d.protocol is not None
    keys = size_protocol_keys(d.protocol, clients=d.clients, dropout=d.dropout, dimension=d.dimension, name=d.name,
                              bits_per_round=Certified.exact("bits", 32 * 1290, "word x d"), payload_bits=32,
                              time_limit=None)
    found = secagg_parameters(1000, "1/20", "1/10")
    assert isinstance(keys, SecAggKeys) and (keys.degree, keys.threshold) == (found.degree, found.threshold)
    assert keys.dropout_tolerated and keys.bounds.meets_targets and keys.clients == 1000


# -- keys: SecAgg+ ------------------------------------------------------------------------------------


def test_secagg_keys_are_for_the_deployments_clients(tmp_path):
    out = _cli(tmp_path, {**SMALL, "protocol": SECAGG}, "--json")
    assert out.exit_code == 0, out.output
    keys = json.loads(out.stdout)["keys"]
    found = secagg_parameters(40, "1/20", "1/10", dimension=16, payload_bits=32)
    s = keys["secagg"]
    assert keys["protocol"] == "secagg+" and s["clients"] == 40
    assert (s["degree"], s["threshold"], s["num_shares"]) == (found.degree, found.threshold, found.degree + 1)
    assert s["tolerated_dropout"] == found.tolerated_dropout >= s["dropped_clients"] == 4
    assert s["bounds"]["security_failure"]["direction"] == "upper bound" and s["cost"] == found.cost.to_dict()
    assert "sees" in keys["security"] or "learns" in keys["security"]


def test_a_graph_that_does_not_tolerate_the_dropout_is_infeasible_with_the_smallest_degree(tmp_path):
    raw = {**SMALL, "dropout": "1/4", "protocol": {"secagg+": {"corrupt": 0, "degree": 6, "threshold": 5}}}
    out = _cli(tmp_path, raw, "--json")
    assert out.exit_code == EXIT_INFEASIBLE, out.output
    data = json.loads(out.stdout)
    found = secagg_parameters(40, 0, "1/4")
    assert not data["keys"]["secagg"]["dropout_tolerated"]
    assert data["verdict"]["fixes"]["secagg_degree"]["degree"] == found.degree
    assert any("tolerates" in r for r in data["verdict"]["reasons"])
    bounds = secagg_bounds(40, found.degree, found.threshold, 0, "1/4")
    assert bounds.meets_targets                                 # the fix works


# -- keys: the multi-server model -------------------------------------------------------------------


def test_multi_server_keys_build_the_instance_of_the_clients(tmp_path):
    raw = {**SMALL, "clients": 6, "dropout": 0, "protocol": {"multi-server": {"servers": 3, "collusion": 1}}}
    out = _cli(tmp_path, raw, "--json")
    assert out.exit_code == 0, out.output
    m = json.loads(out.stdout)["keys"]["multi_server"]
    assert m["users_per_server"] == [2, 2, 2] and m["quantities"]["e_star"] == 5
    assert m["rate"] == m["rate_upper"] == m["published_optimum"] == "4"       # min{U+V+t-2, UV-1} = 4, solved
    assert m["key_bits_per_round"] == str(4 * 32 * 16) and "dropouts" in m["not_covered"]


@pytest.mark.parametrize("collusion, e_star, method", [(1, 337, "itsa.analyze"), (2, 338, "closed form")])
def test_multi_server_at_a_thousand_clients(collusion, e_star, method):
    d = parse_deployment({**SMALL, "clients": 1000,
                          "protocol": {"multi-server": {"servers": 3, "collusion": collusion}}})
    keys = plan(d).keys
    assert isinstance(keys, MultiServerKeys) and keys.users_per_server == (334, 333, 333)
    assert keys.quantities["e_star"] == e_star and keys.method.startswith(method)
    assert keys.rate_high is None and "outside the model" in dict(keys.rows())["not covered"]


def test_a_servers_instance_that_is_not_the_clients_is_warned(tmp_path):
    out = _cli(tmp_path, {**SMALL, "servers": "example-1"}, "--json")
    assert out.exit_code == 0, out.output
    assert "7 users are not the deployment's 40 clients" in json.loads(out.stdout)["keys"]["warning"]
    assert servers_warning(7, 7) == "" and "7 users" in servers_warning(7, 40)


# -- the protocol run ------------------------------------------------------------------------------------


def _round(run, clients, dropped, modulus=2**32, seed=5):
    rng = np.random.default_rng(seed)
    values = rng.integers(-(2**20), 2**20, size=(clients, 24))
    alive = np.ones(clients, dtype=bool)
    alive[dropped] = False
    tally = ProtocolTally()
    total, exact, _ = protocol_sum(run, rng, values, alive, modulus, None, tally, 0)
    return total, exact, tally, np.mod(values[alive].sum(axis=0), modulus)


def test_secagg_recovers_the_exact_sum_of_the_survivors_through_shamir():
    total, exact, tally, want = _round(SecAggRun(degree=8, threshold=5), 30, [2, 3, 17])
    assert exact and np.array_equal(total, want) and tally.failed_rounds == []
    # too few surviving neighbours: the dropped clients' masks cannot be rebuilt, and the round says so
    total, exact, tally, want = _round(SecAggRun(degree=4, threshold=4), 30, list(range(0, 30, 2)))
    assert not exact and tally.failed_rounds == [0] and tally.failed_reconstructions > 0


def test_secagg_in_the_plans_simulation_with_dropouts():
    p = plan(parse_deployment({**SMALL, "protocol": SECAGG}))
    s = simulate_plan(p, rounds=2, seed=3)
    assert s.setup.protocol == SecAggRun(degree=p.keys.degree, threshold=p.keys.threshold, corrupt=Fraction(1, 20))
    assert s.setup.survivors == 36 and s.exact_recovery and s.masks_cancel
    assert s.protocol.inexact_rounds == () and s.protocol.failed_rounds == ()
    assert "key agreement simulated by random seeds" in s.protocol.method
    assert s.to_dict()["protocol"]["protocol"] == "secagg+"


def test_multi_server_simulation_runs_the_verified_scheme():
    d = parse_deployment({**SMALL, "clients": 6, "dropout": 0,
                          "protocol": {"multi-server": {"servers": 3, "collusion": 1}}})
    s = simulate_plan(plan(d), rounds=2, seed=1)
    run = s.setup.protocol
    assert isinstance(run, SchemeRun) and run.scheme.field == 2**32 - 5 and s.setup.modulus == 2**32 - 5
    assert run.scheme.rate == 4 and s.exact_recovery and s.protocol.inexact_rounds == ()
    # a key that does not cancel: every server decodes a wrong sum, and the round says so
    from dataclasses import replace

    from itsa.keys.schemes.scheme import Scheme

    keys = {i: run.scheme.key_matrix(i).tolist() for i in range(6)}
    keys[0][0][0] += 1
    broken = Scheme(run.scheme.field, run.scheme.L, run.scheme.key_symbols, keys)
    _, exact, tally, _ = _round(replace(run, scheme=broken), 6, [], modulus=run.scheme.field)
    assert not exact and tally.inexact_rounds == [0]


@pytest.mark.parametrize("adversary, corrupt, dropout, message", [
    ("semi-malicious", "9/100", "9/20", "corrupt + 2 dropout must be <= 9/10 (semi-malicious), not 0.99"),
    ("semi-honest", "1/2", "1/2", "corrupt + dropout must be <= 9/10 (semi-honest), not 1"),
])
def test_secaggs_domain_is_refused_with_the_files_name(tmp_path, adversary, corrupt, dropout, message):
    raw = {**SMALL, "dropout": dropout, "protocol": {"secagg+": {"corrupt": corrupt, "adversary": adversary}}}
    out = _cli(tmp_path, raw)
    assert out.exit_code == 2 and out.stderr == f"error: {tmp_path / 'd.yaml'}: protocol.secagg+: {message}\n"


def test_a_20_client_multi_server_simulation_keeps_to_the_searchs_limit():
    # K·L + d at L = 2 and d < K reaches 80 > 60 source symbols at 20 clients: the search runs at L = 1 only
    d = parse_deployment({**SMALL, "clients": 20, "dimension": 4, "dropout": 0,
                          "protocol": {"multi-server": {"servers": 2, "collusion": 1}}})
    s = simulate_plan(plan(d), rounds=2, seed=5)
    run = s.setup.protocol
    assert isinstance(run, SchemeRun) and run.instance.K == 20 and run.scheme.L == 1
    assert run.scheme.rate <= 19 and s.exact_recovery and s.protocol.inexact_rounds == ()


def test_a_multi_server_instance_too_large_to_verify_is_refused_in_one_line(tmp_path):
    """Refused once the plan is sized (an infeasible plan keeps its verdict): the plan's own key solve of 20
    servers runs to its time limit, so the test gives it a short one."""
    from itsa.planning.protocols.multi_server import SCHEME_CONFIGURATIONS, scheme_configurations

    assert scheme_configurations(20, 20, 19) == 20 * (2**20 - 1) > SCHEME_CONFIGURATIONS
    raw = {**SMALL, "clients": 20, "dropout": 0, "protocol": {"multi-server": {"servers": 20, "collusion": 19}}}
    out = _cli(tmp_path, raw, "--simulate", "1", "--time-limit", "5")
    assert out.exit_code == 2 and "at most 200,000 configurations" in out.stderr and "20,971,500" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_protocol_the_simulation_cannot_run_is_refused_before_the_plan(tmp_path):
    raw = {**SMALL, "clients": 40, "protocol": {"multi-server": {"servers": 4, "collusion": 1}}}
    out = _cli(tmp_path, raw, "--simulate", "1")
    assert out.exit_code == 2 and "at most 30 clients" in out.stderr
    with pytest.raises(InvalidOption, match="at most 32 bits"):
        from itsa.planning.protocols.run import check_protocol_simulation

        check_protocol_simulation(parse_deployment({**SMALL, "encoding": {"word_bits": 40}, "protocol": SECAGG}))


def test_a_secagg_round_looks_at_the_clock_inside():
    from itsa._util.deadline import Deadline
    from itsa.exceptions import TimeLimitReached

    rng = np.random.default_rng(0)
    values = rng.integers(0, 2**20, size=(30, 8))
    with pytest.raises(TimeLimitReached, match="SecAgg"):
        protocol_sum(SecAggRun(degree=8, threshold=5), rng, values, np.ones(30, dtype=bool), 2**32,
                     Deadline.spent(), ProtocolTally(), 0)
