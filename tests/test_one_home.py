"""One home for the noise's tail and for the count of noise shares, as ``test_layers.py`` holds the imports.

The sub-Gaussian tail (with Skellam noise and the union over coordinates) is
computed by :mod:`itsa.privacy.tails` alone, and the noise shares a round's
sum carries (all clients for the wrap, the fewest survivors for ε) are counted
by :func:`itsa.privacy.noise_shares` alone. A second definition (a function
named like the tail, a ``_shares`` helper, a share count written out again)
fails here. The one name of the noise scale in digit units is held by
``tests/test_glossary.py`` (``noise_scale`` is a name not used).

A noise mechanism's module and its concrete events are imported in their
rooms alone (an import fence, read from the code's imports: a module may
name the distribution it samples or bounds, as the samplers and the sampled
lower bound name the binomial law), and Flower and TFF are named in
``itsa/frameworks/`` alone, but for the plan's frameworks section and the modules listed with their reasons.
"""

import ast
import re
from pathlib import Path

import pytest

from tests.test_house import ROOT

LIBRARY = ROOT / "itsa"
TAILS = "itsa/privacy/tails.py"
SHARES = "itsa/privacy/shares.py"
#: Where a noise's tail or noise shares could be written: the noise, bits and plan parts (the key-rate part's
#: hypergeometric tails and Shamir shares are other quantities; the tail's own names are checked everywhere).
NOISE_PARTS = ("itsa/privacy/", "itsa/modular/", "itsa/planning/", "itsa/frameworks/", "itsa/_util/")

#: Functions with ``tail`` in their name that compute something else, and what.
OTHER_TAILS = {
    ("itsa/modular/_rules.py", "noise_tail"): "eq. 19's threshold u (the tail inverted), not a probability",
    ("itsa/planning/gate.py", "_beta_tail"): "a binomial tail of the gate's flags",
    ("itsa/privacy/discrete_gaussian.py", "_gauss_integral_tail"): "a Gaussian integral, the truncated mass's rest",
    ("itsa/privacy/discrete_gaussian.py", "tail_mass"): "the exact mass a truncated sampler drops, enclosed",
    ("itsa/privacy/sampled_lower.py", "binomial_tail"): "a binomial tail (incomplete beta in balls), not the noise's",
    ("itsa/privacy/sampled_lower.py", "_summed_tail"): "binomial_tail's short tails of many trials, summed term by term",
    ("itsa/privacy/sampled_cohort.py", "_tail"): "the cohort count's binomial tail (binomial_tail) as a rational",
    ("itsa/privacy/cohort_lower.py", "share_sum_tail"): "a sum of shares' law over a half-line enclosed both ways "
                                                        "(its sub-Gaussian rest from itsa.privacy.tails)",
}
#: Functions with ``shares`` in their name that count something else, and what.
OTHER_SHARES = {
    ("itsa/frameworks/_flower_rules.py", "resolve_shares"): "Flower's secret-sharing layout (num_shares), not noise",
}
#: Names only the tail's home may define.
TAIL_NAMES = re.compile(r"tail_bound|sub_?gaussian|chernoff|best_lambda|wrap_tail", re.I)
#: A count of noise shares written out again: ``clients``/``survivors`` if distributed, else 1 (or 1 if central).
SHARE_COUNT = re.compile(r"\b(?:clients|survivors)\)?\s+if\s+[^\n]*(?:DISTRIBUTED|distributed)[^\n]*\belse\s+1\b"
                         r"|\b1\s+if\s+(?:central|[^\n]*CENTRAL)\s+else\b")


def _functions():
    """``(path, name, node)`` for every function defined anywhere in the library (nested ones too)."""
    for path in sorted(LIBRARY.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield rel, node.name, node


FUNCTIONS = list(_functions())


def _calls(node, name: str) -> bool:
    return any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == name
               for n in ast.walk(node))


def test_the_tail_has_one_home():
    second = [f"{path}: {name}" for path, name, _ in FUNCTIONS if path != TAILS and
              (TAIL_NAMES.search(name) or ("tail" in name.lower() and path.startswith(NOISE_PARTS)
                                           and (path, name) not in OTHER_TAILS))]
    assert not second, f"a tail defined outside {TAILS} (call itsa.privacy.tails instead): {second}"


def test_the_noise_shares_have_one_home():
    second = [f"{path}: {name}" for path, name, node in FUNCTIONS if path != SHARES and "shares" in name.lower()
              and (path, name) not in OTHER_SHARES
              and (name.lstrip("_") == "shares" or path.startswith(NOISE_PARTS) and not _calls(node, "noise_shares"))]
    assert not second, f"noise shares counted outside {SHARES} (call itsa.privacy.noise_shares): {second}"


def test_no_share_count_is_written_out_again():
    again = [f"{path.relative_to(ROOT).as_posix()}:{text.count(chr(10), 0, m.start()) + 1}"
             for path in sorted(LIBRARY.rglob("*.py")) if path.relative_to(ROOT).as_posix() != SHARES
             for text in [path.read_text(encoding="utf-8")] for m in SHARE_COUNT.finditer(text)]
    assert not again, f"a noise-share count written out (call itsa.privacy.noise_shares): {again}"


@pytest.mark.parametrize(("where", "what"), sorted({**OTHER_TAILS, **OTHER_SHARES}.items()))
def test_every_exception_still_exists(where, what):
    """An exception whose function is gone is removed from the list (the list cannot hide a new one)."""
    assert any((path, name) == where for path, name, _ in FUNCTIONS), f"{where} ({what}) no longer exists"


# -- a mechanism's word in its rooms; a framework's name in its part ------------------------------------------

#: The one module of the planner that names the frameworks: the plan's frameworks section, each framework's numbers
#: the plan prints (the planner imports nothing of ``itsa.frameworks``, which reads them from there).
FRAMEWORKS_SECTION = "itsa/planning/frameworks_units.py"
#: The modules outside ``itsa/frameworks/`` (and the command line) that may name Flower, each with its reason.
FLOWER_OUTSIDE = {
    "itsa/_util/extras.py": "the one table of optional packages names each extra: flwr is installed by itsa[flower]",
    FRAMEWORKS_SECTION: "the plan's frameworks section: Flower's DP wrapper for central noise, as the plan prints it",
}
#: The modules outside ``itsa/frameworks/`` that may name TFF, each with its reason: the plan's frameworks section
#: alone (TFF's numbers and words the plan prints; the rule and the mechanisms take them from there by neutral names).
TFF_OUTSIDE = {
    FRAMEWORKS_SECTION: "the plan's frameworks section: TFF's DistributedDpSumFactory settings, its mechanisms' names "
                        "and the units of the rule it runs",
}
#: A word, case-insensitively, not inside another word (``OverflowError`` holds the letters of "flower").
_WORD = "(?<![a-z]){}"


def _naming(word: str) -> list[str]:
    """The modules of ``itsa/`` whose text (code, docstrings, comments) names ``word``."""
    pattern = re.compile(_WORD.format(word), re.I)
    return sorted(path.relative_to(ROOT).as_posix() for path in LIBRARY.rglob("*.py")
                  if pattern.search(path.read_text(encoding="utf-8")))


def test_flower_is_named_in_the_frameworks_alone():
    outside = [path for path in _naming("flower") if not path.startswith("itsa/frameworks/")]
    assert set(FLOWER_OUTSIDE) - {FRAMEWORKS_SECTION} == {"itsa/_util/extras.py"}
    assert outside == sorted(FLOWER_OUTSIDE), (
        f"Flower named outside itsa/frameworks/: {sorted(set(outside) - set(FLOWER_OUTSIDE))} (its numbers and rules "
        "live in itsa.frameworks; the plan prints them from its frameworks section, itsa.planning.frameworks_units)")


def test_the_word_count_sees_a_name_and_not_a_longer_word():
    """The count itself: ``Flower's`` and ``flower_dp`` name it, ``OverflowError`` does not."""
    pattern = re.compile(_WORD.format("flower"), re.I)
    assert pattern.search("Flower's wrapper") and pattern.search("itsa.frameworks.flower_dp")
    assert not pattern.search("except OverflowError:")


def test_tff_is_named_in_no_new_module_outside_the_frameworks():
    """TFF's fence: the one module outside ``itsa/frameworks/`` that names it is the listed one, no other."""
    outside = [path for path in _naming("tff") if not path.startswith("itsa/frameworks/")]
    assert len(TFF_OUTSIDE) <= 1
    assert set(outside) == set(TFF_OUTSIDE), (
        f"TFF named outside itsa/frameworks/: {sorted(set(outside) - set(TFF_OUTSIDE))} (its numbers and rules "
        "belong in its room, itsa/frameworks/)")
    assert any(path.startswith("itsa/frameworks/") for path in _naming("tff")), "TFF has no room"


#: The mechanisms' concrete events (what a mechanism's room builds): imported only by the privacy part, which
#: defines them, and by the mechanism's room; the rest asks the room (and an event's capabilities, such as
#: ``pld_bracket`` and ``sampled_from``), never the class.
MECHANISM_EVENTS = {"DiscreteGaussianEvent", "DistributedDiscreteGaussianEvent", "SkellamEvent", "BinomialSharesEvent"}
#: Modules outside those rooms that import a mechanism's module or its concrete event today, each with its reason:
#: a fence that keeps the list from growing.
IMPORTS_OUTSIDE = {
    "itsa/planning/rule/heuristic.py": "the k-standard-deviations rule is the distributed discrete Gaussian's",
    "itsa/planning/rule/beside.py": "the rule beside the plan, scored as the distributed discrete Gaussian",
    "itsa/frameworks/dp_accounting.py": "dp-accounting's events of the distributed discrete Gaussian",
}


def _imports_of_a_mechanism(path: Path) -> list[str]:
    """What ``path`` imports of a mechanism's module (``itsa.planning.mechanisms.NAME``) or its concrete events."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("itsa.planning.mechanisms.") and node.module != "itsa.planning.mechanisms.base":
                found.append(node.module)
            found += sorted({a.name for a in node.names} & MECHANISM_EVENTS)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("itsa.planning.mechanisms.")
                      and a.name != "itsa.planning.mechanisms.base"]
    return found


def test_a_mechanism_is_imported_in_its_rooms_alone():
    """No module outside the privacy part and the mechanisms' rooms imports a mechanism's module or its concrete
    event (the listed ones aside, each with its reason)."""
    outside = {path.relative_to(ROOT).as_posix(): names for path in LIBRARY.rglob("*.py")
               if (names := _imports_of_a_mechanism(path))
               and not path.relative_to(ROOT).as_posix().startswith(("itsa/privacy/", "itsa/planning/mechanisms/"))}
    assert set(outside) <= set(IMPORTS_OUTSIDE), {p: n for p, n in outside.items() if p not in IMPORTS_OUTSIDE}


def test_the_import_fence_sees_an_import():
    """The fence's reader: a mechanism's module and an event class are seen, the registry's face is not."""
    import tempfile  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe.py"
        probe.write_text("from itsa.planning.mechanisms import mechanism\nfrom itsa.planning.mechanisms.skellam "
                         "import Skellam\nfrom itsa.privacy.events import Event, SkellamEvent\n", encoding="utf-8")
        assert _imports_of_a_mechanism(probe) == ["itsa.planning.mechanisms.skellam", "SkellamEvent"]
