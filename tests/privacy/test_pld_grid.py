"""The certified grid privacy-loss distribution: small discrete pairs composed exactly (every tuple of atoms, in
balls) lie between the grid's two sides at every epsilon, over T = 1, 2, 3 rounds, and the upper side is within
a stated tolerance of the exact curve."""

import itertools
import math
from fractions import Fraction

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import arb_to_fractions
from itsa.exceptions import InvalidOption
from itsa.privacy.pld_grid import (
    EPSILON_GRAIN,
    convolve,
    grid_from_atoms,
    grid_from_bins,
    self_compose,
)

#: Three atoms, losses ln 2, 0 and -ln 3 (none on a grid of step 2^-k but 0).
TINY = [(Fraction(1, 2), Fraction(1, 4)), (Fraction(1, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))]
STEP = Fraction(1, 2**9)


def exact_delta(atoms, rounds, epsilon) -> tuple[Fraction, Fraction]:
    """``δ(ε)`` of ``rounds`` rounds of the discrete pair, every tuple of atoms, in balls at 300 bits: the ends."""
    with flint.ctx.workprec(300):
        e = flint.arb(flint.fmpq(epsilon.numerator, epsilon.denominator)).exp()
        total = flint.arb(0)
        for combo in itertools.product(atoms, repeat=rounds):
            p = math.prod(a[0] for a in combo)
            q = math.prod(a[1] for a in combo)
            if p == 0:
                continue
            term = flint.arb(flint.fmpq(p.numerator, p.denominator)) - e * flint.arb(flint.fmpq(q.numerator,
                                                                                               q.denominator))
            if not term < 0:            # undecided at 300 bits (a tie, where the term is 0): counted, safe upwards
                total += term.max(flint.arb(0)) if term > 0 else flint.arb(0).union(term.max(flint.arb(0)))
        return arb_to_fractions(total)


def _sides(atoms, rounds, step=STEP, bits=80, budget=0):
    up = self_compose(grid_from_atoms(atoms, step=step, bits=bits), rounds, budget=budget)
    low = self_compose(grid_from_atoms(atoms, step=step, bits=bits, side="lower"), rounds, budget=budget)
    return low, up


@pytest.mark.parametrize("rounds", [1, 2, 3])
@pytest.mark.parametrize("epsilon", [Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2)])
def test_tiny_pair_between_the_sides(rounds, epsilon):
    low, up = _sides(TINY, rounds)
    exact = exact_delta(TINY, rounds, epsilon)
    assert low.delta(epsilon) <= exact[0]
    assert exact[1] <= up.delta(epsilon)
    # the stated tolerance: connect-the-dots is exact where no sum of losses falls inside a grid cell around eps,
    # and moves at most the mass of that cell by less than one cell's loss otherwise
    assert up.delta(epsilon) - exact[1] <= rounds * STEP


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_tiny_pair_epsilon_bracket(rounds):
    delta = Fraction(1, 20)
    low, up = _sides(TINY, rounds)
    eps_up, eps_low = up.epsilon(delta), low.epsilon(delta)
    assert eps_up is not None and eps_low <= eps_up
    assert exact_delta(TINY, rounds, eps_up)[1] <= delta                # eps_up is an eps of the pair at delta
    if eps_low > 0:
        assert exact_delta(TINY, rounds, eps_low)[0] >= delta           # no valid eps below eps_low
    assert eps_up - eps_low <= rounds * STEP                           # the lower side's losses moved down one cell
    assert eps_up.denominator <= 1 / EPSILON_GRAIN


def test_randomized_response_rounds_match_the_binomial():
    """T rounds of randomized response (p = 3/4): the loss is (2k - T) ln 3, k ~ Bin(T, 3/4); the exact curve
    from the binomial sum is the grid's within its tolerance."""
    rr = [(Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))]
    T, eps = 3, Fraction(1)
    low, up = _sides(rr, T, step=Fraction(1, 2**12))
    with flint.ctx.workprec(200):
        exact = flint.arb(0)
        for k in range(T + 1):
            loss = (2 * k - T) * flint.arb(3).log()
            if loss > 1:
                exact += math.comb(T, k) * flint.arb(3) ** k / 4**T * (1 - (1 - loss).exp())
    ends = arb_to_fractions(exact)
    assert low.delta(eps) <= ends[0] and ends[1] <= up.delta(eps)
    assert float(up.delta(eps)) == pytest.approx(float(exact.mid()), rel=1e-9)


def test_the_mass_at_infinity():
    """An atom that Q never gives has loss +inf: it is in delta at every eps; an eps below it does not exist."""
    atoms = [(Fraction(1, 10), Fraction(0)), (Fraction(9, 10), Fraction(1))]
    g = grid_from_atoms(atoms, step=STEP, bits=60)
    assert g.infinity == 2**60 // 10 + 1
    assert g.delta(50) >= Fraction(1, 10)
    assert g.epsilon(Fraction(1, 20)) is None
    two = convolve(g, g)
    assert two.delta(100) >= Fraction(19, 100)                       # 1 - (9/10)^2
    assert g.epsilon(Fraction(1, 5)) is not None


def test_trimming_keeps_the_bracket():
    """Trimming the ends (top to +inf, bottom up) only raises the upper side, and keeps it close."""
    atoms = [(Fraction(999, 1000), Fraction(1, 2)), (Fraction(1, 1000), Fraction(1, 2))]     # a rare, low loss
    plain = self_compose(grid_from_atoms(atoms, step=STEP, bits=80), 8)
    trimmed = self_compose(grid_from_atoms(atoms, step=STEP, bits=80), 8, budget=2**40)
    for eps in (Fraction(0), Fraction(1), Fraction(3)):
        exact = exact_delta(atoms, 8, eps) if eps else None
        assert trimmed.delta(eps) >= plain.delta(eps) - Fraction(1, 2**70)
        assert trimmed.delta(eps) - plain.delta(eps) <= Fraction(16 * 2**40, 2**80)
        if exact is not None:
            assert exact[1] <= trimmed.delta(eps)
    assert trimmed.size < plain.size


def test_refusals():
    g = grid_from_atoms(TINY, step=STEP, bits=40)
    h = grid_from_atoms(TINY, step=STEP / 2, bits=40)
    with pytest.raises(InvalidOption, match="differ"):
        convolve(g, h)
    with pytest.raises(InvalidOption, match="1/2"):
        grid_from_atoms(TINY, step=Fraction(1, 3), bits=40)
    with pytest.raises(InvalidOption, match="side"):
        grid_from_bins([], step=STEP, bits=40, side="middle")


_mass = st.integers(min_value=0, max_value=12)


@st.composite
def discrete_pairs(draw):
    """A pair on 2..4 atoms with small integer weights, normalised (a Q-less atom allowed)."""
    n = draw(st.integers(min_value=2, max_value=4))
    p = [draw(_mass) for _ in range(n)]
    q = [draw(_mass) for _ in range(n)]
    if sum(p) == 0:
        p[0] = 1
    if sum(q) == 0:
        q[-1] = 1
    return [(Fraction(a, sum(p)), Fraction(b, sum(q))) for a, b in zip(p, q, strict=True)]


@settings(max_examples=40, deadline=None)
@given(discrete_pairs(), st.integers(min_value=1, max_value=3),
       st.fractions(min_value=0, max_value=3, max_denominator=16))
def test_any_small_pair_lies_between_the_sides(atoms, rounds, epsilon):
    low, up = _sides(atoms, rounds, step=Fraction(1, 2**7), bits=60)
    exact = exact_delta(atoms, rounds, epsilon)
    assert low.delta(epsilon) <= exact[0]
    assert exact[1] <= up.delta(epsilon)


@settings(max_examples=20, deadline=None)
@given(discrete_pairs(), st.fractions(min_value=0, max_value=2, max_denominator=8))
def test_more_rounds_never_less_delta(atoms, epsilon):
    """The upper side is monotone in the rounds, as the true curve is (a round more can be ignored)."""
    g = grid_from_atoms(atoms, step=Fraction(1, 2**7), bits=60)
    one, two = g, convolve(g, g)
    assert two.delta(epsilon) >= one.delta(epsilon) - Fraction(4, 2**60)


def test_every_loss_above_epsilon():
    """All losses positive (``ln 2`` and ``+inf``): an ε below the grid's first loss solves the line over every
    loss, on both sides, and brackets the exact one (``δ(ε) = 1 − e^ε/4`` below ``ln 2``, so ``ε = ln(4(1 − δ))``)."""
    atoms = [(Fraction(1, 2), Fraction(0)), (Fraction(1, 2), Fraction(1, 4))]
    delta = Fraction(3, 5)
    low, up = (grid_from_atoms(atoms, step=STEP, bits=80, side=side) for side in ("lower", "upper"))
    exact = math.log(4 * (1 - 0.6))
    assert float(low.epsilon(delta)) <= exact <= float(up.epsilon(delta)) + 1e-12     # the upper side is exact here
    assert float(up.epsilon(delta)) - float(low.epsilon(delta)) < 2 * float(STEP)
