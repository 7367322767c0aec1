"""Willow as a deployment's protocol: ``protocol: {willow: {decryptors: D, decryptor_dropout: f, corrupt: g}}``.

Willow (google/secure-aggregation) is single-server secure aggregation with
one-shot clients: each client encrypts its vector once under a key-additive
homomorphic encryption (KAHE, lattice-based) and its KAHE key under a
threshold additive homomorphic encryption (AHE) whose secret key a committee
of ``D`` decryptors holds; the server sums the ciphertexts and the committee
decrypts only the sum. Its parameters are a published table
(:data:`REGIMES`, read from :data:`SOURCE`): inputs of total length at most
1K, 100K or 10M, each coordinate in ``[0, 2^32]``, at most 10M clients and
100 decryptors, 128-bit computational and 40-bit statistical security. Willow
takes the first regime the configuration fits (vector length and bound,
decryptors, decryptor dropouts, clients) and packs the coordinates into the
KAHE plaintext modulus ``2^log_t`` in base ``2^B``, ``B = ceil(log2(bound·n + 1))``
so that the sum of ``n`` clients never carries between coordinates; it
refuses a configuration outside every regime, and one whose base does not
fit (``B > 63``, or fewer than ``B`` plaintext bits). The plan does the same
with the word's vector: ``dimension`` coordinates of bound ``2^b - 1``.

The committee: the ``D`` decryptors are drawn uniformly without replacement
from the deployment's ``n`` clients, of which ``A = floor(g·n)`` are corrupt
and ``floor(dropout·n)`` drop out (the counts of SecAgg+'s analysis). Any
``D - f`` decryptors decrypt (``f`` = Willow's ``max_decryptor_dropouts``):
security fails when ``D - f`` or more decryptors are corrupt (they can then
decrypt a single client's key), correctness when more than ``f`` drop out.
Both are exact hypergeometric tails (Fractions), held to ``2^-40`` and
``2^-20``. Willow's released code adds the decryptors' key shares (every
decryptor is needed: ``f = 0``); ``f > 0`` reads the threshold as ``D - f``.

Examples
--------
>>> p = WillowProtocol.from_body({"decryptors": 10, "decryptor_dropout": 1, "corrupt": "1/100"})
>>> r = choose_regime(length=1290, bound=2**16 - 1, clients=10_000, decryptors=10)
>>> r.name, packing(r.kahe_log_t, bound=2**16 - 1, clients=10_000)
('100K', Packing(base_bits=30, per_coefficient=5, packed=0, polynomials=0))
>>> choose_regime(length=10**8, bound=1, clients=10, decryptors=1) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from itsa._util.certified import safe_decimal
from itsa._util.checks import whole_number
from itsa._util.plain import frac
from itsa.exceptions import InvalidDeployment
from itsa.keys.secagg import certified as cert
from itsa.planning.protocols.base import AggregationProtocol, ProtocolKeys, rate

__all__ = ["WillowProtocol", "WillowKeys", "WillowRegime", "Packing", "REGIMES", "SOURCE", "WILLOW",
           "choose_regime", "packing", "committee_bounds", "smallest_tolerance", "WILLOW_SECURITY", "MAX_PACKING_BASE_BITS",
           "MAX_DECRYPTORS"]

_ERR = InvalidDeployment
#: The protocol's name in a deployment file.
WILLOW = "willow"
#: Where the table comes from (the file, its function, and the commit read).
SOURCE = ("google/secure-aggregation, willow/src/shell/parameters.rs (create_shell_configs) and "
          "willow/src/shell/parameters_generation.rs (generate_packing_config), commit "
          "194d5b06232590d858a82ce8e948ee7f851a815a (2025-11-21)")
#: The packing base is a power of two in a 64-bit word (parameters_generation.rs, MAX_PACKING_BASE_BITS).
MAX_PACKING_BASE_BITS = 63
#: What Willow keeps secret, from whom.
WILLOW_SECURITY = ("the server and the decryptors learn only the sum of the clients' vectors (128-bit computational "
                   "security of the lattice encryption, 40-bit statistical), unless D - f or more decryptors are "
                   "corrupt (the committee's security failure bound); more than f decryptor dropouts fail the round")


@dataclass(frozen=True)
class WillowRegime:
    """One published parameter setting: its limits and the KAHE and AHE rings it fixes."""

    name: str
    max_length: int
    max_bound: int
    max_clients: int
    max_decryptors: int
    kahe_log_n: int
    kahe_log_t: int
    kahe_moduli: tuple[int, ...]
    ahe_log_n: int
    ahe_t: int
    ahe_moduli: tuple[int, ...]
    #: the AHE noise-flooding parameter, a double in the source (kept as its text)
    ahe_s_flood: str

    def fits(self, *, length: int, bound: int, clients: int, decryptors: int) -> bool:
        return (length <= self.max_length and bound <= self.max_bound and clients <= self.max_clients
                and decryptors <= self.max_decryptors)


#: The regimes of :data:`SOURCE`, in the order Willow tries them (``*_1K_10M``, ``*_100K_10M``, ``*_10M_10M``).
REGIMES = (
    WillowRegime(name="1K", max_length=1_000, max_bound=2**32, max_clients=10_000_000, max_decryptors=100,
                 kahe_log_n=12, kahe_log_t=56, kahe_moduli=(274877816833, 274877718529),
                 ahe_log_n=12, ahe_t=109965, ahe_moduli=(1099510824961, 1099508760577), ahe_s_flood="3.0834e+16"),
    WillowRegime(name="100K", max_length=100_000, max_bound=2**32, max_clients=10_000_000, max_decryptors=100,
                 kahe_log_n=13, kahe_log_t=168,
                 kahe_moduli=(1125899906629633, 1125899905744897, 1125899905351681, 1125899903827969),
                 ahe_log_n=12, ahe_t=6582404323, ahe_moduli=(281474976546817, 281474975662081),
                 ahe_s_flood="3.0834e+16"),
    WillowRegime(name="10M", max_length=10_000_000, max_bound=2**32, max_clients=10_000_000, max_decryptors=100,
                 kahe_log_n=14, kahe_log_t=224,
                 kahe_moduli=(2305843009211596801, 2305843009211400193, 2305843009210515457, 2305843009210023937),
                 ahe_log_n=12, ahe_t=7121256483, ahe_moduli=(281474976546817, 281474975662081),
                 ahe_s_flood="3.0834e+16"),
)
#: What the committee's correctness bound is for: the threshold AHE lets any ``decryptors - decryptor_dropout``
#: decrypt, while the released Willow code waits for every decryptor.
THRESHOLD_VARIANT = ("the correctness bound is for a threshold variant (any decryptors - decryptor_dropout "
                     "decrypt): the released Willow code needs every decryptor to answer")
#: The most decryptors of any regime (the committee's bounds are summed only up to it).
MAX_DECRYPTORS = max(r.max_decryptors for r in REGIMES)


@dataclass(frozen=True)
class Packing:
    """How a vector packs into the KAHE plaintexts: base ``2^base_bits``, ``per_coefficient`` coordinates in
    each plaintext coefficient, ``packed`` coefficients, ``polynomials`` KAHE polynomials (0: not computed)."""

    base_bits: int
    per_coefficient: int
    packed: int = 0
    polynomials: int = 0


def choose_regime(*, length: int, bound: int, clients: int, decryptors: int) -> WillowRegime | None:
    """The first regime of :data:`REGIMES` the configuration fits, as Willow picks it (``None``: outside all)."""
    return next((r for r in REGIMES if r.fits(length=length, bound=bound, clients=clients, decryptors=decryptors)),
                None)


def packing(plaintext_bits: int, *, bound: int, clients: int, length: int | None = None,
            ring: int | None = None) -> Packing | str:
    """Willow's packing of a vector of ``length`` coordinates in ``[0, bound]`` summed over ``clients`` into
    plaintexts of ``plaintext_bits`` bits, ``ring`` coefficients a polynomial (its reason to refuse, as text,
    where it does). ``B = ceil(log2(bound·clients + 1))`` is the bit length of ``bound·clients``, exactly
    (Willow computes it in doubles, the same below ``2^53``)."""
    base_bits = (bound * clients).bit_length()
    if base_bits > MAX_PACKING_BASE_BITS:
        return (f"bound x clients = {bound * clients:,} needs a packing base of 2^{base_bits}, above Willow's "
                f"2^{MAX_PACKING_BASE_BITS}")
    if base_bits == 0:
        return "the packing base is 2^0 (a zero bound)"
    per = plaintext_bits // base_bits
    if per == 0:
        return f"{plaintext_bits} plaintext bits hold no coordinate of {base_bits} bits"
    if length is None:
        return Packing(base_bits, per)
    packed = -(-length // per)
    return Packing(base_bits, per, packed, 0 if ring is None else -(-packed // ring))


def committee_bounds(*, clients: int, decryptors: int, tolerated: int, corrupt: int,
                     dropped: int) -> tuple[Fraction, Fraction]:
    """``(security, correctness)`` failure probabilities of a committee of ``decryptors`` drawn without
    replacement from ``clients`` (``corrupt`` and ``dropped`` of them), any ``decryptors - tolerated``
    decrypting: ``Pr[corrupt members >= D - f]`` and ``Pr[dropped members > f]``, exactly.

    >>> committee_bounds(clients=10, decryptors=3, tolerated=1, corrupt=2, dropped=1)
    (Fraction(1, 15), Fraction(0, 1))
    """
    security = cert.hypergeometric_tail(clients, corrupt, decryptors, decryptors - tolerated, upper=True)
    correctness = cert.hypergeometric_tail(clients, dropped, decryptors, tolerated + 1, upper=True)
    return security, correctness


def smallest_tolerance(*, clients: int, decryptors: int, corrupt: int, dropped: int) -> int | None:
    """The fewest decryptor dropouts ``f`` whose committee meets both targets (``None``: no ``f`` does).

    Correctness improves and security worsens as ``f`` grows, so the first ``f`` meeting correctness is the
    only candidate.

    >>> smallest_tolerance(clients=10_000, decryptors=100, corrupt=100, dropped=3000)
    53
    """
    for f in range(decryptors):
        security, correctness = committee_bounds(clients=clients, decryptors=decryptors, tolerated=f,
                                                 corrupt=corrupt, dropped=dropped)
        if correctness < cert.CORRECTNESS_TARGET:
            return f if security < cert.SECURITY_TARGET else None
    return None


@dataclass(frozen=True, kw_only=True)
class WillowProtocol(AggregationProtocol):
    """Willow with a committee of ``decryptors`` of which ``decryptor_dropout`` may drop out, the clients a
    fraction ``corrupt`` corrupt."""

    name: ClassVar[str] = WILLOW
    fields: ClassVar[frozenset[str]] = frozenset({"decryptors", "decryptor_dropout", "corrupt"})

    decryptors: int
    decryptor_dropout: int = 0
    corrupt: Fraction = Fraction(0)

    def __post_init__(self):
        whole_number("protocol.willow.decryptors", self.decryptors, minimum=1, error=_ERR)
        whole_number("protocol.willow.decryptor_dropout", self.decryptor_dropout, minimum=0,
                     maximum=self.decryptors - 1, error=_ERR)
        object.__setattr__(self, "corrupt", rate("protocol.willow.corrupt", self.corrupt))

    @classmethod
    def from_body(cls, body: dict) -> WillowProtocol:
        if "decryptors" not in body:
            raise _ERR("protocol.willow.decryptors: missing (the committee's size D)")
        return cls(decryptors=body["decryptors"], decryptor_dropout=body.get("decryptor_dropout", 0),
                   corrupt=body.get("corrupt", 0))

    def check(self, clients: int) -> None:
        """Refuse (one line) a committee larger than the clients it is drawn from."""
        if self.decryptors > clients:
            raise _ERR(f"protocol.willow.decryptors: at most the {clients} clients, not {self.decryptors}")

    def to_dict(self) -> dict:
        return {WILLOW: {"decryptors": self.decryptors, "decryptor_dropout": self.decryptor_dropout,
                         "corrupt": frac(self.corrupt)}}

    def size(self, *, clients: int, dropout: Fraction, dimension: int, name: str, bits_per_round: Any,
             payload_bits: int, time_limit, seed: int, report) -> WillowKeys:
        return willow_keys(self, clients=clients, dropout=dropout, dimension=dimension, word_bits=payload_bits)

    def sum_space(self, payload_bits: int, clients: int) -> str:
        bits = ((2**payload_bits - 1) * clients).bit_length()
        return (f"the integers: each coordinate's sum in a base 2^{bits} digit of the KAHE plaintext modulus "
                f"(never wraps; the word's sum mod 2^{payload_bits} is read off it)")


@dataclass(frozen=True, kw_only=True, repr=False)
class WillowKeys(ProtocolKeys):
    """The Willow section of a plan: the regime and packing, the committee's exact failure bounds, the costs.

    ``regime`` is ``None`` outside every published regime, ``packing`` a
    :class:`Packing` or Willow's reason to refuse; ``security`` and
    ``correctness`` are exact. ``reasons`` say why Willow refuses the plan.
    """

    protocol: WillowProtocol
    clients: int
    dropout: Fraction
    dimension: int
    word_bits: int
    regime: WillowRegime | None
    packing: Packing | str | None
    corrupt_clients: int
    dropped_clients: int
    security: Fraction | None
    correctness: Fraction | None

    @classmethod
    def title(cls) -> str:
        return "keys: Willow"

    @property
    def bound(self) -> int:
        return 2**self.word_bits - 1

    def ciphertext_bits(self) -> int | None:
        """The KAHE ciphertext a client uploads: its polynomials' coefficients at the moduli's bit sizes."""
        if self.regime is None or not isinstance(self.packing, Packing):
            return None
        r = self.regime
        return self.packing.polynomials * 2**r.kahe_log_n * sum(q.bit_length() for q in r.kahe_moduli)

    def fixes(self) -> dict:
        """The committee's fewest tolerated dropouts ``f`` that meet both targets at its size (when the
        committee's bounds are what fails and such an ``f`` exists)."""
        if self.security is None or (self.security < cert.SECURITY_TARGET
                                     and self.correctness is not None
                                     and self.correctness < cert.CORRECTNESS_TARGET):
            return {}
        f = smallest_tolerance(clients=self.clients, decryptors=self.protocol.decryptors,
                               corrupt=self.corrupt_clients, dropped=self.dropped_clients)
        if f is None:
            return {}
        return {"willow_decryptor_dropout": {
            "decryptor_dropout": f, "text": f"Willow decryptor_dropout {f} (any {self.protocol.decryptors - f} of "
                                            f"{self.protocol.decryptors} decrypt, in a threshold variant of the "
                                            "released code): the fewest whose committee "
                                            "meets 2^-40 / 2^-20 at this corruption and dropout"}}

    def headline(self) -> str:
        if self.reasons and (self.regime is None or not isinstance(self.packing, Packing)):
            return f"Willow: {self.reasons[0]}"
        return (f"Willow regime {self.regime.name if self.regime else '?'} for the {self.clients:,} clients, "
                f"{self.protocol.decryptors} decryptors (f = {self.protocol.decryptor_dropout})")

    def rows(self) -> list[tuple[str, str]]:
        p = self.protocol
        rows = [("protocol", f"Willow (KAHE + threshold AHE, a committee of {p.decryptors:,} decryptors drawn from the "
                             f"{self.clients:,} clients, any {p.decryptors - p.decryptor_dropout:,} decrypt in a "
                             "threshold variant; the released Willow code needs every decryptor); corrupt "
                             f"{frac(p.corrupt)}"),
                ("configuration", f"vector length {self.dimension:,}, bound 2^{self.word_bits} - 1, "
                                  f"{self.clients:,} clients, {p.decryptors:,} decryptors, {p.decryptor_dropout:,} "
                                  "decryptor dropouts")]
        if self.regime is not None:
            r = self.regime
            rows.append(("regime", f"{r.name}: length <= {r.max_length:,}, bound <= 2^32, clients <= "
                                   f"{r.max_clients:,}, decryptors <= {r.max_decryptors}; KAHE N = 2^{r.kahe_log_n}, "
                                   f"plaintext 2^{r.kahe_log_t}; AHE N = 2^{r.ahe_log_n}, t = {r.ahe_t}"))
        if isinstance(self.packing, Packing):
            k = self.packing
            rows.append(("plaintext space", f"base 2^{k.base_bits} (>= {self.clients:,} x (2^{self.word_bits} - 1) "
                                            f"+ 1: the sum never wraps), {k.per_coefficient} coordinates per "
                                            f"coefficient, {k.packed:,} coefficients in {k.polynomials} KAHE "
                                            "polynomials"))
            c = self.ciphertext_bits()
            assert c is not None
            rows.append(("upload per client per round", f"{c:,} bits = {c // 8:,} bytes of KAHE ciphertext (exact, "
                                                        "at the moduli's bit sizes; the AHE encryption of the key "
                                                        "and serialization not counted)"))
        if self.security is None or self.correctness is None:
            rows += [("committee", f"not bounded: {p.decryptors:,} decryptors, more than any regime's "
                                   f"{MAX_DECRYPTORS}")]
            return rows + [("willow", r) for r in self.reasons] + [("source", SOURCE), ("key security",
                                                                                         WILLOW_SECURITY)]
        rows += [("security failure", f"<= {_up(self.security)} (an exact rational, shown rounded up: "
                                      f"{self.corrupt_clients:,} corrupt "
                                      f"clients, Pr[>= {p.decryptors - p.decryptor_dropout} corrupt decryptors]; "
                                      "target 2^-40)"),
                 ("correctness failure", f"<= {_up(self.correctness)} (an exact rational, shown rounded up: "
                                         f"{self.dropped_clients:,} "
                                         f"dropped clients, Pr[> {p.decryptor_dropout} dropped decryptors]; "
                                         f"target 2^-20; {THRESHOLD_VARIANT})")]
        rows += [("willow", r) for r in self.reasons]
        return rows + [("source", SOURCE), ("key security", WILLOW_SECURITY)]

    def to_dict(self) -> dict:
        p, r = self.protocol, self.regime
        k = self.packing if isinstance(self.packing, Packing) else None
        body: dict[str, Any] = {
            "decryptors": p.decryptors, "decryptor_dropout": p.decryptor_dropout, "corrupt": frac(p.corrupt),
            "clients": self.clients, "vector_length": self.dimension, "bound": self.bound,
            "regime": None if r is None else r.name,
            "regime_limits": None if r is None else {"length": r.max_length, "bound": r.max_bound,
                                                     "clients": r.max_clients, "decryptors": r.max_decryptors},
            "packing": None if k is None else {"base_bits": k.base_bits, "per_coefficient": k.per_coefficient,
                                               "coefficients": k.packed, "polynomials": k.polynomials},
            "corrupt_clients": self.corrupt_clients, "dropped_clients": self.dropped_clients,
            "security_failure": frac(self.security), "correctness_failure": frac(self.correctness),
            "security_failure_upper": _up(self.security), "correctness_failure_upper": _up(self.correctness),
            "bounds_kind": "exact (the _upper texts: decimals rounded up)", "correctness_for": THRESHOLD_VARIANT, "upload_bits": self.ciphertext_bits(), "source": SOURCE}
        return {"protocol": WILLOW, "willow": body, "reasons": list(self.reasons), "security": WILLOW_SECURITY,
                "sum_space": self.sum_space or None}


def willow_keys(p: WillowProtocol, *, clients: int, dropout: Fraction, dimension: int, word_bits: int) -> WillowKeys:
    """The Willow section for ``clients`` sending ``dimension`` words of ``word_bits`` bits (``dropout`` of the
    clients leave): the regime Willow picks, its packing, the committee's exact bounds and the reasons."""
    counts = cert.counts(clients, p.corrupt, dropout)
    bound = 2**word_bits - 1
    regime = choose_regime(length=dimension, bound=bound, clients=clients, decryptors=p.decryptors)
    reasons = []
    packed: Packing | str | None = None
    if regime is None:
        reasons.append(f"outside every published Willow regime (length <= 10,000,000, bound <= 2^32, clients <= "
                       f"10,000,000, decryptors <= 100): {_outside(dimension, bound, clients, p.decryptors)}")
    else:
        packed = packing(regime.kahe_log_t, bound=bound, clients=clients, length=dimension,
                         ring=2**regime.kahe_log_n)
        if isinstance(packed, str):
            reasons.append(f"Willow refuses the {regime.name} regime's packing: {packed}")
    security = correctness = None          # a committee no regime holds is not summed (it could be 10^8 terms)
    if p.decryptors <= MAX_DECRYPTORS:
        security, correctness = committee_bounds(clients=clients, decryptors=p.decryptors,
                                                 tolerated=p.decryptor_dropout, corrupt=counts.corrupt,
                                                 dropped=counts.dropped)
    if security is not None and security >= cert.SECURITY_TARGET:
        reasons.append(f"the Willow committee's security failure {_up(security)} (exact, rounded up) is not below "
                       "2^-40")
    if correctness is not None and correctness >= cert.CORRECTNESS_TARGET:
        reasons.append(f"the Willow committee's correctness failure {_up(correctness)} (exact, rounded up) is not "
                       "below 2^-20")
    return WillowKeys(protocol=p, clients=clients, dropout=dropout, dimension=dimension, word_bits=word_bits,
                      regime=regime, packing=packed, corrupt_clients=counts.corrupt, dropped_clients=counts.dropped,
                      security=security, correctness=correctness, reasons=tuple(reasons))


def _outside(length: int, bound: int, clients: int, decryptors: int) -> str:
    top = REGIMES[-1]
    over = [f"{what} {value:,} > {limit:,}" for what, value, limit in (
        ("length", length, top.max_length), ("bound", bound, top.max_bound), ("clients", clients, top.max_clients),
        ("decryptors", decryptors, top.max_decryptors)) if value > limit]
    return "; ".join(over)


def _up(value: Fraction | None) -> str | None:
    return None if value is None else safe_decimal(value, 6)
