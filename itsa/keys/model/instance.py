"""The problem instance: servers, their users, security and collusion sets.

Users are ``(u, v)`` pairs, 1-based, only at the edges; inside, user ``i`` is
bit ``i`` of an int, in the order ``(1,1) < (1,2) < ... < (U, V_U)`` of the
paper's Notation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from itsa._util.bitset import mask_of, members
from itsa._util.checks import is_whole
from itsa._util.display import Displayable
from itsa._util.display import user as _user
from itsa._util.display import users as _users
from itsa.exceptions import InvalidInstance, excerpt
from itsa.typing import User

#: Sets of a family listed by :meth:`Instance.summary` before "… (N in all)".
SHOWN_SETS = 8

#: Largest number of users itsa accepts (bitmask set algebra stays fast below it).
MAX_USERS = 4096


@dataclass(frozen=True, repr=False)
class Instance(Displayable):
    """A multi-server secure-aggregation problem (paper Sec. II).

    Parameters
    ----------
    servers : tuple of int
        ``V_1..V_U``, the number of users of each server, each ``>= 1``.
    security_sets, collusion_sets : tuple of int
        ``S_1..S_M`` and ``T_1..T_N`` as bitmasks over the ``K`` users.
    name : str, optional
    warnings : tuple of str
        Notes gathered while reading the instance (merged duplicates...).

    Examples
    --------
    >>> inst = Instance.from_users([2, 1, 1], [[(1, 1)]], [[], [(3, 1)]], name="tiny")
    >>> inst.K, inst.label(3)
    (4, (3, 1))
    >>> inst
    <Instance tiny: servers (2, 1, 1), K = 4, M = 1, N = 2>
    >>> print(inst.summary())
    instance: tiny: servers (2, 1, 1), K = 4, M = 1, N = 2
      users           (1,1) (1,2) | (2,1) | (3,1)
      security sets   S_1 = {(1,1)}
      collusion sets  T_1 = ∅, T_2 = {(3,1)}
    """

    servers: tuple[int, ...]
    security_sets: tuple[int, ...]
    collusion_sets: tuple[int, ...]
    name: str | None = None
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self):
        if not self.servers:
            raise InvalidInstance("servers: at least one server is needed")
        for u, v in enumerate(self.servers, 1):
            if not is_whole(v) or v < 1:
                raise InvalidInstance(f"servers: server {u} has {v!r} users; each needs >= 1")
        if sum(self.servers) > MAX_USERS:
            raise InvalidInstance(f"servers: {excerpt(sum(self.servers), 30)} users in all; "
                                  f"itsa handles at most {MAX_USERS}")
        if not self.security_sets:
            raise InvalidInstance("security_sets: the family is empty")
        if not self.collusion_sets:
            raise InvalidInstance("collusion_sets: the family is empty")
        for fam in (self.security_sets, self.collusion_sets):
            for s in fam:
                if s < 0 or s > self.full_mask:
                    raise InvalidInstance(f"set {s:#x} names users outside the topology")

    @property
    def fingerprint(self) -> str:
        """A short digest of the topology and both set families, up to the order the sets are listed in.

        Two instances have the same fingerprint exactly when they have the same
        servers (in order: user ``(u, v)`` names a server) and the same sets in
        each family (the name, the warnings and the order of the sets aside);
        a scheme file records it, so it is not checked against another instance
        by mistake.

        >>> Instance.from_users([2, 1, 1], [[(1, 1)]], [[]]).fingerprint
        'b61ffbfd556c2584'
        """
        import hashlib

        text = f"{self.servers}|{tuple(sorted(set(self.security_sets)))}|{tuple(sorted(set(self.collusion_sets)))}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    # -- sizes -------------------------------------------------------------
    @property
    def U(self) -> int:
        return len(self.servers)

    @cached_property
    def K(self) -> int:
        return sum(self.servers)

    @property
    def M(self) -> int:
        return len(self.security_sets)

    @property
    def N(self) -> int:
        return len(self.collusion_sets)

    @cached_property
    def full_mask(self) -> int:
        return (1 << self.K) - 1

    # -- users -------------------------------------------------------------
    @cached_property
    def users(self) -> tuple[User, ...]:
        """All users ``(u, v)`` in index order."""
        return tuple((u, v) for u, vu in enumerate(self.servers, 1) for v in range(1, vu + 1))

    @cached_property
    def _offsets(self) -> tuple[int, ...]:
        offs, acc = [], 0
        for vu in self.servers:
            offs.append(acc)
            acc += vu
        return tuple(offs)

    @cached_property
    def server_masks(self) -> tuple[int, ...]:
        """``K_{u}`` for ``u = 1..U`` as bitmasks (index ``u - 1``)."""
        return tuple(((1 << vu) - 1) << off for vu, off in zip(self.servers, self._offsets))

    def index(self, u: int, v: int) -> int:
        """Bit index of user ``(u, v)``; raises :class:`InvalidInstance` if absent."""
        if not (1 <= u <= self.U) or not (1 <= v <= self.servers[u - 1]):
            raise InvalidInstance(f"user [{u}, {v}] is outside the topology {list(self.servers)}")
        return self._offsets[u - 1] + v - 1

    def label(self, i: int) -> User:
        """``(u, v)`` of the user with bit index ``i``."""
        return self.users[i]

    def server_of(self, i: int) -> int:
        """1-based server of user ``i``."""
        return self.users[i][0]

    def mask(self, users: Iterable[User]) -> int:
        """Bitmask of a collection of ``(u, v)`` users."""
        return mask_of(self.index(u, v) for u, v in users)

    def labels(self, mask: int) -> list[User]:
        """Sorted ``(u, v)`` users of a bitmask."""
        return [self.users[i] for i in members(mask)]

    def describe(self, mask: int) -> str:
        """A user set as text: ``{(1,1), (2,1)}``, or ``∅``.

        >>> Instance.from_users([2, 1, 1], [[]], [[]]).describe(0b101)
        '{(1,1), (2,1)}'
        """
        return _users(self.labels(mask))

    # -- display -----------------------------------------------------------
    def headline(self) -> str:
        return (f"{self.name or 'unnamed'}: servers {self.servers}, K = {self.K}, "
                f"M = {self.M}, N = {self.N}")

    def _family(self, letter: str, family: tuple[int, ...]) -> str:
        shown = [f"{letter}_{i} = {self.describe(s)}" for i, s in enumerate(family[:SHOWN_SETS], 1)]
        more = f", … ({len(family)} in all)" if len(family) > SHOWN_SETS else ""
        return ", ".join(shown) + more

    def rows(self) -> list[tuple[str, str]]:
        servers = " | ".join(" ".join(_user(u, v) for v in range(1, vu + 1))
                             for u, vu in enumerate(self.servers, 1))
        rows = [("users", servers),
                ("security sets", self._family("S", self.security_sets)),
                ("collusion sets", self._family("T", self.collusion_sets))]
        rows += [("outside assumptions", w) for w in self.outside_assumptions()]
        return rows

    def outside_assumptions(self) -> list[str]:
        """The paper's stated assumptions this instance does not meet."""
        out = []
        if self.U < 3:
            out.append(f"U = {self.U} < 3: the paper assumes at least three servers")
        return out

    def relabelled(self, perm: dict[int, int]) -> Instance:
        """The same instance with user bit ``i`` renamed ``perm[i]`` (a bijection)."""
        def move(m: int) -> int:
            return mask_of(perm[i] for i in members(m))
        return Instance(self.servers, tuple(map(move, self.security_sets)),
                        tuple(map(move, self.collusion_sets)), self.name)

    @classmethod
    def from_users(cls, servers, security_sets, collusion_sets, name=None) -> Instance:
        """Build from sets written as lists of ``(u, v)`` pairs."""
        servers = tuple(servers)
        probe = cls(servers, (0,), (0,))
        return cls(servers, tuple(probe.mask(s) for s in security_sets),
                   tuple(probe.mask(t) for t in collusion_sets), name)
