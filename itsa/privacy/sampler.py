"""Discrete Gaussian noise an auditor can redraw: the exact sampler, the page's table sampler, a commitment.

Engines (:class:`SamplerEngine`):

- ``exact``: :func:`itsa.privacy.samplers.discrete_gaussian`, the
  Canonne–Kamath–Steinke sampler (NeurIPS 2020, Algorithms 1–3) vectorised,
  every decision a comparison of random whole numbers with proven bounds,
  on the ChaCha20 stream keyed by ``SHA-256('itsa-samplers-v1' NUL seed
  text)`` (:mod:`itsa.privacy.samplers`). Its draws follow ``N_Z(0, σ²)``
  exactly for rational ``σ²``.
- ``table``: the page's ``noise_commit.py`` reading, kept for the page's
  releases and labelled wherever it is used: its stream is the page's,

  - **seed**: ``SHA-256(seed text, UTF-8)``, 32 bytes;
  - **stream**: block ``i`` is ``HMAC-SHA256(key = seed, message = i as 8
    bytes, little-endian)``, ``i = 0, 1, 2, …``; the blocks are concatenated;

  read as little-endian unsigned 64-bit integers, each divided by
  ``2⁶⁴ − 1``; the float64 table of ``exp(−k²/(2σ²))`` over ``−K ≤ k ≤ K``,
  ``K = ⌈σ √(2 ln(2·10¹²)) + 4⌉``, normalised cumulative sums, and
  ``numpy.searchsorted`` (side ``left``: the first ``k`` whose running total
  reaches the uniform). Its law is a rational distribution (exact word
  counts per entry) whose total-variation distance from ``N_Z(0, σ²)``
  :func:`itsa.privacy.table_law.table_distance` bounds, certified: the
  truncated tail (:func:`itsa.privacy.discrete_gaussian.tail_mass`) is only
  one part of it.

Cost: the exact engine makes a few million draws a second, the table
engine a few hundred thousand. :func:`estimate_seconds` plans with
:data:`DRAWS_PER_SECOND`; given a ``time_limit``, :func:`draw` refuses up
front a count whose estimate is past it, and stops the exact engine (an
:class:`~itsa.exceptions.TimeLimitReached`, nothing drawn is returned) when the
limit runs out mid-way; ``progress`` receives ``done`` of ``total`` events.

The **commitment** is ``SHA-256`` of the draws as little-endian signed 64-bit
integers, in order (``numpy.asarray(draws, '<i8').tobytes()``).

Examples
--------
>>> draws = sample(3, 5, "round-1", engine="exact")
>>> draws == sample(3, 5, "round-1", engine="exact")
True
>>> len(commitment(draws))
64
>>> sample(3, 4, "round-1", engine="table") == sample(3, 4, "round-1", engine="table")
True
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction

import numpy as np

from itsa._util.certified import Certified, exact_text, safe_decimal
from itsa._util.checks import choice, whole_number
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa._util.progress import Callback, Reporter
from itsa.exceptions import InvalidOption, VerificationError, excerpt
from itsa.privacy.discrete_gaussian import page_truncation, tail_mass
from itsa.privacy.rdp import number

__all__ = ["SamplerEngine", "ByteStream", "seed_bytes", "sample", "sample_exact", "sample_table", "table_words", "commitment",
           "NoiseDraw", "draw", "verify", "noise", "MAX_COUNT", "DRAWS_PER_SECOND", "estimate_seconds", "plan"]

#: Most draws one call makes (a count beyond would not fit comfortably in memory).
MAX_COUNT = 10_000_000
#: Largest σ the table engine accepts (its table has about 15σ entries).
MAX_TABLE_SIGMA = 10**6
#: Smallest σ the table engine accepts (σ² must not underflow in float64).
MIN_TABLE_SIGMA = 1e-150
#: Largest σ the exact engine accepts (the exact sampler's ``t = ⌊σ⌋ + 1 ≤ 2⁴⁶``).
MAX_EXACT_SIGMA = 2**46 - 1
#: Smallest σ the exact engine accepts (the table's floor; σ² must stay a normal float64).
MIN_EXACT_SIGMA = Fraction(1, 10**150)


class SamplerEngine(StrEnum):
    """The sampler engine."""

    EXACT = "exact"
    TABLE = "table"


#: Draws per second the cost estimate plans with (measured on one core: 2-3 million exact, 270,000-590,000 table).
DRAWS_PER_SECOND = {SamplerEngine.EXACT: 1_000_000, SamplerEngine.TABLE: 200_000}
#: The stream each engine reads, in words (what a draw's ``to_dict`` says).
STREAMS = {SamplerEngine.EXACT: "ChaCha20, key SHA-256('itsa-samplers-v1' NUL seed), nonce = 'dgau' + block index "
                                "(65,536 draws a block)",
           SamplerEngine.TABLE: "HMAC-SHA256(key=SHA-256(seed), msg=counter u64 LE from 0)"}


def estimate_seconds(count: int, engine: SamplerEngine | str = SamplerEngine.EXACT) -> float:
    """About how long ``count`` draws of ``engine`` take, planned at :data:`DRAWS_PER_SECOND`.

    >>> estimate_seconds(3_000_000, "exact")
    3.0
    """
    eng = choice("engine", engine, SamplerEngine)
    whole_number("count", count, minimum=0, maximum=MAX_COUNT)
    return count / DRAWS_PER_SECOND[eng]


def plan(count: int, engine: SamplerEngine | str, time_limit: float | None) -> float:
    """The cost estimate of ``count`` draws, refused in one line when it is past ``time_limit`` (seconds).

    >>> plan(3_000_000, "exact", 1)
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: count: 3000000 exact draws take about 3 s (at about 1000000 draws/s), past the time limit of 1 s (time limit 0: none): lower the count, raise the limit
    """
    seconds = estimate_seconds(count, engine)
    if time_limit is not None and seconds > time_limit:
        eng = choice("engine", engine, SamplerEngine)
        raise InvalidOption(f"count: {count} {eng} draws take about {seconds:.0f} s (at about "
                            f"{DRAWS_PER_SECOND[eng]} draws/s), past the time limit of {time_limit:g} s "
                            "(time limit 0: none): lower the count, raise the limit"
                            )
    return seconds


def seed_bytes(seed: str) -> bytes:
    """The 32-byte seed: ``SHA-256`` of the seed text."""
    if not isinstance(seed, str):
        raise InvalidOption(f"seed: must be a text, not {type(seed).__name__}")
    if not seed:
        raise InvalidOption("seed: must be a non-empty text (an empty seed is a guessable one)")
    return hashlib.sha256(seed.encode("utf-8")).digest()


class ByteStream:
    """``HMAC-SHA256(key=seed, msg=counter as 8 bytes LE)`` for counters 0, 1, 2, …, concatenated (the table engine's)."""

    def __init__(self, seed: str):
        self.key = seed_bytes(seed)
        self.counter = 0
        self.buffer = bytearray()
        self.position = 0

    def block(self) -> bytes:
        out = hmac.new(self.key, self.counter.to_bytes(8, "little"), hashlib.sha256).digest()
        self.counter += 1
        return out

    def read(self, n: int) -> bytes:
        """The next ``n`` bytes (linear time: blocks are appended, the consumed prefix dropped now and then)."""
        missing = n - (len(self.buffer) - self.position)
        if missing > 0:
            self.buffer += b"".join(self.block() for _ in range(-(-missing // 32)))
        out = bytes(self.buffer[self.position:self.position + n])
        self.position += n
        if self.position > 1 << 16:
            del self.buffer[:self.position]
            self.position = 0
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection (``n ≥ 1``)."""
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        nbytes = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            x = int.from_bytes(self.read(nbytes), "little") & mask
            if x < n:
                return x


def exact_sigma(sigma) -> Fraction:
    """``σ`` for the exact engine, refused outside ``[MIN_EXACT_SIGMA, MAX_EXACT_SIGMA]``."""
    s = number("sigma", sigma)
    if not MIN_EXACT_SIGMA <= s <= MAX_EXACT_SIGMA:
        raise InvalidOption(f"sigma: the exact engine takes sigma in [1e-150, 2^46 - 1], not "
                            f"{safe_decimal(Fraction(s), 4)}")
    return s


def sample_exact(sigma, count: int, seed: str, *, time_limit: float | Deadline | None = None,
                 progress: Callback | None = None) -> list[int]:
    """``count`` exact draws of ``N_Z(0, σ²)`` (σ rational) from the ChaCha20 stream of ``seed``.

    :func:`itsa.privacy.samplers.discrete_gaussian` at ``σ²``: the one exact
    sampler of itsa (vectorised, every decision an integer comparison with
    proven bounds). Past ``time_limit`` seconds (or a
    :class:`~itsa._util.deadline.Deadline` of a longer run) it stops with
    :class:`~itsa.exceptions.TimeLimitReached` (no partial draws are kept);
    ``progress`` gets ``done`` of ``total`` every block of draws.
    """
    from itsa.privacy.samplers import BLOCK, discrete_gaussian

    s = exact_sigma(sigma)
    clock, report = Deadline.of(time_limit), Reporter(progress, prefix="noise")
    parts = []
    for start in range(0, count, BLOCK):
        clock.check(f"{start} of {count} exact draws (nothing drawn is kept)")
        parts.append(discrete_gaussian(Fraction(s) ** 2, min(BLOCK, count - start), seed, start=start))
        report("exact draws", done=start + len(parts[-1]), total=count)
    return np.concatenate(parts).tolist() if parts else []


# --- the page's table sampler (noise_commit.py) ---

def table_sigma(sigma) -> float:
    """``σ`` as the table engine's float, refused outside ``[MIN_TABLE_SIGMA, MAX_TABLE_SIGMA]``."""
    q = number("sigma", sigma)
    s = float(q) if q < 2 * MAX_TABLE_SIGMA else math.inf
    if not MIN_TABLE_SIGMA <= s <= MAX_TABLE_SIGMA:          # the value as given, not its float (0 or inf)
        raise InvalidOption(f"sigma: the table engine takes sigma in [{MIN_TABLE_SIGMA:g}, {MAX_TABLE_SIGMA}], "
                            f"not {safe_decimal(Fraction(q), 4)}")
    return s


def table(sigma) -> tuple[np.ndarray, np.ndarray]:
    """The support ``−K..K`` and the float64 running totals ``cumsum(p)/sum(p)`` of the table engine."""
    s = table_sigma(sigma)
    K = page_truncation(sigma)
    support = np.arange(-K, K + 1, dtype=np.int64)
    cdf = support.astype(np.float64)        # exp(-k^2/(2 s s)), summed and normalised, in place (same floats)
    np.square(cdf, out=cdf)
    np.negative(cdf, out=cdf)
    np.divide(cdf, 2 * s * s, out=cdf)
    np.exp(cdf, out=cdf)
    np.cumsum(cdf, out=cdf)
    cdf /= cdf[-1]
    return support, cdf


def uniforms(stream: ByteStream, count: int) -> np.ndarray:
    """``count`` uniforms in ``[0, 1]``: little-endian uint64 words of the stream over ``2⁶⁴ − 1``."""
    raw = stream.read(8 * count)
    words = np.frombuffer(raw, dtype="<u8")
    return words.astype(np.float64) / float(2**64 - 1)


def table_words(tabled: tuple[np.ndarray, np.ndarray], words: np.ndarray) -> np.ndarray:
    """The table engine's draws from uint64 ``words`` (``tabled``: :func:`table`'s pair): each word over
    ``2⁶⁴ − 1``, then the first support entry whose running total reaches it (one home for the map, whatever
    source the words come from).

    >>> table_words(table(2), np.array([0, 2**63], dtype=np.uint64)).tolist()     # the table's first entry, the median
    [-20, 0]
    """
    support, cdf = tabled
    u = words.astype(np.float64) / float(2**64 - 1)
    return support[np.minimum(np.searchsorted(cdf, u, side="left"), len(support) - 1)]


def sample_table(sigma, count: int, seed: str) -> list[int]:
    """``count`` draws of the page's truncated table sampler from the stream of ``seed``."""
    words = np.frombuffer(ByteStream(seed).read(8 * count), dtype="<u8")
    return table_words(table(sigma), words).tolist()


def sample(sigma, count: int, seed: str, engine: SamplerEngine | str = SamplerEngine.EXACT, *,
           time_limit: float | None = None, progress: Callback | None = None) -> list[int]:
    """``count`` draws from ``engine`` (``exact`` or ``table``), reproducible bit for bit from ``seed``.

    With ``time_limit`` (seconds) a count whose estimate is past it is refused
    before any draw (:func:`plan`), and the exact engine stops when it runs out.
    """
    eng = choice("engine", engine, SamplerEngine)
    whole_number("count", count, minimum=0, maximum=MAX_COUNT)
    plan(count, eng, time_limit)
    if eng is SamplerEngine.EXACT:
        return sample_exact(sigma, count, seed, time_limit=time_limit, progress=progress)
    return sample_table(sigma, count, seed)


def commitment(draws) -> str:
    """``SHA-256`` (hex) of the draws as little-endian signed 64-bit integers."""
    return hashlib.sha256(np.asarray(draws, dtype="<i8").tobytes()).hexdigest()


@dataclass(frozen=True, kw_only=True, repr=False)
class NoiseDraw(Displayable):
    """Draws with everything needed to redraw them: σ, the seed text, the engine, the commitment.

    Parameters
    ----------
    sigma : Fraction
        The discrete Gaussian's σ.
    seed : str
        The seed text (it keys the engine's stream: ChaCha20 for ``exact``, HMAC-SHA256 for ``table``).
    engine : SamplerEngine
        ``exact`` or ``table``.
    draws : tuple of int
        The draws.
    commitment : str
        SHA-256 (hex) of the draws as int64 little-endian.
    truncation : int or None
        The table's support bound ``K`` (None: exact).
    tail : Certified, optional
        ``P(|X| > K)`` of the table engine, an upper bound.
    verified : bool
        Whether a logged commitment was checked against the redraw (:func:`noise` with ``expected``).
    shown : int
        How many draws :meth:`rows` shows.
    """

    sigma: Fraction
    seed: str
    engine: SamplerEngine
    draws: tuple[int, ...]
    commitment: str
    truncation: int | None
    tail: Certified | None = None
    verified: bool = False
    shown: int = 20

    def to_dict(self) -> dict:
        return {"sigma": exact_text(self.sigma), "seed": self.seed, "engine": str(self.engine), "count": len(self.draws),
                "truncation": self.truncation, "tail_mass": None if self.tail is None else self.tail.to_dict(),
                "draws": list(self.draws), "commitment": self.commitment,
                "stream": STREAMS[self.engine],
                "commitment_of": "SHA-256 of the draws as int64 little-endian", "verified": self.verified}

    def rows(self) -> list[tuple[str, str]]:
        head = ", ".join(map(str, self.draws[:self.shown])) + (" …" if len(self.draws) > self.shown else "")
        verified = [("verified", "the redrawn commitment equals the logged one")] if self.verified else []
        return [("draws", head), ("sigma", exact_text(self.sigma)), ("count", str(len(self.draws))),
                ("engine", str(self.engine)), ("seed", self.seed), ("commitment", self.commitment)] + verified + [
                ("truncation K", "none (exact)" if self.truncation is None else str(self.truncation))] + (
            [] if self.tail is None else [("tail mass P(|X| > K)", f"{self.tail.decimal(3)} (upper bound)")])

    def headline(self) -> str:
        return (f"{len(self.draws)} draws, sigma = {safe_decimal(self.sigma, 6)}, {self.engine}, "
                f"commitment {self.commitment[:16]}…")


def draw(sigma, count: int, seed: str, engine: SamplerEngine | str = SamplerEngine.EXACT, *,
         time_limit: float | None = None, progress: Callback | None = None) -> NoiseDraw:
    """:func:`sample` with its commitment and parameters (what the log of a release keeps)."""
    eng = choice("engine", engine, SamplerEngine)
    s = number("sigma", sigma)
    table_sigma(s) if eng is SamplerEngine.TABLE else exact_sigma(s)     # sigma's range before the plan and draws
    values = sample(s, count, seed, eng, time_limit=time_limit, progress=progress)
    K = page_truncation(s) if eng is SamplerEngine.TABLE else None
    tail = tail_mass(s, K) if K is not None else None
    return NoiseDraw(sigma=Fraction(s), seed=seed, engine=eng, draws=tuple(values),
                     commitment=commitment(values), truncation=K, tail=tail)


def verify(expected: str, sigma, count: int, seed: str, engine: SamplerEngine | str = SamplerEngine.EXACT, *,
           time_limit: float | None = None, progress: Callback | None = None) -> NoiseDraw:
    """Redraw and check a logged commitment; :class:`~itsa.exceptions.VerificationError` if it differs."""
    text = expected.strip().lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise InvalidOption(f"commitment: must be 64 hex digits, not {excerpt(expected)}")
    redrawn = draw(sigma, count, seed, engine, time_limit=time_limit, progress=progress)
    if redrawn.commitment != text:
        raise VerificationError(f"commitment mismatch: redrawn {redrawn.commitment}, logged {text}")
    return redrawn


def noise(sigma, count: int, seed: int | str, engine: SamplerEngine | str = SamplerEngine.EXACT, *, expected: str | None = None,
          shown: int = 20, time_limit: float | None = None, progress: Callback | None = None) -> NoiseDraw:
    """Discrete Gaussian draws reproducible from ``seed``, with their commitment; or redraw and check one.

    Parameters
    ----------
    sigma : number
        The discrete Gaussian's σ (a rational, e.g. ``14924`` or ``3/2``).
    count : int
        Number of draws.
    seed : int or str
        The stream's key: a whole number (read as its decimal text, as the
        command line's ``--seed 7`` is) or a text; SHA-256 of it keys the
        engine's stream.
    engine : SamplerEngine or str
        ``"exact"`` (the CKS 2020 sampler, exact, :mod:`itsa.privacy.samplers`) or ``"table"`` (the truncated
        inverse-CDF table).
    expected : str, optional
        A logged commitment (64 hex digits): redraw and check it
        (:class:`~itsa.exceptions.VerificationError` if it differs).
    shown : int
        Draws shown by the result's ``rows()``.
    time_limit : float, optional
        Seconds: a count whose estimate is past it is refused before any draw.
    progress : callable, optional
        Called with progress events of the exact engine.
    """
    whole_number("shown", shown, minimum=0)
    key = str(whole_number("seed", seed, minimum=0)) if isinstance(seed, int) and not isinstance(seed, bool) else seed
    if expected is None:
        result = draw(sigma, count, key, engine, time_limit=time_limit, progress=progress)  # type: ignore[arg-type]
    else:
        result = verify(expected, sigma, count, key, engine, time_limit=time_limit,  # type: ignore[arg-type]
                        progress=progress)
    return replace(result, verified=expected is not None, shown=shown)


def iter_blocks(seed: str, blocks: int) -> Iterator[bytes]:
    """The first ``blocks`` 32-byte blocks of the stream (for auditors reimplementing it)."""
    stream = ByteStream(seed)
    for _ in range(blocks):
        yield stream.block()
