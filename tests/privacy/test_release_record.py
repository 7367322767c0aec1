"""A release that can be published: the attacks on the old output fail, the record is secret and verifiable."""

import hashlib
import json
import os
import re
import stat
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from itsa.exceptions import InvalidInput, InvalidOption
from itsa.privacy.commitment import canonical, commit, commitment_fields, write_record
from itsa.privacy.record_check import check_record
from itsa.privacy.releasing import release
from itsa.privacy.sampler import commitment as hash_of_draws
from itsa.privacy.sampler import draw
from itsa_cli import main as cli

#: The seed every release used when none was given.
OLD_DEFAULT_SEED = "itsa-release"
UPDATES = np.array([[0.5, -0.25], [0.125, 0.75], [-0.5, 0.0]])
NEIGHBOUR = np.array([[0.5, -0.25], [0.125, 0.75], [0.4, -0.3]])      # the third client's update differs


def recovered_sum(public: dict, noise) -> list[int]:
    """What an attacker gets by taking ``noise`` off the published values: ``released · γ W_int − z``."""
    return [int(Fraction(x) * public["denominator"]) - z for x, z in zip(public["released_exact"], noise)]


# --- the default-seed attack ---

def test_two_releases_without_a_seed_draw_different_noise():
    a, b = release(UPDATES, epsilon=1), release(UPDATES, epsilon=1)
    assert a.seed != b.seed and a.noise.draws != b.noise.draws and a.released != b.released
    assert type(a.seed) is int and 200 < a.seed.bit_length() <= 256       # a whole number of 256 random bits


@pytest.mark.parametrize("seed", [None, 0, 1])
def test_a_known_seed_no_longer_recovers_the_sum(seed):
    """Redraw the noise from the seed alone, as `privacy noise --seed` does, and take it off: never the true sum.

    The old release keyed the noise by the seed alone; the attack, run on such noise, does recover the sum.
    """
    r = release(UPDATES, epsilon=1, seed=seed)
    public = r.to_dict()
    text = OLD_DEFAULT_SEED if seed is None else str(seed)          # `privacy noise --seed TEXT`
    attack = draw(Fraction(public["sigma_int"]), 2, text, public["engine"]).draws    # the release's own engine
    assert recovered_sum(public, attack) != list(r.encoded_sum)
    old_noise = draw(r.sigma_int, 2, text, public["engine"]).draws        # the old release's noise
    old_public = {**public, "released_exact": [str(Fraction(y + z, r.denominator))
                                               for y, z in zip(r.encoded_sum, old_noise)]}
    assert recovered_sum(old_public, attack) == list(r.encoded_sum)             # the attack, where it worked


def test_the_public_json_has_no_seed_salt_noise_or_noiseless_sum(tmp_path, itsa_privacy, updates_csv):
    seed_file = tmp_path / "seed"
    seed_file.write_text("918273645546372819\n")
    record = tmp_path / "r.json"
    res = itsa_privacy("release", str(updates_csv(UPDATES)), "--epsilon", "1", "--seed-file", str(seed_file), "--record", str(record),
               "--json")
    public = json.loads(res.stdout)
    secret = json.loads(record.read_text())["secret_values"]
    text = res.stdout + res.stderr
    assert secret["seed"] == 918273645546372819 and "918273645546372819" not in text and secret["salt"] not in text
    assert secret["noise_sha256"] not in text                       # the old hash of the noise is gone
    assert {"seed", "salt", "noise", "noise_draws", "encoded_sum", "noiseless", "exact_average",
            "weights"}.isdisjoint(public)
    assert public["publishable"].startswith("this object may be published") and public["private"] is True
    assert public == json.loads(record.read_text())["public"] | {"schema_version": public["schema_version"]}


# --- the hash attack ---

def _hashes_of(noise: list[int]) -> set[str]:
    """Every hash of a candidate noise an attacker might try: as int64, as JSON, as text, under salt zero."""
    out = {hash_of_draws(noise), hashlib.sha256(json.dumps(noise).encode()).hexdigest(),
           hashlib.sha256(",".join(map(str, noise)).encode()).hexdigest(),
           hashlib.sha256(np.asarray(noise, dtype=">i8").tobytes()).hexdigest()}
    return out


def test_the_hash_attack_on_two_neighbouring_datasets_fails():
    """Knowing both neighbours, gamma W R - Y of each, hashed any way, matches nothing that is published."""
    r = release(UPDATES, epsilon=1)
    public = r.to_dict()
    published_hex = set(re.findall(r"[0-9a-f]{64}", json.dumps(public)))
    assert published_hex == {r.commitment}
    for data in (UPDATES, NEIGHBOUR):
        Y = release(data, no_noise=True).encoded_sum
        candidate = [int(Fraction(x) * public["denominator"]) - y for x, y in zip(public["released_exact"], Y)]
        guess = commit(commitment_fields(salt="0" * 64, seed=0, sigma_int=r.sigma_int, engine=public["engine"],
                                         count=2, truncation=public["truncation"], encoded_sum=Y,
                                         denominator=public["denominator"]))
        assert _hashes_of(candidate).isdisjoint(published_hex) and guess not in published_hex
    # the old output published hash_of_draws(z): the true dataset alone matched it, so delta was 1
    assert hash_of_draws(list(r.noise.draws)) == r.record()["secret_values"]["noise_sha256"]


def test_neighbours_differ_in_public_only_by_the_mechanism_output_and_the_commitment():
    """Same seed and salt on two neighbouring datasets: every other public field is equal (it reveals nothing)."""
    a = release(UPDATES, epsilon=1, seed=5, salt="c" * 64).to_dict()
    b = release(NEIGHBOUR, epsilon=1, seed=5, salt="c" * 64).to_dict()
    assert {k for k in a if a[k] != b[k]} == {"released", "released_exact", "commitment"}


def test_the_noise_and_commitment_change_with_the_salt_for_one_seed():
    a = release(UPDATES, epsilon=1, seed=21, salt="a" * 64)
    b = release(UPDATES, epsilon=1, seed=21, salt="b" * 64)
    assert a.noise.draws != b.noise.draws and a.released != b.released and a.commitment != b.commitment
    again = release(UPDATES, epsilon=1, seed=21, salt="a" * 64)
    assert again.noise.draws == a.noise.draws and again.released == a.released         # same seed and salt
    assert again.commitment == a.commitment                 # binding: the same fields, the same hash
    assert a.noise.engine == "exact"                        # the default engine, keyed by the noise key
    assert a.noise.draws == draw(a.sigma_int, 2, "itsa-release-noise-v3:" + "a" * 64 + ":21", "exact").draws


def test_the_commitment_is_the_documented_hash():
    r = release(UPDATES, noise_multiplier=2, engine="exact")
    secret = r.record()["secret_values"]
    fields = {"scheme": "itsa-release-commitment-v4", "salt": secret["salt"], "seed": secret["seed"],
              "sigma_int": str(r.sigma_int), "engine": "exact", "count": 2, "truncation": None,
              "stream": "ChaCha20(key=SHA-256('itsa-samplers-v1' NUL noise key), nonce='dgau' + block u64 LE), "
                        "65536 draws a block; noise key = 'itsa-release-noise-v3:' + salt + ':' + seed in decimal",
              "encoded_sum": [str(y) for y in r.encoded_sum], "denominator": 65536}
    body = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    assert body == canonical(fields) and hashlib.sha256(body).hexdigest() == r.commitment


# --- the record: round trip, tampering, permissions, nothing half-written ---

def test_record_round_trip_passes(tmp_path, itsa_privacy, updates_csv):
    record = tmp_path / "r.json"
    updates = updates_csv(UPDATES)
    published = tmp_path / "published.json"
    published.write_text(itsa_privacy("release", str(updates), "--epsilon", "1", "--record", str(record), "--json").stdout)
    res = itsa_privacy("release", "--verify", str(record), str(updates), "--published", str(published))
    assert res.stdout.startswith("record check: PASS release record") and "updates" in res.stdout.splitlines()[0]
    out = json.loads(itsa_privacy("release", "--verify", str(record), "--json").stdout)
    assert out["verified"] is True and not out["failed"]


def _tampered(record: dict, change) -> dict:
    copy = json.loads(json.dumps(record))
    change(copy)
    return copy


def _set_seed(rec):
    rec["secret_values"]["seed"] = 99


def _set_released(rec):
    rec["public"]["released_exact"][0] = str(Fraction(rec["public"]["released_exact"][0]) + Fraction(1, 65536))


def _set_sigma(rec):
    rec["public"]["sigma_int"] = str(Fraction(rec["public"]["sigma_int"]) + 1)


def _set_salt(rec):
    rec["secret_values"]["salt"] = "f" * 64


def _set_sum(rec):
    rec["secret_values"]["encoded_sum"][1] += 1


def _set_epsilon(rec):
    rec["inputs"]["epsilon"] = "2"


@pytest.mark.parametrize(("change", "fails"), [
    (_set_seed, {"commitment", "noise"}),
    (_set_released, {"released"}),
    (_set_sigma, {"sigma_int", "public"}),
    (_set_salt, {"commitment"}),
    (_set_sum, {"commitment", "released"}),
    (_set_epsilon, {"sigma_int"}),
])
def test_a_tampered_record_fails(change, fails):
    r = release(UPDATES, epsilon=1, engine="exact")
    assert check_record(r.record()).ok
    result = check_record(_tampered(r.record(), change))
    assert not result.ok and fails <= set(result.failed), result.failed


def test_a_reforged_record_fails_against_the_published_output_and_the_updates():
    """Change the seed and recompute the record's own commitment: only the published one (or Y) catches it."""
    r = release(UPDATES, epsilon=1, engine="exact")
    published = r.to_dict()
    forged = release(UPDATES, epsilon=1, engine="exact").record()       # another seed and salt, other noise
    assert check_record(forged).ok and forged["public"]["commitment"]["value"] != r.commitment
    assert check_record(forged, published=published).failed == ("published",)
    lie = _tampered(r.record(), lambda rec: rec["secret_values"]["encoded_sum"].__setitem__(0, 12345))
    lie["public"]["commitment"]["value"] = commit(commitment_fields(
        salt=lie["secret_values"]["salt"], seed=lie["secret_values"]["seed"], sigma_int=r.sigma_int, engine="exact",
        count=2, truncation=None, encoded_sum=lie["secret_values"]["encoded_sum"], denominator=r.denominator))
    assert "updates" in check_record(lie, UPDATES).failed and "published" in check_record(lie, None, published).failed


def test_cli_verify_fails_with_exit_1(tmp_path, itsa_privacy, updates_csv):
    record = tmp_path / "r.json"
    itsa_privacy("release", str(updates_csv(UPDATES)), "--noise-multiplier", "1", "--engine", "exact", "--record", str(record))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_tampered(json.loads(record.read_text()), _set_seed)))
    res = itsa_privacy("release", "--verify", str(bad), check=False)
    assert res.returncode == 1 and res.stdout.startswith("record check: FAIL release record: commitment, noise")
    other = updates_csv(NEIGHBOUR, "n.csv")
    res = itsa_privacy("release", "--verify", str(record), str(other), check=False)
    assert res.returncode == 1 and "updates" in res.stdout.splitlines()[0]


@pytest.mark.parametrize("umask", [0o000, 0o022])
def test_the_record_is_mode_0600_and_marked_secret(tmp_path, umask):
    old = os.umask(umask)
    try:
        path = write_record(tmp_path / "r.json", release(UPDATES, epsilon=1).record())
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    record = json.loads(path.read_text())
    assert record["secret"] is True and record["note"].startswith("SECRET")


@pytest.mark.parametrize("args", [
    ["--epsilon", "0"],
    ["--epsilon", "1", "--clip", "-1"],
    [],                                                     # no noise asked for
    ["--epsilon", "1", "--no-noise"],
    ["--epsilon", "1", "--seed", "a", "--seed-file", "{seed}"],
    ["--epsilon", "1", "--seed-file", "{missing}"],
    ["--epsilon", "1", "--weights", "1,2"],
    ["--epsilon", "1", "--time-limit", "0.5"],
])
def test_bad_input_writes_no_record(tmp_path, args, updates_csv):
    (tmp_path / "seed").write_text("s")
    argv = [a.format(seed=tmp_path / "seed", missing=tmp_path / "nope") for a in args]
    record = tmp_path / "r.json"
    res = CliRunner().invoke(cli, ["privacy", "release", str(updates_csv(UPDATES)), *argv, "--record", str(record)])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1 and res.output.startswith("error:")
    assert not record.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["seed", "u.csv"]


def test_an_existing_record_is_never_overwritten(tmp_path, updates_csv):
    record = tmp_path / "r.json"
    record.write_text("an earlier record")
    res = CliRunner().invoke(cli, ["privacy", "release", str(updates_csv(UPDATES)), "--epsilon", "1",
                                   "--record", str(record)])
    assert res.exit_code == 2 and "never overwritten" in res.output and record.read_text() == "an earlier record"


# --- no noise only by name; seeds from a file or the environment ---

def test_a_release_without_noise_needs_its_name():
    with pytest.raises(InvalidOption, match="by name"):
        release(UPDATES)
    r = release(UPDATES, no_noise=True)
    assert not r.private and r.released == r.noiseless and "NOT PRIVATE" in r.warnings[0]


def test_cli_without_noise(tmp_path, itsa_privacy, updates_csv):
    path = updates_csv(UPDATES)
    refused = itsa_privacy("release", str(path), check=False)
    assert refused.returncode == 2 and "by name (no noise)" in refused.stderr and not refused.stdout
    out = itsa_privacy("release", str(path), "--no-noise", "--json")
    public = json.loads(out.stdout)
    assert public["private"] is False and "NOT PRIVATE" in public["not_private"] and "NOT PRIVATE" in out.stderr
    assert "NOT PRIVATE" in itsa_privacy("release", str(path), "--no-noise").stdout


def test_the_seed_from_a_file_the_environment_or_the_option_is_the_same_seed(tmp_path, itsa_privacy, updates_csv):
    path = updates_csv(UPDATES)
    seed_file = tmp_path / "seed"
    seed_file.write_text("007\n")
    records = [tmp_path / f"r{i}.json" for i in range(3)]
    by_option = json.loads(itsa_privacy("release", str(path), "--epsilon", "1", "--seed", "7", "--record", str(records[0]),
                                "--json").stdout)
    by_file = json.loads(itsa_privacy("release", str(path), "--epsilon", "1", "--seed-file", str(seed_file), "--record",
                              str(records[1]), "--json").stdout)
    itsa_privacy("release", str(path), "--epsilon", "1", "--record", str(records[2]), env={"ITSA_SEED": " 7"})
    secrets = [json.loads(r.read_text())["secret_values"] for r in records]
    assert [s["seed"] for s in secrets] == [7] * 3
    assert len({s["salt"] for s in secrets}) == 3                   # fresh salts: the noise is not the seed's alone
    assert by_option["commitment"]["value"] != by_file["commitment"]["value"]
    same = release(UPDATES, epsilon=1, seed=7, salt=secrets[0]["salt"])      # same seed and salt
    assert list(same.noise.draws) == secrets[0]["noise_draws"]
    help_text = itsa_privacy("release", "--help").stdout
    assert "ITSA_SEED" in help_text and "--seed-file" in help_text and "visible" in help_text


def test_verify_refuses_the_options_of_a_release(tmp_path):
    record = tmp_path / "r.json"
    write_record(record, release(UPDATES, epsilon=1).record())
    res = CliRunner().invoke(cli, ["privacy", "release", "--verify", str(record), "--epsilon", "2"])
    assert res.exit_code == 2 and "--epsilon does not apply" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "something else"}')
    res = CliRunner().invoke(cli, ["privacy", "release", "--verify", str(bad)])
    assert res.exit_code == 2 and "not an audit record" in res.output


def test_the_estimate_refuses_past_the_time_limit():
    with pytest.raises(InvalidOption, match="time limit"):
        release(np.zeros((1, 50_000)), noise_multiplier=1, engine="exact", time_limit=0.5)
    with pytest.raises(InvalidInput, match="time limit"):
        release(UPDATES, epsilon=1, time_limit=0.1)


@pytest.mark.parametrize("values", [np.array([[1 + 2j, 3.0]]), np.array([["a", "b"]])])
def test_a_npy_of_other_than_real_numbers_is_refused(values, tmp_path):
    """A complex array would be released with its imaginary part silently dropped."""
    from itsa.privacy.releasing import load_updates

    path = tmp_path / "updates.npy"
    np.save(path, values)
    with pytest.raises(InvalidInput, match="must be real numbers|not a .npy file of numbers"):
        load_updates(path)
