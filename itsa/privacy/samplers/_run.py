"""One timed run of a sampler, as ``itsa privacy sample`` reports it: the law, the count, the speed.

Examples
--------
>>> run = sample("dgauss", "5/2", 4, seed=3)
>>> run.draws.tolist() == discrete_gaussian("5/2", 4, seed=3).tolist()
True
>>> sorted(run.to_dict())
['count', 'draws_per_second', 'law', 'seconds', 'seed', 'stream']
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

import numpy as np

from itsa._util.certified import exact_text, safe_decimal
from itsa._util.checks import choice, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, counting
from itsa.exceptions import InvalidOption
from itsa.privacy.samplers._coins import CoinsLaw, fair_coins
from itsa.privacy.samplers._dgauss import MAX_DRAWS, DiscreteGaussianLaw, _law, discrete_gaussian
from itsa.privacy.samplers._poisson import SkellamLaw, skellam, skellam_law
from itsa.privacy.samplers._stream import BLOCK, available_memory, room_for, seed_text

__all__ = ["Law", "SampleRun", "sample", "law_of"]


class Law(StrEnum):
    """The laws ``itsa privacy sample`` draws."""

    DGAUSS = "dgauss"
    SKELLAM = "skellam"
    BINOMIAL = "binomial"


#: What the stream is, in words (the JSON's ``stream``).
STREAM = ("ChaCha20 (RFC 8439), key SHA-256('itsa-samplers-v1' NUL seed), nonce = law tag + block index "
          "(65,536 draws a block), words uint64 LE")


def law_of(law: Law | str, parameter) -> DiscreteGaussianLaw | SkellamLaw | CoinsLaw:
    """The law object of ``law`` at ``parameter`` (σ² of ``dgauss``, the variance ``V`` of ``skellam``, the coins
    ``N`` of ``binomial``), checked before any draw."""
    kind = choice("law", law, Law)
    if kind is Law.BINOMIAL:
        return parameter if isinstance(parameter, CoinsLaw) else CoinsLaw(parameter)
    if kind is Law.SKELLAM:
        return skellam_law(parameter)
    return _law(parameter)


def _shown(x: Fraction) -> str:
    """A law's parameter in the text: exactly when that is short (``2e-300``, ``5/2``), else 12 digits rounded up
    (the JSON keeps it exact).

    >>> _shown(Fraction(2, 10**300)), _shown(Fraction(5, 2)), _shown(Fraction(10**40 + 1, 3 * 10**40))
    ('2e-300 (exact)', '2.5 (exact)', '0.333333333334 (rounded up; exact in --json)')
    """
    text = exact_text(x)
    return f"{text} (exact)" if len(text) <= 24 else f"{safe_decimal(x, 12)} (rounded up; exact in --json)"


@dataclass(frozen=True, repr=False)
class SampleRun(Displayable):
    """Exact draws with their law, seed and timing.

    Parameters
    ----------
    law : DiscreteGaussianLaw, SkellamLaw or CoinsLaw
        The law drawn.
    seed : str
        The seed text.
    draws : numpy.ndarray
        The draws (int64).
    seconds : float
        Wall-clock seconds the draws took.
    """

    law: DiscreteGaussianLaw | SkellamLaw | CoinsLaw
    seed: str
    draws: np.ndarray = field(repr=False)
    seconds: float

    @property
    def draws_per_second(self) -> float:
        return len(self.draws) / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        return {"law": self.law.to_dict(), "count": len(self.draws), "seconds": round(self.seconds, 6),
                "draws_per_second": round(self.draws_per_second), "seed": self.seed, "stream": STREAM}

    def rows(self) -> list[tuple[str, str]]:
        head = ", ".join(map(str, self.draws[:8].tolist())) + (" …" if len(self.draws) > 8 else "")
        law = self.law
        what = (f"sigma^2 = {_shown(law.sigma_squared)}" if isinstance(law, DiscreteGaussianLaw)
                else f"V = {_shown(law.variance)}" if isinstance(law, SkellamLaw) else f"N = {law.coins:,} coins")
        return [("law", f"{self.law.to_dict()['law']}, {what}"),
                ("count", f"{len(self.draws):,}"), ("seconds", f"{self.seconds:.3f}"),
                ("draws per second", f"{self.draws_per_second:,.0f}"), ("first draws", head), ("stream", STREAM)]

    def headline(self) -> str:
        return f"{len(self.draws):,} exact draws in {self.seconds:.3f} s ({self.draws_per_second:,.0f}/s)"


#: Draws between two progress events (whole blocks: a chunk is drawn as the whole run would draw it).
CHUNK = 16 * BLOCK


def sample(law: Law | str, parameter, count: int, seed, *, workers: int = 1,
           time_limit: float | Deadline | None = None, out: np.ndarray | None = None,
           progress: Callback | None = None) -> SampleRun:
    """``count`` exact draws of ``law`` at ``parameter`` from the stream of ``seed``, timed.

    Parameters
    ----------
    law : Law or str
        ``"dgauss"``: the discrete Gaussian, ``parameter`` its σ²; ``"skellam"``: Poisson(V/2) − Poisson(V/2),
        ``parameter`` its variance ``V``; ``"binomial"``: ``Bin(N, ½)``'s heads, ``parameter`` the coins ``N``.
    parameter : int, Fraction or str
        The law's parameter, exactly (``"5/2"``, ``"2.5"``; a whole number of coins).
    count : int
        Number of draws.
    seed : int or str
        The stream's key.
    workers : int
        Threads (the draws are the same for any number).
    time_limit : float, optional
        Seconds, checked between blocks.
    out : numpy.ndarray, optional
        Where the draws go (int64, ``count`` long), such as the file of :func:`~itsa.privacy.samplers.npy_draws`
        (memory then stays bounded); by default a new array, refused when it would not fit in memory.
    progress : callable, optional
        Receives ``done`` of ``total`` draws after every :data:`CHUNK` (the draws are those of one run: each
        is drawn from ``(seed, its index)`` alone).
    """
    the_law = law_of(law, parameter)
    whole_number("count", count, minimum=0, maximum=MAX_DRAWS)
    text = seed_text(seed)
    begin, clock, tick = time.perf_counter(), Deadline.of(time_limit), counting(progress, "exact draws")
    if out is not None and len(out) != count:
        raise InvalidOption(f"draws: an output of {count:,} draws, not {len(out):,}")
    if out is None:
        room_for(count, available_memory(), "memory available",
                 "draw fewer at a time, or write them to a file with itsa privacy sample")
        out = np.empty(count, dtype=np.int64)
    for low in range(0, count, CHUNK):
        part = out[low:min(count, low + CHUNK)]
        if isinstance(the_law, CoinsLaw):
            fair_coins(the_law.coins, len(part), text, start=low, workers=workers, time_limit=clock, out=part)
        elif isinstance(the_law, SkellamLaw):
            skellam(the_law, len(part), text, start=low, workers=workers, time_limit=clock, out=part)
        else:
            discrete_gaussian(the_law, len(part), text, start=low, workers=workers, time_limit=clock, out=part)
        if tick is not None:
            tick(low + len(part), count)
    return SampleRun(law=the_law, seed=text, draws=out, seconds=time.perf_counter() - begin)
