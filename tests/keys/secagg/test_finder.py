"""The open-source SecAgg+ finder reproduced: every row of its published test tables.

The tables are those of google-parfait/federated-compute,
``fcp/secagg/server/graph_parameter_finder_test.cc`` (every feasible and
every refused instance, and the full-graph threshold checks) and
``fcp/secagg/server/distribution_utilities_test.cc`` (the hypergeometric
PMF, CDF and quantiles), copied as published.
"""

import math

import pytest

from itsa.exceptions import Infeasible, InvalidOption
from itsa.keys.secagg import finder
from itsa.keys.secagg.finder import Hypergeometric, check_full_graph_parameters, harary_graph_parameters

#: (clients, adversarial rate, dropout rate, adversary class, degree, threshold), as published.
FEASIBLE = [
    (100, 0.45, 0.45, 'semi-honest', 92, 46),
    (1_000, 0.45, 0.45, 'semi-honest', 822, 417),
    (10_000, 0.45, 0.45, 'semi-honest', 3494, 1771),
    (100_000, 0.45, 0.45, 'semi-honest', 5508, 2788),
    (1_000_000, 0.45, 0.45, 'semi-honest', 6240, 3156),
    (10, 0.33, 0.33, 'semi-honest', 8, 4),
    (100, 0.33, 0.33, 'semi-honest', 68, 34),
    (1_000, 0.33, 0.33, 'semi-honest', 286, 150),
    (10_000, 0.33, 0.33, 'semi-honest', 422, 221),
    (100_000, 0.33, 0.33, 'semi-honest', 480, 251),
    (1_000_000, 0.33, 0.33, 'semi-honest', 518, 270),
    (100, 0.3, 0.3, 'semi-malicious', 92, 62),
    (1_000, 0.3, 0.3, 'semi-malicious', 872, 584),
    (10_000, 0.3, 0.3, 'semi-malicious', 4822, 3230),
    (100_000, 0.3, 0.3, 'semi-malicious', 9388, 6286),
    (1_000_000, 0.3, 0.3, 'semi-malicious', 11136, 7454),
    (10, 0.05, 0.33, 'semi-honest', 4, 2),
    (100, 0.05, 0.33, 'semi-honest', 28, 6),
    (1_000, 0.05, 0.33, 'semi-honest', 72, 24),
    (10_000, 0.05, 0.33, 'semi-honest', 86, 29),
    (100_000, 0.05, 0.33, 'semi-honest', 96, 32),
    (1_000_000, 0.05, 0.33, 'semi-honest', 102, 34),
    (10, 0.05, 0.33, 'semi-malicious', 8, 5),
    (100, 0.05, 0.33, 'semi-malicious', 72, 39),
    (1_000, 0.05, 0.33, 'semi-malicious', 398, 223),
    (10_000, 0.05, 0.33, 'semi-malicious', 746, 420),
    (100_000, 0.05, 0.33, 'semi-malicious', 882, 496),
    (1_000_000, 0.05, 0.33, 'semi-malicious', 970, 545),
    (10, 0.33, 0.05, 'semi-honest', 4, 4),
    (100, 0.33, 0.05, 'semi-honest', 34, 29),
    (1_000, 0.33, 0.05, 'semi-honest', 78, 60),
    (10_000, 0.33, 0.05, 'semi-honest', 92, 70),
    (100_000, 0.33, 0.05, 'semi-honest', 102, 77),
    (1_000_000, 0.33, 0.05, 'semi-honest', 110, 83),
    (10, 0.33, 0.05, 'semi-malicious', 4, 4),
    (100, 0.33, 0.05, 'semi-malicious', 42, 37),
    (1_000, 0.33, 0.05, 'semi-malicious', 132, 109),
    (10_000, 0.33, 0.05, 'semi-malicious', 178, 146),
    (100_000, 0.33, 0.05, 'semi-malicious', 196, 160),
    (1_000_000, 0.33, 0.05, 'semi-malicious', 212, 173),
    (10, 0.05, 0.05, 'semi-honest', 2, 2),
    (100, 0.05, 0.05, 'semi-honest', 12, 6),
    (1_000, 0.05, 0.05, 'semi-honest', 30, 17),
    (10_000, 0.05, 0.05, 'semi-honest', 34, 20),
    (100_000, 0.05, 0.05, 'semi-honest', 36, 21),
    (1_000_000, 0.05, 0.05, 'semi-honest', 38, 22),
    (10, 0.05, 0.05, 'semi-malicious', 2, 2),
    (100, 0.05, 0.05, 'semi-malicious', 16, 11),
    (1_000, 0.05, 0.05, 'semi-malicious', 52, 37),
    (10_000, 0.05, 0.05, 'semi-malicious', 62, 44),
    (100_000, 0.05, 0.05, 'semi-malicious', 68, 48),
    (1_000_000, 0.05, 0.05, 'semi-malicious', 74, 52),
    (10, 0.33, 0.0, 'semi-honest', 4, 4),
    (100, 0.33, 0.0, 'semi-honest', 26, 25),
    (1_000, 0.33, 0.0, 'semi-honest', 38, 36),
    (10_000, 0.33, 0.0, 'semi-honest', 42, 40),
    (100_000, 0.33, 0.0, 'semi-honest', 46, 44),
    (1_000_000, 0.33, 0.0, 'semi-honest', 50, 47),
    (10, 0.33, 0.0, 'semi-malicious', 4, 4),
    (100, 0.33, 0.0, 'semi-malicious', 26, 26),
    (1_000, 0.33, 0.0, 'semi-malicious', 38, 37),
    (10_000, 0.33, 0.0, 'semi-malicious', 42, 41),
    (100_000, 0.33, 0.0, 'semi-malicious', 46, 45),
    (1_000_000, 0.33, 0.0, 'semi-malicious', 50, 49),
    (10, 0.0, 0.33, 'semi-honest', 4, 2),
    (100, 0.0, 0.33, 'semi-honest', 26, 2),
    (1_000, 0.0, 0.33, 'semi-honest', 38, 2),
    (10_000, 0.0, 0.33, 'semi-honest', 42, 2),
    (100_000, 0.0, 0.33, 'semi-honest', 46, 2),
    (1_000_000, 0.0, 0.33, 'semi-honest', 50, 2),
    (10, 0.0, 0.33, 'none', 4, 2),
    (100, 0.0, 0.33, 'none', 26, 2),
    (1_000, 0.0, 0.33, 'none', 38, 2),
    (10_000, 0.0, 0.33, 'none', 42, 2),
    (100_000, 0.0, 0.33, 'none', 46, 2),
    (1_000_000, 0.0, 0.33, 'none', 50, 2),
    (10, 0.0, 0.33, 'semi-malicious', 8, 5),
    (100, 0.0, 0.33, 'semi-malicious', 68, 35),
    (1_000, 0.0, 0.33, 'semi-malicious', 228, 115),
    (10_000, 0.0, 0.33, 'semi-malicious', 326, 164),
    (100_000, 0.0, 0.33, 'semi-malicious', 372, 187),
    (1_000_000, 0.0, 0.33, 'semi-malicious', 410, 206),
    (10, 0.0, 0.0, 'semi-honest', 2, 2),
    (100, 0.0, 0.0, 'semi-honest', 2, 2),
    (1_000, 0.0, 0.0, 'semi-honest', 2, 2),
    (10_000, 0.0, 0.0, 'semi-honest', 2, 2),
    (100_000, 0.0, 0.0, 'semi-honest', 2, 2),
    (1_000_000, 0.0, 0.0, 'semi-honest', 2, 2),
    (1_000, 0.0, 0.0, 'none', 2, 2),
    (10_000, 0.0, 0.0, 'none', 2, 2),
    (100_000, 0.0, 0.0, 'none', 2, 2),
    (1_000_000, 0.0, 0.0, 'none', 2, 2),
    (10, 0.0, 0.0, 'semi-malicious', 2, 2),
    (100, 0.0, 0.0, 'semi-malicious', 2, 2),
    (1_000, 0.0, 0.0, 'semi-malicious', 2, 2),
    (10_000, 0.0, 0.0, 'semi-malicious', 2, 2),
    (100_000, 0.0, 0.0, 'semi-malicious', 2, 2),
    (1_000_000, 0.0, 0.0, 'semi-malicious', 2, 2),
]

#: Instances the finder refuses (invalid) or cannot solve, as published.
REFUSED = [
    (0, 0.1, 0.1, "semi-honest"),
    (1000, 0.1, 1.0, "semi-honest"),
    (1000, 0.1, -1.0, "semi-honest"),
    (1000, 0.5, 0.5, "semi-honest"),
    (1000, 0.5, 0.5, "semi-malicious"),
    (1000, 0.33, 0.33, "semi-malicious"),
    (1000, 0.5, 0.5, "none"),
]


def test_the_table_is_whole():
    assert len(FEASIBLE) == 98 and len(REFUSED) == 7


@pytest.mark.parametrize("n, gamma, delta, adversary, degree, threshold", FEASIBLE)
def test_every_published_row(n, gamma, delta, adversary, degree, threshold):
    assert harary_graph_parameters(n, gamma, delta, adversary) == (degree, threshold)


@pytest.mark.parametrize("n, gamma, delta, adversary", REFUSED)
def test_every_published_refusal(n, gamma, delta, adversary):
    with pytest.raises((InvalidOption, Infeasible)):
        harary_graph_parameters(n, gamma, delta, adversary)


def test_refusals_name_their_reason():
    with pytest.raises(InvalidOption, match="at most 1,000,000"):
        harary_graph_parameters(1_000_001, 0.05, 0.05)
    with pytest.raises(InvalidOption, match="none expects"):
        harary_graph_parameters(100, 0.05, 0.05, "none")
    with pytest.raises(Infeasible, match="no Harary graph"):
        harary_graph_parameters(3, 0.0, 0.0)
    with pytest.raises(ValueError):
        harary_graph_parameters(100, 0.05, 0.05, "malicious")


def test_the_full_graph_checks_of_the_published_test():
    for t in range(42, 60):                 # n = 60, corrupt 0.05, dropout 0.3, semi-honest
        check_full_graph_parameters(60, t, 0.05, 0.3)
    for t in range(0, 42):
        with pytest.raises(InvalidOption):
            check_full_graph_parameters(60, t, 0.05, 0.3)


def test_the_full_graph_check_against_a_semi_malicious_server():
    check_full_graph_parameters(60, 58, 0.9, 0.05, "semi-malicious")
    with pytest.raises(InvalidOption, match="semi-malicious"):
        check_full_graph_parameters(60, 57, 0.9, 0.05, "semi-malicious")


def test_the_float_arithmetic_is_the_c_library_s():
    # the C++ calls the C library's lgamma; Python's math.lgamma differs from it in the last bit for about
    # half the integers, so the port uses the C library's wherever it can be loaded
    assert finder.LGAMMA_SOURCE == "C library lgamma"
    assert finder._lgamma(10.0) == pytest.approx(math.lgamma(10.0), rel=1e-15)


#: distribution_utilities_test.cc: (x, total, marked, sampled, probability), relative error below 1e-9.
PMF = [(-5, 9, 3, 3, 0.0), (17, 9, 3, 3, 0.0), (0, 10, 0, 5, 1.0), (3, 10, 10, 5, 0.0),
       (4, 15, 6, 12, 0.2967032967032967), (38, 98, 63, 17, 0.0), (2, 187, 105, 43, 5.423847289689941e-16),
       (40, 980, 392, 103, 0.08225792329713294), (89, 1489, 312, 370, 0.014089199026838601),
       (100000, 1000000, 200000, 500000, 0.0019947087839501726)]
CDF = [(-5, 9, 3, 3, 0.0), (17, 9, 3, 3, 1.0), (0, 10, 0, 5, 1.0), (3, 10, 10, 5, 0.0),
       (4.5, 15, 6, 12, 0.34065934065934067), (38, 98, 63, 17, 1.0), (2, 187, 105, 43, 5.526570670097338e-16),
       (40, 980, 392, 103, 0.4430562850817352), (89, 1489, 312, 370, 0.9599670222722507),
       (100000, 1000000, 200000, 500000, 0.5009973543919738)]
#: (probability, total, marked, sampled, lower, upper): lower <= q < lower + 1, upper - 1 <= q' <= upper.
QUANTILE = [(0.5, 10, 0, 5, -1, 0), (0.2, 10, 10, 5, 4, 5), (0.97, 15, 6, 12, 5, 3), (0.0001, 98, 63, 17, 3, 17),
            (1e-05, 187, 105, 43, 11, 36), (3e-08, 980, 392, 103, 16, 67), (1.1e-09, 1489, 312, 370, 38, 119),
            (1e-18, 1000000, 200000, 500000, 98248, 101751)]


@pytest.mark.parametrize("x, total, marked, sampled, p", PMF)
def test_hypergeometric_pmf(x, total, marked, sampled, p):
    assert abs(Hypergeometric(total, marked, sampled).pmf(x) - p) / (p + 1e-30) < 1e-9


@pytest.mark.parametrize("x, total, marked, sampled, p", CDF)
def test_hypergeometric_cdf(x, total, marked, sampled, p):
    assert abs(Hypergeometric(total, marked, sampled).cdf(x) - p) / (p + 1e-30) < 1e-9


@pytest.mark.parametrize("q, total, marked, sampled, lower, upper", QUANTILE)
def test_hypergeometric_quantile(q, total, marked, sampled, lower, upper):
    h = Hypergeometric(total, marked, sampled)
    assert lower <= h.quantile(q) <= lower + 1
    assert upper - 1 <= h.quantile(q, True) <= upper


@pytest.mark.parametrize("args", [(10, 11, 5), (10, 5, 11), (10, -1, 5), (10, 5, -1), (-10, 5, 5), (-10, -5, -5)])
def test_hypergeometric_refuses_what_the_original_refuses(args):
    with pytest.raises(InvalidOption):
        Hypergeometric(*args)
