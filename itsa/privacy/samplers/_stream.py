"""A counter-based ChaCha20 stream keyed by the seed: draw ``i`` depends only on ``(seed, law, i)``.

The draws of one law are cut into blocks of :data:`BLOCK` draws. Block ``b``
of law ``tag`` reads its own ChaCha20 keystream (RFC 8439):

- **key**: ``SHA-256(b"itsa-samplers-v1\\x00" + seed text in UTF-8)``, 32 bytes;
- **nonce** (96 bits): the law's 4-byte tag, then ``b`` as 8 bytes little-endian;
  the 32-bit block counter starts at 0;
- **words**: the keystream read as little-endian unsigned 64-bit integers, in order.

A block's draws are a deterministic function of its words alone, so the
same seed gives the same draws whatever the chunking of a request or the
number of workers drawing it: a request for draws ``start … stop`` draws the
blocks that hold them and keeps the slice.

Examples
--------
>>> s = BlockStream(stream_key("7"), b"dgau", 0)
>>> first = s.words(4)
>>> first.dtype.str, len(first)
('<u8', 4)
>>> t = BlockStream(stream_key("7"), b"dgau", 0)
>>> bool((t.words(1) == first[:1]).all() and (t.words(3) == first[1:]).all())   # reads continue the keystream
True
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

import numpy as np
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

from itsa._util.deadline import Deadline
from itsa.exceptions import InvalidOption, excerpt

__all__ = ["BLOCK", "stream_key", "seed_text", "BlockStream", "draw_blocks", "fill", "npy_draws", "room_for",
           "available_memory"]

#: Draws per block: block ``b`` holds draws ``b·BLOCK … (b+1)·BLOCK − 1`` and reads its own keystream.
BLOCK = 1 << 16
#: The key derivation's domain prefix (a new version of the samplers changes it, never the old streams).
DOMAIN = b"itsa-samplers-v1\x00"
#: A text that is a negative whole number (refused as a seed, as the number is).
_NEGATIVE = re.compile(r"\s*-\s*[0-9][0-9_]*\s*$")


def seed_text(seed) -> str:
    """The seed as text: a whole number ``≥ 0`` as its decimal digits (as ``--seed 7`` is), or a non-empty text.

    A text that is a negative whole number (``"-1"``, as ``--seed -1`` gives it) is refused as the number ``-1``
    is: it reads as a seed of the number rule, which has none below 0, so it is no way past that rule.

    >>> seed_text(7), seed_text("alice"), seed_text("٧")
    ('7', 'alice', '٧')
    >>> seed_text("-1")
    Traceback (most recent call last):
    ...
    itsa.exceptions.InvalidOption: seed: must be a whole number >= 0 or a text, not '-1'
    """
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise InvalidOption(f"seed: must be a whole number >= 0 or a text, not {type(seed).__name__}")
    if isinstance(seed, int):
        if seed < 0:
            raise InvalidOption(f"seed: must be a whole number >= 0, not {seed}")
        return str(seed)
    if not seed:
        raise InvalidOption("seed: must be a non-empty text (an empty seed is a guessable one)")
    if _NEGATIVE.match(seed):
        raise InvalidOption(f"seed: must be a whole number >= 0 or a text, not {excerpt(seed.strip(), 40)}")
    return seed


def stream_key(seed) -> bytes:
    """The 32-byte ChaCha20 key of ``seed`` (an int or a text, :func:`seed_text`)."""
    return hashlib.sha256(DOMAIN + seed_text(seed).encode("utf-8")).digest()


class BlockStream:
    """The keystream of one block: ``words(n)`` returns the next ``n`` little-endian uint64 words.

    Parameters
    ----------
    key : bytes
        :func:`stream_key`'s 32 bytes.
    tag : bytes
        The law's 4-byte tag (each law reads streams of its own).
    block : int
        The block index, ``0 ≤ block < 2⁶⁴``.
    """

    def __init__(self, key: bytes, tag: bytes, block: int):
        if len(key) != 32 or len(tag) != 4 or not 0 <= block < 1 << 64:
            raise InvalidOption("stream: a 32-byte key, a 4-byte tag and a block index in [0, 2^64)")
        nonce = bytes(4) + tag + block.to_bytes(8, "little")     # 32-bit counter 0, then the 96-bit nonce
        self._cipher = Cipher(algorithms.ChaCha20(key, nonce), mode=None).encryptor()
        self.read = 0

    def words(self, n: int) -> np.ndarray:
        """The next ``n`` words of the keystream (a block reads at most 2³² · 8 words: far beyond any use)."""
        self.read += n
        return np.frombuffer(self._cipher.update(bytes(8 * n)), dtype="<u8")

    def word(self) -> int:
        """The next word as a Python int."""
        return int(self.words(1)[0])


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (Linux ``MemAvailable``; else the free pages), or
    ``None`` where neither is known."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _bytes(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.1f} MiB"


def room_for(count: int, free: int | None, where: str, remedy: str) -> None:
    """Refuse, before any draw, ``count`` int64 draws that would not fit in the ``free`` bytes of ``where``."""
    need = 8 * count
    if free is not None and need > free:
        raise InvalidOption(f"count: {count:,} draws take {_bytes(need)} as int64, more than the {_bytes(free)} "
                            f"of {where} ({remedy})")


def npy_draws(fh: IO[Any], count: int) -> np.ndarray:
    """An int64 ``.npy`` of ``count`` draws in the open file ``fh`` (read-write, at its start), mapped: the draws
    written into it go to the file block by block, so memory stays bounded whatever the count. The disk's free
    space is checked first (:func:`room_for`)."""
    disk = os.fstatvfs(fh.fileno())
    room_for(count, disk.f_bavail * disk.f_frsize, "disk free beside the output", "draw fewer")
    np.lib.format.write_array_header_1_0(fh, {"descr": "<i8", "fortran_order": False, "shape": (count,)})
    fh.flush()
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    return np.memmap(fh, dtype="<i8", mode="r+", offset=fh.tell(), shape=(count,))


def draw_blocks(block: Callable[[bytes, int, int], np.ndarray], *, count: int, start: int, seed, workers: int,
                time_limit, what: str, out: np.ndarray | None = None) -> np.ndarray:
    """Draws ``start .. start + count - 1`` of the stream keyed by ``seed``: every block of :data:`BLOCK` draws that
    holds one is drawn whole by ``block(key, index, size)`` (on ``workers`` threads) and its part of the range is
    written into ``out`` (int64, ``count`` long: a new array, or :func:`npy_draws`' file), so draw ``i`` depends on
    ``(seed, i)`` alone, however the work is chunked, and no more than ``2·workers`` blocks are held at once. A
    new array that would not fit in the memory available is refused before any draw. The clock is looked at
    before each block (``what`` names the draws in its message); nothing drawn is kept past a time limit."""
    key, clock = stream_key(seed), Deadline.of(time_limit)
    if out is None:
        room_for(count, available_memory(), "memory available",
                 "draw fewer at a time with start=, or write them to a file with itsa privacy sample")
        out = np.empty(count, dtype=np.int64)
    elif len(out) != count:
        raise InvalidOption(f"draws: an output of {count:,} draws, not {len(out):,}")
    first, stop, end = start // BLOCK, -(-(start + count) // BLOCK), start + count
    jobs = ((b, min(BLOCK, end - b * BLOCK)) for b in range(first, stop))

    def one(job: tuple[int, int]) -> tuple[int, np.ndarray]:
        clock.check(f"{what} of block {job[0]} (nothing drawn is kept)")
        return job[0], block(key, *job)

    def put(b: int, drawn: np.ndarray) -> None:
        low = max(start, b * BLOCK)
        out[low - start:b * BLOCK + len(drawn) - start] = drawn[low - b * BLOCK:]

    if workers == 1 or stop - first < 2:
        for job in jobs:
            put(*one(job))
        return out
    with ThreadPoolExecutor(workers) as pool:
        waiting = deque(pool.submit(one, job) for job in itertools.islice(jobs, 2 * workers))
        while waiting:
            put(*waiting.popleft().result())
            following = next(jobs, None)
            if following is not None:
                waiting.append(pool.submit(one, following))
    return out


def fill(n: int, one_round: Callable[[int], np.ndarray], rounds: tuple[int, ...]) -> np.ndarray:
    """The first ``n`` accepted draws of a rejection sampler: ``one_round(size)`` proposes ``size`` candidates
    (``rounds[r]`` at its ``r``-th call, the last size repeated) and returns those it accepted, in order."""
    parts, have, r = [], 0, 0
    while have < n:
        part = one_round(rounds[min(r, len(rounds) - 1)])
        parts.append(part)
        have += len(part)
        r += 1
    return np.concatenate(parts)[:n]
