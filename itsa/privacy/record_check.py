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
are then checked). The redraw's cost is estimated before it starts
(:func:`itsa.privacy.releasing.planned_cost`) and refused past ``time_limit``.

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

from itsa._util.certified import safe_decimal
from itsa._util.display import Displayable
from itsa.exceptions import InvalidOption, ItsaError
from itsa.privacy.commitment import (
    RECORD_KIND,
    RECORD_VERSION,
    SECRET_NOTE,
    check_salt,
    check_seed,
    noise_key,
)
from itsa.privacy.hamilton import weights as hamilton_weights
from itsa.privacy.releasing import MAX_ENTRIES
from itsa.privacy.sampler import draw

__all__ = ["Check", "RecordCheck", "check_record"]


@dataclass(frozen=True)
class Check:
    """One check of the record: its name, whether it passed, what was compared."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, kw_only=True, repr=False)
class RecordCheck(Displayable):
    """Every check of one audit record; :attr:`ok` when all pass."""

    checks: tuple[Check, ...]
    private: bool

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
        return rows + ([] if self.private else [("privacy", "the recorded release has no noise: it is NOT private")])


#: The keys of an audit record.
RECORD_KEYS = {"secret", "note", "kind", "record_version", "public", "inputs", "secret_values"}
#: The keys of a record's inputs.
INPUT_KEYS = {"alpha", "gamma", "clip", "epsilon", "noise_multiplier", "delta", "engine", "conversion", "no_noise",
              "data_weights", "ids"}
#: The secret values of every record, and those of a release with noise.
SECRET_KEYS = {"encoded_sum", "noiseless_exact", "exact_average", "integer_weights"}
NOISE_KEYS = {"seed", "salt", "noise_draws", "noise_sha256"}
#: Which public and secret fields each comparison covers (``public`` and ``secret`` cover them all).
FIELDS = {
    "count": (("dimension", "clients"), ()),
    "weights": (("alpha", "max_weight"), ("integer_weights",)),
    "sigma_int": (("gamma", "clip", "denominator", "sensitivity", "noise_multiplier", "sigma_int"), ()),
    "commitment": (("commitment",), ()),
    "released": (("released", "released_exact"), ("noiseless_exact",)),
    "privacy": (("private", "delta", "conversion", "epsilon", "delta_run", "table_distance", "warnings"), ()),
}


def check_record(record: dict, updates=None, published: dict | None = None, time_limit: float | None = None,
                 progress=None) -> RecordCheck:
    """Check an audit record (see the module notes); ``updates`` and ``published`` add their checks.

    A record of the wrong form or with a value of the wrong kind fails its
    check (a tampered record is a FAIL, not an error); a redraw estimated
    past ``time_limit`` is refused (:class:`~itsa.exceptions.InvalidOption`).
    """
    from itsa.privacy.releasing import planned_cost

    record = _plain(record)
    form = [_run("record", lambda: _form(record))]
    if form[0].ok:
        form.append(_run("inputs", lambda: _inputs_form(record["inputs"])))
    if all(c.ok for c in form):
        form.append(_run("secret form", lambda: _secret_form(record["inputs"], record["secret_values"])))
    if not all(c.ok for c in form):
        return RecordCheck(checks=tuple(form), private=False)
    inputs, secret = record["inputs"], record["secret_values"]
    try:
        hw = hamilton_weights(inputs["data_weights"] or [1] * len(secret["integer_weights"]), inputs["alpha"],
                              inputs["ids"])
        seconds, what = planned_cost(inputs, hw, len(secret["encoded_sum"]))
    except ItsaError as exc:
        return RecordCheck(checks=(*form, Check("rebuild", False, f"malformed record: {str(exc)[:160]}")),
                           private=False)
    if time_limit is not None and 2 * seconds > time_limit:        # the accounting, then the redraw
        raise InvalidOption(f"record check: about {2 * seconds:.3g} s estimated ({what}, redrawn) is beyond the time "
                            f"limit of {time_limit:g} s (time limit 0: none)")
    state: dict = {}
    steps: list[tuple[str, Callable[[], str]]] = [("rebuild", lambda: _rebuild(inputs, secret, hw, state))]
    form.append(_run(*steps[0]))
    if not form[-1].ok:
        return RecordCheck(checks=tuple(form), private=False)
    rebuilt = state["rebuilt"]
    public, again = record["public"], _plain(rebuilt.record())
    steps = [(name, _fields(name, public, secret, again)) for name in ("count", "weights", "sigma_int")]
    if rebuilt.private:
        steps += [(name, _fields(name, public, secret, again)) for name in ("commitment",)]
        steps.append(("noise", lambda: _noise(rebuilt, secret, progress)))
    steps += [(name, _fields(name, public, secret, again)) for name in ("released", "privacy")]
    steps.append(("exact average", lambda: _average(rebuilt)))
    steps += [("public", lambda: _whole("public part", public, again["public"])),
              ("secret", lambda: _whole("secret values", secret, again["secret_values"]))]
    if published is not None:
        steps.append(("published", lambda: _published(again["public"], published)))
    if updates is not None:
        steps.append(("updates", lambda: _rerun(record, updates, time_limit, progress)))
    return RecordCheck(checks=tuple(form[:-1]) + tuple(_run(name, step) for name, step in steps),
                       private=rebuilt.private)


class _Mismatch(Exception):
    """A check that ran and found a difference."""


def _run(name: str, step: Callable[[], str]) -> Check:
    try:
        return Check(name, True, step())
    except _Mismatch as exc:
        return Check(name, False, str(exc))
    except ItsaError as exc:
        return Check(name, False, f"malformed record: {str(exc)[:160]}")
    except (KeyError, TypeError, ValueError, ArithmeticError, AttributeError, IndexError) as exc:
        return Check(name, False, f"malformed record ({type(exc).__name__}: {str(exc)[:120]})")


def _plain(obj):
    """``obj`` as JSON would carry it (tuples become lists), so a recomputed value compares with a read one."""
    return json.loads(json.dumps(obj))


def _show(value) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:77] + "..."


def _keys(what: str, obj, expected: set) -> None:
    if not isinstance(obj, dict):
        raise _Mismatch(f"{what}: not an object")
    missing, extra = sorted(expected - set(obj)), sorted(set(obj) - expected)
    if missing or extra:
        raise _Mismatch(f"{what}: " + "; ".join(p for p in (missing and f"missing {', '.join(missing)}",
                                                            extra and f"unknown {', '.join(extra)}") if p))


def _form(record) -> str:
    _keys("record", record, RECORD_KEYS)
    if record["secret"] is not True:
        raise _Mismatch(f'record: "secret" must be true (an audit record is secret), not {_show(record["secret"])}')
    for key, expected in (("note", SECRET_NOTE), ("kind", RECORD_KIND), ("record_version", RECORD_VERSION)):
        if record[key] != expected:
            raise _Mismatch(f"record.{key}: not this itsa's ({_show(record[key])})")
    for key in ("public", "inputs", "secret_values"):
        if not isinstance(record[key], dict):
            raise _Mismatch(f"record.{key}: not an object")
    return f'marked "secret": true, {RECORD_KIND} version {RECORD_VERSION}'


def _inputs_form(inputs) -> str:
    from itsa.privacy.releasing import normalised_inputs

    _keys("inputs", inputs, INPUT_KEYS)
    for key in ("data_weights", "ids"):
        if inputs[key] is not None and not isinstance(inputs[key], list):
            raise _Mismatch(f"inputs.{key}: not a list")
    try:
        again = normalised_inputs(**inputs)
    except ItsaError as exc:
        raise _Mismatch(f"inputs: {str(exc)[:160]}") from None
    for key in sorted(INPUT_KEYS):
        if again[key] != inputs[key]:
            raise _Mismatch(f"inputs.{key}: {_show(inputs[key])} is not as a release writes it "
                            f"({_show(again[key])})")
    return "every input known, present and as a release writes it"


def _int_list(what: str, values, length: int | None = None) -> list[int]:
    if not isinstance(values, list) or not all(type(v) is int for v in values):
        raise _Mismatch(f"{what}: must be a list of whole numbers")
    if length is not None and len(values) != length:
        raise _Mismatch(f"{what}: {len(values)} values, not {length}")
    return values


def _secret_form(inputs, secret) -> str:
    _keys("secret_values", secret, SECRET_KEYS | (set() if inputs["no_noise"] else NOISE_KEYS))
    d = len(_int_list("secret_values.encoded_sum", secret["encoded_sum"]))
    if not 1 <= d <= MAX_ENTRIES:
        raise _Mismatch(f"secret_values.encoded_sum: {d} coordinates, not in 1..{MAX_ENTRIES}")
    clients = len(_int_list("secret_values.integer_weights", secret["integer_weights"]))
    for key in ("data_weights", "ids"):
        if inputs[key] is not None and len(inputs[key]) != clients:
            raise _Mismatch(f"inputs.{key}: {len(inputs[key])} given for {clients} integer weights")
    average = secret["exact_average"]
    if not isinstance(average, list) or len(average) != d or not all(
            isinstance(x, str) and math.isfinite(float(x)) for x in average):
        raise _Mismatch(f"secret_values.exact_average: must be {d} finite numbers as texts")
    if not inputs["no_noise"]:
        _int_list("secret_values.noise_draws", secret["noise_draws"], d)
        for key, check in (("seed", check_seed), ("salt", check_salt)):
            try:
                check(secret[key])
            except ItsaError as exc:
                raise _Mismatch(f"secret_values.{key}: {str(exc)[:120]}") from None
    return f"d = {d}: the secret values of the right kinds and lengths"


def _rebuild(inputs, secret, hw, state: dict) -> str:
    from itsa.privacy.releasing import assemble

    exact = [float(x) for x in secret["exact_average"]]
    state["rebuilt"] = assemble(inputs, hw, secret["encoded_sum"], exact, secret.get("seed"), secret.get("salt"),
                                secret.get("noise_draws"))
    return "the release rebuilt from the record's inputs, Y and noise"


def _fields(name: str, public: dict, secret: dict, again: dict) -> Callable[[], str]:
    """A comparison of the public and secret fields :data:`FIELDS` gives ``name`` with the rebuilt ones."""
    def step() -> str:
        keys, secret_keys = FIELDS[name]
        for where, mine, theirs, names in (("public", public, again["public"], keys),
                                           ("secret_values", secret, again["secret_values"], secret_keys)):
            for key in names:
                if key in theirs or key in mine:
                    _same(f"{where}.{key}", mine.get(key), theirs.get(key))
        return ", ".join(keys + secret_keys) + " as recomputed from the inputs"
    return step


def _same(what: str, recorded, recomputed) -> None:
    if recorded != recomputed:
        raise _Mismatch(f"{what}: the record says {_show(recorded)}, recomputed {_show(recomputed)}")


def _whole(what: str, mine: dict, theirs: dict) -> str:
    if mine != theirs:
        differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k, _ABSENT) != theirs.get(k, _ABSENT))
        extra = [k for k in differ if k not in theirs]
        raise _Mismatch(f"{what}: differs from the one recomputed in {', '.join(differ[:8])}"
                        + (f" (unknown: {', '.join(extra[:8])})" if extra else ""))
    return f"the whole {what} equals the one recomputed"


_ABSENT = object()


def _average(rebuilt) -> str:
    """The recorded exact average within the rounding bound of ``Y/(γ W_int)`` (exact only with the updates).

    ``|Σ (w̃_i/α) ũ_i/γ − Σ (w_i/W) u_i| ≤ 1/(2γ) + S Σ_i |w̃_i − α w_i/W|/α``
    per coordinate (``|u_ij| ≤ S`` after clipping), plus a margin for the
    float sum that made the average.
    """
    hw, S = rebuilt.weights, rebuilt.clip
    off = sum(abs(w - q) for w, q in zip(hw.integers, hw.quotas, strict=True)) / hw.alpha
    bound = Fraction(1, 2 * rebuilt.gamma) + S * off + (S + 1) * len(hw.integers) * Fraction(1, 2**40)
    for j, (x, y) in enumerate(zip(rebuilt.exact_average, rebuilt.noiseless, strict=True)):
        if abs(Fraction(x) - y) > bound:
            raise _Mismatch(f"secret_values.exact_average {j}: {x!r} is farther than {safe_decimal(bound, 4)} "
                            f"(the rounding bound) from Y/(gamma W_int) = {safe_decimal(abs(y), 6)}"
                            f"{' (negative)' if y < 0 else ''}")
    return f"within {safe_decimal(bound, 4)} (the encoding's and the weights' rounding) of Y/(gamma W_int)"


def _noise(rebuilt, secret, progress) -> str:
    noise = rebuilt.noise
    redrawn = draw(rebuilt.sigma_int, len(noise.draws), noise_key(rebuilt.salt, rebuilt.seed), noise.engine,
                   progress=progress)
    bad = next((i for i, (a, b) in enumerate(zip(secret["noise_draws"], redrawn.draws)) if a != b), None)
    if bad is not None:
        raise _Mismatch(f"noise draw {bad}: the record says {secret['noise_draws'][bad]}, the noise key gives "
                        f"{redrawn.draws[bad]}")
    return f"{len(redrawn.draws)} draws redrawn from the noise key (salt, seed; {noise.engine} engine) equal the recorded ones"


def _published(public, published: dict) -> str:
    shown = {k: v for k, v in published.items() if k != "schema_version"}
    if shown != public:
        differ = sorted(k for k in set(shown) | set(public) if shown.get(k, _ABSENT) != public.get(k, _ABSENT))
        raise _Mismatch(f"the published output differs from the recomputed public part in {', '.join(differ[:8])}")
    return "the published output is the recomputed public part"


def _rerun(record, updates, time_limit, progress) -> str:
    from itsa.privacy.releasing import release

    inputs, secret = record["inputs"], record["secret_values"]
    again = release(updates, inputs["data_weights"], alpha=inputs["alpha"], gamma=inputs["gamma"],
                    clip=inputs["clip"], epsilon=inputs["epsilon"], noise_multiplier=inputs["noise_multiplier"],
                    delta=inputs["delta"], seed=secret.get("seed"), salt=secret.get("salt"), engine=inputs["engine"],
                    conversion=inputs["conversion"], ids=inputs["ids"], no_noise=inputs["no_noise"],
                    time_limit=time_limit, progress=progress).record()
    again = _plain(again)
    _same("noiseless encoded sum Y", secret["encoded_sum"], again["secret_values"]["encoded_sum"])
    for key in ("public", "secret_values", "inputs"):
        if again[key] != record[key]:
            differ = sorted(k for k in set(again[key]) | set(record[key]) if again[key].get(k) != record[key].get(k))
            raise _Mismatch(f"the release rerun on the updates differs in {key}: {', '.join(differ[:8])}")
    return "the release rerun on the updates with the recorded seed and salt gives this record"
