"""A corpus of hostile input files, written on demand (for the tests and the benchmark).

Every file must be refused by every command with exit code 2, one line on
stderr and no traceback, quickly and in little memory. Instance files go to
every command; scheme files go to ``itsa verify INSTANCE --scheme FILE``.
Nothing here is random except a seeded block of binary noise.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

HEAD = "servers: [2, 1, 1]\n"
SETS = "security_sets: [[[1, 1]]]\ncollusion_sets: [[]]\n"
BIG = "9" * 4000          # an integer Python reads (below its 4300-digit limit)
TOO_BIG = "9" * 5000      # an integer Python refuses to read
GOOD_INSTANCE = HEAD + SETS


@dataclass(frozen=True)
class Case:
    """One hostile file: ``kind`` is ``"instance"`` or ``"scheme"``."""

    name: str
    kind: str
    path: Path


def bomb(levels: int = 9, width: int = 9) -> str:
    """A flow list whose last item expands to ``width^(levels-1)`` copies of ``[1, 1]``."""
    parts = ["&l0 [1, 1]"]
    for i in range(1, levels):
        parts.append(f"&l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "[" + ", ".join(parts) + "]"


def _instances() -> dict[str, str | bytes]:
    b = bomb()
    return {
        # alias bombs in every position
        "bomb-top": f"{HEAD}{SETS}x: {b}\n",
        "bomb-name": f"name: {b}\n{HEAD}{SETS}",
        "bomb-servers": f"servers: {b}\n{SETS}",
        "bomb-family": f"{HEAD}security_sets: {b}\ncollusion_sets: [[]]\n",
        "bomb-set": f"{HEAD}security_sets: [{b}]\ncollusion_sets: [[]]\n",
        "bomb-user": f"{HEAD}security_sets: [[[1, {b}]]]\ncollusion_sets: [[]]\n",
        "bomb-generator": f"{HEAD}security_sets: [all]\ncollusion_sets: {{subsets_of: {b}}}\n",
        "bomb-key": f"{HEAD}{SETS}? {b}\n: 1\n",
        # deep nesting
        "deep-flow-list": "servers: " + "[" * 100_000 + "\n",
        "deep-flow-map": "servers: " + "{a: " * 100_000 + "\n",
        "deep-block-list": "servers:\n" + "- " * 50_000 + "1\n",
        "deep-closed": "servers: " + "[" * 5000 + "1" + "]" * 5000 + "\n" + SETS,
        # huge numbers in every field
        "huge-server": f"servers: [{BIG}]\n{SETS}",
        "unreadable-server": f"servers: [{TOO_BIG}]\n{SETS}",
        "huge-user": f"{HEAD}security_sets: [[[1, {BIG}]]]\ncollusion_sets: [[]]\n",
        "huge-min-size": f"{HEAD}security_sets: [all]\ncollusion_sets: {{subsets_of: [[1, 1]], min_size: {BIG}}}\n",
        "huge-negative-size": f"{HEAD}security_sets: [all]\ncollusion_sets: {{all_users_up_to: -{BIG}}}\n",
        "huge-name": f"name: {BIG}\n{HEAD}{SETS}",
        "float-server": f"servers: [1.0e+999, 1, 1]\n{SETS}",
        "many-users": f"servers: [{', '.join(['1'] * 4097)}]\n{SETS}",
        "big-family": "servers: [4096]\nsecurity_sets: [all]\ncollusion_sets: {all_users_up_to: 3}\n",
        "big-configurations": ("servers: [" + ", ".join(["1"] * 100) + "]\n"
                               "security_sets: {all_users_up_to: 2}\ncollusion_sets: {all_users_up_to: 2}\n"),
        # sheer size
        "big-file": "# " + "x" * (3 * 2**20) + "\n" + GOOD_INSTANCE,
        "many-values": f"{HEAD}{SETS}x: [{', '.join(['1'] * 210_000)}]\n",
        "long-scalar": f"name: {'x' * 20_000}\n{HEAD}{SETS}",
        "long-key": f"{GOOD_INSTANCE}{'k' * 9000}: 1\n",
        # structure
        "duplicate-key": f"{HEAD}{SETS}servers: [1, 1, 1]\n",
        "duplicate-generator-key": f"{HEAD}security_sets: [all]\ncollusion_sets: {{all_users_up_to: 1, all_users_up_to: 2}}\n",
        "python-tag": f"{HEAD}{SETS}x: !!python/object/apply:os.system [echo hi]\n",
        "merge-key": f"<<: {{servers: [1, 1, 1]}}\n{SETS}",
        "set-tag": f"{HEAD}security_sets: !!set {{1: null}}\ncollusion_sets: [[]]\n",
        "two-documents": f"{GOOD_INSTANCE}---\n{GOOD_INSTANCE}",
        "undefined-alias": f"{HEAD}security_sets: [*nothing]\ncollusion_sets: [[]]\n",
        "self-alias": f"{HEAD}security_sets: &a [*a]\ncollusion_sets: [[]]\n",
        "empty": "",
        "top-level-list": "- servers\n- [1, 1, 1]\n",
        "bad-syntax": "servers: [1, 1\n",
        # bytes and encodings
        "binary": bytes(random.Random(11).randrange(256) for _ in range(4096)),
        "nul-bytes": GOOD_INSTANCE.encode() + b"\x00\x00name: x\n",
        "utf16": ("name: é\n" + GOOD_INSTANCE).encode("utf-16"),
        "latin1": ("name: café\n" + GOOD_INSTANCE).encode("latin-1"),
        "control-chars": f"name: a\x07b\n{GOOD_INSTANCE}",
    }


def _schemes() -> dict[str, str | bytes]:
    def scheme(**kw) -> str:
        base = {"field": 7, "L": 1, "key_symbols": 2, "keys": {"1,1": [[1, 0]]}}
        base.update(kw)
        return json.dumps(base)

    return {
        "scheme-huge-L": scheme(L=10**8, keys={}),
        "scheme-huge-d": scheme(key_symbols=10**8, keys={}),
        "scheme-too-large-to-verify": scheme(key_symbols=4000, keys={}),
        "scheme-huge-entries": scheme(L=4096, key_symbols=4096, keys={"1,1": []}),
        "scheme-deep": "[" * 100_000,
        "scheme-huge-int": '{"field": ' + TOO_BIG + "}",
        "scheme-huge-field": scheme(field=int(BIG)),
        "scheme-field-list": scheme(field=[7]),
        "scheme-L-list": scheme(L=[1]),
        "scheme-keys-list": scheme(keys=[[1, 0]]),
        "scheme-matrix-dict": scheme(keys={"1,1": {"a": 1}}),
        "scheme-huge-label": scheme(keys={"1," + BIG: [[1, 0]]}),
        "scheme-long-label": scheme(keys={"1," + " " * 100_000 + "x": [[1, 0]]}),
        "scheme-wrong-shape": scheme(keys={"1,1": [[1] * 100_000]}),
        "scheme-not-json": "field: 7\n",
        "scheme-binary": bytes(random.Random(12).randrange(256) for _ in range(4096)),
        "scheme-empty": "",
    }


def write_corpus(directory: str | Path) -> list[Case]:
    """Write every hostile file under ``directory``; return the cases in a fixed order."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    cases = []
    for kind, files, ext in (("instance", _instances(), "yaml"), ("scheme", _schemes(), "json")):
        for name, content in files.items():
            path = directory / f"{name}.{ext}"
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
            cases.append(Case(name, kind, path))
    return cases


def commands(case: Case, instance: str | Path, out: str | Path) -> list[list[str]]:
    """The command lines (without ``itsa``) that each must refuse ``case``.

    ``instance`` is a valid instance for the scheme files; ``out`` a scratch directory.
    """
    p, out = str(case.path), Path(out)
    if case.kind == "scheme":
        return [["verify", str(instance), "--scheme", p]]
    return [["analyze", p, "--json"], ["build", p, "-o", str(out / "s.json")], ["verify", p],
            ["draw", p, "-o", str(out / "x.png")], ["audit", p, "-o", str(out / "audit")]]


# privacy and modular: the option values of the two parts' verbs

#: Hostile texts for a number option: decimal exponents past Python's 4,300-digit limit, nan, inf, signs, empties.
HOSTILE_NUMBERS = ("1e-100000", "1e-5000", "1e-4301", "1e4301", "1e5000", "1e999999999", "1e-999999999",
                   "nan", "inf", "-inf", "-1", "0", "1", "", " ", "1/0", "0/0", "1/3", "-1/3", "2", "1e", "e5",
                   "0x10", "1_000", "1,2", BIG, "-" + BIG, "1/" + BIG, "0." + BIG, TOO_BIG, "1e-5000/3",
                   "1e400", "1e-400", "1e-100001", "-1e-5", "-0", "abc")
#: Hostile texts for a whole-number option.
HOSTILE_INTEGERS = ("-1", "0", "1", "2", "1e3", "1.5", "nan", "inf", "", " ", "-" + BIG, BIG, TOO_BIG, "10000000000")
#: Hostile texts for a list option (K values, stages, layers, a digit law).
HOSTILE_LISTS = ("", " ", ",", "4,", ",4", "4,4", "4,3,3", "2", "0", "-1", "5", "x", "1/3,1/3,1/3,0", "1/2,1/2",
                 "1e-5000,1", "nan,nan,nan", "1..", "..5", "0..5", "8..4096x1", "8..4096x2", "1..100000000",
                 "4/3/2/1", "4,3/2,1", "1,2,3,4", "4/4", "one", "each", "1" + "," * 1000, BIG, TOO_BIG)

#: Per verb of ``itsa modular``: each option, the kind of its values, and a base command line (small, fast).
MODULAR_VERBS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "margins": (("-K", "8,16"), {"--clients": "list", "--radix": "int", "--layers": "int", "--carry": "number",
                                 "--reading": "choice", "--arithmetic": "choice", "--law": "list",
                                 "--time-limit": "number"}),
    "digits": (("--max-points", "0", "--samples", "1000"), {"--chain": "choice", "--radix": "int", "--layers": "int", "--block-dimension": "int",
                    "--max-points": "int", "--samples": "int", "--seed": "int"}),
    "payload": (("-K", "16"), {"--clients": "int", "--radix": "int", "--layers": "int", "--stages": "list",
                               "--carry": "number", "--reading": "choice", "--rule": "choice", "--margin": "int",
                               "--arithmetic": "choice", "--time-limit": "number"}),
    "converse": (("-K", "16"), {"--clients": "int", "--radix": "int", "--margin": "int", "--modulus": "int",
                                "--success": "number", "--law": "list", "--time-limit": "number"}),
    "rules": (("-K", "8,16"), {"--clients": "list", "--radix": "int", "--layers": "int", "--carry": "number",
                               "--reading": "choice", "--scaled-scale": "number", "--arithmetic": "choice",
                               "--time-limit": "number"}),
    "distortion": (("--samples", "200"), {"--finest": "int", "--radix": "int", "--layers": "int",
                                          "--source": "choice", "--spread": "number", "--samples": "int",
                                          "--seed": "int", "--time-limit": "number"}),
    "clip-rate": (("-d", "64"), {"--norm": "number", "--clip-factor": "number", "--dimension": "int",
                                 "--rotation": "choice", "--rate": "number", "--time-limit": "number"}),
    "privacy": (("--survivors", "100"), {"--survivors": "int", "--radix": "int", "--layers": "int", "--authorized": "list",
                                "--scaled-scale": "number", "--dimension": "int", "--delta": "number",
                                "--conversion": "choice"}),
}

_HOSTILE = {"number": HOSTILE_NUMBERS, "int": HOSTILE_INTEGERS, "list": HOSTILE_LISTS,
            "choice": ("", "x", "EXACT", "per layer", TOO_BIG)}


def modular_values(kind: str) -> tuple[str, ...]:
    """The hostile texts for an option of ``kind`` (``number``, ``int``, ``list`` or ``choice``)."""
    return _HOSTILE[kind]


def modular_command(verb: str, option: str, value: str, as_json: bool = False) -> list[str]:
    """``modular VERB BASE... OPTION=VALUE [--json]``: the base line of the verb with one hostile option.

    The option comes last, so it wins over the same option in the base line;
    ``OPTION=VALUE`` keeps a value that starts with ``-`` a value.
    """
    base, options = MODULAR_VERBS[verb]
    if option not in options:
        raise KeyError(f"{verb} has no option {option}")
    return ["modular", verb, *base, f"{option}={value}", *(["--json"] if as_json else [])]


def modular_cases() -> list[list[str]]:
    """Every hostile value on every option of every verb of ``itsa modular`` (a few thousand command lines)."""
    return [modular_command(verb, option, value)
            for verb, (_, options) in MODULAR_VERBS.items()
            for option, kind in options.items() for value in modular_values(kind)]


def privacy_numbers() -> tuple[str, ...]:
    """:data:`HOSTILE_NUMBERS`: the hostile texts for the numeric options of ``itsa privacy``, as for modular."""
    return HOSTILE_NUMBERS


def check_refusal(result, args: list[str]) -> None:
    """Assert what every command line of the two parts must do with any input (``result``: click's).

    Exit 0 (with ``--json``: one JSON object on stdout), 2 (one ``error:`` line on
    stderr, nothing on stdout) or, for a run stopped by its time limit, 1 with
    one line that says so; never an exception or a traceback.
    """
    import json

    where = f"{args!r}: exit {result.exit_code}, stderr {result.stderr[-500:]!r}"
    assert result.exception is None or isinstance(result.exception, SystemExit), where + f" raised {result.exception!r}"
    assert "Traceback" not in result.stderr, where
    stopped = result.exit_code == 1 and "time limit" in result.stderr
    assert result.exit_code in (0, 2) or stopped, where
    if result.exit_code != 0:
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), where
        assert result.stdout == "", where
    elif "--json" in args:
        assert isinstance(json.loads(result.stdout), dict), where


# the verbs with a verdict and the deployment's fields (their cases: the tests')

def check_verdict(result, args: list[str]) -> None:
    """:func:`check_refusal`, where exit 1 is also a verdict (``fails``/``wraps``, infeasible) printed on stdout."""
    if result.exit_code != 1 or "time limit" in result.stderr:
        check_refusal(result, args)
        return
    where = f"{args!r}: exit 1, stderr {result.stderr[-500:]!r}"
    assert result.exception is None or isinstance(result.exception, SystemExit), where + f" raised {result.exception!r}"
    assert "Traceback" not in result.stderr + result.stdout, where
    assert result.stdout or (result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")), where
