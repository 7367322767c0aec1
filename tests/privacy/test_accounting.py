"""The certified accountant: golden values of the PCU-FL page and the PSA paper, and properties."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa._util.certified import to_arb
from itsa.exceptions import InvalidOption
from itsa.privacy import (
    Conversion,
    Direction,
    advanced_composition,
    basic_composition,
    calibrate,
    classical_sigma,
    compose,
    gaussian_curve,
    psa_block_sensitivity,
    psa_layer,
    psa_layer_curve,
    psa_tau,
    sqrt_rounds_heuristic,
    to_epsilon,
)
from itsa.privacy.accounting import account
from itsa.privacy.conversion import convert_at
from itsa.privacy.tight import gaussian_meets, gaussian_tight_epsilon

DELTA_PAGE = Fraction(1, 10**5)
DELTA_PSA = Fraction(1, 10**6)
#: Table I of the PCU-FL paper as the page prints it: per-round eps and rounds T.
TABLE_I = [(50, 30), (10, 40), (1, 100)]


@pytest.mark.parametrize(("eps", "printed", "kind"), [(50, "0.0969", Direction.HEURISTIC),
                                                      (10, "0.4845", Direction.HEURISTIC), (1, "4.8448", Direction.UPPER)])
def test_classical_sigma_golden(eps, printed, kind):
    """Page, 'Notes: noise multipliers': sigma_t = sqrt(2 ln(1.25/delta))/eps at delta = 1e-5.

    Outside eps < 1 the formula is no theorem: a bound only where the exact curve certifies it (eps = 1 here).
    """
    sigma = classical_sigma(eps, DELTA_PAGE)
    decimals = len(printed.split(".")[1])
    assert f"{float(sigma.value()):.{decimals}f}" == printed
    assert sigma.direction is kind
    assert gaussian_meets(sigma.lower(), eps, DELTA_PAGE) is (kind is Direction.UPPER)


def test_classical_sigma_below_one_is_the_theorem():
    sigma = classical_sigma(Fraction(1, 2), DELTA_PAGE)
    assert sigma.direction is Direction.UPPER and gaussian_meets(sigma.lower(), Fraction(1, 2), DELTA_PAGE)


@pytest.mark.parametrize(("row", "printed", "kind"), list(zip(TABLE_I, [1500, 400, 100], [Direction.CONDITIONAL,
                                                                                     Direction.CONDITIONAL, Direction.UPPER])))
def test_basic_composition_golden(row, printed, kind):
    """Page, 'Notes: cumulative eps': basic composition 1,500, 400, 100: the page's arithmetic T eps.

    A reading of the page, labelled as such: from a bare number the total is conditional; through the
    accountant the given per-round eps is checked against the exact curve (it holds only for eps = 1).
    """
    eps, rounds = row
    total, delta_total = basic_composition(eps, DELTA_PAGE, rounds)
    assert total.decimal() == str(printed) and delta_total == rounds * DELTA_PAGE
    assert total.direction is Direction.CONDITIONAL
    z = classical_sigma(eps, DELTA_PAGE).value()
    entry = account(z, rounds, DELTA_PAGE, per_round_epsilon=eps).entries["basic"]
    assert entry.epsilon.decimal() == str(printed) and entry.epsilon.direction is kind


def test_default_composition_is_a_bound_on_table_i():
    """z = 0.0969, T = 30: the exact per-round eps is 96.43, not 50; the exact 30-round eps at 3e-4 is 1790.6."""
    acc = account("0.0969", 30, DELTA_PAGE)
    assert acc.per_round.direction is Direction.UPPER and acc.per_round.decimal(4) == "96.43"
    basic = acc.entries["basic"]
    exact = gaussian_tight_epsilon(acc.noise_multiplier, 30, basic.delta)
    assert exact.decimal(5) == "1790.6"
    assert basic.epsilon.direction is Direction.UPPER and basic.epsilon.lower() >= exact.upper()


@settings(max_examples=20, deadline=None)
@given(z=st.fractions(min_value=Fraction(1, 20), max_value=10), rounds=st.integers(1, 60),
       source=st.sampled_from(["tight", "classical", "given"]), given_eps=st.fractions(Fraction(1, 10), 100))
def test_every_upper_bound_is_one(z, rounds, source, given_eps):
    """Soundness of labels: every entry shown as an upper bound is at least the exact eps at its delta."""
    per = {"per_round_epsilon": given_eps} if source == "given" else {"per_round": source}
    acc = account(z, rounds, DELTA_PAGE, **per)
    for entry in acc.entries.values():
        if entry.epsilon.direction is Direction.UPPER:
            assert entry.epsilon.upper() >= gaussian_tight_epsilon(z, rounds, entry.delta).lower(), entry.name


@pytest.mark.parametrize(("row", "printed"), list(zip(TABLE_I, [1869, 148, 12.0])))
def test_page_rdp_totals_are_mironov(row, printed):
    """Page: 'the Gaussian RDP accountant with the standard conversion gives about 1,869, 148 and 12.0'.

    Reproduced by the Mironov conversion at the optimal order, sigma from the classical formula.
    """
    eps, rounds = row
    sigma = classical_sigma(eps, DELTA_PAGE).value()
    bound = to_epsilon(gaussian_curve(sigma) * rounds, DELTA_PAGE, Conversion.MIRONOV)
    assert round(float(bound.epsilon.value()), 1 if printed == 12.0 else 0) == printed
    cks = to_epsilon(gaussian_curve(sigma) * rounds, DELTA_PAGE, Conversion.CKS)
    assert cks.epsilon.upper() < bound.epsilon.lower()


def test_psa_flat_totals_are_cks():
    """PSA Sec. IX-D: flat totals 2.00, 2.92, 3.65, 4.29 for R = 1..4 executions each calibrated to eps = 2.

    CKS reproduces all four; Mironov gives 2.87, 3.55, 4.14 for R = 2..4.
    """
    def totals(conversion):
        z = calibrate(2, DELTA_PSA, conversion=conversion).noise_multiplier.value()
        return [f"{float(to_epsilon(gaussian_curve(z) * r, DELTA_PSA, conversion).epsilon.value()):.2f}"
                for r in (1, 2, 3, 4)]
    assert totals(Conversion.CKS) == ["2.00", "2.92", "3.65", "4.29"]
    assert totals(Conversion.MIRONOV)[1:] != ["2.92", "3.65", "4.29"]


def test_heuristic_is_not_a_bound():
    """Page: eps sqrt(T) gives 273.86, 63.25 and 10.00; labelled a heuristic."""
    values = [sqrt_rounds_heuristic(e, t) for e, t in TABLE_I]
    assert [round(float(v.value()), 2) for v in values] == [273.86, 63.25, 10.00]
    assert all(v.direction is Direction.HEURISTIC for v in values)


def test_advanced_composition_formula():
    total, delta_total = advanced_composition(1, DELTA_PAGE, 100)
    expected = math.sqrt(200 * math.log(1e5)) + 100 * (math.e - 1)
    assert total.lower() <= Fraction(expected * (1 + 1e-12)) and total.upper() >= Fraction(expected * (1 - 1e-12))
    assert delta_total == 101 * DELTA_PAGE


@given(z=st.fractions(min_value=Fraction(1, 20), max_value=50), rounds=st.integers(1, 500),
       k=st.integers(-12, -2), order=st.fractions(min_value=Fraction(101, 100), max_value=500))
def test_any_order_is_a_valid_bound_and_optimum_is_no_worse(z, rounds, k, order):
    """The float-picked order's certified eps is within float slack of any other order's (and CKS <= Mironov)."""
    delta = Fraction(1, 10**-k)
    curve = gaussian_curve(z) * rounds
    for conv in Conversion:
        best = to_epsilon(curve, delta, conv)
        other = convert_at(curve.coefficient(), order, delta, conv)
        assert best.epsilon.upper() <= Fraction(float(other.upper())) * (1 + Fraction(1, 10**6)) + Fraction(1, 10**9)
    at_q_cks = convert_at(curve.coefficient(), order, delta, Conversion.CKS)
    at_q_mir = convert_at(curve.coefficient(), order, delta, Conversion.MIRONOV)
    assert at_q_cks < at_q_mir


@given(eps=st.fractions(min_value=Fraction(1, 10), max_value=20), rounds=st.integers(1, 50))
def test_calibration_is_tight_and_certified(eps, rounds):
    cal = calibrate(eps, DELTA_PAGE, rounds=rounds, conversion="mironov")
    z = cal.noise_multiplier.value()
    assert cal.epsilon.epsilon.upper() <= eps
    # closed form for the Mironov conversion: eps = c + 2 sqrt(c L), c = T/(2 z^2)
    L = math.log(1e5)
    c = (math.sqrt(L + float(eps)) - math.sqrt(L)) ** 2
    assert float(z) == pytest.approx(math.sqrt(rounds / (2 * c)), rel=1e-5)


def test_composition_is_additive():
    a, b = gaussian_curve(2) * 3, gaussian_curve(1)
    assert compose([a, b]).coefficient().overlaps(a.coefficient() + b.coefficient())
    assert (a + b).at(3).contains(to_arb(3 * (Fraction(3, 8) + Fraction(1, 2))))


def test_psa_tau_and_vacuity():
    """PSA eq. 30: tau = 10 sum_(j<K) exp(-2 pi^2 s~^2 j/(j+1)); at s~ = 1/2 with d = 1290 eq. 31 is vacuous."""
    tau = psa_tau(3, Fraction(1, 2))
    expected = 10 * sum(math.exp(-2 * math.pi**2 * 0.25 * j / (j + 1)) for j in (1, 2))
    assert tau.contains(expected) or abs(float(tau.mid()) - expected) < 1e-12
    D = psa_block_sensitivity(1, 3, 1, 1290)
    layer = psa_layer(sensitivity=D, scale=Fraction(1, 2), k_eff=1000, dimension=1290, step=1)
    assert layer.vacuous and layer.curve().warnings
    fine = psa_layer_curve(sensitivity=D, scale=40, k_eff=1000, dimension=1290, step=1)
    assert not fine.warnings


def test_psa_big_k_tail_bound_is_upper():
    """Beyond the exactly summed terms the rest is bounded by its largest term: never below the true sum."""
    from itsa.privacy import rdp

    k = rdp.TAU_EXACT_TERMS + 5000
    tau = psa_tau(k, Fraction(1, 2))
    true = 10 * math.fsum(math.exp(-2 * math.pi**2 * 0.25 * j / (j + 1)) for j in range(1, k))
    assert float(tau.upper()) >= true and float(tau.mid()) == pytest.approx(true, rel=1e-4)


@pytest.mark.parametrize("bad", [0, -1, "x"])
def test_bad_epsilon(bad):
    with pytest.raises(InvalidOption):
        calibrate(bad, DELTA_PAGE)


@pytest.mark.parametrize("bad", [0, 1, 2, "-1e-5"])
def test_bad_delta(bad):
    with pytest.raises(InvalidOption):
        to_epsilon(gaussian_curve(1), bad)


def test_bad_scale():
    with pytest.raises(InvalidOption, match="1/2"):
        psa_tau(10, Fraction(1, 4))
    with pytest.raises(InvalidOption, match="noise multiplier"):
        gaussian_curve(0)


def test_inactive_psa_layer_is_omitted():
    """PSA Sec. VII-A: a layer whose range is below r_pack has D = 0 and is omitted from the sum."""
    layer = psa_layer(sensitivity=0, scale=1, k_eff=1000, dimension=1290, step=1)
    assert not layer.vacuous and layer.curve().coefficient().is_zero() and not layer.curve().warnings


def test_calibrate_a_psa_layer_scale():
    """Calibration over a PSA layer family s -> eq. 31, 150 rounds composed (the Sec. IX-D setting's T)."""
    D = psa_block_sensitivity(1, 3, 2, 1290)

    def layer(s):
        return psa_layer_curve(sensitivity=D, scale=s, k_eff=1000, dimension=1290, step=3)

    cal = calibrate(6, DELTA_PSA, rounds=150, curve_for=layer, minimum_scale=Fraction(3, 2))
    s = cal.noise_multiplier.value()
    assert cal.epsilon.epsilon.upper() <= 6 and s >= Fraction(3, 2)
    slightly_less = s * (1 - Fraction(1, 10**4))
    assert to_epsilon(layer(slightly_less) * 150, DELTA_PSA).epsilon.upper() > 6


def test_calibrate_at_the_floor():
    """A loose target met already at the smallest admissible scale returns that scale."""
    D = psa_block_sensitivity(1, 3, 1, 4)
    cal = calibrate(10**6, DELTA_PSA, curve_for=lambda s: psa_layer_curve(sensitivity=D, scale=s, k_eff=10,
                                                                           dimension=4, step=1), minimum_scale=Fraction(1, 2))
    assert cal.noise_multiplier.value() == Fraction(1, 2)


@given(st.fractions(min_value=Fraction(-10**20), max_value=Fraction(10**20)).filter(lambda x: x != 0),
       st.integers(1, 12))
def test_safe_decimal_is_safe(value, digits):
    from itsa._util.certified import safe_decimal

    up, down = Fraction(safe_decimal(value, digits, up=True)), Fraction(safe_decimal(value, digits, up=False))
    assert down <= value <= up
    assert up - down <= abs(value) * Fraction(2, 10 ** (digits - 1))


@pytest.mark.parametrize(("value", "digits", "up", "text"), [
    (Fraction(1, 10**400), 3, True, "1e-400"), (Fraction(1, 3 * 10**400), 3, True, "3.34e-401"),
    (Fraction(10**400 + 1), 3, True, "1.01e400"), (Fraction(10**400 + 1), 3, False, "1e400"),
])
def test_safe_decimal_beyond_floats(value, digits, up, text):
    """The exponent comes from integer lengths: values beyond 1e+-308 are written, still safely rounded."""
    from itsa._util.certified import safe_decimal

    assert safe_decimal(value, digits, up=up) == text


def test_psa_step_is_required():
    """Layer 2, rho = 3, s = 3: with its step h rho = 3, s~ = 1 and tau d = 0.739; a forgotten step is an error."""
    D = psa_block_sensitivity(1, 3, 2, 1290)
    with pytest.raises(TypeError):
        psa_layer(sensitivity=D, scale=3, k_eff=1000, dimension=1290)      # type: ignore[call-arg]
    with pytest.raises(TypeError):
        psa_layer_curve(sensitivity=D, scale=3, k_eff=1000, dimension=1290)      # type: ignore[call-arg]
    layer = psa_layer(sensitivity=D, scale=3, k_eff=1000, dimension=1290, step=3)
    assert round(float(layer.correction.mid()), 3) == 0.739
