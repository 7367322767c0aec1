"""The gap search (itsa/keys/search/gap.py) and the local moves it walks with (itsa/keys/search/repair.py):
schemes at the converse's denominator, the record of an open interval, determinism."""

import random
from fractions import Fraction

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from itsa import examples, parse_instance
from itsa.keys.converse import converse
from itsa.keys.optimum import solve
from itsa.keys.schemes.verifier import verify
from itsa.keys.search.gap import GapSearch, RateTried, gap_rates, search_gap
from itsa.keys.search.repair import atom_shapes, atoms, moves, neighbours, repair
from itsa.keys.search.vector import key_entropies, search_vector_scheme

# K = 8, Theorem-2 regime (probe_solve.py, ensemble theorem2, seed 11, #6): the keys
# converse proves 7/5; the scalar and L = 2..4 searches stop at 3/2.
SEVEN_FIFTHS = ("{servers: [2, 1, 4, 1], security_sets: [[[3, 3]]], collusion_sets: [[], [[1, 1]], "
                "[[1, 2]], [[2, 1]], [[3, 1]], [[3, 3]], [[3, 4]], [[4, 1]], [[1, 1], [3, 4]], "
                "[[1, 1], [4, 1]], [[1, 2], [2, 1]], [[1, 2], [3, 1]], [[1, 2], [3, 4]], "
                "[[1, 2], [4, 1]], [[2, 1], [3, 1]], [[2, 1], [3, 3]], [[2, 1], [4, 1]], "
                "[[3, 1], [3, 2]], [[3, 1], [3, 3]], [[3, 1], [4, 1]], [[3, 2], [3, 3]], "
                "[[3, 2], [3, 4]], [[3, 3], [3, 4]]]}")


@pytest.fixture(scope="module")
def seven_fifths():
    inst = parse_instance(yaml.safe_load(SEVEN_FIFTHS), "seven-fifths")
    return inst, converse(inst, "keys")


def test_scheme_at_the_lp_denominator(seven_fifths):
    inst, bound = seven_fifths
    assert bound.certified and bound.value == Fraction(7, 5)
    assert search_vector_scheme(inst, "7/5", L_values=(2, 3, 4), budget=300).L_tried == ()
    res, rec = search_gap(inst, bound.value, Fraction(3, 2), hints=bound.key_entropies(inst.K))
    assert res.scheme.L == 5 and res.scheme.key_symbols == 7 and res.scheme.rate == bound.value
    assert verify(inst, res.scheme, engine="rank").ok
    assert rec.rates[0] == RateTried(rate=Fraction(7, 5), L_values=(5, 10), candidates=res.candidates, prefiltered=1, found=True, limit=None, best_deficit=0)
    # the scheme has the entropies the LP asked for: every key full or of rank 3/5 or 0
    h = bound.key_entropies(inst.K)
    got = key_entropies(res.scheme, inst.K, [1 << i for i in range(inst.K)])
    assert all(got[m] == min(1, Fraction(-(-h[m] * 5 // 1), 5)) for m in got)


def test_solve_closes_at_the_denominator(seven_fifths):
    inst, _ = seven_fifths
    s = solve(inst, classes=("keys",))
    assert (s.verdict, s.lower.value, s.upper.L) == ("optimal", Fraction(7, 5), 5)
    # one protected user: the Theorem-2 construction's shared symbols go unused, and on the
    # symbols it does use its rate is b* = 7/5, so no vector search is needed
    assert s.upper.source.startswith("paper construction (theorem-2)")
    assert s.upper.source.endswith("redundant key symbols dropped")
    assert s.to_dict()["search"]["rates"] == []


def test_search_is_deterministic(seven_fifths):
    inst, _ = seven_fifths
    a = search_vector_scheme(inst, Fraction(4, 3), L_values=(3,), budget=150, seed=3)
    b = search_vector_scheme(inst, Fraction(4, 3), L_values=(3,), budget=150, seed=3)
    assert (a.trials, a.best_deficit, a.candidates) == (b.trials, b.best_deficit, b.candidates)
    assert not a.found and a.candidates == 150 and a.best_deficit > 0   # below the proved 7/5
    assert any("+repair" in t.shape for t in a.trials)
    c = search_vector_scheme(inst, Fraction(4, 3), L_values=(3,), budget=150, seed=4)
    assert c.trials != a.trials


def test_open_interval_says_why(monkeypatch):
    # without the converse, fractional-optimum stays open between the corrected bound 1 and 3/2
    import functools

    import itsa.keys.optimum

    monkeypatch.setattr(itsa.keys.optimum, "search_gap", functools.partial(search_gap, rate_budget=60))
    s = solve(examples.load("audit/fractional-optimum"), classes=())
    assert (s.verdict, s.lower.value, s.upper.value) == ("open", 1, Fraction(3, 2))
    rec = s.to_dict()["search"]
    assert rec["scalar_candidates"] > 0 and rec["largest_L"] == 6 and rec["stopped"] is None
    assert rec["rates"] == [
        {"rate": "1", "L": [1, 2], "candidates": 120, "prefiltered": 0, "found": False,
         "limit": "budget of 120 candidate schemes reached", "best_deficit": 1},
        {"rate": "4/3", "L": [3, 6], "candidates": 60, "prefiltered": 0, "found": False,
         "limit": "budget of 60 candidate schemes reached", "best_deficit": 1}]
    assert ("search", s.search.why()) in s.rows()
    assert "rates 1, 4/3 tried with L up to 6" in s.search.why()


def test_why_names_every_limit():
    rec = GapSearch(rates=(RateTried(rate=Fraction(3), L_values=(1, 2), candidates=40, prefiltered=0, found=False, limit="budget of 40 candidate schemes reached", best_deficit=2),),
                    scalar_candidates=100, scalar_limit="budget of 100 candidate schemes reached", stopped="time limit reached", scalar_L=2)
    assert rec.candidates == 140 and rec.largest_L == 2
    assert rec.why() == ("no scheme below the upper end: rates 3 tried with L up to 2, 140 candidates; "
                         "stopped: scalar search: budget of 100 candidate schemes reached; rate 3: budget "
                         "of 40 candidate schemes reached; time limit reached")


def test_example2_gap_is_searched_and_recorded():
    # 7/2 is optimal (docs/vector-search.md): nothing below it may be found
    res, rec = search_gap(examples.load("example-2"), Fraction(3), Fraction(7, 2), rate_budget=40)
    assert res is None
    assert [r.rate for r in rec.rates] == [3, Fraction(10, 3)]      # the bound, then bisection
    assert rec.rates[0].candidates == 80 and rec.rates[0].best_deficit > 0


def test_gap_rates():
    assert gap_rates(Fraction(1), Fraction(2)) == [Fraction(5, 4), Fraction(4, 3), Fraction(3, 2),
                                                   Fraction(5, 3), Fraction(7, 4)]
    assert gap_rates(Fraction(7, 5), Fraction(3, 2), (1, 2, 3, 4, 5)) == []
    assert gap_rates(Fraction(2), None, (1,)) == [3]


# --- atoms and moves ---------------------------------------------------------------------------
@given(st.integers(2, 5).flatmap(lambda K: st.tuples(
    st.just(K), st.dictionaries(st.integers(1, (1 << K) - 1), st.integers(1, 4), max_size=6))))
def test_atoms_invert_a_coverage_function(data):
    K, c = data
    h = {A: Fraction(sum(x for B, x in c.items() if B & A)) for A in range(1, 1 << K)}
    assert atoms(h, K) == {B: Fraction(x) for B, x in c.items()}


def test_atom_shapes_rebuild_shared_keys():
    # users 0,1 share 2 symbols, 1,2 share 1: every block sums to zero inside its atom
    h = {A: Fraction(2 * bool(A & 3) + bool(A & 6)) for A in range(1, 8)}
    for L, d, sizes, rank in ((1, 3, (1, 2), 1), (3, 9, (3, 6), 3), (2, 3, (1, 2), 2)):
        shapes = atom_shapes(h, 3, L, d)
        assert [n for n, _, _ in shapes] == ["atoms/low", "atoms/high"]
        for _name, blocks, ranks in shapes:
            assert sorted((u | (1 << a), s) for s, u, a in blocks) == [(3, sizes[1]), (6, sizes[0])]
            assert dict(ranks) == {0: rank, 1: rank, 2: rank}


@given(st.integers(0, 10_000))
def test_moves_keep_a_shape_well_formed(seed):
    rng = random.Random(seed)
    K, L = 5, 3
    blocks, ranks = ((3, 0b0110, 0), (2, 0b1000, 4)), {1: 3, 2: 2, 3: 1}
    for _ in range(30):
        m = moves(blocks, ranks, K, L, rng)
        if m is None:
            continue
        _, blocks, ranks = m
        assert sum(s for s, _, _ in blocks) == 5
        assert all(s > 0 and u and not u >> a & 1 and u < 1 << K for s, u, a in blocks)
        assert all(1 <= r <= L for r in ranks.values())


@given(st.integers(0, 10_000))
def test_neighbours_are_well_formed_and_one_move_away(seed):
    rng = random.Random(seed)
    K, L = 5, 3
    blocks, ranks = ((3, 0b0110, 0), (2, 0b1000, 4)), {1: 3, 2: 2, 3: 1}
    for _ in range(rng.randint(0, 10)):                  # start from a random walk's shape
        m = moves(blocks, ranks, K, L, rng)
        if m is not None:
            _, blocks, ranks = m
    seen = set()
    for nb, nr in neighbours(blocks, ranks, K, L):
        assert sum(s for s, _, _ in nb) == 5
        assert all(s > 0 and u and not u >> a & 1 and u < 1 << K for s, u, a in nb)
        assert all(1 <= r <= L for r in nr.values())
        assert (nb, tuple(sorted(nr.items()))) != (blocks, tuple(sorted(ranks.items())))
        seen.add((nb, tuple(sorted(nr.items()))))
    assert seen


def test_a_stale_walk_scans_its_neighbours():
    """A score only a chain of single moves improves: random moves are never tried (patience 0),
    so the walk ends at once without the scan and reaches 0 with it."""
    K, L = 4, 2
    target = ((2, 0b0110, 0), (1, 0b1000, 2))
    start = ((2, 0b0010, 0), (1, 0b1001, 2))

    def score(blocks, ranks, above):
        return sum(a != b for x, y in zip(blocks, target) for a, b in zip(x, y)) + abs(len(blocks) - 2)

    plain = list(repair((start, {1: 2}), score, K, L, random.Random(0), 0))
    scanned = list(repair((start, {1: 2}), score, K, L, random.Random(0), 0, scan=True))
    assert [d for d, _, _ in plain] == [2]
    assert scanned[-1][0] == 0 and scanned[-1][1] == target


def test_a_time_limit_is_spent_in_further_rounds():
    # 1 is below every scheme of fractional-optimum (its optimum is 3/2): each pass fails,
    # and the search goes on, with fresh draws, until the time runs out
    inst = examples.load("audit/fractional-optimum")
    res, rec = search_gap(inst, Fraction(1), Fraction(3, 2), time_limit=4.0, rate_budget=20)
    assert res is None and rec.rounds >= 2 and rec.stopped == "time limit reached"
    rates = [r.rate for r in rec.rates]
    assert rates[:2] == [Fraction(1)] * 2 and Fraction(4, 3) in rates    # the bound first, then the gap
    assert rec.rates[1].candidates == 2 * rec.rates[0].candidates         # twice the budget
    assert sum(r.rate == 1 and r.candidates > 0 for r in rec.rates) == rec.rounds
    assert f"(the lower bound in {rec.rounds} passes" in rec.why()
    once, rec1 = search_gap(inst, Fraction(1), Fraction(3, 2), rate_budget=20)   # no time limit: one pass
    assert once is None and rec1.rounds == 1 and "passes" not in rec1.why()


def test_a_gap_with_nothing_to_draw_does_not_spin():
    # 35/17 needs L = 17 > MAX_L and the gap up to 36/17 holds no other rate: one pass, then stop
    inst = examples.load("audit/fractional-optimum")
    res, rec = search_gap(inst, Fraction(35, 17), Fraction(36, 17), time_limit=5.0)
    assert res is None and rec.rounds == 1 and len(rec.rates) <= 1 and rec.candidates == 0
