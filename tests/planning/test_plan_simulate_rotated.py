"""The simulation runs what a rotated plan certifies: rotation, stochastic and conditional rounding, Skellam, central noise.

A small deployment (50 clients, 10 % dropout, d = 1000, ε = 8 at δ = 10⁻⁶ over
100 rounds, conditional rounding at the default β = exp(−1/2)) is planned with a DFT rotation
on a 16-bit word and a Hadamard rotation (padded to d' = 1024) on an 18-bit
word, then run for a few rounds with a fixed seed.

Tolerances, derived (the seed is fixed, so each check is deterministic; the
bounds say how unlikely a failure would be for a random seed):

- **Wraps.** The plan's certified wrap bound per word is about 10⁻⁹; a run
  of ``R`` rounds counts ``R d'`` words, so the expected count is at most
  ``R d' · 10⁻⁹ < 10⁻⁵`` and, by Markov's inequality, a run with any wrap has
  probability below 10⁻⁵: the test asks for none.
- **Error.** The released mean's error per coordinate is the noise's part
  plus the rounding's. The noise is independent across the ``d'`` rotated
  words with one variance ``V``; undoing the rotation is orthogonal, so the
  ``d`` kept coordinates are uncorrelated with variance ``V`` each, and each
  is a sum of many independent shares with (to within ``10⁻¹⁰⁰``, at these σ)
  no excess kurtosis, so ``Cov(e_j², e_k²) = 2 Cov(e_j, e_k)² = 0`` for
  ``j ≠ k`` and ``Var e_j² = 2V²``. The empirical MSE, the mean of
  ``N = R d`` such squares, then has relative standard deviation
  ``√(2/N)`` about its mean (the predicted MSE; the rounding part, about
  10⁻⁴ of it, changes nothing at this resolution), and Chebyshev's inequality
  puts it within ``k √(2/N)`` of the prediction with probability at least
  ``1 − 1/k²``. With ``k = 10`` (1 % for a random seed) and ``N = 4000`` the
  tolerance is 22 %; the prediction is at most the plan's certified error,
  which the MSE must then not exceed by more than that factor.
- **Too small a word.** Four bits fewer leave a window of about 0.44
  standard deviations of the summed noise on each side: about two thirds of
  the words wrap, far above the plan's certified bound (a wrapped word is
  decoded inside the window, so such a run's error is no guide: it shrinks).
"""

import json
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

import itsa
from itsa._util.certified import safe_decimal
from itsa.exceptions import InvalidOption
from itsa.planning import load_deployment, parse_deployment
from itsa.planning.drivers.explore import check_simulation
from itsa.planning.mechanisms import mechanism
from itsa.planning.run.from_plan import flat_wrap, setup_from_plan
from itsa.planning.run.setup import MAX_CELLS, SimulationSetup
from itsa.planning.run.simulate import simulate
from itsa.planning.run.transforms import rotate as _rotate
from itsa.planning.run.transforms import unrotate as _unrotate
from itsa.privacy.neighbours import DEFAULT_BETA, conditional_rounding_cost

ROUNDS, SEED = 4, 20
#: Chebyshev's k for the error (see the module's text).
CHEBYSHEV = 10


def deployment(rotation, bits, **noise):
    return parse_deployment({
        "clients": 50, "dimension": 1000, "clip": 1, "dropout": "1/10",
        "privacy": {"epsilon": 8, "delta": "1e-6", "rounds": 100}, "overflow": "1e-6",
        "encoding": {"word_bits": bits, "rotation": rotation, "rounding": "conditional"},
        **({"noise": noise} if noise else {})})


@pytest.fixture(scope="module", params=[("dft", 16), ("hadamard", 18)], ids=["dft-16", "hadamard-18"])
def rotated(request):
    rotation, bits = request.param
    return itsa.plan(deployment(rotation, bits))


def error_tolerance(run) -> float:
    return CHEBYSHEV * math.sqrt(2 / (run.rounds * run.setup.dimension))


def test_a_rotated_plan_runs_within_its_certified_bounds(rotated):
    p = rotated
    assert p.verdict.feasible
    run = itsa.simulate_plan(p, ROUNDS, SEED)
    s = run.setup
    assert (s.rotation, s.rounding, s.mechanism) == (p.encoding.rotation, "conditional", "dgauss")
    assert s.rotated_dimension == p.encoding.rotated_dimension == (1024 if s.rotation == "hadamard" else 1000)
    (wrap,) = run.layers
    assert wrap.trials == ROUNDS * s.rotated_dimension and wrap.modulus == p.encoding.modulus
    assert wrap.certified == flat_wrap(p, 1).upper() < Fraction(1, 10**8)
    assert wrap.certified <= p.encoding.wrap_probability.upper()       # one word against the round's union
    assert wrap.wraps == 0 and wrap.consistent is True
    assert run.exact_recovery and run.masks_cancel
    # the error in the original coordinates, against the prediction and the certified error
    tol = error_tolerance(run)
    assert run.planned_mse == p.error.per_coordinate and run.predicted_mse <= run.planned_mse
    assert abs(float(run.mse) / float(run.predicted_mse) - 1) <= tol, (run.mse, run.predicted_mse)
    assert float(run.mse) <= float(p.error.per_coordinate) * (1 + tol)
    # conditional rounding: every client's update rounded at least once, at most 1/(1 - beta) on average
    # (the file names no beta: the plan's, exp(-lambda) small enough for the coupling, a bound within 1e-10 of 1)
    tries, updates = run.attempts
    bound = conditional_rounding_cost(s.beta)[0]
    assert s.beta == p.deployment.encoding.beta != DEFAULT_BETA and run.attempts_bound == bound
    assert 1 < bound < 1 + Fraction(1, 10**10)
    assert updates == ROUNDS * s.clients and updates <= tries <= bound * updates
    data = run.to_dict()
    assert Fraction(data["conditional_rounding"]["bound"]) == bound and data["setup"]["beta"] == str(s.beta)
    assert data["setup"]["rotation"] == s.rotation
    assert f"{s.rotation} rotation to d' = {s.rotated_dimension}" in dict(run.rows())["setup"]


def test_the_same_seed_gives_the_same_run(rotated):
    a, b = itsa.simulate_plan(rotated, 1, 5), itsa.simulate_plan(rotated, 1, 5)
    assert a == b and a.mse != itsa.simulate_plan(rotated, 1, 6).mse


def test_a_too_small_word_wraps_and_the_run_says_so(rotated):
    p = rotated
    bound = flat_wrap(p, 1)
    small = replace(setup_from_plan(p), modulus=p.encoding.modulus // 16)
    run = simulate(small, 2, SEED, certified=bound)
    (wrap,) = run.layers
    assert wrap.rate > Fraction(1, 5) and wrap.consistent is False and "EXCEEDED" in wrap.text()
    assert run.exact_recovery                     # every word that did not wrap decoded exactly
    assert run.resolutions[0][1] == wrap.wraps    # and every word that did is decoded wrong


@pytest.mark.parametrize("placement, rotation, bits", [("distributed", "dft", 16), ("central", "hadamard", 20)])
def test_skellam_shares_and_central_noise(placement, rotation, bits):
    p = itsa.plan(deployment(rotation, bits, mechanism="skellam", placement=placement))
    run = itsa.simulate_plan(p, ROUNDS, SEED)
    s = run.setup
    assert (s.mechanism, s.noise) == ("skellam", placement) and "variance" not in s.describe()
    who = "per client" if placement == "distributed" else "once (central)"
    assert f"Skellam sigma {safe_decimal(s.sigma_client, 8)} {who}" in s.describe()   # sigma, not its square
    shares = dict(p.rows())["wrap method"]
    assert ("Skellam shares of all K clients" in shares) == (placement == "distributed")
    assert ("the central Skellam noise" in shares) == (placement == "central")
    assert run.layers[0].wraps == 0 and run.layers[0].certified == flat_wrap(p, 1).upper()
    tol = error_tolerance(run)
    assert abs(float(run.mse) / float(run.predicted_mse) - 1) <= tol
    assert float(run.mse) <= float(p.error.per_coordinate) * (1 + tol)
    exact = "the Skellam shares'" if placement == "distributed" else "the central Skellam noise's"
    assert f"{exact} exact variance" in dict(run.rows())["predicted MSE"]


def test_skellam_draws_have_the_planned_variance():
    # Var X = sigma^2 = 9; Var X^2 = 2 sigma^4 + sigma^4/(2 mu) + ... <= 3 sigma^4 (mu = 4.5): the sample variance of
    # n draws is within 10 sqrt(3/n) sigma^2 of sigma^2 with probability >= 99 % (Chebyshev)
    x = mechanism("skellam").draws(Fraction(3), 200_000, "itsa-test-skellam")
    assert x.dtype == np.int64 and abs(float(np.mean(x))) < 0.1
    assert abs(float(np.mean(x.astype(float) ** 2)) / 9 - 1) <= 10 * math.sqrt(3 / 200_000)
    assert np.array_equal(x, mechanism("skellam").draws(Fraction(3), 200_000, "itsa-test-skellam"))


@pytest.mark.parametrize("rotation, d, d_rot", [("hadamard", 5, 8), ("dft", 5, 6), ("dft", 6, 6)])
def test_the_rotation_is_the_plans(rotation, d, d_rot):
    rng = np.random.default_rng(0)
    signs = 2 * rng.integers(0, 2, size=d_rot) - 1
    matrix = _rotate(np.eye(d_rot), signs, rotation).T           # column j: the image of e_j
    assert np.allclose(matrix.T @ matrix, np.eye(d_rot))           # orthogonal
    # the flatness the wrap bound uses: Hadamard entries +-1/sqrt(d'), DFT coefficients at most sqrt(2/d')
    if rotation == "hadamard":
        assert np.allclose(np.abs(matrix), 1 / math.sqrt(d_rot))
    else:
        assert np.abs(matrix).max() <= math.sqrt(2 / d_rot) + 1e-12
    x = rng.standard_normal((3, d))
    assert np.allclose(_unrotate(_rotate(x, signs, rotation), signs, rotation, d), x)


def test_what_is_still_refused():
    s = SimulationSetup(clients=10, dimension=100, clip=1, gamma=8, modulus=2**16, rotation="dft")
    with pytest.raises(InvalidOption, match="uniform"):
        simulate(s, 1, 0, updates="uniform")
    with pytest.raises(InvalidOption, match="words a client"):   # the padded words count: 2^21, a block of 5 past
        SimulationSetup(clients=10, dimension=MAX_CELLS // 5 - 10**5, clip=1, gamma=8, modulus=2**16,
                        rotation="hadamard")
    SimulationSetup(clients=10**6, dimension=MAX_CELLS // 5, clip=1, gamma=8, modulus=2**16)   # clients stream
    with pytest.raises(InvalidOption, match="layering"):
        SimulationSetup(clients=10, dimension=10, clip=1, gamma=1, radix=3, layers=2, margin=2, rotation="dft")
    with pytest.raises(InvalidOption, match="past the time limit of 300 s: .*--workers"):   # before the plan
        check_simulation(load_deployment("cross-device"), 1, 0, 300)
    check_simulation(load_deployment("cross-device"), 1, 0, None)        # no limit: its size alone is accepted


@pytest.mark.slow
def test_the_cli_runs_the_hospitals_and_refuses_cross_device_past_its_time_in_one_line(tmp_path):
    from tests.planning.test_plan_simulate import run_cli

    out = run_cli(["plan", "hospitals", "--simulate", "2", "--seed", "3", "--json"], tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    sim = json.loads(out.stdout)["simulation"]
    assert sim["setup"]["noise"] == "central" and sim["wrap"][0]["wraps"] == 0 and sim["exact_recovery"]
    assert float(sim["error"]["mse"]) <= float(sim["error"]["planned"]) * (1 + 10 * math.sqrt(2 / (2 * 100000)))
    out = run_cli(["plan", "cross-device", "--simulate", "1"], tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--time-limit" in out.stderr, out.stderr


def test_a_padded_rotation_past_the_cells_is_refused_before_the_plan():
    # a block of 5 clients x d = 1,100,000: 5.5 million cells, but the Hadamard rotation sends 2^21 words each
    d = parse_deployment({"clients": 3000, "dimension": 1_100_000, "clip": 1, "privacy": {"epsilon": 8},
                          "encoding": {"word_bits": 20, "rotation": "hadamard", "rounding": "conditional"}})
    with pytest.raises(InvalidOption, match="5 clients x 2097152 words .the hadamard rotation's d'"):
        check_simulation(d, 1, 0, None)
