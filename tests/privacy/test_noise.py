"""The discrete Gaussian (certified normaliser, variance, tail) and the two sampler engines."""

import hashlib
import hmac
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption, VerificationError
from itsa.privacy.discrete_gaussian import normaliser, page_truncation, paper_truncation, pmf, tail_mass, variance
from itsa.privacy.sampler import ByteStream, commitment, draw, sample, verify


def _float_sums(s: float):
    K = int(40 * s) + 50
    z = math.fsum(math.exp(-k * k / (2 * s * s)) for k in range(-K, K + 1))
    m = math.fsum(k * k * math.exp(-k * k / (2 * s * s)) for k in range(-K, K + 1))
    return z, m / z


def _exact_sums(s: Fraction):
    """Z and E X^2 by direct summation in mpmath at 60 digits (the tail beyond 60 sigma is below 1e-700)."""
    import mpmath

    mpmath.mp.dps = 60
    s2 = mpmath.mpf(s.numerator) ** 2 / s.denominator**2
    K = int(60 * s) + 60
    terms = [(k, mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s2))) for k in range(-K, K + 1)]
    z = mpmath.fsum(t for _, t in terms)
    return z, mpmath.fsum(k * k * t for k, t in terms) / z


def _inside(ball, x) -> bool:
    from itsa._util.certified import arb_to_fractions

    low, high = arb_to_fractions(ball)
    return Fraction(low) <= Fraction(mpmath_text(x)) <= Fraction(high)


def mpmath_text(x) -> str:
    import mpmath

    return mpmath.nstr(x, 55, strip_zeros=False)


@settings(max_examples=25, deadline=None)
@given(st.fractions(min_value=Fraction(1, 5), max_value=40, max_denominator=1000))
def test_normaliser_and_variance_enclose_direct_sums(s):
    """The balls contain the 60-digit direct sums (enclosure, not a midpoint within float error)."""
    z, var = _exact_sums(s)
    assert _inside(normaliser(s), z) and _inside(variance(s), var)
    assert not variance(s) > float(s) ** 2          # E X^2 <= sigma^2 (CKS 2020)


@pytest.mark.parametrize("s", [Fraction(1, 50), Fraction(99, 100), Fraction(1), Fraction(1000001, 1000000), Fraction(300)])
def test_normaliser_enclosure_at_the_branch_points(s):
    """Around sigma = 1 the computation switches from direct sums to Poisson summation."""
    z, var = _exact_sums(s)
    assert _inside(normaliser(s), z) and _inside(variance(s), var)


def test_tail_mass_encloses_direct_sum():
    tail = tail_mass(3, 10)
    direct = 2 * math.fsum(math.exp(-k * k / 18) for k in range(11, 400)) / _float_sums(3)[0]
    assert float(tail.lower()) <= direct * (1 + 1e-12) and float(tail.upper()) >= direct * (1 - 1e-12)


def test_page_truncation_golden():
    """Page: K = ceil(sigma sqrt(2 ln(2 10^12)) + 4), 'about 7.52 sigma + 4'; tail far below 1e-12."""
    assert math.sqrt(2 * math.log(2e12)) == pytest.approx(7.5265, abs=1e-4)
    for sigma in (1, 10, 14924):
        assert tail_mass(sigma, page_truncation(sigma)).upper() < Fraction(1, 10**12)
        # the paper's 8 sigma bound 2 e^-32 = 2.5e-14 is a valid bound on the true mass
        assert tail_mass(sigma, paper_truncation(sigma)).upper() < 2 * Fraction(math.exp(-32))


def test_stream_is_hmac_counter_mode():
    key = hashlib.sha256(b"audit").digest()
    s = ByteStream("audit")
    for i in range(3):
        assert s.block() == hmac.new(key, i.to_bytes(8, "little"), hashlib.sha256).digest()


def test_table_engine_matches_an_independent_reimplementation():
    sigma, n = 7.5, 300
    key = hashlib.sha256(b"round-7").digest()
    stream = b"".join(hmac.new(key, i.to_bytes(8, "little"), hashlib.sha256).digest() for i in range(n // 4 + 1))
    u = np.frombuffer(stream[: 8 * n], dtype="<u8").astype(np.float64) / float(2**64 - 1)
    K = math.ceil(sigma * math.sqrt(2 * math.log(2e12)) + 4)
    k = np.arange(-K, K + 1)
    p = np.exp(-(k.astype(float) ** 2) / (2 * sigma**2))
    cdf = np.cumsum(p) / p.sum()
    expected = k[np.minimum(np.searchsorted(cdf, u), 2 * K)].tolist()
    assert sample(Fraction(15, 2), n, "round-7", engine="table") == expected


@pytest.mark.parametrize("engine", ["exact", "table"])
def test_reproducible_and_seed_sensitive(engine):
    a = sample(3, 200, "seed-a", engine)
    assert a == sample(3, 200, "seed-a", engine) and a != sample(3, 200, "seed-b", engine)
    assert commitment(a) == hashlib.sha256(np.asarray(a, "<i8").tobytes()).hexdigest()


def test_exact_sampler_distribution_chi_square():
    """20,000 exact draws at sigma = 2 against the certified pmf: chi-square, fixed seed."""
    from scipy.stats import chi2

    n, sigma = 20_000, 2
    draws = np.array(sample(sigma, n, "chi-square"))
    cells = list(range(-6, 7))
    observed = [np.sum(draws == k) for k in cells] + [np.sum(np.abs(draws) > 6)]
    probs = [float(pmf(k, sigma).mid()) for k in cells]
    probs.append(1 - sum(probs))
    stat = sum((o - n * p) ** 2 / (n * p) for o, p in zip(observed, probs))
    assert chi2.sf(stat, len(cells)) > 1e-3
    assert abs(draws.var() - float(variance(sigma).mid())) < 0.15


def test_exact_sampler_small_sigma_counts():
    """sigma = 1/2: P(0) = 1/Z is about 0.787; 4,000 draws land within 5 standard errors."""
    draws = sample(Fraction(1, 2), 4000, "small")
    p0 = float(pmf(0, Fraction(1, 2)).mid())
    assert abs(draws.count(0) / 4000 - p0) < 5 * math.sqrt(p0 * (1 - p0) / 4000)


def test_verify_commitment():
    logged = draw(5, 50, "round-3", "table")
    assert verify(logged.commitment, 5, 50, "round-3", "table").draws == logged.draws
    with pytest.raises(VerificationError):
        verify(logged.commitment, 5, 50, "round-4", "table")
    with pytest.raises(InvalidOption, match="64 hex"):
        verify("abc", 5, 50, "round-3")


@pytest.mark.parametrize(("sigma", "count"), [(0, 1), (-1, 1), (1, -1), (1, 10**12)])
def test_bad_noise_input(sigma, count):
    with pytest.raises(InvalidOption):
        sample(sigma, count, "x")


@given(st.lists(st.integers(0, 5000), min_size=1, max_size=40))
def test_stream_reads_are_the_concatenated_blocks(sizes):
    """Reads of any sizes (past the buffer's compaction) give the block stream in order."""
    stream, source, total = ByteStream("chunks"), ByteStream("chunks"), sum(sizes) + 70_000
    reference = b"".join(source.block() for _ in range(total // 32 + 1))
    got = b"".join(stream.read(n) for n in sizes) + stream.read(70_000)
    assert got == reference[:total]


@given(st.integers(1, 3000), st.integers(1, 4096))
def test_equal_max_weight_is_hamiltons(clients, alpha):
    from itsa.privacy import hamilton_weights
    from itsa.privacy.sizing import equal_max_weight

    assert equal_max_weight(clients, alpha) == hamilton_weights([1] * clients, alpha).max_weight


def _moments(sigma: Fraction):
    import mpmath

    mpmath.mp.dps = 30
    s2 = mpmath.mpf(sigma.numerator) ** 2 / sigma.denominator**2
    ks = range(-60 * int(sigma + 1), 60 * int(sigma + 1) + 1)
    w = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * s2)) for k in ks}
    z = mpmath.fsum(w.values())
    return {k: float(v / z) for k, v in w.items()}


@pytest.mark.parametrize("sigma", [Fraction(3, 2), Fraction(7, 3)])
def test_exact_sampler_at_non_integer_variance(sigma):
    """sigma^2 = 9/4 and 49/9 (not whole): chi-square against the pmf, and the second and fourth moments
    within 4.5 standard errors (the 4th moment catches a rejection step with the wrong exponent)."""
    from scipy.stats import chi2

    n = 20_000
    draws = np.array(sample(sigma, n, f"non-integer-{sigma}"))
    pmf_ = _moments(sigma)
    cells = [k for k, p in pmf_.items() if p * n >= 5]
    observed = [np.sum(draws == k) for k in cells] + [np.sum(~np.isin(draws, cells))]
    probs = [pmf_[k] for k in cells] + [1 - sum(pmf_[k] for k in cells)]
    stat = sum((o - n * p) ** 2 / (n * p) for o, p in zip(observed, probs) if p > 0)
    assert chi2.sf(stat, len(cells)) > 1e-3
    for power in (2, 4):
        mean = sum(p * k**power for k, p in pmf_.items())
        spread = math.sqrt(sum(p * k ** (2 * power) for k, p in pmf_.items()) - mean**2)
        assert abs(np.mean(draws.astype(float) ** power) - mean) < 4.5 * spread / math.sqrt(n)


def test_a_whole_number_seed_is_its_decimal_text():
    """The glossary's seed is a whole number: ``noise(seed=7)`` draws what ``--seed 7`` (the text "7") draws."""
    from itsa.exceptions import InvalidOption
    from itsa.privacy import noise

    as_int, as_text = noise(10, 50, seed=7, engine="table"), noise(10, 50, seed="7", engine="table")
    assert as_int.to_dict() == as_text.to_dict()
    assert noise(10, 50, seed=8, engine="table").to_dict() != as_int.to_dict()
    with pytest.raises(InvalidOption):
        noise(10, 5, seed=-1, engine="table")
