"""The auditor's check of a release's audit record: every public field recomputed from the record's inputs.

Given the record (:meth:`itsa.privacy.releasing.Release.record`) the auditor
first checks its form, then rebuilds the release from the record's
**inputs** and **secret values** alone (the noiseless encoded sum ``Y``, the
seed, the salt, the recorded noise), with the same code the release runs
(:func:`itsa.privacy.releasing.assemble`), and compares:

- **record**: the keys of the record, ``"secret": true`` and its note, the
  kind and version; **inputs**: every input present, known and normalised
  (as a release writes it); **secret form**: the secret values of the right
  kinds and lengths (a malformed field is a FAIL naming it, never an error);
- **count**: ``d`` (the length of ``Y``) draws and released values, and the number of clients;
- **weights**: Hamilton's integer weights from the recorded data weights, and the largest weight;
- **sigma_int**: ``Δ*₂``, σ_t and ``σ_int = σ_t γ W_int Δ*₂`` from the inputs;
- **commitment**: the salted hash of (salt, seed, σ_int, engine, count, K, Y, denominator);
- **noise**: the noise redrawn from the noise key (salt, seed) equals the recorded draws;
- **released**: every released value is ``(Y + z)/(γ W_int)``, exactly;
- **privacy**: ε, ``δ_run`` and the table's distance recomputed;
- **exact average**: within the rounding bound of ``Y/(γ W_int)`` (it is
  the float average of the clipped updates: only the rerun on the updates
  checks it exactly);
- **public**: the whole public part equals the rebuilt one (every key, none more);
- **secret**: the whole secret part equals the rebuilt one;

and, when given, **published** (the whole published JSON equals the rebuilt
public part, so the commitment checked is the one the public saw) and
**updates** (the release rerun on the clients' updates with the recorded
seed and salt gives the same record: ``Y`` itself, and the exact average,
are then checked; updates read from a file, :class:`~itsa.privacy.releasing.LoadedUpdates`,
bring their data weights and client IDs, which must be the record's). The
redraw's cost is estimated before it starts
(:func:`itsa.privacy.releasing.planned_cost`) and refused past ``time_limit``;
the clock is looked at again in the long loops.

A record that fails its form or cannot be rebuilt says nothing of its noise
(``private`` is ``None``: not established); only a rebuilt release without
noise is called not private.

Every comparison is of JSON values of the same kind: ``1`` is not ``true``
and ``3.0`` is not ``3`` (a record holds no JSON floats).

Examples
--------
>>> import numpy as np
>>> from itsa.privacy.releasing import release
>>> r = release(np.array([[0.25, 0.5], [0.5, 0.0]]), noise_multiplier=1, engine="exact")
>>> check_record(r.record()).ok
True
>>> tampered = r.record()
>>> tampered["secret_values"]["noise_draws"][0] += 1
>>> [c.name for c in check_record(tampered).checks if not c.ok]
['noise', 'released', 'public', 'secret']
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

from itsa._util.certified import safe_decimal
from itsa._util.deadline import Deadline
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, ItsaError, TimeLimitReached
from itsa.privacy.commitment import (
    RECORD_KIND,
    RECORD_VERSION,
    SECRET_NOTE,
    check_salt,
    check_seed,
    noise_key,
)
from itsa.privacy.hamilton import weights as hamilton_weights
from itsa.privacy.releasing import recorded_weights
from itsa.privacy.sampler import draw
from itsa.privacy.updates import MAX_ENTRIES, LoadedUpdates

__all__ = ["Check", "RecordCheck", "check_record", "same"]


@dataclass(frozen=True)
class Check:
    """One check of the record: its name, whether it passed, what was compared."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, kw_only=True, repr=False)
class RecordCheck(Displayable):
    """Every check of one audit record; :attr:`ok` when all pass.

    ``private`` is whether the rebuilt release has noise, and ``None`` when
    the check stopped before the release could be rebuilt (a malformed or
    edited record): then nothing is said of its noise, never "not private".
    """

    checks: tuple[Check, ...]
    private: bool | None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if not c.ok)

    def to_dict(self) -> dict:
        return {"verified": self.ok, "private": self.private, "failed": list(self.failed),
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks]}

    def headline(self) -> str:
        names = ", ".join(c.name for c in self.checks)
        return f"PASS release record: {names}" if self.ok else f"FAIL release record: {', '.join(self.failed)}"

    def rows(self) -> list[tuple[str, str]]:
        rows = [(c.name, ("ok: " if c.ok else "FAIL: ") + c.detail) for c in self.checks]
        if self.private is None:
            return rows + [("privacy", f"not established: the check stopped at {self.failed[-1]}, before the "
                                       "release could be rebuilt from the record")]
        return rows + ([] if self.private else [("privacy", "the recorded release has no noise: it is NOT private")])


#: The keys of an audit record.
RECORD_KEYS = {"secret", "note", "kind", "record_version", "public", "inputs", "secret_values"}
#: The JSON kind of each input (:func:`_kind`): what a release writes.
INPUT_KINDS = {"alpha": {"whole number"}, "gamma": {"whole number"}, "clip": {"text"},
               "epsilon": {"text", "null"}, "noise_multiplier": {"text", "null"}, "delta": {"text", "null"},
               "engine": {"text", "null"}, "conversion": {"text", "null"}, "no_noise": {"true or false"},
               "data_weights": {"list of texts", "null"}, "ids": {"list of whole numbers", "list of texts", "null"}}
INPUT_KEYS = set(INPUT_KINDS)
#: The JSON kind of each secret value, of every record and of a release with noise.
SECRET_KINDS = {"encoded_sum": "list of whole numbers", "noiseless_exact": "list of texts",
                "exact_average": "list of texts", "integer_weights": "list of whole numbers"}
NOISE_KINDS = {"seed": "whole number", "salt": "text", "noise_draws": "list of whole numbers", "noise_sha256": "text"}
SECRET_KEYS, NOISE_KEYS = set(SECRET_KINDS), set(NOISE_KINDS)
#: Which public and secret fields each comparison covers (``public`` and ``secret`` cover them all).
FIELDS = {
    "count": (("dimension", "clients"), ()),
    "weights": (("alpha", "max_weight"), ("integer_weights",)),
    "sigma_int": (("gamma", "clip", "denominator", "sensitivity", "noise_multiplier", "sigma_int"), ()),
    "commitment": (("commitment",), ()),
    "released": (("released", "released_exact"), ("noiseless_exact",)),
    "privacy": (("private", "delta", "conversion", "epsilon", "delta_run", "table_distance", "warnings"), ()),
}
#: Coordinates between two looks at the clock in the exact average's loop.
_CLOCK_EVERY = 4096


@dataclass
class _Audit:
    """What the rules read: the record, the rebuilt release, and what the auditor was given."""

    record: dict
    deadline: Deadline
    progress: Callable | None = None
    updates: Any = None
    published: Any = None
    hw: Any = None          # HamiltonWeights, once made
    hw_error: str = ""
    rebuilt: Any = None     # the Release rebuilt from the record
    again: Any = None       # its record, as JSON carries it

    @property
    def inputs(self) -> dict:
        return self.record["inputs"]

    @property
    def secret(self) -> dict:
        return self.record["secret_values"]

    @property
    def public(self) -> dict:
        return self.record["public"]


def check_record(record: dict, updates=None, published: dict | None = None, time_limit: float | None = None,
                 progress=None) -> RecordCheck:
    """Check an audit record (see the module notes); ``updates`` and ``published`` add their checks.

    A record of the wrong form or with a value of the wrong kind fails its
    check (a tampered record is a FAIL, not an error); a redraw estimated
    past ``time_limit`` is refused (:class:`~itsa.exceptions.InvalidOption`),
    and :class:`~itsa.exceptions.TimeLimitReached` stops a run that passes it.
    """
    try:
        plain = _plain(record)
    except (TypeError, ValueError, RecursionError) as exc:
        return RecordCheck(checks=(Check("record", False, f"not a JSON object ({type(exc).__name__})"),),
                           private=None)
    audit = _Audit(plain, Deadline.of(time_limit), progress, updates, published)
    done: list[Check] = []
    for name, rule in FORM_RULES:           # each needs the ones before it
        done.append(_run(name, partial(rule, audit)))
        if not done[-1].ok:
            return RecordCheck(checks=tuple(done), private=None)
    _refuse_past_the_limit(audit)
    rebuilt = _run("rebuild", lambda: _rebuild(audit))
    if not rebuilt.ok:
        return RecordCheck(checks=(*done, rebuilt), private=None)
    done += [_run(name, partial(rule, audit)) for name, rule, applies in RULES if applies(audit)]
    return RecordCheck(checks=tuple(done), private=audit.rebuilt.private)


def _refuse_past_the_limit(audit: _Audit) -> None:
    """Hamilton's weights and the cost estimate, refused past the time limit (an error, not a FAIL)."""
    from itsa.privacy.releasing import planned_cost

    inputs, secret = audit.inputs, audit.secret
    try:
        audit.hw = hamilton_weights(inputs["data_weights"] or [1] * len(secret["integer_weights"]), inputs["alpha"],
                                    inputs["ids"], deadline=audit.deadline)
        seconds, what = planned_cost(inputs, audit.hw, len(secret["encoded_sum"]))
    except TimeLimitReached:
        raise
    except ItsaError as exc:
        audit.hw_error = str(exc)[:160]         # the rebuild fails, naming it
        return
    limit, left = audit.deadline.time_limit, audit.deadline.left()
    if limit is not None and left is not None and 2 * seconds > left:        # the accounting, then the redraw
        raise InvalidOption(f"record check: about {2 * seconds:.3g} s estimated ({what}, redrawn) is beyond the time "
                            f"limit of {limit:g} s (time limit 0: none)")


class _Mismatch(Exception):
    """A check that ran and found a difference."""


def _run(name: str, step: Callable[[], str]) -> Check:
    try:
        return Check(name, True, step())
    except _Mismatch as exc:
        return Check(name, False, str(exc))
    except TimeLimitReached:
        raise
    except ItsaError as exc:
        return Check(name, False, f"malformed record: {str(exc)[:160]}")
    except (KeyError, TypeError, ValueError, ArithmeticError, AttributeError, IndexError, RecursionError) as exc:
        return Check(name, False, f"malformed record ({type(exc).__name__}: {str(exc)[:120]})")


def _plain(obj):
    """``obj`` as JSON would carry it (tuples become lists), so a recomputed value compares with a read one."""
    return json.loads(json.dumps(obj))


def same(a, b) -> bool:
    """Whether two JSON values are equal and of the same kinds throughout (``1`` is not ``true`` nor ``1.0``).

    >>> same({"a": [1, "x"]}, {"a": [1, "x"]}), same(1, True), same(3, 3.0), same([2], [2.0])
    (True, False, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def _differ(mine: dict, theirs: dict) -> list[str]:
    return sorted(k for k in set(mine) | set(theirs) if k not in mine or k not in theirs or not same(mine[k], theirs[k]))


def _kind(value) -> str:
    """The JSON kind of ``value``, in words (a list is of texts or of whole numbers only when all are)."""
    if isinstance(value, list):
        if value and all(type(v) is str for v in value):
            return "list of texts"
        if value and all(type(v) is int for v in value):
            return "list of whole numbers"
        return "list"
    return {bool: "true or false", int: "whole number", float: "float", str: "text", type(None): "null",
            dict: "object"}.get(type(value), type(value).__name__)


def _show(value) -> str:
    """``value`` for a FAIL line: printable ASCII as it is, anything else as ASCII JSON (no control characters,
    no lone surrogates, no terminal escapes from a hostile record), cut at 80 characters."""
    plain = isinstance(value, str) and value.isascii() and value.isprintable()
    text = value if plain else json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _names(keys) -> str:
    """Keys of a record for a FAIL line (at most 8, each shown safely)."""
    keys = list(keys)
    return ", ".join(_show(k) for k in keys[:8]) + (", ..." if len(keys) > 8 else "")


def _keys(what: str, obj, expected: set) -> None:
    if not isinstance(obj, dict):
        raise _Mismatch(f"{what}: not an object")
    missing, extra = sorted(expected - set(obj)), sorted(set(obj) - expected)
    if missing or extra:
        raise _Mismatch(f"{what}: " + "; ".join(p for p in (missing and f"missing {_names(missing)}",
                                                            extra and f"unknown {_names(extra)}") if p))


def _kinds(what: str, obj: dict, kinds: dict) -> None:
    for key, allowed in kinds.items():
        allowed = {allowed} if isinstance(allowed, str) else allowed
        if _kind(obj[key]) not in allowed:
            raise _Mismatch(f"{what}.{key}: must be {' or '.join(sorted(allowed))}, not {_kind(obj[key])} "
                            f"({_show(obj[key])})")


# --- the form: each rule needs the ones before it ---

def _form(audit: _Audit) -> str:
    record = audit.record
    _keys("record", record, RECORD_KEYS)
    if record["secret"] is not True:
        raise _Mismatch(f'record: "secret" must be true (an audit record is secret), not {_show(record["secret"])}')
    for key, expected in (("note", SECRET_NOTE), ("kind", RECORD_KIND), ("record_version", RECORD_VERSION)):
        if not same(record[key], expected):
            raise _Mismatch(f"record.{key}: not this itsa's ({_show(record[key])})")
    for key in ("public", "inputs", "secret_values"):
        if not isinstance(record[key], dict):
            raise _Mismatch(f"record.{key}: not an object")
    return f'marked "secret": true, {RECORD_KIND} version {RECORD_VERSION}'


def _inputs_form(audit: _Audit) -> str:
    from itsa.privacy.releasing import normalised_inputs

    inputs = audit.inputs
    _keys("inputs", inputs, INPUT_KEYS)
    _kinds("inputs", inputs, INPUT_KINDS)
    try:
        again = normalised_inputs(**inputs, deadline=audit.deadline)
    except TimeLimitReached:
        raise
    except ItsaError as exc:
        field = next((f".{key}" for key, start in (("data_weights", "weight"), ("ids", "client ids"))
                      if str(exc).startswith(start)), "")
        raise _Mismatch(f"inputs{field}: {str(exc)[:160]}") from None
    for key in sorted(INPUT_KEYS):
        if not same(again[key], inputs[key]):
            raise _Mismatch(f"inputs.{key}: {_show(inputs[key])} is not as a release writes it "
                            f"({_show(again[key])})")
    return "every input known, present, of its kind and as a release writes it"


def _secret_form(audit: _Audit) -> str:
    inputs, secret = audit.inputs, audit.secret
    noisy = not inputs["no_noise"]
    _keys("secret_values", secret, SECRET_KEYS | (NOISE_KEYS if noisy else set()))
    _kinds("secret_values", secret, {**SECRET_KINDS, **(NOISE_KINDS if noisy else {})})
    d = len(secret["encoded_sum"])
    if not 1 <= d <= MAX_ENTRIES:
        raise _Mismatch(f"secret_values.encoded_sum: {d} coordinates, not in 1..{MAX_ENTRIES}")
    clients = len(secret["integer_weights"])
    for key in ("data_weights", "ids"):
        if inputs[key] is not None and len(inputs[key]) != clients:
            raise _Mismatch(f"inputs.{key}: {len(inputs[key])} given for {clients} integer weights")
    for key in ("exact_average", "noiseless_exact") + (("noise_draws",) if noisy else ()):
        if len(secret[key]) != d:
            raise _Mismatch(f"secret_values.{key}: {len(secret[key])} values, not {d}")
    if not all(_finite(x) for x in secret["exact_average"]):
        raise _Mismatch(f"secret_values.exact_average: must be {d} finite numbers as texts")
    if noisy:
        for key, check in (("seed", check_seed), ("salt", check_salt)):
            try:
                check(secret[key])
            except ItsaError as exc:
                raise _Mismatch(f"secret_values.{key}: {str(exc)[:120]}") from None
    return f"d = {d}: the secret values of the right kinds and lengths"


def _finite(text: str) -> bool:
    try:
        return len(text) <= 40 and math.isfinite(float(text))
    except ValueError:
        return False


#: The form's rules, in order: a record that fails one is not read further.
FORM_RULES: tuple[tuple[str, Callable[[_Audit], str]], ...] = (
    ("record", _form), ("inputs", _inputs_form), ("secret form", _secret_form))


def _rebuild(audit: _Audit) -> str:
    from itsa.privacy.releasing import assemble

    if audit.hw is None:
        raise _Mismatch(f"inputs: no Hamilton weights ({audit.hw_error})")
    secret = audit.secret
    exact = [float(x) for x in secret["exact_average"]]
    audit.rebuilt = assemble(audit.inputs, audit.hw, secret["encoded_sum"], exact, secret.get("seed"),
                             secret.get("salt"), secret.get("noise_draws"))
    audit.again = _plain(audit.rebuilt.record())
    return "the release rebuilt from the record's inputs, Y and noise"


# --- the comparisons with the rebuilt release: one rule each ---

def _fields(name: str) -> Callable[[_Audit], str]:
    """The rule comparing the public and secret fields :data:`FIELDS` gives ``name`` with the rebuilt ones."""
    def rule(audit: _Audit) -> str:
        keys, secret_keys = FIELDS[name]
        for where, mine, theirs, names in (("public", audit.public, audit.again["public"], keys),
                                           ("secret_values", audit.secret, audit.again["secret_values"],
                                            secret_keys)):
            for key in names:
                if key in theirs or key in mine:
                    _same(f"{where}.{key}", mine.get(key), theirs.get(key))
        return ", ".join(keys + secret_keys) + " as recomputed from the inputs"
    return rule


def _same(what: str, recorded, recomputed) -> None:
    if not same(recorded, recomputed):
        raise _Mismatch(f"{what}: the record says {_show(recorded)}, recomputed {_show(recomputed)}")


def _whole(what: str, mine: dict, theirs: dict) -> str:
    if not same(mine, theirs):
        differ = _differ(mine, theirs)
        extra = [k for k in differ if k not in theirs]
        raise _Mismatch(f"{what}: differs from the one recomputed in {_names(differ)}"
                        + (f" (unknown: {_names(extra)})" if extra else ""))
    return f"the whole {what} equals the one recomputed"


def _public(audit: _Audit) -> str:
    return _whole("public part", audit.public, audit.again["public"])


def _secret(audit: _Audit) -> str:
    return _whole("secret values", audit.secret, audit.again["secret_values"])


def _average(audit: _Audit) -> str:
    """The recorded exact average within the rounding bound of ``Y/(γ W_int)`` (exact only with the updates).

    ``|Σ (w̃_i/α) ũ_i/γ − Σ (w_i/W) u_i| ≤ 1/(2γ) + S Σ_i |w̃_i − α w_i/W|/α``
    per coordinate (``|u_ij| ≤ S`` after clipping), plus a margin for the
    float sum that made the average.
    """
    rebuilt = audit.rebuilt
    hw, S = rebuilt.weights, rebuilt.clip
    off = sum(abs(w - q) for w, q in zip(hw.integers, hw.quotas, strict=True)) / hw.alpha
    bound = Fraction(1, 2 * rebuilt.gamma) + S * off + (S + 1) * len(hw.integers) * Fraction(1, 2**40)
    for j, (x, y) in enumerate(zip(rebuilt.exact_average, rebuilt.noiseless, strict=True)):
        if j % _CLOCK_EVERY == 0:
            audit.deadline.check(f"the exact average, coordinate {j + 1}")
        if abs(Fraction(x) - y) > bound:
            raise _Mismatch(f"secret_values.exact_average {j}: {x!r} is farther than {safe_decimal(bound, 4)} "
                            f"(the rounding bound) from Y/(gamma W_int) = {safe_decimal(abs(y), 6)}"
                            f"{' (negative)' if y < 0 else ''}")
    return f"within {safe_decimal(bound, 4)} (the encoding's and the weights' rounding) of Y/(gamma W_int)"


def _noise(audit: _Audit) -> str:
    rebuilt, recorded_draws = audit.rebuilt, audit.secret["noise_draws"]
    noise = rebuilt.noise
    redrawn = draw(rebuilt.sigma_int, len(noise.draws), noise_key(rebuilt.salt, rebuilt.seed), noise.engine,
                   time_limit=audit.deadline.left(), progress=audit.progress)
    bad = next((i for i, (a, b) in enumerate(zip(recorded_draws, redrawn.draws)) if a != b), None)
    if bad is not None:
        raise _Mismatch(f"noise draw {bad}: the record says {recorded_draws[bad]}, the noise key gives "
                        f"{redrawn.draws[bad]}")
    return f"{len(redrawn.draws)} draws redrawn from the noise key (salt, seed; {noise.engine} engine) equal the recorded ones"


def _published(audit: _Audit) -> str:
    shown = {k: v for k, v in audit.published.items() if k != "schema_version"}
    if not same(shown, audit.again["public"]):
        raise _Mismatch("the published output differs from the recomputed public part in "
                        + _names(_differ(shown, audit.again["public"])))
    return "the published output is the recomputed public part"


def _updates(audit: _Audit) -> str:
    """The release rerun on the updates; a file's data weights and IDs (or their absence) must be the record's."""
    from itsa.privacy.releasing import release

    inputs, secret, updates = audit.inputs, audit.secret, audit.updates
    weights = inputs["data_weights"]
    if isinstance(updates, LoadedUpdates):
        if updates.weights is not None:
            _same_as_file("inputs.data_weights", weights, recorded_weights(updates.weights))
        _same_as_file("inputs.ids", inputs["ids"], updates.ids)
        updates = updates.values
    again = release(updates, weights, alpha=inputs["alpha"], gamma=inputs["gamma"],
                    clip=inputs["clip"], epsilon=inputs["epsilon"], noise_multiplier=inputs["noise_multiplier"],
                    delta=inputs["delta"], seed=secret.get("seed"), salt=secret.get("salt"), engine=inputs["engine"],
                    conversion=inputs["conversion"], ids=inputs["ids"], no_noise=inputs["no_noise"],
                    time_limit=audit.deadline, progress=audit.progress).record()
    again = _plain(again)
    _same("noiseless encoded sum Y", secret["encoded_sum"], again["secret_values"]["encoded_sum"])
    for key in ("public", "secret_values", "inputs"):
        if not same(again[key], audit.record[key]):
            raise _Mismatch(f"the release rerun on the updates differs in {key}: "
                            + _names(_differ(again[key], audit.record[key])))
    return "the release rerun on the updates with the recorded seed and salt gives this record"


def _same_as_file(what: str, recorded_value, in_file) -> None:
    if not same(recorded_value, in_file):
        shown = "none" if in_file is None else _show(in_file)
        raise _Mismatch(f"{what}: the record says {_show(recorded_value)}, the updates file has {shown}")


def _always(audit: _Audit) -> bool:
    return True


def _noisy(audit: _Audit) -> bool:
    return audit.rebuilt.private


#: The comparisons, in order: (name, rule, whether it applies).
RULES: tuple[tuple[str, Callable[[_Audit], str], Callable[[_Audit], bool]], ...] = (
    ("count", _fields("count"), _always),
    ("weights", _fields("weights"), _always),
    ("sigma_int", _fields("sigma_int"), _always),
    ("commitment", _fields("commitment"), _noisy),
    ("noise", _noise, _noisy),
    ("released", _fields("released"), _always),
    ("privacy", _fields("privacy"), _always),
    ("exact average", _average, _always),
    ("public", _public, _always),
    ("secret", _secret, _always),
    ("published", _published, lambda audit: audit.published is not None),
    ("updates", _updates, lambda audit: audit.updates is not None),
)
