"""--simulate's error over the rounds that did not wrap, beside the wrap count (the plan's bound is for those)."""

import numpy as np

from itsa.planning.run.simulate import SimulationSetup, simulate


def test_the_unwrapped_error_counts_the_rounds_without_a_wrap():
    # a word that wraps in some rounds, not all: K = 10 updates of 4 coordinates modulo 15
    setup = SimulationSetup(clients=10, dimension=4, clip=1, gamma=2, modulus=15)
    run = simulate(setup, rounds=40, seed=3, updates="uniform")
    hit = run.layers[0].rounds_hit
    assert 0 < hit < 40
    count, mse, se = run.unwrapped
    assert count == 40 - hit
    assert mse == se == 0 < run.mse         # no noise, integer updates: every error is a wrap's (a whole modulus)
    row = dict(run.rows())["error where no wrap (MSE)"]
    assert f"over the {count} of 40 rounds that did not wrap ({hit} wrapped)" in row
    assert run.to_dict()["error"]["unwrapped"]["wrapped_rounds"] == hit


def test_without_a_wrap_both_errors_agree_and_with_only_wraps_there_is_none():
    clean = simulate(SimulationSetup(clients=10, dimension=50, clip=1, gamma=4, modulus=2**16), rounds=5, seed=1)
    assert clean.layers[0].rounds_hit == 0 and clean.unwrapped[0] == 5
    assert np.isclose(float(clean.unwrapped[1]), float(clean.mse))
    always = simulate(SimulationSetup(clients=10, dimension=500, clip=1, gamma=2, modulus=5), rounds=3, seed=1,
                      updates="uniform")
    assert always.unwrapped is None and "none: all 3 rounds wrapped" in dict(always.rows())["error where no wrap (MSE)"]
