"""How many noise shares a round's sum carries: all clients' for the wrap, the fewest survivors' for ε.

With distributed noise every client adds a share. The sum may carry every
client's share (none dropped: the most noise, the widest sum, the case a wrap
bound must cover), and carries at least the shares of the fewest survivors
``K − ⌊dropout·K⌋`` (the least noise, the case privacy must cover). Central
noise is one draw whoever drops out. :func:`noise_shares` gives both answers,
named.

Examples
--------
>>> noise_shares(1000, "1/10")
NoiseShareCount(wrap=1000, privacy=900)
>>> noise_shares(1000, "1/10", distributed=False)
NoiseShareCount(wrap=1, privacy=1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from itsa._util.checks import dropout_fraction, whole_number

__all__ = ["NoiseShareCount", "noise_shares", "survivors_under"]


def survivors_under(clients: int, dropout) -> int:
    """The fewest clients left when a fraction ``dropout`` may drop out: ``K − ⌊dropout·K⌋`` (at least 1).

    Parameters
    ----------
    clients : int
        ``K``.
    dropout : Fraction or str
        The fraction that may drop out, in ``[0, 1)``.

    >>> survivors_under(1000, "1/10")
    900
    """
    whole_number("clients", clients, minimum=1)
    q = dropout_fraction(dropout)
    return max(1, clients - math.floor(q * clients))


@dataclass(frozen=True, kw_only=True)
class NoiseShareCount:
    """The noise shares in a round's sum: the most (``wrap``) and the fewest (``privacy``).

    Parameters
    ----------
    wrap : int
        The shares a wrap bound counts: every client's (distributed), or 1 (central).
    privacy : int
        The shares ε counts: the fewest survivors' (distributed), or 1 (central).
    """

    wrap: int
    privacy: int


def noise_shares(clients: int, dropout=0, *, distributed: bool = True) -> NoiseShareCount:
    """The noise shares of a round: all ``clients`` for the wrap, the fewest survivors for ε (1 and 1 central).

    Parameters
    ----------
    clients : int
        ``K``.
    dropout : Fraction or str
        The fraction that may drop out, in ``[0, 1)``.
    distributed : bool
        Every client adds a share (``True``), or the noise is one draw for the sum.
    """
    survivors = survivors_under(clients, dropout)
    return NoiseShareCount(wrap=clients, privacy=survivors) if distributed else NoiseShareCount(wrap=1, privacy=1)
