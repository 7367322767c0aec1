"""The simulated deployment: wrap rates against exact laws, exact recovery, error, masks, determinism, bad input."""

from fractions import Fraction
from types import SimpleNamespace

import pytest

from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidInput, ItsaError
from itsa.modular import DigitLaw, sum_law
from itsa.planning.drivers.explore import setup_from_plan
from itsa.planning.rule.heuristic import wrap_bound
from itsa.planning.run.from_plan import simulate_plan
from itsa.planning.run.simulate import SimulationSetup, simulate

#: The exact carry probability of one layer at K = 1000, radix 3, margin 3 (modulus 81), uniform digits,
#: from the modular part's documents.
PSA_CARRY_K1000_M3 = Fraction(11674, 100000)


def within(rate, exact, se, k=4):
    return abs(float(rate) - float(exact)) <= k * float(se)


def test_flat_wrap_rate_matches_the_exact_law():
    # K = 10 uniform integers in [-2, 2] summed modulo 15: P(|S| > 7) exactly from the law of the sum
    setup = SimulationSetup(clients=10, dimension=500, clip=1, gamma=2, modulus=15)
    run = simulate(setup, rounds=8, seed=3, updates="uniform")
    exact = sum_law(DigitLaw.uniform(5), 10).carry(7).high
    rate = run.layers[0]
    assert Fraction(5, 100) < exact < Fraction(3, 10)                    # frequent enough to count
    assert within(rate.rate, exact, rate.standard_error), (rate.rate, exact)
    assert run.exact_recovery and run.masks_cancel
    assert run.resolutions[0][1] == rate.wraps                             # every wrap is a wrong coordinate


def test_psa_carry_rate_matches_the_exact_layer_law():
    setup = SimulationSetup(clients=1000, dimension=150, clip=1, gamma=4, radix=3, layers=2, margin=3)
    run = simulate(setup, rounds=8, seed=11, updates="uniform")
    exact = sum_law(DigitLaw.uniform(3), 1000).carry(40).high
    assert abs(float(exact) - float(PSA_CARRY_K1000_M3)) < 1e-5
    for layer in run.layers:
        assert layer.modulus == 81 and within(layer.rate, exact, layer.standard_error), (layer.rate, exact)
    (l1, wrong1, touched1), (l2, wrong2, touched2) = run.resolutions
    assert run.exact_recovery and wrong1 <= touched1 and wrong2 <= touched2
    assert wrong2 == run.layers[1].wraps                 # the coarse decode is hit by layer 2's carries alone
    assert wrong1 >= wrong2


def test_empirical_wrap_within_the_certified_bound_with_noise():
    # uniform data in [-2, 2] is 4-sub-Gaussian per client (Hoeffding); noise sigma 1; modulus 2^5
    setup = SimulationSetup(clients=10, dimension=400, clip=1, gamma=2, sigma_client=1, modulus=32)
    coord, _ = wrap_bound(clients=10, dimension=400, data_proxy=10 * 4, sigma=1, word_bits=5)
    run = simulate(setup, rounds=6, seed=5, updates="uniform", certified=coord)
    assert run.layers[0].wraps > 0 and run.layers[0].consistent is True
    assert run.layers[0].rate <= coord.upper()


def test_exact_recovery_and_error_without_wraps():
    setup = SimulationSetup(clients=200, dimension=300, clip=1, gamma=256, sigma_client=3, dropout="1/5",
                            modulus=2**30)
    run = simulate(setup, rounds=3, seed=2)
    assert run.setup.survivors == 160 and run.layers[0].wraps == 0
    assert run.exact_recovery and run.masks_cancel
    assert within(run.mse, run.predicted_mse, run.mse_standard_error)
    assert run.predicted_mse <= run.planned_mse
    stat, dof, p = run.uniformity
    assert dof == 63 and p > 1e-6                                           # a masked upload looks uniform


def test_psa_with_noise_and_dropout_recovers_exactly():
    setup = SimulationSetup(clients=50, dimension=100, clip=1, gamma=40, sigma_client=2, dropout="1/10",
                            radix=3, layers=4, margin=4)
    run = simulate(setup, rounds=2, seed=9)
    assert run.exact_recovery and run.masks_cancel and all(r.wraps == 0 for r in run.layers)
    assert within(run.mse, run.predicted_mse, run.mse_standard_error)


def test_deterministic_for_a_seed_and_progress():
    setup = SimulationSetup(clients=30, dimension=40, clip=1, gamma=8, sigma_client=2, dropout="1/10",
                            modulus=64)
    events = []
    a = simulate(setup, rounds=3, seed=4, progress=events.append)
    assert a == simulate(setup, rounds=3, seed=4)
    assert a != simulate(setup, rounds=3, seed=5)
    assert events[0].stage == "simulate: estimate" and "an estimate" in events[0].note
    assert [(e.done, e.total) for e in events[1:]] == [(1, 3), (2, 3), (3, 3)]
    assert a.to_dict()["wrap"][0]["trials"] == 120 and a.rows()


def test_setup_from_plan_reads_the_parts():
    plan = SimpleNamespace(deployment=SimpleNamespace(clients=20, dropout=Fraction(1, 10), dimension=16, clip=1),
                           noise={"sigma_client": 3}, encoding=SimpleNamespace(gamma=8, modulus=2**12,
                                                                               radix=None, layers=None, margin=None))
    setup = setup_from_plan(plan)
    assert (setup.clients, setup.survivors, setup.sigma_client, setup.modulus) == (20, 18, 3, 4096)
    assert simulate_plan(plan, rounds=1, seed=0).masks_cancel
    with pytest.raises(InvalidInput):
        setup_from_plan(SimpleNamespace(clients=3))
    half = setup_from_plan(SimpleNamespace(clients=3, dimension=2, clip=1, gamma=1, sigma_client=Fraction(3, 2),
                                           modulus=64))
    assert half.sigma_client == Fraction(3, 2)                      # a rational sigma is simulated as it is
    with pytest.raises(InvalidInput):
        setup_from_plan(SimpleNamespace(clients=3, dimension=2, clip=1, gamma=1, sigma_client=-1, modulus=64))


@pytest.mark.parametrize("kwargs", [dict(clients=0), dict(modulus=1), dict(modulus=64, radix=3, layers=2, margin=1),
                                    dict(modulus=None, radix=3), dict(modulus=None, radix=4, layers=2, margin=1),
                                    dict(modulus=None, radix=3, layers=2, margin=1, gamma=100),
                                    dict(dropout=1), dict(sigma_client=-1), dict(gamma=0), dict(modulus=2**63),
                                    dict(clients=10**5, dimension=2 * 10**6)])
def test_bad_setups_are_itsa_errors(kwargs):
    args = dict(clients=10, dimension=8, clip=1, gamma=4, modulus=64) | kwargs
    with pytest.raises(InvalidInput) as err:
        SimulationSetup(**args)
    assert isinstance(err.value, ItsaError) and "\n" not in str(err.value)


def test_bad_run_inputs():
    setup = SimulationSetup(clients=10, dimension=8, clip=1, gamma=4, modulus=64)
    for kwargs in (dict(rounds=0), dict(seed=-1), dict(updates="gauss"), dict(certified=[0.1, 0.2]),
                   dict(certified=2)):
        with pytest.raises(InvalidInput):
            simulate(setup, **({"rounds": 1, "seed": 0} | kwargs))
    with pytest.raises(ItsaError):                                          # a time limit already spent
        simulate(setup, rounds=5, seed=0, time_limit=Deadline.spent())


def test_a_run_past_its_time_limit_is_refused_before_it_starts():
    setup = SimulationSetup(clients=1000, dimension=1290, clip=1, gamma=1000, sigma_client=40, modulus=2**32)
    with pytest.raises(InvalidInput, match="time limit"):
        simulate(setup, rounds=1000, seed=0, time_limit=60)


def test_a_round_at_the_deployment_size_takes_seconds():
    setup = SimulationSetup(clients=1000, dimension=1290, clip=1, gamma=1000, sigma_client=40,
                            dropout="1/10", modulus=2**32)
    run = simulate(setup, rounds=1, seed=1, time_limit=120)
    assert run.exact_recovery and run.masks_cancel and run.layers[0].wraps == 0
    assert run.seconds < 120
