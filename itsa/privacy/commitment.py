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
The noise is a function of (seed, σ_int, engine, count), so the commitment
binds it; with 256 unknown bits of salt (and of seed, when the operating
system drew it) the published hash reveals nothing about it: knowing the
data, ``Y`` and every other field, a guess still needs the salt.

Examples
--------
>>> f = commitment_fields(salt="00" * 32, seed="s", sigma_int=Fraction(3, 2), engine="exact", count=2,
...                       truncation=None, encoded_sum=[5, -1], denominator=256)
>>> canonical(f)[:40]
b'{"count":2,"denominator":256,"encoded_su'
>>> commit(f) == commit({**f, "salt": "11" * 32})
False
>>> len(new_seed()), new_seed() != new_seed()
(64, True)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from fractions import Fraction
from pathlib import Path

from itsa._util.files import atomic_writer, read_text
from itsa.exceptions import InvalidInput, InvalidOption, InvalidOutputPath

__all__ = ["SCHEME", "RECORD_KIND", "RECORD_VERSION", "SECRET_NOTE", "new_seed", "new_salt", "check_salt",
           "check_seed", "read_seed_file", "commitment_fields", "canonical", "commit", "check_record_path",
           "write_record", "load_record"]

#: The name of the commitment's encoding, inside what is hashed.
SCHEME = "itsa-release-commitment-v1"
#: What an audit record says it is.
RECORD_KIND = "itsa privacy release audit record"
#: The audit record's format.
RECORD_VERSION = 1
#: Bits of entropy of a drawn seed and of every salt.
ENTROPY_BITS = 256
#: Said inside every audit record.
SECRET_NOTE = ("SECRET: this audit record holds the seed, the salt, the noise and the noiseless sum of a private "
               "release; whoever reads it can remove the noise and recover the exact sum. Keep it from the public "
               "and from the server that publishes; give it to the auditor only. Publish the command's stdout, "
               "never this file.")
#: The byte stream both engines read (see :mod:`itsa.privacy.sampler`).
STREAM = "HMAC-SHA256(key=SHA-256(seed), msg=counter u64 LE from 0)"
#: Longest seed text read (characters).
MAX_SEED_CHARS = 4096
#: Largest audit record read (bytes).
MAX_RECORD_BYTES = 1 << 30


def new_seed() -> str:
    """A seed of :data:`ENTROPY_BITS` bits from the operating system's entropy, as hex text."""
    return secrets.token_hex(ENTROPY_BITS // 8)


def new_salt() -> str:
    """A salt of :data:`ENTROPY_BITS` bits from the operating system's entropy, as hex text."""
    return secrets.token_hex(ENTROPY_BITS // 8)


def check_salt(salt) -> str:
    """``salt`` as 64 lower-case hex digits (256 bits), or :class:`InvalidOption`."""
    if not isinstance(salt, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", salt):
        raise InvalidOption("salt: must be 64 hex digits (256 bits)")
    return salt.lower()


def check_seed(seed) -> str:
    """A seed text: non-empty, at most :data:`MAX_SEED_CHARS` characters."""
    if not isinstance(seed, str) or not seed:
        raise InvalidOption("seed: must be a non-empty text")
    if len(seed) > MAX_SEED_CHARS:
        raise InvalidOption(f"seed: at most {MAX_SEED_CHARS} characters, not {len(seed)}")
    return seed


def read_seed_file(path) -> str:
    """The seed text of a file: its UTF-8 content without the final line break."""
    text = read_text(path, InvalidOption, max_bytes=4 * MAX_SEED_CHARS)
    return check_seed(text.removesuffix("\n").removesuffix("\r"))


def commitment_fields(*, salt: str, seed: str, sigma_int: Fraction, engine: str, count: int,
                      truncation: int | None, encoded_sum, denominator: int) -> dict:
    """The object whose canonical JSON is hashed (every value as JSON text or a whole number)."""
    return {"scheme": SCHEME, "salt": check_salt(salt), "seed": check_seed(seed), "sigma_int": str(Fraction(sigma_int)),
            "engine": str(engine), "count": int(count), "truncation": truncation, "stream": STREAM,
            "encoded_sum": [str(int(y)) for y in encoded_sum], "denominator": int(denominator)}


def canonical(fields: dict) -> bytes:
    """Keys sorted, no spaces, ASCII only: one byte string per object."""
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def commit(fields: dict) -> str:
    """``SHA-256`` (hex) of :func:`canonical` ``(fields)``."""
    return hashlib.sha256(canonical(fields)).hexdigest()


def check_record_path(path) -> Path:
    """A new file to write the record to, checked before any work: its folder exists, the file does not."""
    p = Path(path)
    if not os.fspath(path).strip():
        raise InvalidOutputPath("--record: the path is empty")
    if p.exists():
        raise InvalidOutputPath(f"{path}: exists; an audit record is never overwritten (choose a new name)")
    if not p.parent.is_dir():
        raise InvalidOutputPath(f"{path}: the folder {os.fspath(p.parent)!r} does not exist")
    if not os.access(p.parent, os.W_OK):
        raise InvalidOutputPath(f"{path}: the folder {os.fspath(p.parent)!r} is not writable")
    return p


def write_record(path, record: dict) -> Path:
    """Write ``record`` as JSON to the new file ``path``, mode ``0600``, whole or not at all."""
    p = check_record_path(path)
    with atomic_writer(p, mode=0o600) as fh:
        json.dump(record, fh, indent=2)
        fh.write("\n")
    return p


def load_record(path) -> dict:
    """An audit record read back: JSON, of :data:`RECORD_KIND` and :data:`RECORD_VERSION`, marked secret."""
    text = read_text(path, InvalidInput, max_bytes=MAX_RECORD_BYTES)
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidInput(f"{path}: not JSON ({type(exc).__name__})") from None
    if not isinstance(record, dict) or record.get("kind") != RECORD_KIND:
        raise InvalidInput(f"{path}: not an audit record of itsa privacy release")
    if record.get("record_version") != RECORD_VERSION:
        raise InvalidInput(f"{path}: record version {record.get('record_version')!r}, this itsa reads "
                           f"{RECORD_VERSION}")
    for key in ("public", "inputs", "secret_values"):
        if not isinstance(record.get(key), dict):
            raise InvalidInput(f"{path}: the record has no {key!r} object")
    return record
