"""Golden values printed in the paper (docs/model.md §5)."""

from fractions import Fraction

import itsa


def users(inst, mask):
    return set(inst.labels(mask))


def test_example1_collusion_order(example1):
    # T_16 is the set of all four colluders; T_1 is empty (size, then lexicographic order)
    assert users(example1, example1.collusion_sets[15]) == {(1, 2), (2, 2), (3, 1), (3, 2)}
    assert example1.collusion_sets[0] == 0
    assert users(example1, example1.collusion_sets[1]) == {(1, 2)}
    assert example1.N == 16 and example1.M == 4 and example1.K == 7


def test_example1_printed_values(example1):
    a = itsa.analyze(example1)
    conf = a.configurations
    assert conf.U_servers(4, 16) == [2]
    assert conf.F_servers(4, 16) == [3]
    assert users(example1, a.S_I) == {(1, 3)}
    assert users(example1, a.S_bar) == {(1, 1), (1, 3), (2, 1)}
    assert users(example1, conf.D_mask(1, 4, 16) & a.S_bar) == {(1, 1), (2, 1)}
    assert a.a_star == 2 and a.e_star == 2
    assert a.sets.Q1 == 0
    assert users(example1, a.sets.Q2) == {(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)}
    assert a.Q == 0
    assert a.regime == "condition-2"
    assert a.key_rate_lower_printed.value == 2 and a.key_rate_upper.value == 2
    assert a.key_rate_lower.value == 2          # itsa's corrected bound agrees: R* = 2
    assert a.lp is None


def test_example2_printed_values(example2):
    a = itsa.analyze(example2)
    assert example2.N == 28 and example2.M == 8 and example2.K == 8
    assert a.a_star == 3 and a.e_star == 2
    assert a.S_bar.bit_count() == 3
    assert a.sets.Q1 == example2.full_mask and a.Q == example2.full_mask
    assert a.regime == "theorem-2"
    assert a.lp.feasible and a.lp.b_star == Fraction(3, 2)
    assert a.key_rate_lower_printed.value == 2 and a.key_rate_upper.value == Fraction(7, 2)
    # itsa's corrected converse is stronger here: 3 <= R* <= 7/2 (itsa's finding)
    assert a.key_rate_lower.value == 3
    a.lp.check()


def test_example2_binding_constraints(example2):
    lp = itsa.analyze(example2).lp
    binding = {frozenset(example2.labels(c.users)): set(c.configurations) for c in lp.constraints if c.binding}
    assert binding.keys() == {
        frozenset({(1, 4), (3, 1)}), frozenset({(1, 3), (3, 1)}), frozenset({(1, 3), (1, 4)})}
    assert (1, 8, 21) in binding[frozenset({(1, 4), (3, 1)})]
    assert (1, 8, 22) in binding[frozenset({(1, 3), (3, 1)})]
    assert (1, 8, 23) in binding[frozenset({(1, 3), (1, 4)})]


def test_both_q_rules_fit_the_examples(example1, example2):
    for rule in itsa.Q_RULES:
        assert itsa.analyze(example1, rule).regime == "condition-2"
        assert itsa.analyze(example2, rule).regime == "theorem-2"
