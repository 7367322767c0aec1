"""The open-source SecAgg+ parameter finder, reproduced in the same double arithmetic.

Google's open-source secure-aggregation server (federated-compute,
``fcp/secagg/server/graph_parameter_finder.cc`` and
``distribution_utilities.cc``) picks the degree ``k`` of the random Harary
graph and the Shamir threshold ``t`` of SecAgg+ (Bell, Bonawitz, Gascón,
Lepoint, Raykova 2020) from the number of clients ``n``, the corrupt fraction
``γ``, the dropout fraction ``δ`` and the adversary class. This module is a
line-by-line port: the same targets (security ``2^-40``, failure ``2^-20``),
the same union bound on the graph disconnecting, the same hypergeometric
quantile rules, the same search order and the same refusals, computed in
IEEE doubles with the C library's ``lgamma`` (the function the C++ calls;
Python's :func:`math.lgamma` differs from it in the last bit for about half
the integers, so it is used only where the C library cannot be loaded).

Its answers are those of the original, floats and all; :mod:`itsa.keys.secagg.certified`
computes the same bounds in ball arithmetic and says where the decisions differ.

Examples
--------
>>> harary_graph_parameters(10_000, 0.05, 0.05, "semi-honest")
(34, 20)
>>> harary_graph_parameters(10_000, 0.05, 0.05, "semi-malicious")
(62, 44)
>>> Hypergeometric(15, 6, 12).pmf(4)  # doctest: +ELLIPSIS
0.29670329670329...
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Callable
from enum import StrEnum

from itsa.exceptions import Infeasible, InvalidOption

__all__ = ["Adversary", "Hypergeometric", "harary_graph_parameters", "check_full_graph_parameters",
           "log_prob_disconnected", "check_degree", "LGAMMA_SOURCE", "SECURITY_PARAMETER", "CORRECTNESS_PARAMETER",
           "MAX_CLIENTS", "K_SMALL"]


class Adversary(StrEnum):
    """The adversary classes of the finder (``AdversaryClass`` of federated-compute).

    ``semi-honest`` is the original's ``CURIOUS_SERVER``: the server and a
    fraction of the clients follow the protocol and pool what they see.
    ``semi-malicious`` (``SEMI_MALICIOUS_SERVER``) may also ask one client's
    neighbours for the shares of its self-mask and others for the shares of
    its mask key. ``none`` assumes no corrupt party (the corrupt fraction must be 0).
    """

    SEMI_HONEST = "semi-honest"
    SEMI_MALICIOUS = "semi-malicious"
    NONE = "none"


#: Largest number of clients the finder accepts (``kMaxNumberOfClients``).
MAX_CLIENTS = 1_000_000
#: Statistical security: failure of privacy below ``2^-40`` (``kSecurityParameter``).
SECURITY_PARAMETER = 40
#: Correctness: failure to reconstruct below ``2^-20`` (``kCorrectnessParameter``).
CORRECTNESS_PARAMETER = 20
#: Added to the rates before rounding the counts of corrupt and dropped clients (``kSmall``).
K_SMALL = 1e-14


def _c_lgamma() -> tuple[Callable[[float], float], str]:
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        function = libm.lgamma
    except (OSError, AttributeError):        # pragma: no cover - a platform without a loadable C library
        return math.lgamma, "python math.lgamma"
    function.restype, function.argtypes = ctypes.c_double, [ctypes.c_double]
    return function, "C library lgamma"


_lgamma, LGAMMA_SOURCE = _c_lgamma()


class Hypergeometric:
    """``HypergeometricDistribution`` of federated-compute: marked items among ``sampled`` drawn from ``total``.

    Every method is the original's, in doubles (the PMF from ``lgamma``, the
    CDF by the pmf recurrence, the quantile search from a Hoeffding start).
    """

    def __init__(self, total: int, marked: int, sampled: int):
        if total < 0 or marked < 0 or sampled < 0 or marked > total or sampled > total:
            raise InvalidOption(f"hypergeometric: need 0 <= marked, sampled <= total, not ({total}, {marked}, {sampled})")
        self.total, self.marked, self.sampled = total, marked, sampled

    def pmf(self, x: float) -> float:
        """``Pr[X = x]``."""
        return self._pmf(x, self.marked)

    def _pmf(self, x: float, counted: int) -> float:
        n, k = self.total, self.sampled
        if x < 0 or x > k or x > counted:
            return 0.0
        if n + x < counted + k:
            return 0.0
        lpmf = (_lgamma(k + 1) + _lgamma(counted + 1) + _lgamma(n - counted + 1) + _lgamma(n - k + 1)
                - _lgamma(x + 1) - _lgamma(k - x + 1) - _lgamma(counted - x + 1) - _lgamma(n + 1)
                - _lgamma(n - k - counted + x + 1))
        return math.exp(lpmf)

    def cdf(self, x: float) -> float:
        """``Pr[X <= x]`` (the upper part through the complement, as the original)."""
        x = math.floor(x)
        mean = self.marked * float(self.sampled) / self.total
        if x > mean:
            return 1 - self._cdf(self.sampled - x - 1, self.total - self.marked)
        return self._cdf(x, self.marked)

    def _cdf(self, x: float, counted: int) -> float:
        n, k = self.total, self.sampled
        current = self._pmf(x, counted)
        result = 0.0
        while current > result * 1e-16:
            result += current
            current *= x
            current *= n - counted - k + x
            current /= counted - x + 1
            current /= k - x + 1
            x -= 1
        return result

    def quantile(self, q: float, complement: bool = False) -> float:
        """``FindQuantile``: the value whose CDF is ``q``, rounded outward (``complement``: of ``1 - q``)."""
        if q > 0.5:
            q = 1 - q
            complement = not complement
        if complement:
            return self.sampled - self._quantile(q, self.total - self.marked) - 1
        return self._quantile(q, self.marked)

    def _quantile(self, q: float, counted: int) -> float:
        n, k = self.total, self.sampled
        basic = float(counted + k - n - 1)
        fancy = k * (float(counted) / n - math.sqrt(-math.log(q) / (2 * k)))
        result = -1.0
        if basic > result:
            result = basic
        if fancy > result:
            result = fancy
        result = float(math.floor(result))
        cdf, pmf = self._cdf(result, counted), self._pmf(result, counted)
        while cdf < q and result < k:
            if pmf > 0:
                pmf /= result + 1
                pmf /= n - counted - k + result + 1
                pmf *= counted - result
                pmf *= k - result
            else:
                pmf = self._pmf(result + 1, counted)
            cdf += pmf
            result += 1
        return result - 1


def _check_rates(adversarial_rate: float, dropout_rate: float) -> None:
    if not 0 <= adversarial_rate < 1:
        raise InvalidOption(f"corrupt: the adversarial rate should be in [0, 1), not {adversarial_rate!r}")
    if not 0 <= dropout_rate < 1:
        raise InvalidOption(f"dropout: the dropout rate should be in [0, 1), not {dropout_rate!r}")


def _check(clients: int, adversarial_rate: float, dropout_rate: float, adversary: Adversary) -> None:
    """The refusals of ``HararyGraphParameterFinder::Create``, in its order and float comparisons."""
    if clients <= 0:
        raise InvalidOption(f"clients: the number of clients should be greater than zero, not {clients}")
    if clients > MAX_CLIENTS:
        raise InvalidOption(f"clients: the finder accepts at most {MAX_CLIENTS:,} clients, not {clients:,}")
    _check_rates(adversarial_rate, dropout_rate)
    if adversary is Adversary.NONE and adversarial_rate > 0:
        raise InvalidOption(f"the adversary class none expects corrupt = 0, not {adversarial_rate!r}")
    if adversary is not Adversary.SEMI_MALICIOUS and adversarial_rate + dropout_rate > .9:
        raise InvalidOption(f"corrupt + dropout must be <= 0.9 ({adversary}), not {adversarial_rate!r} + {dropout_rate!r}")
    if adversary is Adversary.SEMI_MALICIOUS and adversarial_rate + 2 * dropout_rate > .9:
        raise InvalidOption(f"corrupt + 2 dropout must be <= 0.9 (semi-malicious), not {adversarial_rate!r} + 2 * {dropout_rate!r}")


def log_prob_disconnected(clients: int, degree: int, adversarial_rate: float, dropout_rate: float) -> float:
    """``LogProbOfDisconnectedRandomHarary``: the log of the union bound on the graph disconnecting.

    Cutting a Harary graph of even degree ``k`` takes two runs of ``k/2``
    successive removed clients on its ring; there are ``n (n - k - 1) / 2``
    pairs of places, and each is wholly removed with probability
    ``B! (n - k)! / (n! (B - k)!)`` when ``B`` of the ``n`` clients are
    corrupt or dropped. ``-inf`` when ``k > B``.
    """
    log_pairs = math.log(clients) + math.log(clients - degree - 1) - math.log(2)
    bad = (int(math.floor((adversarial_rate + K_SMALL) * clients))
           + int(math.floor((dropout_rate + K_SMALL) * clients)))
    if degree > bad:
        return -math.inf
    return log_pairs + _lgamma(bad + 1) + _lgamma(clients - degree + 1) - _lgamma(clients + 1) - _lgamma(bad - degree + 1)


def check_degree(clients: int, degree: int, adversarial_rate: float, dropout_rate: float,
                 adversary: Adversary) -> int | None:
    """``CheckNumberOfNeighbors``: the threshold the finder takes at degree ``k``, or ``None`` if ``k`` fails."""
    per_event = SECURITY_PARAMETER + 1          # the security budget split over two bad events
    if log_prob_disconnected(clients, degree, adversarial_rate, dropout_rate) >= -per_event * math.log(2):
        return None
    corrupt = int(math.floor((adversarial_rate + K_SMALL) * clients))
    surviving = int(math.ceil((1 - dropout_rate - K_SMALL) * clients))
    corrupt_neighbours = Hypergeometric(clients, corrupt, degree)
    surviving_neighbours = Hypergeometric(clients, surviving, degree)
    t1 = corrupt_neighbours.quantile(math.pow(2, -per_event) / clients, True)
    t2 = surviving_neighbours.quantile(math.pow(2, -CORRECTNESS_PARAMETER) / clients)
    if surviving_neighbours.cdf(t2) < math.pow(2, -CORRECTNESS_PARAMETER) / clients:
        t2 += 1
    if adversary is Adversary.SEMI_MALICIOUS:
        t1 = float(math.ceil((t1 + degree - 1.25) / 2))
    if t2 <= t1:
        return None
    return int(max(t1 + 1, 2.0))


def harary_graph_parameters(clients: int, adversarial_rate: float, dropout_rate: float,
                            adversary: Adversary | str = Adversary.SEMI_HONEST) -> tuple[int, int]:
    """``ComputeHararyGraphParameters``: the first even degree ``k = 2, 4, ... < n - 1`` that passes, and its threshold.

    Parameters
    ----------
    clients : int
        ``n``, at most :data:`MAX_CLIENTS`.
    adversarial_rate, dropout_rate : float
        ``γ`` and ``δ`` in ``[0, 1)``, as doubles.
    adversary : Adversary or str
        ``semi-honest``, ``semi-malicious`` or ``none``.

    Returns
    -------
    (int, int)
        The degree (neighbours, without the self-edge the server adds) and the threshold.

    Raises
    ------
    InvalidOption
        On the inputs the original refuses.
    Infeasible
        When no degree below ``n - 1`` passes (the server then falls back to the full graph).
    """
    kind = Adversary(adversary)
    _check(clients, adversarial_rate, dropout_rate, kind)
    for degree in range(2, clients - 1, 2):
        threshold = check_degree(clients, degree, adversarial_rate, dropout_rate, kind)
        if threshold is not None:
            return degree, threshold
    raise Infeasible(f"no Harary graph of degree below {clients - 1} meets the targets for {clients} clients "
                     f"(corrupt {adversarial_rate!r}, dropout {dropout_rate!r}, {kind})")


def check_full_graph_parameters(clients: int, threshold: int, adversarial_rate: float, dropout_rate: float,
                                adversary: Adversary | str = Adversary.SEMI_HONEST) -> None:
    """``CheckFullGraphParameters``: the checks on the threshold of full-graph SecAgg; raises if one fails.

    The threshold must lie in ``(1, n]``, be at least ``ceil((1 - δ) n)`` (the
    survivors the server waits for), and exceed ``ceil(γ n)`` (semi-honest) or
    ``ceil((n + γ n) / 2)`` (semi-malicious).
    """
    kind = Adversary(adversary)
    if clients <= 0:
        raise InvalidOption(f"clients: the number of clients should be greater than zero, not {clients}")
    if threshold <= 1 or threshold > clients:
        raise InvalidOption(f"threshold: must be > 1 and <= {clients}, not {threshold}")
    _check_rates(adversarial_rate, dropout_rate)
    if threshold < math.ceil((1 - dropout_rate) * clients):
        raise InvalidOption(f"threshold: must be at least ceil((1 - dropout) n) = {math.ceil((1 - dropout_rate) * clients)}, "
                            f"not {threshold}")
    if kind is Adversary.SEMI_HONEST and threshold <= math.ceil(adversarial_rate * clients):
        raise InvalidOption(f"threshold: must exceed ceil(corrupt n) = {math.ceil(adversarial_rate * clients)} "
                            f"(semi-honest), not {threshold}")
    if kind is Adversary.SEMI_MALICIOUS and threshold <= math.ceil((clients + adversarial_rate * clients) / 2):
        raise InvalidOption(f"threshold: must exceed ceil((n + corrupt n) / 2) = "
                            f"{math.ceil((clients + adversarial_rate * clients) / 2)} (semi-malicious), not {threshold}")
