"""The secret half of a release: seeds from the operating system, a salted commitment, the audit record file.

A release publishes its values, ``(ε, δ)``, its parameters and a
**commitment**; everything that would undo the privacy (the seed, the
noise, the noiseless sum) goes only into the **audit record**, a file
written with mode ``0600`` and marked secret inside.

The commitment is ``SHA-256`` of the canonical JSON (keys sorted, no
spaces, ASCII, :func:`canonical`) of the object built by
:func:`commitment_fields`: the scheme name, a random 256-bit salt, the seed
text, ``σ_int`` as an exact fraction, the engine, the count of draws, the
table's truncation ``K`` (``null`` for the exact engine), the byte stream's
definition, the noiseless encoded sum ``Y`` and the decoding denominator.
The noise is drawn from the **noise key** :func:`noise_key` ``(salt, seed)``,
never from the seed alone: a guessable seed (``1``, ``42``) or a seed used
twice still leaves the 256 fresh bits of the salt between the public and the
noise. The noise is a function of (salt, seed, σ_int, engine, count), so the
commitment binds it; with 256 unknown bits of salt the published hash
reveals nothing about it: knowing the data, ``Y`` and every other field, a
guess still needs the salt.

The record is written to a new file only (:func:`write_record`): a hard
link of a complete temporary file (mode ``0600``), which fails rather than
replace a file that appeared meanwhile; where the file system has no hard
links, an exclusive create.

Examples
--------
>>> f = commitment_fields(salt="00" * 32, seed=7, sigma_int=Fraction(3, 2), engine="exact", count=2,
...                       truncation=None, encoded_sum=[5, -1], denominator=256)
>>> canonical(f)[:40]
b'{"count":2,"denominator":256,"encoded_su'
>>> commit(f) == commit({**f, "salt": "11" * 32})
False
>>> new_seed() < 2**256, new_seed() != new_seed()
(True, True)
>>> noise_key("ab" * 32, 1)[:26], noise_key("ab" * 32, 1)[-3:]
('itsa-release-noise-v3:abab', 'b:1')
>>> check_seed("0042"), check_seed(7)
(42, 7)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
from fractions import Fraction
from pathlib import Path

from itsa._util.certified import fraction_text
from itsa._util.files import check_output_file, read_text, write_new
from itsa.exceptions import InvalidInput, InvalidOption, InvalidOutputPath, excerpt

__all__ = ["SCHEME", "RECORD_KIND", "RECORD_VERSION", "SECRET_NOTE", "new_seed", "new_salt", "check_salt",
           "check_seed", "read_seed_file", "noise_key", "commitment_fields", "canonical", "commit", "check_record_path",
           "write_record", "read_json", "load_record", "load_published", "MAX_RECORD_BYTES",
           "MAX_PUBLISHED_BYTES"]

#: The name of the commitment's encoding, inside what is hashed.
SCHEME = "itsa-release-commitment-v4"
#: What an audit record says it is.
RECORD_KIND = "itsa privacy release audit record"
#: The audit record's format.
RECORD_VERSION = 4
#: Bits of entropy of a drawn seed and of every salt.
ENTROPY_BITS = 256
#: Said inside every audit record.
SECRET_NOTE = ("SECRET: this audit record holds the seed, the salt, the noise and the noiseless sum of a private "
               "release; whoever reads it can remove the noise and recover the exact sum. Keep it from the public "
               "and from the server that publishes; give it to the auditor only. Publish the command's stdout, "
               "never this file.")
#: What the noise key's text begins with (then the salt, a colon and the seed in decimal).
NOISE_KEY_PREFIX = "itsa-release-noise-v3:"
#: The stream each engine reads (see :mod:`itsa.privacy.sampler`), keyed by :func:`noise_key`.
STREAMS = {"exact": ("ChaCha20(key=SHA-256('itsa-samplers-v1' NUL noise key), nonce='dgau' + block u64 LE), "
                     "65536 draws a block; noise key = 'itsa-release-noise-v3:' + salt + ':' + seed in decimal"),
           "table": ("HMAC-SHA256(key=SHA-256(noise key), msg=counter u64 LE from 0); "
                     "noise key = 'itsa-release-noise-v3:' + salt + ':' + seed in decimal")}
#: A seed is a whole number below 2^MAX_SEED_BITS.
MAX_SEED_BITS = 4096
#: Longest seed text read (decimal digits: 2^4096 has 1,234).
MAX_SEED_CHARS = 1234
#: Largest audit record written or read (bytes): refused before it is parsed. A record takes about 120 bytes a
#: coordinate, so this holds a release of about 500,000 coordinates (a larger one keeps no record).
MAX_RECORD_BYTES = 1 << 26
#: Largest published output read by the auditor (bytes).
MAX_PUBLISHED_BYTES = 1 << 26
#: Most digits of a whole number in a record or a published output (Python's own limit on reading one).
MAX_JSON_DIGITS = 4300


def new_seed() -> int:
    """A seed of :data:`ENTROPY_BITS` bits from the operating system's entropy (a whole number)."""
    return secrets.randbits(ENTROPY_BITS)


def new_salt() -> str:
    """A salt of :data:`ENTROPY_BITS` bits from the operating system's entropy, as hex text."""
    return secrets.token_hex(ENTROPY_BITS // 8)


def check_salt(salt) -> str:
    """``salt``, 64 lower-case hex digits (256 bits), or :class:`InvalidOption`.

    Only lower case: the salt is hashed as written, so ``AB…`` and ``ab…`` would be two salts of one noise.
    """
    if not isinstance(salt, str) or not re.fullmatch(r"[0-9a-f]{64}", salt):
        raise InvalidOption("salt: must be 64 lower-case hex digits (256 bits)")
    return salt


def check_seed(seed) -> int:
    """A seed: a whole number ``>= 0`` below ``2^``:data:`MAX_SEED_BITS`, or its decimal digits as text.

    A text (``--seed``, ``--seed-file``, ``ITSA_SEED``) is read as decimal
    digits only (leading zeros allowed, no sign, no spaces inside).
    """
    if isinstance(seed, str) and re.fullmatch(rf"[0-9]{{1,{MAX_SEED_CHARS}}}", seed.strip()):
        seed = int(seed.strip())
    if type(seed) is not int or not 0 <= seed < 2**MAX_SEED_BITS:
        raise InvalidOption(f"seed: must be a whole number >= 0 below 2^{MAX_SEED_BITS} (its decimal digits), "
                            f"not {excerpt(seed)}")
    return seed


def noise_key(salt: str, seed: int) -> str:
    """The sampler's seed text of a release: :data:`NOISE_KEY_PREFIX`, the salt (64 hex digits), ``:``, the seed.

    The seed is written in decimal without leading zeros and the salt has a
    fixed length, so the text is one-to-one in (salt, seed); the noise is
    never a function of the seed alone.
    """
    return f"{NOISE_KEY_PREFIX}{check_salt(salt)}:{check_seed(seed)}"


def read_seed_file(path) -> int:
    """The seed of a file: its UTF-8 content without the final line break, decimal digits (:func:`check_seed`)."""
    text = read_text(path, InvalidOption, max_bytes=4 * MAX_SEED_CHARS)
    return check_seed(text.removesuffix("\n").removesuffix("\r"))


def commitment_fields(*, salt: str, seed: int, sigma_int: Fraction, engine: str, count: int,
                      truncation: int | None, encoded_sum, denominator: int) -> dict:
    """The object whose canonical JSON is hashed (every value as JSON text or a whole number)."""
    return {"scheme": SCHEME, "salt": check_salt(salt), "seed": check_seed(seed), "sigma_int": fraction_text(Fraction(sigma_int)),
            "engine": str(engine), "count": int(count), "truncation": truncation, "stream": STREAMS.get(str(engine), str(engine)),
            "encoded_sum": [str(int(y)) for y in encoded_sum], "denominator": int(denominator)}


def canonical(fields: dict) -> bytes:
    """Keys sorted, no spaces, ASCII only: one byte string per object."""
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def commit(fields: dict) -> str:
    """``SHA-256`` (hex) of :func:`canonical` ``(fields)``."""
    return hashlib.sha256(canonical(fields)).hexdigest()


def check_record_path(path) -> Path:
    """A new file to write the record to, checked before any work: the name is free and its folder writable.

    The checks of every file itsa writes (:func:`itsa._util.files.check_output_file`),
    and one more: the name must not exist at all.
    """
    if not os.fspath(path).strip():
        raise InvalidOutputPath("--record: the path is empty")
    p = Path(path)
    with contextlib.suppress(OSError):
        if os.path.lexists(p):
            raise _exists(path)
    return check_output_file(p)


def write_record(path, record: dict) -> Path:
    """Write ``record`` as JSON to the new file ``path``, mode ``0600``, whole or not at all, never over a file.

    The JSON is made before any file is touched, then written by
    :func:`itsa._util.files.write_new` (a temporary file, ``0600`` from its
    creation, hard-linked to ``path``: a file that appeared after the check
    is not replaced).
    """
    p = check_record_path(path)
    data = (json.dumps(record, indent=2) + "\n").encode("utf-8")
    if len(data) > MAX_RECORD_BYTES:
        raise InvalidOutputPath(f"{path}: the record would take {len(data):,} bytes, more than the "
                                f"{MAX_RECORD_BYTES:,} an audit reads (MAX_RECORD_BYTES); nothing written")
    return write_new(p, data, 0o600, exists=_exists(path))


def _exists(path) -> InvalidOutputPath:
    return InvalidOutputPath(f"{path}: exists; an audit record is never overwritten (choose a new name)")


def read_json(path, max_bytes: int) -> dict:
    """The JSON object of the file ``path``, read strictly; :class:`InvalidInput` (one line) otherwise.

    The size is checked before anything is parsed (``max_bytes``). Refused:
    text that is not JSON, ``NaN`` and ``Infinity`` (not JSON), a key given
    twice in one object (readers disagree on which one counts), a whole
    number of more than :data:`MAX_JSON_DIGITS` digits, nesting too deep
    for the parser, and anything but an object at the top.
    """
    text = read_text(path, InvalidInput, max_bytes=max_bytes)
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except _NotStrictJson as exc:
        raise InvalidInput(f"{path}: not JSON as itsa reads it ({exc})") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except ValueError:       # Python's own limit on the digits of a whole number read
        raise InvalidInput(f"{path}: not JSON as itsa reads it (a whole number of more than {MAX_JSON_DIGITS:,} "
                           "digits)") from None
    except RecursionError:
        raise InvalidInput(f"{path}: not JSON as itsa reads it (nested too deep)") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{path}: not a JSON object")
    return value


class _NotStrictJson(Exception):
    """JSON that Python's reader takes but an audit refuses."""


def _no_constant(name: str):
    raise _NotStrictJson(f"{name} is not a JSON number")


def _unique_keys(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        for twice, _ in pairs:
            if twice in seen:
                break
            seen.add(twice)
        raise _NotStrictJson(f"the key {excerpt(twice)} is given twice in one object")
    return out


def load_record(path) -> dict:
    """An audit record read back (:func:`read_json`): of :data:`RECORD_KIND` and :data:`RECORD_VERSION`.

    Whether it is marked secret, and every field's kind, is the auditor's
    check (:func:`itsa.privacy.record_check.check_record`): an edited record FAILs there.
    """
    record = read_json(path, MAX_RECORD_BYTES)
    if record.get("kind") != RECORD_KIND:
        raise InvalidInput(f"{path}: not an audit record of itsa privacy release")
    if record.get("record_version") != RECORD_VERSION:
        raise InvalidInput(f"{path}: record version {excerpt(record.get('record_version'))}, this itsa reads "
                           f"{RECORD_VERSION}")
    for key in ("public", "inputs", "secret_values"):
        if not isinstance(record.get(key), dict):
            raise InvalidInput(f"{path}: the record has no {key!r} object")
    return record


def load_published(path) -> dict:
    """A published output (a release's ``--json``) read back for the auditor (:func:`read_json`)."""
    return read_json(path, MAX_PUBLISHED_BYTES)
