"""Computer-aided converses: Shannon-type LPs with exact certificates and readable proofs.

:func:`converse` bounds an instance's optimal source key rate from below:

* ``keys`` (the default): key entropies with the general group lemma
  (docs/converse.md §3);
* ``model``: every variable of the model (docs/converse.md §2), an
  independent cross-check on small instances.

Both bound **every scheme of the model**: any encoders, relays and keys. The
registry :mod:`itsa.keys.converse.registry` holds each LP's entry (:mod:`.classes`).

The instance becomes an :class:`~.problem.EntropyProblem`, the problem a
reduced LP (:mod:`.lp`, :mod:`.orbit`, or :mod:`.lazy` for the keys LP
without symmetry), the LP a float optimum with its basis (:mod:`.solver`),
the basis an exact certificate (:mod:`.certificate`), and the certificate a
proof (:mod:`.proof`). A bound is
reported as proved only when its certificate checks in exact arithmetic.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

from itsa._util.deadline import Deadline
from itsa._util.progress import Reporter
from itsa.exceptions import InvalidInstance
from itsa.keys.bounds.corrected import corrected_lower_bound
from itsa.keys.converse.certificate import Certificate, check_certificate
from itsa.keys.converse.lazy import MAX_LAZY_USERS, lazy_lp
from itsa.keys.converse.lp import ReducedLP, reduce_problem
from itsa.keys.converse.orbit import TooManyRows, orbit_count, orbit_lp
from itsa.keys.converse.pipeline import (
    DEFAULT_TIME_LIMIT,
    PLAIN_MAX_USERS,
    ConverseBound,
    ConverseProof,
    check_size,
    estimate_seconds,
    solve_and_certify,
)
from itsa.keys.converse.problem import KEYS, EntropyProblem
from itsa.keys.converse.registry import CLASSES, REGISTRY, build_problem, lookup
from itsa.keys.converse.solver import solve_float
from itsa.keys.model.instance import Instance

#: Largest number of users each LP accepts. The model LP grows as 2^(3K+U+1); the keys
#: LP has one column per orbit of user sets (:mod:`.orbit`) and refuses instances
#: with too many orbits whatever K is.
MAX_USERS = {name: c.max_users for name, c in REGISTRY.items()}

__all__ = ["CLASSES", "MAX_USERS", "REGISTRY", "DEFAULT_TIME_LIMIT", "ConverseBound", "ConverseProof", "converse", "prove",
           "Certificate", "EntropyProblem", "check_certificate", "estimate_seconds", "lookup",
           "check_size", "solve_and_certify"]


def _reduced(instance: Instance, method: str, symmetry: bool) -> ReducedLP:
    """The reduced LP: orbits of user sets for the keys LP, closed sets otherwise.

    The keys LP with almost no symmetry (more than ``2^(K-1)`` and
    ``2^PLAIN_MAX_USERS`` count vectors: at most one pair of interchangeable
    users, ``K > 12``), whose orbits give too many rows to build, or that
    is asked for without symmetry past :data:`~.pipeline.PLAIN_MAX_USERS`, is
    the LP on every user set with its elemental rows held as arrays, solved by
    separation (:mod:`.lazy`).
    """
    if method == KEYS.name:
        if symmetry and instance.K <= MAX_LAZY_USERS and orbit_count(instance)[0] > _lazy_from(instance.K):
            return lazy_lp(instance)             # almost no symmetry, past K = 12
        if symmetry:
            try:
                return orbit_lp(instance)
            except TooManyRows as exc:
                if instance.K > MAX_LAZY_USERS:
                    raise InvalidInstance(f"{exc}; the keys LP on every user set takes at most "
                                          f"{MAX_LAZY_USERS} users") from None
        if symmetry or instance.K > PLAIN_MAX_USERS:
            return lazy_lp(instance)
    return reduce_problem(build_problem(instance, method), symmetry=symmetry)


def _lazy_from(K: int) -> int:
    """Count vectors past which the keys LP goes to every user set (:func:`_reduced`)."""
    return max(1 << PLAIN_MAX_USERS, 1 << (K - 1))


def converse(instance: Instance, lp: str = "keys", time_limit: float | None = None,
             symmetry: bool = True, progress=None, max_estimate: float | None = None,
             rate_goal: Fraction | None = None, separation_limit: float | None = None,
             floor: Fraction | None = None, *, method: str | None = None) -> ConverseBound:
    """A certified lower bound on the source key rate for ``instance`` (every scheme, unless ``linear``).

    Parameters
    ----------
    instance : Instance
    lp : {"keys", "model", "linear"}
        The converse LP (:mod:`itsa.keys.converse.classes`); the old names
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
    rate_goal : Fraction, optional
        The bound sought (say, the rate of a known scheme). An LP solved by
        separation (the keys LP on every user set, :mod:`.lazy`) stops as soon
        as its relaxation reaches it; ``relaxed`` then says so.
    separation_limit : float, optional
        Seconds after which such an LP starts no new round (its first round
        always runs, within ``time_limit``); by default, the time limit.
    floor : Fraction, optional
        A bound already proved otherwise: such an LP starts no new round after
        one whose value is not above it.
    method : str, optional
        The old name of ``lp``.

    Examples
    --------
    >>> from itsa import examples
    >>> b = converse(examples.load("audit/fractional-optimum"))
    >>> b.value, b.certified, b.scheme_class
    (Fraction(3, 2), True, 'general')
    >>> converse(examples.homogeneous(4, 8, 2)).value        # K = 32, 494 orbit columns
    Fraction(12, 1)
    """
    entry = lookup(lp if method is None else method)
    if entry.runner is not None:           # an LP with its own solver (itsa.keys.converse.linear)
        bound = entry.runner(instance, time_limit=time_limit, progress=progress, max_estimate=max_estimate)
    else:
        check_size(instance, entry, symmetry)
        clock = Deadline(time_limit)
        report = Reporter(progress, entry.name)
        report("reduce")
        solver = functools.partial(solve_float, target=None if rate_goal is None else float(rate_goal),
                                   separation_limit=separation_limit,
                                   floor=None if floor is None else float(floor))
        bound = solve_and_certify(_reduced(instance, entry.name, symmetry), clock, report,
                                  max_estimate=max_estimate, solver=solver)
    if bound.cut:                          # the best bound proved all the same: the corrected chain bound
        bound = dataclasses.replace(bound, fallback=corrected_lower_bound(instance))
    return bound




#: The endings of a proof file: Markdown or LaTeX (:func:`itsa.keys.converse.proof.write_proof`).
PROOF_SUFFIXES = (".md", ".tex")


def prove(instance: Instance, lp: str = "keys", *, proof_file: str | None = None,
          time_limit: float | None = DEFAULT_TIME_LIMIT, progress=None, method: str | None = None) -> ConverseProof:
    """:func:`converse`, and the proof of a certified bound written to ``proof_file``.

    Parameters
    ----------
    instance : Instance
    lp : str
        The converse LP (see :func:`converse`).
    proof_file : str, optional
        ``FILE.md`` (Markdown) or ``FILE.tex`` (LaTeX); refused before any work
        when it ends otherwise. Written only when the bound is certified.
    time_limit : float, optional
        Seconds for the whole call (``None``: no limit).
    progress : callable, optional
        As for :func:`converse`.
    method : str, optional
        The old name of ``lp``.

    Examples
    --------
    >>> from itsa import examples
    >>> prove(examples.load("audit/fractional-optimum")).headline()   # doctest: +ELLIPSIS
    'audit-fractional-optimum: R_ZΣ ≥ 3/2 for every scheme of the model ...'
    """
    from itsa.exceptions import InvalidOutputPath

    if proof_file is not None:
        from itsa._util.files import check_output_file

        check_output_file(proof_file)         # a FIFO, a device, a folder, an empty or too long name: before the work
    if proof_file and not str(proof_file).endswith(PROOF_SUFFIXES):
        raise InvalidOutputPath(f"proof file {proof_file}: the file must end in .md or .tex")
    bound = converse(instance, lp if method is None else method, time_limit=time_limit, progress=progress)
    if not (bound.certified and proof_file):
        return ConverseProof(instance, bound)
    from itsa.keys.converse.proof import write_proof

    write_proof(bound, instance, proof_file)
    return ConverseProof(instance, bound, str(proof_file))
