"""Exact verification of a linear scheme: correctness and every security constraint.

Two engines compute, for every server ``k`` and every configuration
``(m, n)`` with ``S_m ≠ ∅``, the conditional mutual information (docs/model.md §1)

    I( view_k ; W_{S_m} | ΣW, W_{T_n}, Z_{T_n} )   in q-ary units,

with ``view_k = ({X_{k,v}}_v, {Y_u}_{u≠k})``, and check that ``ΣW`` is
recoverable from ``view_k``.

- ``rank``: every variable of a linear scheme is a linear map of the source
  ``s = (W, N)``; a set of variables with stacked matrix ``G`` is uniform on
  the image of ``G``, so ``H = rank G`` and
  ``I(A;B|C) = rk[A;C] + rk[B;C] - rk[A;B;C] - rk[C]`` (docs/model.md §7).
  Correctness is linear decodability,
  ``rk[view; ΣW] = rk[view]``.
- ``enumerate``: the ground truth. It runs through all ``q^(K·L+d)`` source
  values, evaluates every message, and computes entropies by exact counting;
  it uses no linearity (see :func:`verify` for how values are kept exact).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from itsa._util import display
from itsa._util.checks import choice
from itsa._util.display import Displayable, Kind
from itsa._util.plain import frac, plain
from itsa._util.progress import counting
from itsa.exceptions import InvalidOption, InvalidScheme
from itsa.keys.model.instance import Instance
from itsa.keys.schemes.engines import ENUM_MAX_SOURCE, enumeration_engine, rank_engine
from itsa.keys.schemes.plan import Plan
from itsa.keys.schemes.scheme import Scheme, scheme_to_dict
from itsa.typing import Progress


class Engine(Kind):
    """The verifier's engines: ``auto`` picks enumeration when it is small, else ``rank``."""

    AUTO = "auto"
    RANK = "rank"
    ENUMERATE = "enumerate"


ENGINES = tuple(Engine)
#: Leaks listed by :meth:`Verdict.summary` before "… N in all".
SHOWN_LEAKS = 10
#: ``auto`` enumerates when there are at most this many source values ...
AUTO_MAX_SOURCE = 100_000
#: ... and at most this much work (source values x histogram passes).
AUTO_MAX_WORK = 2 * 10**7
#: ``enumerate`` refuses more work than this (source values x passes).
ENUM_BUDGET = 2 * 10**9
#: Both engines refuse more source symbols ``K·L + d`` than this: the rank
#: engine's kernel bases are ``dim x dim`` matrices (memory and time grow as
#: ``dim^2`` and ``dim^3``); enumeration stops far below.
MAX_VERIFY_DIM = 2048



@dataclass(frozen=True, repr=False)
class Leak:
    """The measured information of one configuration ``(k, m, n)`` (1-based).

    ``symbols`` is the exact value of ``I(view_k; W_{S_m} | ΣW, W_{T_n}, Z_{T_n})``
    in **q-ary units** (symbols of ``F_q``), a :class:`~fractions.Fraction`;
    ``None`` only when the enumeration engine finds a value that is not a
    rational multiple of ``log q`` (impossible for linear schemes), in which
    case ``approx`` holds its float value. ``approx`` is always filled.
    """

    k: int
    m: int
    n: int
    symbols: Fraction | None
    approx: float

    @property
    def exact(self) -> bool:
        return self.symbols is not None

    @property
    def independent(self) -> bool:
        """True iff the information is exactly zero."""
        return self.symbols == 0

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the configuration, the exact leak in q-ary units, its float where not exact."""
        return {"k": self.k, "m": self.m, "n": self.n, "leak": frac(self.symbols), "exact": self.exact,
                "approx": None if self.exact else self.approx}

    def __repr__(self) -> str:
        value = self.symbols if self.symbols is not None else f"≈{self.approx:.4g}"
        return f"<Leak {display.config((self.k, self.m, self.n))}: {value} symbols>"

@dataclass(kw_only=True, frozen=True, repr=False)
class Verdict(Displayable):
    """Outcome of :func:`verify`.

    Attributes
    ----------
    scheme : Scheme
    engine : str
        The engine that actually ran (``"rank"`` or ``"enumerate"``).
    correct : mapping
        1-based server ``k`` -> whether ``ΣW`` is recoverable from its view.
    measured : tuple of Leak
        The measured leakage of every checked configuration ``(k, m, n)``
        (``S_m ≠ ∅``), zero included, sorted by ``(k, m, n)``. (Before this
        name existed, ``leaks`` held this tuple.)
    leaks : tuple of Leak
        The leaks: the entries of ``measured`` whose leakage is not zero
        (``nonzero_leaks`` is an older name for the same tuple).
    trivial : int
        Configurations skipped because ``S_m = ∅`` (information 0).
    fallback : str or None
        Why ``auto`` did not enumerate, if it did not.
    source_dim : int
        ``K·L + d``.
    inferred : int
        Enumeration only: checked configurations whose zero value was
        deduced exactly rather than counted (``S_m ⊆ T_n``, or a zero for a
        larger ``S_m \\ T_n`` under the same ``(k, n)``: by the chain rule
        ``I(A;B|C) <= I(A;B,B'|C)``).
    """

    scheme: Scheme
    engine: str
    correct: Mapping[int, bool]
    measured: tuple[Leak, ...]
    trivial: int
    fallback: str | None = None
    source_dim: int = 0
    inferred: int = 0
    instance: Instance | None = field(default=None, compare=False, repr=False)   # the instance checked

    def to_dict(self, include_all: bool = False) -> dict[str, Any]:
        """The ``itsa verify --json`` object (leaks in exact q-ary units; every one with ``include_all``)."""
        inst = self.instance
        shown = self.measured if include_all else self.leaks
        return plain({
            "instance": None if inst is None else inst.name,
            "ok": self.ok, "engine": self.engine, "fallback": self.fallback, "source_dim": self.source_dim,
            "scheme": None if inst is None else scheme_to_dict(inst, self.scheme),
            "rate": frac(self.scheme.rate),
            "correct": {str(k): v for k, v in self.correct.items()},
            "configurations": self.total, "checked": self.checked, "trivial": self.trivial,
            "nonzero_leaks": len(self.leaks), "leaks": [lk.to_dict() for lk in shown],
        })

    @property
    def leaks(self) -> tuple[Leak, ...]:
        """The configurations that leak: the entries of ``measured`` that are not zero.

        >>> from itsa import examples
        >>> inst, good = examples.example1(), examples.scheme("example-1")
        >>> v = verify(inst, good)
        >>> v.leaks, len(v.measured) == v.checked
        ((), True)
        """
        return tuple(lk for lk in self.measured if not lk.independent)

    @property
    def nonzero_leaks(self) -> tuple[Leak, ...]:
        """Deprecated name of :attr:`leaks` (the same tuple)."""
        return self.leaks

    @property
    def ok(self) -> bool:
        """All servers correct and every leak exactly zero."""
        return all(self.correct.values()) and not self.leaks

    @property
    def checked(self) -> int:
        return len(self.measured)

    @property
    def total(self) -> int:
        return len(self.measured) + self.trivial

    # -- display -----------------------------------------------------------
    def headline(self) -> str:
        status = "PASS" if self.ok else "FAIL"
        name = f" {self.instance.name}" if self.instance is not None and self.instance.name else ""
        return (f"{status}{name}: rate {self.scheme.rate} over F_{self.scheme.field}, {self.engine} engine, "
                f"{self.checked} configurations checked, {len(self.leaks)} leaking")

    def leak_rows(self, include_all: bool = False) -> list[tuple[int, int, int, str]]:
        """``(k, m, n, leak)`` of each leaking configuration (of every one measured, with ``include_all``),
        the leak in q-ary symbols."""
        return [(lk.k, lk.m, lk.n, str(lk.symbols) if lk.exact else
                 f"≈{lk.approx:.6g} (not a rational multiple of log q)")
                for lk in (self.measured if include_all else self.leaks)]

    def rows(self) -> list[tuple[str, str]]:
        sch = self.scheme
        wrong = [k for k, ok in self.correct.items() if not ok]
        rows = [("scheme", f"F_{sch.field}, L = {sch.L}, {sch.key_symbols} key symbols, "
                           f"construction {sch.construction or 'not given'}"),
                ("correctness", "every server decodes ΣW" if not wrong else
                 "ΣW not decodable at server(s) " + ", ".join(map(str, wrong))),
                ("security", f"{self.checked} configurations (k,m,n) checked, {self.trivial} with "
                             f"S_m = ∅, {len(self.leaks)} leaking")]
        for lk in self.leaks[:SHOWN_LEAKS]:
            value = lk.symbols if lk.exact else f"≈ {lk.approx:.6g}"
            rows.append((f"leak {display.config((lk.k, lk.m, lk.n))}", f"{value} q-ary symbols"))
        if len(self.leaks) > SHOWN_LEAKS:
            rows.append(("leaks", f"… {len(self.leaks)} in all"))
        if self.fallback:
            rows.append(("engine", self.fallback))
        return rows

    def leak(self, k: int, m: int, n: int) -> Leak | None:
        """The entry of configuration ``(k, m, n)``, ``None`` if trivial."""
        for lk in self.measured:
            if (lk.k, lk.m, lk.n) == (k, m, n):
                return lk
        return None


# ---------------------------------------------------------------------------
def verify(instance: Instance, scheme: Scheme, engine: str = "auto",
           progress: Progress | None = None, *, rank_backend: str = "flint",
           enum_budget: int | None = None) -> Verdict:
    """Check a scheme's correctness and all security constraints exactly.

    Parameters
    ----------
    instance : Instance
    scheme : Scheme
    engine : {"auto", "rank", "enumerate"}
        ``auto`` enumerates when ``q^dim <= AUTO_MAX_SOURCE`` and the work is
        below ``AUTO_MAX_WORK``, otherwise uses ``rank`` and records why in
        ``Verdict.fallback``.
    progress : callable(Event), optional
        Called periodically with an :class:`itsa._util.progress.Event` whose
        ``done`` of ``total`` count the configurations checked.
    rank_backend : {"flint", "galois"}
        Rank backend of the rank engine (``galois`` is the slow reference).
    enum_budget : int, optional
        Work limit of ``enumerate`` (source values x histogram passes),
        default :data:`ENUM_BUDGET`.

    Returns
    -------
    Verdict

    Raises
    ------
    InvalidScheme
        If the scheme names users outside the instance.
    InvalidOption
        If
        ``engine="enumerate"`` would exceed its budget (a request too large).

    Notes
    -----
    Correctness is the paper's constraint (6), security its constraint (7)
    (Sec. II; docs/model.md §1), every ``(k, m, n)``; ``S_m = ∅``
    gives 0 and is only counted (``Verdict.trivial``). ``W_{S_m ∩ T_n}`` is
    part of the condition, so configurations are grouped by
    ``S_m \\ T_n`` and each group is computed once.

    The rank engine uses docs/model.md §7 in the form
    ``I = rk(B·N_C) - rk(B·N_{[A;C]})``, ``N_X`` a basis of the right kernel
    of ``X`` (equal to the four-rank formula, see :func:`itsa.keys.schemes.engines.rank_engine`).

    The enumeration engine counts, for each joint variable ``X``, the number
    ``n_x`` of source values giving each value ``x``, and keeps
    ``Σ_x n_x ln n_x`` as an exact integer combination of ``ln p`` over primes
    ``p`` (from the factorisations of the counts). Then
    ``I(A;B|C)·q^dim·ln q = S(ABC) + S(C) - S(AC) - S(BC)``; by unique
    factorisation it is zero iff every prime coefficient is zero (the test of
    conditional independence), and it is a rational number of q-ary units iff
    only ``p = q`` remains (then ``symbols`` is that rational; otherwise ``symbols``
    is ``None`` and ``approx`` is a float). Correctness by enumeration: every
    view value occurs with a single ``ΣW`` value.

    Examples
    --------
    >>> inst = Instance.from_users([1, 1, 1], [[(1, 1)]], [[]])
    >>> s = Scheme(3, 1, 2, {0: [[1, 0]], 1: [[0, 1]], 2: [[-1, -1]]})
    >>> v = verify(inst, s)
    >>> v.engine, v.ok, v.checked
    ('enumerate', True, 3)
    >>> v
    <Verdict PASS: rate 2 over F_3, enumerate engine, 3 configurations checked, 0 leaking>
    >>> verify(inst, Scheme(3, 1, 0, {}), engine="rank").leaks[0]
    <Leak (1,1,1): 1 symbols>
    """
    choice("engine", engine, ENGINES)
    scheme.check_fits(instance)
    check_verifiable(instance, scheme.L, scheme.key_symbols)
    plan = Plan(instance, scheme)
    fallback = None
    if engine == Engine.AUTO:
        if plan.samples <= AUTO_MAX_SOURCE and plan.work <= AUTO_MAX_WORK:
            engine = "enumerate"
        else:
            fallback = (f"q^dim = {scheme.field}^{plan.dim} = {plan.samples_text} source values "
                        f"x {plan.passes} passes exceeds the automatic enumeration limit "
                        f"({AUTO_MAX_SOURCE:.0e} values, {AUTO_MAX_WORK:.0e} work); used rank")
            engine = "rank"
    elif engine == Engine.ENUMERATE:
        budget = ENUM_BUDGET if enum_budget is None else enum_budget
        if plan.samples > ENUM_MAX_SOURCE or plan.work > budget:
            raise InvalidOption(
                f"exhaustive enumeration too large: q^dim = {scheme.field}^{plan.dim} = "
                f"{plan.samples_text} source values x {plan.passes} passes = {plan.work_text} "
                f"(limits: {ENUM_MAX_SOURCE:.0e} values, {budget:.0e} work); the rank engine decides "
                f"this scheme exactly, at any size (--engine rank, or auto); or raise the budget")
    tick = counting(progress, f"verify ({engine})")
    if engine == Engine.RANK:
        correct, values, inferred = rank_engine(plan, tick, rank_backend)
    else:
        correct, values, inferred = enumeration_engine(plan, tick)
    leaks = tuple(Leak(k + 1, m + 1, n + 1, *values[k, m, n]) for k, m, n in sorted(values))
    return Verdict(instance=instance, scheme=scheme, engine=engine, correct={k + 1: c for k, c in enumerate(correct)}, measured=leaks,
                   trivial=plan.trivial, fallback=fallback, source_dim=plan.dim, inferred=inferred)


def check_verifiable(instance: Instance, L: int, key_symbols: int) -> None:
    """Refuse, before any allocation, more than :data:`MAX_VERIFY_DIM` source symbols ``K·L + d``.

    >>> check_verifiable(Instance((2, 1, 1), (1,), (0,)), 1, 5000)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidScheme: too large to verify: K·L + key_symbols = 4·1 + 5000 = 5,004 source symbols (limit 2,048)
    """
    dim = instance.K * L + key_symbols
    if dim > MAX_VERIFY_DIM:
        raise InvalidScheme(
            f"too large to verify: K·L + key_symbols = {instance.K}·{L} + {key_symbols} "
            f"= {dim:,} source symbols (limit {MAX_VERIFY_DIM:,})")
