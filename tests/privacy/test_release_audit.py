"""A second reader's attacks on a release and its audit record: each fails (or is refused with one line)."""

import errno
import json
import os
import stat
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

import itsa.privacy.commitment as commitment
from itsa.exceptions import InvalidOption, InvalidOutputPath
from itsa.privacy.record_check import check_record
from itsa.privacy.releasing import MAX_EPSILON, release
from itsa.privacy.table_law import table_distance
from itsa_cli import main as cli
from tests.guard import ends

UPDATES = np.array([[0.5, -0.25], [0.125, 0.75], [-0.5, 0.0]])


def refused(args, env=None):
    """``itsa privacy release ARGS`` by click's runner: exit 2 and one ``error:`` line."""
    res = CliRunner().invoke(cli, ["privacy", "release", *args], env=env)
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error:"), res.stderr
    return res.stderr


# --- findings 1, 2: a weak or reused seed gives the public nothing ---

@pytest.mark.parametrize("seed", ["1", "0"])
def test_a_guessable_seed_does_not_let_privacy_noise_recover_the_sum(tmp_path, seed, itsa_privacy, updates_csv):
    record = tmp_path / "r.json"
    public = json.loads(itsa_privacy("release", str(updates_csv(UPDATES)), "--epsilon", "1", "--seed", seed, "--record",
                             str(record), "--json").stdout)
    noise = json.loads(itsa_privacy("noise", "--sigma", public["sigma_int"], "--count", "2", "--seed", seed, "--engine",
                            public["engine"], "--json").stdout)["draws"]       # the release's own engine
    guess = [Fraction(x) * public["denominator"] - z for x, z in zip(public["released_exact"], noise)]
    truth = json.loads(record.read_text())["secret_values"]["encoded_sum"]
    assert guess != truth


def test_two_releases_with_one_itsa_seed_have_independent_noise(tmp_path, itsa_privacy, updates_csv):
    other = UPDATES + np.array([[0.0, 0.0], [0.0, 0.0], [0.25, 0.125]])
    out = []
    for name, data in (("u.csv", UPDATES), ("u2.csv", other)):
        record = tmp_path / f"{name}.record"
        public = json.loads(itsa_privacy("release", str(updates_csv(data, name)), "--epsilon", "1", "--record",
                                 str(record), "--json", env={"ITSA_SEED": "31337"}).stdout)
        out.append((public, json.loads(record.read_text())["secret_values"]))
    (a, sa), (b, sb) = out
    difference = [(Fraction(x) - Fraction(y)) * a["denominator"] for x, y in zip(a["released_exact"],
                                                                                  b["released_exact"])]
    assert difference != [p - q for p, q in zip(sa["encoded_sum"], sb["encoded_sum"])]
    assert sa["seed"] == sb["seed"] == 31337 and sa["noise_draws"] != sb["noise_draws"]


# --- finding 3: a vacuous guarantee is refused unless --no-noise ---

@pytest.mark.parametrize("args", [["--noise-multiplier", "1e-12"], ["--noise-multiplier", "1e-12", "--engine", "exact"],
                                  ["--epsilon", "1000"], ["--noise-multiplier", "0.01"]])
def test_a_vacuous_release_is_refused_and_writes_nothing(tmp_path, args, updates_csv):
    record = tmp_path / "r.json"
    message = refused([str(updates_csv(UPDATES)), *args, "--record", str(record), "--json"])
    assert "vacuous" in message or "says nothing" in message
    assert "by name" in message and not record.exists()


def test_the_library_refuses_a_vacuous_release():
    with pytest.raises(InvalidOption, match="vacuous"):
        release(UPDATES, noise_multiplier="1e-12", engine="exact")
    with pytest.raises(InvalidOption, match=f"eps > {MAX_EPSILON}"):
        release(UPDATES, epsilon=MAX_EPSILON + 1)
    assert release(UPDATES, epsilon=10).epsilon.epsilon.upper() <= MAX_EPSILON       # a real guarantee passes


# --- finding 4: --verify recomputes every public field ---

def _set(path: str, value):
    def change(rec):
        *where, key = path.split(".")
        obj = rec
        for part in where:
            obj = obj[part]
        obj[key] = value
    return change


def _drop(path: str):
    def change(rec):
        *where, key = path.split(".")
        obj = rec
        for part in where:
            obj = obj[part]
        del obj[key]
    return change


TAMPERS = {
    "public.delta": _set("public.delta", "1e-12"),
    "public.clip": _set("public.clip", "2"),
    "public.gamma": _set("public.gamma", 512),
    "public.conversion": _set("public.conversion", "mironov"),
    "public.table_distance": _set("public.table_distance", table_distance(3).to_dict()),   # a table's, on exact noise
    "public.warnings": _set("public.warnings", ["none"]),
    "public.publishable": _set("public.publishable", "anything"),
    "public.extra": _set("public.extra", 1),
    "public.private": _set("public.private", False),
    "inputs.engine": _set("inputs.engine", "table"),
    "inputs.no_noise": _set("inputs.no_noise", True),
    "inputs.extra": _set("inputs.extra", 1),
    "secret.noiseless_exact": _set("secret_values.noiseless_exact", ["1/2", "1/2"]),
    "secret.exact_average": _set("secret_values.exact_average", ["0.5", "0.5"]),
    "secret.noise_sha256": _set("secret_values.noise_sha256", "0" * 64),
    "secret.extra": _set("secret_values.extra", 1),
    "secret false": _set("secret", False),
    "no secret key": _drop("secret"),
    "no note": _drop("note"),
}


@pytest.fixture(scope="module")
def made():
    r = release(UPDATES, epsilon=1)
    assert check_record(r.record()).ok and check_record(r.record(), published=r.to_dict()).ok
    return r


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_verify_fails_on_every_changed_field(made, name):
    record = json.loads(json.dumps(made.record()))
    TAMPERS[name](record)
    assert not check_record(record).ok
    assert not check_record(record, published=record["public"]).ok       # also against the forged public part


def test_verify_published_is_the_whole_recomputed_object(made):
    forged = {**made.to_dict(), "delta": "1e-12"}
    record = made.record()
    record["public"] = forged
    result = check_record(record, published=forged)
    assert {"privacy", "public", "published"} <= set(result.failed)
    assert check_record(made.record(), published={**made.to_dict(), "extra": 1}).failed == ("published",)


def test_cli_verify_fails_a_record_not_marked_secret(tmp_path, made):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**made.record(), "secret": False}))
    res = CliRunner().invoke(cli, ["privacy", "release", "--verify", str(bad)])
    assert res.exit_code == 1 and res.stdout.startswith("record check: FAIL release record: record")


# --- finding 5: a malformed record is a FAIL naming the field ---

MALFORMED = {
    "public.dimension": _set("public.dimension", 5),
    "secret_values.noise_draws": _set("secret_values.noise_draws", ["a", 1]),
    "secret_values.encoded_sum": _set("secret_values.encoded_sum", "x"),
    "secret_values.salt": _set("secret_values.salt", "zz"),
    "secret_values.seed": _set("secret_values.seed", "5"),
    "inputs.alpha": _set("inputs.alpha", "256"),
    "inputs.delta": _set("inputs.delta", "2"),
    "inputs.data_weights": _set("inputs.data_weights", ["1", "2"]),
    "secret_values.exact_average": _set("secret_values.exact_average", ["nan", "x"]),
}


@pytest.mark.parametrize("field", sorted(MALFORMED))
def test_a_malformed_record_is_a_fail_naming_the_field(made, field):
    record = json.loads(json.dumps(made.record()))
    MALFORMED[field](record)
    result = check_record(record)
    assert not result.ok
    details = " ".join(c.detail for c in result.checks if not c.ok)
    assert field.split(".")[-1] in details, details


def test_cli_verify_of_a_wrong_dimension_is_exit_1_without_traceback(tmp_path, made, itsa_privacy):
    bad = tmp_path / "dim.json"
    record = made.record()
    record["public"]["dimension"] = 5
    bad.write_text(json.dumps(record))
    res = itsa_privacy("release", "--verify", str(bad), check=False)
    assert res.returncode == 1 and "Traceback" not in res.stderr and "public.dimension" in res.stdout


# --- finding 6: the redraw's cost is estimated and refused past --time-limit ---

def test_verify_refuses_a_redraw_past_the_time_limit(tmp_path, made):
    record = made.record()
    d = 200_000
    record["inputs"]["engine"] = "exact"
    record["secret_values"].update(encoded_sum=[0] * d, noise_draws=[0] * d, exact_average=["0.0"] * d,
                                   noiseless_exact=["0"] * d)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(record))
    with ends():
        message = refused(["--verify", str(path), "--time-limit", "1"])
    assert "time limit" in message and "exact draws" in message
    with pytest.raises(InvalidOption, match="time limit"):
        check_record(record, time_limit=1)


# --- finding 7: the record never overwrites a file ---

def test_a_file_created_after_the_check_is_not_overwritten(tmp_path, monkeypatch, made):
    target = tmp_path / "r.json"
    checked = commitment.check_record_path

    def racing(path):
        p = checked(path)
        p.write_text("another process's file")          # appears between the check and the write
        return p

    monkeypatch.setattr(commitment, "check_record_path", racing)
    with pytest.raises(InvalidOutputPath, match="never overwritten"):
        commitment.write_record(target, made.record())
    assert target.read_text() == "another process's file" and sorted(os.listdir(tmp_path)) == ["r.json"]


def test_without_hard_links_the_record_is_created_exclusively(tmp_path, monkeypatch, made):
    def no_links(src, dst):
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(commitment.os, "link", no_links)
    path = commitment.write_record(tmp_path / "r.json", made.record())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and json.loads(path.read_text())["secret"] is True
    assert sorted(os.listdir(tmp_path)) == ["r.json"]
    checked = commitment.check_record_path

    def racing(p):
        out = checked(p)
        out.write_text("theirs")
        return out

    monkeypatch.setattr(commitment, "check_record_path", racing)
    with pytest.raises(InvalidOutputPath, match="never overwritten"):
        commitment.write_record(tmp_path / "s.json", made.record())
    assert (tmp_path / "s.json").read_text() == "theirs" and sorted(os.listdir(tmp_path)) == ["r.json", "s.json"]


# --- findings 8, 9, 13: every Fraction written exactly, messages with the real value ---

@pytest.mark.parametrize("args", [["--delta", "1e-5000", "--engine", "exact"], ["--delta", "1e-4400", "--engine", "exact"],
                                  ["--delta", "1e-100000", "--engine", "exact"], ["--clip", "1e-5000"],
                                  ["--clip", "1e-4400"]])
def test_tiny_deltas_and_clips_release_and_verify(tmp_path, args, itsa_privacy, updates_csv):
    record = tmp_path / "r.json"
    updates = updates_csv(UPDATES)
    public = json.loads(itsa_privacy("release", str(updates), "--epsilon", "1", *args, "--record", str(record),
                             "--json").stdout)
    key = args[0].removeprefix("--")
    assert public[key] == args[1] and json.loads(record.read_text())["inputs"][key] == args[1]
    assert itsa_privacy("release", "--verify", str(record), str(updates)).stdout.startswith("record check: PASS")


@pytest.mark.parametrize(("args", "shown"), [(["--epsilon", "1e400"], "1e400"),
                                             (["--noise-multiplier", "1e-5000"], "e-49"),
                                             (["--noise-multiplier", "1e-5000", "--engine", "table"], "e-49")])
def test_a_refused_sigma_or_epsilon_shows_its_real_value(tmp_path, args, shown, updates_csv):
    message = refused([str(updates_csv(UPDATES)), *args])
    assert shown in message and "not 0" not in message


# --- findings 11, 12: an empty list and options that do not apply ---

def test_an_empty_weights_list_is_refused(tmp_path, updates_csv):
    assert "--weights" in refused([str(updates_csv(UPDATES)), "--epsilon", "1", "--weights", ""])
    assert "--weights" in refused([str(updates_csv(UPDATES)), "--no-noise", "--weights", " "])


@pytest.mark.parametrize("args", [["--seed", "x"], ["--seed-file", "{seed}"], ["--engine", "exact"],
                                  ["--engine", "table"], ["--conversion", "cks"], ["--delta", "1e-6"]])
def test_noise_options_are_refused_without_noise(tmp_path, args, updates_csv):
    (tmp_path / "seed").write_text("s")
    argv = [a.format(seed=tmp_path / "seed") for a in args]
    assert "does not apply" in refused([str(updates_csv(UPDATES)), "--no-noise", *argv])


def test_itsa_seed_is_refused_without_noise_and_a_record_is_kept(tmp_path, itsa_privacy, updates_csv):
    assert "ITSA_SEED" in refused([str(updates_csv(UPDATES)), "--no-noise"], env={"ITSA_SEED": "s"})
    record = tmp_path / "r.json"
    res = itsa_privacy("release", str(updates_csv(UPDATES)), "--no-noise", "--record", str(record), "--json")
    assert json.loads(res.stdout)["private"] is False
    assert itsa_privacy("release", "--verify", str(record), str(tmp_path / "u.csv")).stdout.startswith("record check: PASS")
