"""The sweep figure as a design document takes it: a title, the deployment's parameters, the targets as
lines, the points that miss a target marked, the axes' units; TrueType fonts, never Type 3.

The PDF's text is read back from its content streams: matplotlib writes
each TrueType string as UTF-16 code units (``(\\x00k\\x001...) Tj``), so
no PDF library is needed.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from fractions import Fraction
from types import SimpleNamespace

import pytest

from itsa._util.certified import Certified, Direction
from itsa.planning.drivers.sweep import SweepParameters, draw_sweep, misses, sweep, sweep_caption, sweep_title
from tests.keys.output.test_figure_fonts import assert_publishable_pdf

pytest.importorskip("matplotlib")

_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\nendstream", re.S)
_SHOW = re.compile(rb"\[(.*?)\]\s*TJ|(\((?:\\.|[^\\)])*\))\s*Tj", re.S)
_LITERAL = re.compile(rb"\(((?:\\.|[^\\)])*)\)", re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def _unescape(raw: bytes) -> bytes:
    out, i = bytearray(), 0
    while i < len(raw):
        if raw[i:i + 1] != b"\\":
            out += raw[i:i + 1]
            i += 1
            continue
        octal = re.match(rb"[0-7]{1,3}", raw[i + 1:i + 4])
        if octal:
            out.append(int(octal.group(0), 8) & 0xFF)
            i += 1 + len(octal.group(0))
        else:
            out += _ESCAPES.get(raw[i + 1:i + 2], raw[i + 1:i + 2])
            i += 2
    return bytes(out)


_RANGE = re.compile(rb"<([0-9a-f]{4})>\s*<([0-9a-f]{4})>\s*\[([^\]]*)\]")


def _ligatures(streams: list[bytes]) -> dict[int, str]:
    """The codes the ToUnicode maps send elsewhere than themselves (matplotlib's ``fi``, ``fl`` glyphs)."""
    found = {}
    for content in streams:
        for low, high, targets in _RANGE.findall(content):
            for code, target in zip(range(int(low, 16), int(high, 16) + 1), re.findall(rb"<([0-9a-f]+)>", targets)):
                text = bytes.fromhex(target.decode()).decode("utf-16-be")
                if text != chr(code):
                    found[code] = text
    return found


def pdf_text(data: bytes) -> list[str]:
    """Every string the PDF's content streams show (``Tj``/``TJ``): two-byte codes, read through the
    ToUnicode maps where they are not the character itself (matplotlib writes Unicode code points)."""
    streams = []
    for stream in _STREAM.findall(data):
        try:
            streams.append(zlib.decompress(stream))
        except zlib.error:
            continue
    special = _ligatures(streams)
    shown = []
    for content in streams:
        for array, single in _SHOW.findall(content):
            parts = _LITERAL.findall(array) if array else [single[1:-1]]
            raw = b"".join(_unescape(p) for p in parts)
            codes = [int.from_bytes(raw[i:i + 2], "big") for i in range(0, len(raw) - 1, 2)]
            shown.append("".join(special.get(c, chr(c)) for c in codes))
    return shown


PARAMETERS = SweepParameters(name="design-doc", clients=100, dimension=64, clip=1, word_bits=24, epsilon=4,
                             delta="1e-6", rounds=20, dropout="1/10", overflow="1e-6")


def _itsa(value) -> tuple[Certified, ...]:
    """itsa's numbers at a swept value, as a plan gives them (certified): a word below 14 bits wraps."""
    def bound(x) -> Certified:
        return Certified("x", Fraction(x), Fraction(x), Direction.UPPER, "given")
    return bound(3), bound(1 if value < 14 else Fraction(1, 10**9)), bound(Fraction(1, 1000))


def test_the_pdf_shows_title_parameters_targets_units_and_misses(tmp_path):
    swept = sweep(PARAMETERS, "word_bits", [10, 16, 24], evaluate=_itsa)
    out = draw_sweep(swept, tmp_path / "sweep.pdf")
    assert_publishable_pdf(out)
    text = "".join(pdf_text(out.read_bytes()))     # a ligature is a run of its own: the runs in order
    assert sweep_title(swept) in text
    assert sweep_title(swept) == "design-doc: itsa's plan and the k-sd rule against the word size"
    caption = sweep_caption(swept)
    assert caption in text
    for part in ("K = 100 clients", "d = 64", "clip S = 1", "dropout 1/10", "target epsilon 4",
                 "delta 1e-6, over 20 rounds", "overflow target 1e-6 per round"):
        assert part in caption, part
    assert "word" not in caption                                        # the swept quantity is the axis
    assert "target epsilon 4" in text and "overflow target 1e-6" in text         # the targets' lines, labelled
    for unit in ("word (bits)", "epsilon (certified upper bound)", "MSE per coordinate (data units squared)",
                 "P[wrap] per round (upper bound; floor 1e-40)"):
        assert unit in text, unit
    # the 10-bit point misses the overflow target: marked (once per panel, in each legend)
    assert [misses(p.itsa, 4, PARAMETERS.overflow) for p in swept.points] == [True, False, False]
    assert text.count("misses a target") == 3


def test_an_epsilon_sweep_draws_its_target_as_the_diagonal(tmp_path):
    fixed = dataclasses.replace(PARAMETERS, noise_multiplier=1)        # the rule's noise given: no calibration
    swept = sweep(fixed, "epsilon", [2, 8], evaluate=_itsa)
    assert "target epsilon" not in sweep_caption(swept)             # the axis is the target
    text = "".join(pdf_text(draw_sweep(swept, tmp_path / "eps.pdf").read_bytes()))
    assert "target epsilon" in text and "target epsilon (at the deployment's delta)" in text
    # itsa's eps 3 misses the target 2 and meets 8
    assert [misses(p.itsa, Fraction(p.value), None) for p in swept.points] == [True, False]


def test_a_planned_sweep_carries_the_deployments_name():
    from itsa.planning.deployment import parse_deployment
    from itsa.planning.drivers.explore import _parameters
    from itsa.planning.drivers.sweep import Quantity

    d = parse_deployment({"name": "design-doc", "clients": 100, "dimension": 64, "clip": 1,
                          "privacy": {"epsilon": 4, "delta": "1e-6", "rounds": 20}, "encoding": {"word_bits": 24}})
    plan = SimpleNamespace(deployment=d, encoding=SimpleNamespace(word_bits=24),
                           noise=SimpleNamespace(epsilon=Certified.exact("epsilon", 4, "given")))
    assert _parameters(plan, Quantity.WORD_BITS).name == "design-doc"


def test_a_figure_without_the_draw_extra_is_refused_before_the_sweep_runs(tmp_path, monkeypatch):
    # a plain install has no matplotlib: --figure says so as it is checked, not after minutes of sweeping
    import sys

    from itsa.exceptions import MissingExtra
    from itsa.planning.drivers.explore import check_sweep_figure

    check_sweep_figure(tmp_path / "f.pdf")                          # with the extra: accepted
    monkeypatch.setitem(sys.modules, "matplotlib", None)           # as if not installed
    with pytest.raises(MissingExtra, match=r"\[draw\]"):
        check_sweep_figure(tmp_path / "f.pdf")
    assert not (tmp_path / "f.pdf").exists()
