"""Computer-aided converses: Shannon-type LPs with exact certificates and readable proofs.

:func:`converse` bounds an instance's optimal source key rate from below:

* ``general``: every scheme of the model, any encoders (docs/converse.md §2);
* ``additive``: schemes with ``X = W + Z`` and ``Y_u = Σ_v X_{u,v}``, any
  keys (docs/converse.md §3).

The instance becomes an :class:`~.problem.EntropyProblem`, the problem a
reduced LP (:mod:`.lp`), the LP's float dual an exact certificate
(:mod:`.certificate`), and the certificate a proof (:mod:`.proof`). A bound is
reported as proved only when its certificate checks in exact arithmetic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..bitset import members
from ..display import Displayable
from ..exceptions import InvalidInstance, InvalidOption
from ..instance import Instance
from ..report import SCHEMA_VERSION
from .certificate import Certificate, certify, check_certificate
from .lp import ReducedLP, reduce_problem, solve_float
from .problem import CLASSES, EntropyProblem, build_problem

#: Largest number of users each class accepts (the LP grows as 2^(3K+U+1), resp. 2^K).
MAX_USERS = {"general": 4, "additive": 12}

__all__ = ["CLASSES", "MAX_USERS", "ConverseBound", "converse", "Certificate",
           "EntropyProblem", "check_certificate"]


@dataclass(frozen=True, repr=False)
class ConverseBound(Displayable):
    """``R_ZΣ >= value`` for every scheme of ``scheme_class``, with its certificate.

    ``certified`` is true only when ``certificate`` re-checked exactly; then
    ``value`` is the proved bound. Otherwise ``value`` is ``None`` and
    ``status`` says what failed (the float solver, or the certificate).
    ``float_value`` is the solver's own answer, for the record only.
    """

    scheme_class: str
    value: Fraction | None
    certified: bool
    status: str
    float_value: float | None
    sizes: dict
    seconds: dict
    certificate: Certificate | None = None
    lp: ReducedLP | None = field(default=None, repr=False, compare=False)
    primal: tuple[float, ...] = field(default=(), repr=False, compare=False)

    def key_entropies(self, max_size: int = 2) -> dict[int, Fraction]:
        """``h(Z_A)`` at the LP's optimum for user sets ``A`` of at most ``max_size`` users.

        A hint for scheme search, read off the float primal (rounded to a small
        denominator): no part of any proof.
        """
        if self.lp is None or not self.primal:
            return {}
        keys = self.lp.problem.keys
        out = {}
        for A in range(1, 1 << len(keys)):
            if A.bit_count() <= max_size:
                o = self.lp.orbit(self.lp.closure(sum(1 << keys[i] for i in members(A))))
                out[A] = Fraction(self.primal[o - 1] if o else 0.0).limit_denominator(24)
        return out

    def _headline(self) -> str:
        if self.certified:
            return f"R_ZΣ ≥ {self.value} ({self.scheme_class}, certified)"
        return f"no bound ({self.scheme_class}: {self.status})"

    def _rows(self) -> list[tuple[str, str]]:
        rows = [("class", f"{self.scheme_class}: {self.scope}"), ("status", self.status)]
        if self.certified:
            rows.append(("certificate", f"{self.certificate.size} rows, checked exactly"))
        if self.sizes:
            rows.append(("LP", f"{self.sizes['columns']} columns × {self.sizes['rows']} rows "
                               f"({self.sizes['columns_raw']} × {self.sizes['rows_raw']} before reduction)"))
        return rows

    @property
    def scope(self) -> str:
        from .proof import SCOPES
        return SCOPES[self.scheme_class]

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION,
                "value": None if self.value is None else str(self.value),
                "class": self.scheme_class, "certified": self.certified, "status": self.status,
                "float_value": self.float_value, "lp": self.sizes,
                "certificate_rows": None if self.certificate is None else self.certificate.size,
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}}


def expected_seconds(instance: Instance, scheme_class: str) -> float:
    """A rough time for :func:`converse` on 2 cores (measured, see benchmarks/bench_converse.py)."""
    if scheme_class == "general":
        return {1: 1, 2: 1, 3: 2, 4: 120}.get(instance.K, float("inf"))
    return 1.0 if instance.K <= 8 else 2.0 ** (instance.K - 8)


def check_size(instance: Instance, scheme_class: str) -> None:
    """Raise :class:`InvalidInstance` when ``instance`` is beyond the class's size limit."""
    if scheme_class not in CLASSES:
        raise InvalidOption(f"unknown converse class {scheme_class!r}; choose from {', '.join(CLASSES)}")
    if instance.K > MAX_USERS[scheme_class]:
        raise InvalidInstance(f"the {scheme_class} converse takes at most {MAX_USERS[scheme_class]} "
                              f"users; this instance has K = {instance.K}")


def converse(instance: Instance, scheme_class: str = "additive", time_limit: float | None = None,
             symmetry: bool = True) -> ConverseBound:
    """A certified lower bound on the source key rate for the schemes of ``scheme_class``.

    Parameters
    ----------
    instance : Instance
    scheme_class : {"general", "additive"}
    time_limit : float, optional
        Seconds for the reduction and the float solve (the exact check is not cut short).
    symmetry : bool
        Use the instance's automorphisms to shrink the LP.

    Examples
    --------
    >>> from itsa import examples
    >>> b = converse(examples.load("audit/fractional-optimum"), "additive")
    >>> b.value, b.certified
    (Fraction(3, 2), True)
    """
    check_size(instance, scheme_class)
    t0 = time.perf_counter()
    rlp = reduce_problem(build_problem(instance, scheme_class), symmetry=symmetry)
    t1 = time.perf_counter()
    left = None if time_limit is None else time_limit - (t1 - t0)
    if left is not None and left <= 0:
        return ConverseBound(scheme_class, None, False, "time limit reached while reducing the LP",
                             None, rlp.sizes, {"reduce": t1 - t0}, None, rlp)
    sol = solve_float(rlp, time_limit=left)
    secs = {"reduce": t1 - t0, "solve": sol.seconds}
    if sol.status != "optimal":
        return ConverseBound(scheme_class, None, False, f"solver failed: {sol.status}", None,
                             rlp.sizes, secs, None, rlp)
    t2 = time.perf_counter()
    cert = certify(rlp, sol)
    secs["certify"] = time.perf_counter() - t2
    if cert is None:
        return ConverseBound(scheme_class, None, False, "certificate did not check exactly",
                             sol.value, rlp.sizes, secs, None, rlp)
    return ConverseBound(scheme_class, cert.value, True, "certified", sol.value, rlp.sizes, secs,
                         cert, rlp, tuple(sol.x.tolist()))
