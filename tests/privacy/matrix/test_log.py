"""Accounting after the fact: a participation log's realized epsilon, and the logs that break the plan."""

import json
import random
from fractions import Fraction

import pytest

from itsa.exceptions import InvalidInput, InvalidOption
from itsa.privacy.matrix import ParticipationLog, read_log, realized, tree
from itsa.testing.matrix_oracles import tree_nodes

PLAN = {"max_participations": 3, "min_separation": 4, "rounds": 30, "noise_multiplier": "3/2", "delta": "1e-6"}


def _plain_sensitivity(rounds, t):
    return sum(len(set(rounds).intersection(node)) ** 2 for node in tree_nodes([t]))


def test_realized_is_the_largest_clients_own_and_at_most_the_plan():
    rnd = random.Random(7)
    log = {}
    for c in range(40):
        r, rounds = rnd.randrange(0, 10), []
        while r < 30 and len(rounds) < 3:
            rounds.append(r)
            r += 5 + rnd.randrange(0, 9)
        log[f"c{c}"] = tuple(rounds)
    out = realized(ParticipationLog(log), **PLAN)
    expected = max(_plain_sensitivity(r, 30) for r in log.values())
    assert out.sensitivity_squared == expected == _plain_sensitivity(out.worst_rounds, 30)
    planned = tree(**PLAN)
    assert out.planned_sensitivity_squared == planned.sensitivity_squared >= out.sensitivity_squared
    assert out.epsilon.upper() <= planned.epsilon.upper()
    assert out.rho == Fraction(expected) / (2 * Fraction(3, 2) ** 2)
    assert out.realized_max_participations <= 3 and out.realized_min_separation >= 4


def test_the_worst_pattern_as_a_log_realizes_the_plan():
    planned = tree(**PLAN)
    out = realized(ParticipationLog({"w": planned.pattern}), **PLAN)
    assert out.sensitivity_squared == planned.sensitivity_squared
    assert out.epsilon == planned.epsilon


@pytest.mark.parametrize("rounds, words", [
    ((0, 5, 10, 15), "4 rounds, more than the planned max participations 3"),
    ((0, 3), "rounds 0 and 3, 2 rounds apart, fewer than the planned min separation 4"),
    ((0, 30), "round 30, outside"),
    ((2, 2), "logged twice in round 2"),
])
def test_a_log_breaking_the_plan_is_refused(rounds, words):
    with pytest.raises(InvalidOption, match=words):
        realized(ParticipationLog({"a": (1,), "b": rounds}), **PLAN)


def test_per_epoch_is_checked_in_the_log():
    plan = {**PLAN, "rounds": None, "restarts": [15, 15], "per_epoch": 1}
    assert realized(ParticipationLog({"a": (0, 15)}), **plan).sensitivity_squared == 8
    with pytest.raises(InvalidOption, match="2 rounds of epoch 0"):
        realized(ParticipationLog({"a": (0, 10)}), **plan)


def test_csv_and_json_read_the_same(tmp_path):
    csv = tmp_path / "log.csv"
    csv.write_text("client,round\na,0\nb,3\na,12\n\n")
    js = tmp_path / "log.json"
    js.write_text(json.dumps({"a": [12, 0], "b": [3]}))
    assert read_log(csv) == ParticipationLog({"a": (0, 12), "b": (3,)})
    assert {c: sorted(r) for c, r in read_log(js).rounds_of.items()} == {"a": [0, 12], "b": [3]}


@pytest.mark.parametrize("name, text, words", [
    ("a.csv", "who,when\na,1\n", "header client,round"),
    ("a.csv", "client,round\na,-1\n", "whole number >= 0"),
    ("a.csv", "client,round\na,1,2\n", "two fields"),
    ("a.csv", "client,round\n", "no participation"),
    ("a.json", "[1, 2]", "one object"),
    ("a.json", '{"a": 3}', "a list of rounds"),
    ("a.json", '{"a": [1.5]}', "whole number"),
    ("a.json", "{", "not JSON"),
])
def test_bad_logs_are_one_line(tmp_path, name, text, words):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InvalidInput, match=words):
        read_log(path)
