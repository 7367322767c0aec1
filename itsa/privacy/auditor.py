"""The auditor's check of a release's audit record: weights, σ_int, commitment, noise, released values, privacy.

Given the record (:meth:`itsa.privacy.release.Release.record`) the auditor
recomputes what the record claims, from the record alone:

- **count**: ``d`` draws, ``d`` encoded sums, ``d`` released values;
- **weights**: Hamilton's integer weights from the recorded data weights, and ``w_max``;
- **sigma_int**: ``Δ*₂`` and ``σ_int = σ_t γ W_int Δ*₂`` from the recorded
  parameters (the same rounding up as the release);
- **commitment**: the salted hash of (salt, seed, σ_int, engine, count, K,
  Y, denominator) equals the published one;
- **noise**: the noise redrawn from the seed equals the recorded draws;
- **released**: every released value is ``(Y + z)/(γ W_int)``, exactly;
- **privacy**: ε and ``δ_run`` recomputed for that σ_int;

and, when given, **published** (the published JSON is the record's public
part, so the commitment checked is the one the public saw) and **updates**
(the release rerun on the clients' updates with the recorded seed and salt
gives the same record: ``Y`` itself is then checked).

Examples
--------
>>> import numpy as np
>>> from itsa.privacy.release import release
>>> r = release(np.array([[0.25, 0.5], [0.5, 0.0]]), noise_multiplier=1, engine="exact")
>>> check_record(r.record()).ok
True
>>> tampered = r.record()
>>> tampered["secret_values"]["noise_draws"][0] += 1
>>> [c.name for c in check_record(tampered).checks if not c.ok]
['noise', 'released']
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from itsa._util.display import Displayable
from itsa.privacy.commitment import commit, commitment_fields
from itsa.privacy.conversion import check_delta
from itsa.privacy.sampler import draw
from itsa.privacy.weights import hamilton_weights, sensitivity

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

    def _headline(self) -> str:
        names = ", ".join(c.name for c in self.checks)
        return f"PASS release record: {names}" if self.ok else f"FAIL release record: {', '.join(self.failed)}"

    def _rows(self) -> list[tuple[str, str]]:
        return [(c.name, ("ok: " if c.ok else "FAIL: ") + c.detail) for c in self.checks]


def check_record(record: dict, updates=None, published: dict | None = None, time_limit: float | None = None,
                 progress=None) -> RecordCheck:
    """Check an audit record (see the module notes); ``updates`` and ``published`` add their checks.

    A value of the wrong kind inside the record fails its check (a tampered
    record is a FAIL, not an error).
    """
    record = _plain(record)
    public, inputs, secret = record["public"], record["inputs"], record["secret_values"]
    private = public.get("private") is True
    state: dict = {}
    steps: list[tuple[str, Callable[[], str]]] = [
        ("count", lambda: _count(public, secret, private)),
        ("weights", lambda: _weights(public, inputs, secret, state)),
    ]
    if private:
        steps += [("sigma_int", lambda: _sigma(public, inputs, state)),
                  ("commitment", lambda: _commitment(public, secret)),
                  ("noise", lambda: _noise(public, secret)),
                  ("released", lambda: _released(public, secret, secret["noise_draws"])),
                  ("privacy", lambda: _privacy(public, inputs, state))]
    else:
        steps += [("released", lambda: _released(public, secret, [0] * len(secret["encoded_sum"])))]
    if published is not None:
        steps.append(("published", lambda: _published(public, published)))
    if updates is not None:
        steps.append(("updates", lambda: _rerun(record, updates, time_limit, progress)))
    return RecordCheck(checks=tuple(_run(name, step) for name, step in steps), private=private)


class _Mismatch(Exception):
    """A check that ran and found a difference."""


def _run(name: str, step: Callable[[], str]) -> Check:
    try:
        return Check(name, True, step())
    except _Mismatch as exc:
        return Check(name, False, str(exc))
    except (KeyError, TypeError, ValueError, ArithmeticError, AttributeError, IndexError) as exc:
        return Check(name, False, f"malformed record ({type(exc).__name__}: {str(exc)[:120]})")


def _plain(obj):
    """``obj`` as JSON would carry it (tuples become lists), so a recomputed value compares with a read one."""
    return json.loads(json.dumps(obj))


def _same(what: str, recorded, recomputed) -> None:
    recomputed = _plain(recomputed) if isinstance(recomputed, (dict, tuple)) else recomputed
    if recorded != recomputed:
        raise _Mismatch(f"{what}: the record says {str(recorded)[:80]}, recomputed {str(recomputed)[:80]}")


def _count(public, secret, private: bool) -> str:
    d = int(public["dimension"])
    sizes = {"encoded sums": len(secret["encoded_sum"]), "released values": len(public["released_exact"])}
    if private:
        sizes["noise draws"] = len(secret["noise_draws"])
    for what, n in sizes.items():
        _same(f"{what} for d = {d}", n, d)
    return f"d = {d}: " + ", ".join(f"{n} {what}" for what, n in sizes.items())


def _weights(public, inputs, secret, state: dict) -> str:
    data = inputs["data_weights"] if inputs["data_weights"] is not None else [1] * int(public["clients"])
    hw = hamilton_weights(data, int(inputs["alpha"]), inputs["ids"])
    _same("integer weights", list(secret["integer_weights"]), list(hw.integers))
    _same("w_max", public["w_max"], str(hw.max_weight))
    state["weights"] = hw
    return f"Hamilton weights on alpha = {hw.alpha} from the recorded data weights; w_max = {hw.max_weight}"


def _sigma(public, inputs, state: dict) -> str:
    from itsa.privacy.release import noise_scale

    hw, d, gamma = state["weights"], int(public["dimension"]), int(inputs["gamma"])
    delta_star = sensitivity(max_weight=hw.max_weight, clip=Fraction(inputs["clip"]), dimension=d, gamma=gamma)
    multiplier, sigma_int, integer_sensitivity = noise_scale(inputs["epsilon"], inputs["noise_multiplier"],
                                                             check_delta(inputs["delta"]), gamma * hw.alpha, delta_star)
    state["integer_sensitivity"] = integer_sensitivity
    _same("Delta*_2", public["sensitivity"], delta_star.to_dict())
    _same("noise multiplier", public["noise_multiplier"], multiplier.to_dict())
    _same("sigma_int", Fraction(public["sigma_int"]), sigma_int)
    return f"sigma_int = {sigma_int} = sigma_t gamma W_int Delta*_2, rounded up as the release rounds it"


def _commitment(public, secret) -> str:
    fields = commitment_fields(salt=secret["salt"], seed=secret["seed"], sigma_int=Fraction(public["sigma_int"]),
                               engine=public["engine"], count=int(public["dimension"]),
                               truncation=public["truncation"], encoded_sum=secret["encoded_sum"],
                               denominator=int(public["denominator"]))
    _same("commitment", public["commitment"]["value"], commit(fields))
    return "the salted SHA-256 of (salt, seed, sigma_int, engine, count, K, Y, denominator) is the published one"


def _noise(public, secret) -> str:
    redrawn = draw(Fraction(public["sigma_int"]), int(public["dimension"]), secret["seed"], public["engine"])
    _same("table truncation K", public["truncation"], redrawn.truncation)
    if list(secret["noise_draws"]) != list(redrawn.draws):
        bad = next(i for i, (a, b) in enumerate(zip(secret["noise_draws"], redrawn.draws)) if a != b)
        raise _Mismatch(f"noise draw {bad}: the record says {secret['noise_draws'][bad]}, the seed gives "
                        f"{redrawn.draws[bad]}")
    return f"{len(redrawn.draws)} draws redrawn from the seed ({public['engine']} engine) equal the recorded ones"


def _released(public, secret, noise) -> str:
    from itsa.privacy.release import _dec

    denominator = int(public["denominator"])
    for i, (y, z, x, text) in enumerate(zip(secret["encoded_sum"], noise, public["released_exact"],
                                            public["released"], strict=True)):
        decoded = Fraction(int(y) + int(z), denominator)
        _same(f"released value {i}", Fraction(x), decoded)
        _same(f"released decimal {i}", text, _dec(decoded))
    return f"every released value is (Y + z)/{denominator} exactly"


def _privacy(public, inputs, state: dict) -> str:
    from itsa.privacy.release import _privacy_of_run
    from itsa.privacy.table_law import table_distance

    sigma_int = Fraction(public["sigma_int"])
    distance = None if public["truncation"] is None else table_distance(sigma_int)
    eps, delta_run = _privacy_of_run(sigma_int, state["integer_sensitivity"], check_delta(inputs["delta"]),
                                     inputs["conversion"], distance, int(public["dimension"]))
    _same("epsilon", public["epsilon"], eps.to_dict())
    _same("delta_run", public["delta_run"], delta_run.to_dict())
    return f"eps = {eps.epsilon.decimal()} at delta {delta_run.decimal()} recomputed for sigma_int"


def _published(public, published: dict) -> str:
    shown = {k: v for k, v in published.items() if k != "schema_version"}
    if shown != public:
        differ = sorted(k for k in set(shown) | set(public) if shown.get(k) != public.get(k))
        raise _Mismatch(f"the published output differs from the record's public part in {', '.join(differ[:8])}")
    return "the published output is the record's public part"


def _rerun(record, updates, time_limit, progress) -> str:
    from itsa.privacy.release import release

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
