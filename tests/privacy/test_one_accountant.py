"""The accountant is the one path to ε: no RDP curve is built, composed or converted outside it.

"Composed" here means, in the library's code (``itsa/`` and ``cli/``): a call
to (or an import of) a function that builds an RDP curve, composes curves or
converts one to ``(ε, δ)`` (:data:`CURVE_WORK`; ``compose`` as a function,
not the accountant's ``.compose`` method), or a call of a layer's
``.curve(label)``. Only the modules of the accountant itself (:data:`HOME`) may
do that; every other module composes :mod:`itsa.privacy.events` through
:class:`itsa.privacy.Accountant` (or calibrates through
:func:`itsa.privacy.calibrate`, which asks the accountant).
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The names whose use builds, composes or converts an RDP curve.
CURVE_WORK = {"to_epsilon", "convert_at", "convert_rdp", "profile_epsilon", "profile_delta", "compose",
              "compose_authorized", "gaussian_curve", "gaussian_rdp", "psa_layer_curve", "psa_layer_rdp",
              "linear_sum"}
#: The accountant's own modules: where curves are defined, composed and converted.
HOME = {"itsa/privacy/rdp.py", "itsa/privacy/conversion.py", "itsa/privacy/accounting.py", "itsa/privacy/events.py",
        "itsa/privacy/profile.py", "itsa/privacy/subsampled.py", "itsa/privacy/__init__.py"}


#: Modules another change is moving onto the accountant, with the call that replaces theirs.
PENDING: dict[str, str] = {}


def offences(source: str) -> list[str]:
    """Every use of :data:`CURVE_WORK` (import or call) and every ``.curve(...)`` call in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            found += [f"imports {a.name}" for a in node.names if a.name in CURVE_WORK]
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in CURVE_WORK:
                found.append(f"calls {f.id} (line {node.lineno})")
            elif isinstance(f, ast.Attribute) and (f.attr in CURVE_WORK - {"compose"} or f.attr == "curve" and node.args):
                found.append(f"calls {f.attr} (line {node.lineno})")      # .compose is the accountant's own method
    return found


def library_files():
    for folder in ("itsa", "cli"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in HOME and rel not in PENDING:
                yield rel, path.read_text(encoding="utf-8")


def test_no_curve_is_composed_outside_the_accountant():
    wrong = {rel: found for rel, text in library_files() if (found := offences(text))}
    assert not wrong, f"RDP curves built or composed outside the accountant: {wrong}"


def test_the_check_finds_what_it_looks_for():
    assert offences("from itsa.privacy import to_epsilon\n") == ["imports to_epsilon"]
    assert offences("x = compose(curves)\n") == ["calls compose (line 1)"]
    assert offences("b = privacy.to_epsilon(c, d)\n") == ["calls to_epsilon (line 1)"]
    assert offences("layer.curve('layer 1')\n") == ["calls curve (line 1)"]
    assert not offences("Accountant().compose(event, 3).epsilon(delta)\n")
