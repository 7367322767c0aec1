"""Converse problems as declarations: random variables, dependencies, constraints.

An :class:`EntropyProblem` says *what* is known about a joint distribution, in
the shape of the computer-aided converses of information theory: named random
variables, functional dependencies (``H(rhs | lhs) = 0``), linear entropy
constraints with their reasons, an objective to minimise and the symmetries of
the problem. It says nothing of how the linear program is built
(:mod:`itsa.keys.converse.lp`), certified (:mod:`itsa.keys.converse.certificate`) or
printed (:mod:`itsa.keys.converse.proof`).

Sets of random variables are bitmasks over the problem's variables, and a
linear form in entropies is a ``dict`` from such a mask to its coefficient.
Entropies are measured in units of ``L`` q-ary symbols (so ``H(W_k) = 1``).

Two problems are built from an :class:`~itsa.keys.model.instance.Instance`, one per
entry of :data:`itsa.keys.converse.registry.REGISTRY`; both bound every scheme of
the model (docs/model.md §1):

* :func:`keys_problem` (LP ``keys``): the keys alone, through the general
  group lemma (docs/converse.md §3);
* :func:`model_problem` (LP ``model``): every variable of the model with its
  own constraints (docs/converse.md §2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from itsa._util.bitset import mask_of, members
from itsa._util.display import user
from itsa.keys.bounds.corrected import EVERY_SCHEME, structures
from itsa.keys.converse.classes import GROUP_LEMMA, INJECTIVITY_LEMMA, ConverseClass
from itsa.keys.converse.symmetry import instance_automorphisms
from itsa.keys.model.instance import Instance

Form = dict[int, Fraction]


@dataclass(frozen=True)
class Dependency:
    """``H(rhs | lhs) = 0``: the variables of ``rhs`` are functions of those of ``lhs``."""

    lhs: int
    rhs: int
    reason: str


@dataclass(frozen=True)
class Constraint:
    """``Σ form[A]·H(A)  (sense)  rhs``, with ``sense`` ``"="`` or ``">="``."""

    form: tuple[tuple[int, Fraction], ...]
    sense: str
    rhs: Fraction
    reason: str


@dataclass(kw_only=True, frozen=True)
class EntropyProblem:
    """A converse problem: minimise ``objective`` over the entropy vectors allowed.

    ``generators`` are permutations of the variables (``perm[i]`` is the image
    of variable ``i``) that map the problem to itself; they generate the group
    used to shrink the LP.
    """

    names: tuple[str, ...]
    dependencies: tuple[Dependency, ...]
    constraints: tuple[Constraint, ...]
    objective: tuple[tuple[int, Fraction], ...]
    generators: tuple[tuple[int, ...], ...] = ()
    method: str = "model"               # the name of the converse LP it belongs to
    keys: tuple[int, ...] = ()          # the variable of each user's key
    notes: tuple[str, ...] = field(default=(), compare=False)
    kind: ConverseClass | None = field(default=None, compare=False)   # that LP's entry: scope, lemmas

    @property
    def lemmas(self) -> tuple:
        """The lemmas the LP's rows may cite (none for a problem built by hand)."""
        return self.kind.lemmas if self.kind is not None else ()

    @property
    def n(self) -> int:
        return len(self.names)

    def set_name(self, mask: int) -> str:
        """``W_(1,1), Z_(2,1)`` style name of a set of variables (``∅`` when empty)."""
        return ", ".join(self.names[i] for i in members(mask)) or "∅"


def mutual_information(a: int, b: int, c: int = 0) -> Form:
    """The form of ``I(A; B | C) = H(AC) + H(BC) - H(ABC) - H(C)``.

    >>> sorted(mutual_information(0b01, 0b10).items())
    [(0, Fraction(-1, 1)), (1, Fraction(1, 1)), (2, Fraction(1, 1)), (3, Fraction(-1, 1))]
    """
    out: Form = {}
    for s, w in ((a | c, 1), (b | c, 1), (a | b | c, -1), (c, -1)):
        out[s] = out.get(s, Fraction(0)) + w
    return out


def ingleton_form(a: int, b: int, c: int, d: int) -> Form:
    """``I(A;B|C) + I(A;B|D) + I(C;D) - I(A;B)`` (``>= 0`` for subspaces), over variable-set masks.

    Examples
    --------
    Four generic lines in a plane (``h = 1`` per line, 2 for two or more):
    ``I(A;B|C) + I(A;B|D) + I(C;D) - I(A;B) = 1 + 1 + 0 - 0``.

    >>> form = ingleton_form(1, 2, 4, 8)
    >>> h = lambda m: min(2, bin(m).count("1"))
    >>> sum(w * h(m) for m, w in form.items())
    Fraction(2, 1)
    """
    out: Form = {}
    for part, sign in ((mutual_information(a, b, c), 1), (mutual_information(a, b, d), 1),
                       (mutual_information(c, d), 1), (mutual_information(a, b), -1)):
        for s, w in part.items():
            out[s] = out.get(s, Fraction(0)) + sign * w
    return {s: w for s, w in out.items() if w}


def _constraint(form: Mapping[int, Fraction | int], sense: str, rhs, reason: str) -> Constraint:
    items = tuple(sorted((s, Fraction(w)) for s, w in form.items() if w))
    return Constraint(items, sense, Fraction(rhs), reason)


def _user(instance: Instance, i: int) -> str:
    return user(*instance.label(i))


def sets_text(instance: Instance, m: int, n: int) -> str:
    """``S_2 = {(1,1)}, T_3 = {(2,1), (3,1)}``: a configuration's sets by name and members."""
    return (f"S_{m} = {instance.describe(instance.security_sets[m - 1])}, "
            f"T_{n} = {instance.describe(instance.collusion_sets[n - 1])}")


def model_problem(instance: Instance) -> EntropyProblem:
    """The Shannon-type problem in every variable of the model (docs/model.md §1).

    Variables: ``W_k`` and ``Z_k`` for every user, ``ΣW``, ``X_k`` for every
    user and ``Y_u`` for every server (``3K + U + 1`` in all).

    Examples
    --------
    >>> inst = Instance.from_users([1, 1, 1], [[(1, 1)]], [[]])
    >>> p = model_problem(inst)
    >>> p.n, len(p.dependencies)
    (13, 16)
    """
    K, U = instance.K, instance.U
    W = [i for i in range(K)]
    S = K
    Z = [K + 1 + i for i in range(K)]
    X = [2 * K + 1 + i for i in range(K)]
    Y = [3 * K + 1 + u for u in range(U)]
    names = ([f"W{_user(instance, i)}" for i in range(K)] + ["ΣW"]
             + [f"Z{_user(instance, i)}" for i in range(K)]
             + [f"X{_user(instance, i)}" for i in range(K)]
             + [f"Y{u + 1}" for u in range(U)])
    W_all, Z_all = mask_of(W), mask_of(Z)
    users_of = [members(m) for m in instance.server_masks]
    X_of = [mask_of(X[i] for i in us) for us in users_of]

    deps = [Dependency(W_all, 1 << S, "ΣW is the sum of the inputs")]
    for i in range(K):
        deps.append(Dependency((1 << S) | (W_all & ~(1 << W[i])), 1 << W[i],
                               f"W{_user(instance, i)} = ΣW minus the other inputs"))
    for i in range(K):
        deps.append(Dependency((1 << W[i]) | (1 << Z[i]), 1 << X[i],
                               f"X{_user(instance, i)} is a function of W{_user(instance, i)} and Z{_user(instance, i)}"))
        deps.append(Dependency((1 << X[i]) | (1 << Z[i]), 1 << W[i],
                               f"W{_user(instance, i)} is a function of X{_user(instance, i)} and "
                               f"Z{_user(instance, i)} (correctness, docs/converse.md §2)"))
    for u in range(U):
        deps.append(Dependency(X_of[u], 1 << Y[u], f"Y{u + 1} is a function of server {u + 1}'s X"))
    for k in range(U):
        view = X_of[k] | mask_of(Y[u] for u in range(U) if u != k)
        deps.append(Dependency(view, 1 << S, f"correctness: server {k + 1} decodes ΣW"))

    cons = [_constraint({1 << W[i]: 1}, "=", 1, f"W{_user(instance, i)} is uniform: H = L")
            for i in range(K)]
    cons.append(_constraint({1 << S: 1}, "=", 1, "ΣW is uniform: H = L"))
    indep = {W_all | Z_all: Fraction(1), Z_all: Fraction(-1)}
    for i in range(K):
        indep[1 << W[i]] = Fraction(-1)
    cons.append(_constraint(indep, "=", 0, "inputs and keys are mutually independent"))
    seen: set[tuple] = set()
    for n, T in enumerate(instance.collusion_sets, 1):
        for m, Sm in enumerate(instance.security_sets, 1):
            if not Sm & ~T:
                continue                      # nothing left to protect
            for k in range(U):
                key = (k, Sm & ~T, T)
                if key in seen:
                    continue
                seen.add(key)
                view = X_of[k] | mask_of(Y[u] for u in range(U) if u != k)
                cond = (1 << S) | mask_of(W[i] for i in members(T)) | mask_of(Z[i] for i in members(T))
                form = mutual_information(view, mask_of(W[i] for i in members(Sm)), cond)
                cons.append(_constraint(form, "=", 0, f"security of server {k + 1} for "
                                        f"{sets_text(instance, m, n)}"))
    gens = tuple(_lift(instance, g, [W, [S], Z, X], Y) for g in instance_automorphisms(instance))
    return EntropyProblem(names=tuple(names), dependencies=tuple(deps), constraints=tuple(cons), objective=((Z_all, Fraction(1)),),
                          generators=gens, method="model", keys=tuple(Z), kind=MODEL)


def _lift(instance: Instance, user_perm: tuple[int, ...], user_blocks, Y) -> tuple[int, ...]:
    """A user permutation as a permutation of the general problem's variables."""
    perm = list(range(sum(len(b) for b in user_blocks) + len(Y)))
    for block in user_blocks:
        if len(block) == instance.K:
            for i, v in enumerate(block):
                perm[v] = block[user_perm[i]]
    for u, Ku in enumerate(instance.server_masks):
        image = mask_of(user_perm[i] for i in members(Ku))
        perm[Y[u]] = Y[instance.server_masks.index(image)]
    return tuple(perm)


def keys_problem(instance: Instance) -> EntropyProblem:
    """The key-only problem, valid for every scheme of the model.

    One variable ``Z_k`` per user. Every configuration ``(k, m, n)`` and every
    union ``Y`` of its groups gives ``H(Z_Y | Z_{T_n}) >= gain(k, m, n; Y)``
    (the general group lemma, docs/converse.md §3, which holds for any
    encoders and relays); Shannon inequalities do the rest.

    Examples
    --------
    >>> inst = Instance.from_users([1, 1, 1], [[(1, 1)]], [[]])
    >>> p = keys_problem(inst)
    >>> p.n, len(p.constraints) > 0
    (3, True)
    """
    best: dict[tuple[int, int], tuple[int, str]] = {}
    for st in structures(instance):
        T, groups = st.T, st.groups
        for pick in range(1, 1 << len(groups)):
            Y = 0
            for j, g in enumerate(groups):
                if pick >> j & 1:
                    Y |= g
            gain = st.gain(Y)
            if gain <= 0:
                continue
            k, m, n = st.config
            key = (Y | T, T)
            if key not in best or gain > best[key][0]:
                best[key] = (gain, f"general group lemma for server {k}, {sets_text(instance, m, n)}, "
                             f"Y = {instance.describe(Y)}")
    cons = [_constraint({YT: 1, T: -1} if T else {YT: 1}, ">=", gain, reason)
            for (YT, T), (gain, reason) in sorted(best.items())]
    names = tuple(f"Z{_user(instance, i)}" for i in range(instance.K))
    gens = tuple(tuple(g) for g in instance_automorphisms(instance))
    return EntropyProblem(names=names, dependencies=(), constraints=tuple(cons), objective=((instance.full_mask, Fraction(1)),),
                          generators=gens, method="keys", keys=tuple(range(instance.K)), kind=KEYS)


#: The names these builders had before the group lemma was proved for every encoder.
general_problem, additive_problem = model_problem, keys_problem


#: The keys LP (the default): key entropies, the general group lemma, Shannon inequalities.
KEYS = ConverseClass(name="keys", builder=keys_problem, max_users=64, scope=EVERY_SCHEME,
                     description="key entropies with the general group lemma", lemmas=(GROUP_LEMMA,), alias="additive")
#: The model LP: every variable of the model with its own constraints (a cross-check, small K).
MODEL = ConverseClass(name="model", builder=model_problem, max_users=4, scope=EVERY_SCHEME,
                      description="every variable of the model with its own constraints", lemmas=(INJECTIVITY_LEMMA,),
                      alias="general")
