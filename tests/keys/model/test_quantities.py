"""Properties of the paper's quantities on random instances, against a plain oracle."""

from hypothesis import given
from hypothesis import strategies as st

import itsa
from itsa.testing import instances, relabellings
from itsa.testing.oracles import plain_quantities


def as_pairs(inst, masks):
    return [set(inst.labels(m)) for m in masks]


@given(instances(), st.sampled_from(itsa.Q_RULES))
def test_matches_plain_reference(inst, rule):
    sets = itsa.set_quantities(itsa.configurations(inst), rule)
    ref = plain_quantities(inst.servers, as_pairs(inst, inst.security_sets),
                           as_pairs(inst, inst.collusion_sets), rule)
    for key in ("S_I", "S_bar", "Q1", "Q2", "Q"):
        assert set(inst.labels(getattr(sets, key))) == ref[key], key
    assert (sets.a_star, sets.e_star) == (ref["a_star"], ref["e_star"])


@given(instances())
def test_basic_inclusions_and_bounds(inst):
    a = itsa.analyze(inst)
    union_S = 0
    for s in inst.security_sets:
        union_S |= s
    assert a.S_bar & union_S == union_S
    assert a.S_I & union_S == 0
    assert a.a_star <= a.S_bar.bit_count()
    if a.key_rate_upper.value is not None:
        assert a.key_rate_lower_printed.value <= a.key_rate_upper.value
        assert a.key_rate_lower.value <= a.key_rate_upper.value   # corrected ≤ a verified construction's rate
    assert a.regime in itsa.REGIMES


@given(instances(max_users=6))
def test_lp_certificate_checks(inst):
    a = itsa.analyze(inst)
    if a.lp is not None:
        a.lp.check()
        if a.lp.feasible:
            assert a.key_rate_upper.value == a.e_star + a.lp.b_star
        else:
            u, m, n = a.lp.empty_constraint
            assert a.configurations.D_mask(u, m, n) == inst.full_mask
            assert a.key_rate_upper.value is None


@given(st.data())
def test_relabelling_within_servers_changes_only_names(data):
    inst = data.draw(instances(max_users=6))
    perm = data.draw(relabellings(inst))
    a, b = itsa.analyze(inst), itsa.analyze(inst.relabelled(perm))

    def move(m):
        return itsa._util.bitset.mask_of(perm[i] for i in itsa._util.bitset.members(m))

    assert (a.a_star, a.e_star, a.regime) == (b.a_star, b.e_star, b.regime)
    for key in ("S_I", "S_bar", "Q1", "Q2", "Q"):
        assert move(getattr(a.sets, key)) == getattr(b.sets, key)
    assert a.key_rate_upper.value == b.key_rate_upper.value


def test_infeasible_lp_is_reported_not_raised():
    # One user per server, S = all, T contains all users: D = K for every configuration.
    inst = itsa.Instance.from_users([1, 1, 1], [[(1, 1)]], [[(1, 1), (2, 1), (3, 1)]])
    a = itsa.analyze(inst)
    assert a.regime == "theorem-2"
    assert not a.lp.feasible and a.lp.b_star is None
    assert a.key_rate_upper.value is None and "infeasible" in a.key_rate_upper.reason


def test_bitset_roundtrip_beyond_64_users():
    from itsa._util.bitset import pack, popcount, unpack

    m = (1 << 130) | (1 << 64) | 5
    words = pack([m], 131)
    assert words.shape == (1, 3)
    assert unpack(words[0]) == m and popcount(words)[0] == 4


def test_many_users_use_several_words():
    inst = itsa.Instance.from_users([30, 30, 10], [[(1, 1), (2, 1)]], [[(3, v) for v in range(1, 11)], []])
    sets = itsa.set_quantities(itsa.configurations(inst))
    ref = plain_quantities(inst.servers, as_pairs(inst, inst.security_sets), as_pairs(inst, inst.collusion_sets))
    assert set(inst.labels(sets.S_bar)) == ref["S_bar"]
    assert (sets.a_star, sets.e_star) == (ref["a_star"], ref["e_star"])


@given(instances(max_users=7, max_collusion_sets=8))
def test_lp_solvers_agree_exactly(inst):
    conf = itsa.configurations(inst)
    highs, cbc = itsa.theorem2_lp(conf, "highs"), itsa.theorem2_lp(conf, "cbc")
    assert highs.feasible == cbc.feasible
    assert highs.b_star == cbc.b_star
