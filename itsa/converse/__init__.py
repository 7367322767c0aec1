"""Computer-aided converses: Shannon-type LPs with exact certificates and readable proofs.

:func:`converse` bounds an instance's optimal source key rate from below:

* ``keys`` (the default): key entropies with the general group lemma
  (docs/converse.md §3);
* ``model``: every variable of the model (docs/converse.md §2), an
  independent cross-check on small instances.

Both bound **every scheme of the model**: any encoders, relays and keys. The
registry :mod:`itsa.converse.classes` holds each LP's facts.

The instance becomes an :class:`~.problem.EntropyProblem`, the problem a
reduced LP (:mod:`.lp`), the LP's float dual an exact certificate
(:mod:`.certificate`), and the certificate a proof (:mod:`.proof`). A bound is
reported as proved only when its certificate checks in exact arithmetic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from itsa._util.display import Displayable
from itsa.bounds.corrected import EVERY_SCHEME
from itsa.converse.certificate import Certificate, certify, check_certificate
from itsa.converse.classes import CLASSES, REGISTRY, lookup
from itsa.converse.lp import ReducedLP, reduce_problem, solve_float
from itsa.converse.problem import EntropyProblem, build_problem
from itsa.exceptions import InvalidInstance
from itsa.model.instance import Instance
from itsa.output.report import SCHEMA_VERSION

#: Largest number of users each LP accepts. The model LP grows as 2^(3K+U+1); the keys
#: LP has one column per orbit of user sets (:mod:`.orbit`) and refuses instances
#: with too many orbits whatever K is.
MAX_USERS = {name: c.max_users for name, c in REGISTRY.items()}
#: Largest K of the keys LP without symmetry (one column per user set).
PLAIN_MAX_USERS = 12
#: Default time budget (seconds) of ``itsa converse`` and ``itsa solve``.
DEFAULT_TIME_LIMIT = 300.0
#: Seconds per (column × row) of the reduced LP for the float solve and the exact
#: certificate together, on 2 shared cores: below every ratio measured by
#: benchmarks/bench_converse.py (1.2e-7 to 6.4e-7 on model and keys LPs of 10^6 to
#: 2·10^8 column-rows; over 3.2e-7 at 3.8·10^9), so the estimate errs on the short side.
SECONDS_PER_CELL = 1e-7

__all__ = ["CLASSES", "MAX_USERS", "REGISTRY", "DEFAULT_TIME_LIMIT", "ConverseBound", "converse",
           "Certificate", "EntropyProblem", "check_certificate", "estimate_seconds", "lookup"]


@dataclass(frozen=True, repr=False)
class ConverseBound(Displayable):
    """``R_ZΣ >= value`` for the schemes of ``scope``, proved by the converse LP ``method``.

    ``certified`` is true only when ``certificate`` re-checked exactly; then
    ``value`` is the proved bound. Otherwise ``value`` is ``None`` and
    ``status`` says what failed (the float solver, or the certificate).
    ``float_value`` is the solver's own answer, for the record only.
    """

    method: str
    value: Fraction | None
    certified: bool
    status: str
    float_value: float | None
    sizes: dict
    seconds: dict
    certificate: Certificate | None = None
    lp: ReducedLP | None = field(default=None, repr=False, compare=False)
    primal: tuple[float, ...] = field(default=(), repr=False, compare=False)
    estimate: float | None = field(default=None, compare=False)

    @property
    def cut(self) -> bool:
        """Whether the time budget stopped the run (``status`` says where) or skipped it."""
        return self.status.startswith(("cut", "skipped"))

    def key_entropies(self, max_size: int = 2) -> dict[int, Fraction]:
        """``h(Z_A)`` at the LP's optimum for user sets ``A`` of at most ``max_size`` users.

        A hint for scheme search, read off the float primal (rounded to a small
        denominator): no part of any proof.
        """
        if self.lp is None or not self.primal:
            return {}
        from itertools import combinations

        keys = self.lp.problem.keys
        out = {}
        for size in range(1, max_size + 1):
            for users in combinations(range(len(keys)), size):
                A = sum(1 << i for i in users)
                o = self.lp.orbit(self.lp.closure(sum(1 << keys[i] for i in users)))
                out[A] = Fraction(self.primal[o - 1] if o else 0.0).limit_denominator(24)
        return out

    def _headline(self) -> str:
        if self.certified:
            return f"R_ZΣ ≥ {self.value} ({self.method} LP, certified)"
        return f"no bound ({self.method} LP: {self.status})"

    def _rows(self) -> list[tuple[str, str]]:
        rows = [("LP", f"{self.method}: {lookup(self.method).description}"),
                ("holds for", self.scope), ("status", self.status)]
        if self.certified:
            rows.append(("certificate", f"{self.certificate.size} rows, checked exactly"))
        if self.sizes:
            rows.append(("size", f"{self.sizes['columns']} columns × {self.sizes['rows']} rows "
                               f"({self.sizes['columns_raw']} × {self.sizes['rows_raw']} before reduction)"))
        return rows

    @property
    def scope(self) -> str:
        """The schemes the bound holds for."""
        return lookup(self.method).scope

    @property
    def scheme_class(self) -> str:
        """``"general"`` when the bound holds for every scheme of the model, else the LP's name."""
        return "general" if self.scope == EVERY_SCHEME else self.method

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION,
                "value": None if self.value is None else str(self.value),
                "class": self.scheme_class, "method": self.method, "scope": self.scope,
                "certified": self.certified, "status": self.status,
                "float_value": self.float_value, "lp": self.sizes,
                "certificate_rows": None if self.certificate is None else self.certificate.size,
                "cut": self.cut,
                "estimated_seconds": None if self.estimate is None else round(self.estimate, 1),
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()}}


def estimate_seconds(sizes: dict) -> float:
    """Seconds the float solve and the certificate take on a reduced LP of these ``sizes``.

    ``SECONDS_PER_CELL · columns · rows``: a model measured on 2 shared cores
    that errs on the short side, so a budget is never refused to an LP that fits.

    >>> estimate_seconds({"columns": 1000, "rows": 20000})
    2.0
    """
    return round(SECONDS_PER_CELL * sizes["columns"] * sizes["rows"], 6)


def check_size(instance: Instance, method: str, symmetry: bool = True) -> None:
    """Raise :class:`InvalidInstance` when ``instance`` is beyond the LP's size limit.

    The message says why the LP is not run (users, or orbits of user sets).
    """
    entry = lookup(method)
    limit = entry.max_users if symmetry or entry.name != "keys" else PLAIN_MAX_USERS
    if instance.K > limit:
        raise InvalidInstance(f"the {entry.name} converse takes at most {limit} "
                              f"users; this instance has K = {instance.K}")
    if entry.name == "keys" and symmetry:
        from itsa.converse.orbit import orbit_count

        why = orbit_count(instance)[1]
        if why:
            raise InvalidInstance(f"the {entry.name} converse LP is not run: {why}")


def _reduced(instance: Instance, method: str, symmetry: bool) -> ReducedLP:
    """The reduced LP: orbits of user sets for the keys LP, closed sets otherwise."""
    if method == "keys" and symmetry:
        from itsa.converse.orbit import orbit_lp

        return orbit_lp(instance)
    return reduce_problem(build_problem(instance, method), symmetry=symmetry)


def converse(instance: Instance, method: str = "keys", time_limit: float | None = None,
             symmetry: bool = True, progress=None, max_estimate: float | None = None) -> ConverseBound:
    """A certified lower bound on the source key rate for ``instance`` (every scheme, unless ``linear``).

    Parameters
    ----------
    instance : Instance
    method : {"keys", "model", "linear"}
        The converse LP (:mod:`itsa.converse.classes`); the old names
        ``"additive"`` and ``"general"`` are accepted. ``"linear"`` bounds
        schemes with linear keys only (its ``scope`` says so).
    time_limit : float, optional
        Seconds for the whole call. When it runs out the result is not
        certified and its ``status`` says which stage was cut.
    symmetry : bool
        Use the instance's automorphisms to shrink the LP (for the keys LP,
        the orbit LP of :mod:`.orbit`).
    progress : callable, optional
        Called with an :class:`itsa._util.progress.Event` at every stage and round.
    max_estimate : float, optional
        Skip the solve (status ``"skipped: ..."``) when :func:`estimate_seconds`
        of the reduced LP exceeds this many seconds less the reduction's.

    Examples
    --------
    >>> from itsa import examples
    >>> b = converse(examples.load("audit/fractional-optimum"))
    >>> b.value, b.certified, b.scheme_class
    (Fraction(3, 2), True, 'general')
    >>> converse(examples.homogeneous(4, 8, 2)).value        # K = 32, 494 orbit columns
    Fraction(12, 1)
    """
    from itsa._util.progress import Reporter

    entry = lookup(method)
    if entry.runner:                       # an LP with its own solver (itsa.converse.linear)
        import importlib

        module, func = entry.runner.split(":")
        return getattr(importlib.import_module(f"{__name__}.{module}"), func)(
            instance, time_limit=time_limit, progress=progress, max_estimate=max_estimate)
    method = entry.name
    check_size(instance, method, symmetry)
    report = Reporter(progress, method)
    t0 = time.perf_counter()
    report("reduce")
    return solve_and_certify(_reduced(instance, method, symmetry), method, t0, report,
                             time_limit=time_limit, max_estimate=max_estimate)


def solve_and_certify(rlp: ReducedLP, method: str, t0: float, report, *, time_limit=None,
                      max_estimate=None, solver=solve_float) -> ConverseBound:
    """The stages after the reduction, shared by every LP: the budget, the float solve, the certificate.

    ``t0`` is when the call began (``time.perf_counter()``), ``report`` an
    :class:`itsa._util.progress.Reporter`; ``solver(rlp, time_limit=, progress=)``
    returns a :class:`~.lp.FloatSolution` (the linear LP's adds Ingleton cuts
    to ``rlp`` as it goes).
    """
    t1 = time.perf_counter()
    secs = {"reduce": t1 - t0}
    est = estimate_seconds(rlp.sizes)
    report("reduced", columns=rlp.n_columns, rows=rlp.sizes["rows"],
           note=f"about {est:.0f} s to solve and certify")
    size = f"{rlp.n_columns} columns × {rlp.sizes['rows']} rows"

    def stop(status, value=None):
        return ConverseBound(method, None, False, status, value, rlp.sizes, secs, None, rlp,
                             estimate=est)
    if max_estimate is not None and est > max_estimate - (t1 - t0):
        return stop(f"skipped: about {est:.0f} s estimated from the LP's size ({size}), "
                    f"{max(0.0, max_estimate - (t1 - t0)):.0f} s left of the time limit")
    left = None if time_limit is None else time_limit - (t1 - t0)
    if left is not None and left <= 0:
        return stop(f"cut: time limit reached while reducing the LP ({size})")
    sol = solver(rlp, time_limit=left, progress=report)
    secs["solve"] = sol.seconds
    if sol.status != "optimal":
        cut = sol.status.startswith("time limit")
        return stop(f"cut: {sol.status}" if cut else f"solver failed: {sol.status}")
    t2 = time.perf_counter()
    report("certify", columns=rlp.n_columns, rows=rlp.sizes["rows"])
    left = None if time_limit is None else time_limit - (t2 - t0)
    cert = certify(rlp, sol, time_limit=left)
    secs["certify"] = time.perf_counter() - t2
    if cert is None:
        out = left is not None and time.perf_counter() - t0 >= time_limit
        return stop("cut: time limit reached while certifying" if out
                    else "certificate did not check exactly", sol.value)
    return ConverseBound(method, cert.value, True, "certified", sol.value, rlp.sizes, secs,
                         cert, rlp, tuple(sol.x.tolist()), estimate=est)
