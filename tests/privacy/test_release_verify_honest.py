"""``privacy release --verify`` names the check that failed and never calls a noisy record noiseless.

A record whose check stops early (its form fails, or it cannot be rebuilt)
says nothing of its noise (``private`` is ``None``); "NOT private" is said
only of a release rebuilt without noise.
"""

import json

import numpy as np
import pytest

from itsa.privacy.record_check import check_record
from itsa.privacy.releasing import release

UPDATES = np.array([[0.5, -0.25], [0.125, 0.75], [-0.5, 0.0]])


@pytest.fixture(scope="module")
def noisy():
    return release(UPDATES, epsilon=1, engine="exact", ids=[1, 2, 3])


def _edit(record: dict, path: str, value) -> dict:
    *parents, last = path.split(".")
    target = record
    for key in parents:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value(target[last]) if callable(value) else value
    return record


DELETE = object()
#: Edits of a noisy record that stop its check before the release is rebuilt, or fail a comparison.
EDITS = {
    "upper-case salt": ("secret_values.salt", str.upper),
    "salt removed": ("secret_values.salt", DELETE),
    "seed a text": ("secret_values.seed", "x"),
    "draws cut short": ("secret_values.noise_draws", lambda zs: zs[:1]),
    "secret false": ("secret", False),
    "unknown input": ("inputs.colour", "red"),
    "alpha a float": ("inputs.alpha", 256.0),
    "version": ("record_version", 99),
    "inputs not an object": ("inputs", []),
    "weights mangled": ("inputs.data_weights", ["1", "x", "1"]),
    "a draw changed": ("secret_values.noise_draws", lambda zs: [zs[0] + 1, *zs[1:]]),
    "public private false": ("public.private", False),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edited_noisy_record_is_never_called_noiseless(noisy, name):
    record = _edit(json.loads(json.dumps(noisy.record())), *EDITS[name])
    result = check_record(record)
    assert not result.ok and result.failed
    assert result.private is not False                          # before: False whenever the check stopped early
    text = " ".join(f"{k} {v}" for k, v in result.rows()) + result.headline()
    assert "NOT private" not in text and "no noise" not in text
    assert result.headline() == f"FAIL release record: {', '.join(result.failed)}"
    assert result.to_dict()["private"] in (None, True) and result.to_dict()["failed"] == list(result.failed)


def test_the_upper_case_salt_names_its_check_and_says_privacy_is_not_established(noisy, tmp_path):
    from click.testing import CliRunner

    from itsa_cli import main

    record = _edit(json.loads(json.dumps(noisy.record())), "secret_values.salt", str.upper)
    (tmp_path / "r.json").write_text(json.dumps(record))
    runner = CliRunner()
    text = runner.invoke(main, ["privacy", "release", "--verify", str(tmp_path / "r.json")])
    assert text.exit_code == 1 and "FAIL release record: secret form" in text.stdout
    assert "lower-case" in text.stdout and "not established" in text.stdout and "NOT private" not in text.stdout
    data = json.loads(runner.invoke(main, ["privacy", "release", "--verify", str(tmp_path / "r.json"),
                                           "--json"]).stdout)
    assert data["private"] is None and data["failed"] == ["secret form"] and data["verified"] is False


def test_a_release_without_noise_is_still_called_not_private():
    r = release(UPDATES, no_noise=True)
    result = check_record(r.record())
    assert result.ok and result.private is False
    assert ("privacy", "the recorded release has no noise: it is NOT private") in result.rows()
