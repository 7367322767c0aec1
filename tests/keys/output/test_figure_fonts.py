"""Figures a publisher accepts: TrueType (Type 42) fonts in every PDF itsa writes, never
Type 3; SVGs with no private-use characters (text drawn as outlines); counts on the points
of the census grid-rate figure that stand for several instances.

``pdffonts`` (poppler-utils) and ``rsvg-convert`` (librsvg2-bin) are used where installed;
without them the checks read the files' bytes, which needs nothing beyond matplotlib.
"""

import re
import shutil
import subprocess

import pytest

import itsa
from itsa.keys.census import census_report, census_tables, load_spec, run_census
from itsa.keys.census.figures import census_figures
from tests.conftest import ROOT
from tests.keys.census.test_census_report import row

pytest.importorskip("matplotlib")

PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")


def font_types(pdf) -> list[str]:
    """The font types ``pdffonts`` lists (``CID TrueType``, ``Type 3``, ...)."""
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    return [re.split(r"\s{2,}", line.strip())[1] for line in out.splitlines()[2:]]


def assert_publishable_pdf(pdf) -> None:
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert b"/Type3" not in data, pdf                       # matplotlib's PDF font dicts are plain text
    assert b"/FontFile2" in data, pdf                       # an embedded TrueType font program
    if shutil.which("pdffonts"):
        types = font_types(pdf)
        assert types and all("TrueType" in t for t in types), (pdf, types)


def assert_clean_svg(svg) -> None:
    text = svg.read_text(encoding="utf-8")
    assert not PRIVATE_USE.search(text), svg
    assert "<text" not in text and "font-family" not in text, svg       # outlines, no font needed
    if shutil.which("rsvg-convert"):
        subprocess.run(["rsvg-convert", str(svg), "-o", str(svg.with_suffix(".rsvg.png"))], check=True)


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """Example 1 (script letters U and F, S-bar) in both styles and both vector formats."""
    out = tmp_path_factory.mktemp("figs")
    a = itsa.analyze(itsa.keys.examples.load("example-1"))
    files = []
    for style in ("paper", "annotated"):
        for fmt in ("pdf", "svg"):
            path = out / f"example-1-{style}.{fmt}"
            itsa.draw_instance(a, path, config="1,4,3", style=style)
            files.append(path)
    return files


def test_drawn_pdfs_embed_truetype_not_type3(drawn):
    for pdf in (p for p in drawn if p.suffix == ".pdf"):
        assert_publishable_pdf(pdf)


def test_drawn_svgs_hold_no_private_use_characters(drawn):
    for svg in (p for p in drawn if p.suffix == ".svg"):
        assert_clean_svg(svg)
    assert "example-1: configuration (u, m, n) = (1, 4, 3)" in drawn[-1].read_text()   # the title stays


def test_census_report_pdfs_and_svgs_are_publishable(tmp_path):
    out = tmp_path / "r.parquet"
    run_census(load_spec(ROOT / "specs" / "grid-small.yaml"), out, workers=0)
    for fmt in ("pdf", "svg"):
        census_report(out, tmp_path / fmt, fmt=fmt)
        written = sorted((tmp_path / fmt).glob(f"*.{fmt}"))
        assert written
        for f in written:
            (assert_publishable_pdf if fmt == "pdf" else assert_clean_svg)(f)


def test_script_superscripts_keep_clear_of_their_letter():
    """U^(m,n) and F^(m,n) put a space before the parenthesis (it overlapped the script U)."""
    a = itsa.analyze(itsa.keys.examples.load("example-1"))
    fig, _ = itsa.keys.output.draw.instance_figure(a, (1, 4, 3), style="annotated")
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "server in $\\mathcal{U}^{\\;(4,3)}$" in legend
    assert "\\mathcal{U}^{\\;(4,3)}" in "".join(t.get_text() for t in fig.texts)


def test_grid_rate_counts_the_instances_on_one_point():
    """Five instances at two points: one marker each, labelled with its count when it is above 1."""
    rows = [row(K=2 * V, U=2, V=V, t=1, lower=str(V), upper=str(V), printed=str(V + 1), key=f"k{V}-{i}")
            for V, copies in ((2, 3), (3, 2)) for i in range(copies)]
    rows.append(row(K=8, U=2, V=4, t=1, lower="4", upper="4", printed="5", key="single"))
    figs, _ = census_figures(census_tables(rows), "paper")
    ax = figs["grid-rate"].axes[0]
    assert len(ax.collections[0].get_offsets()) == 3                  # three distinct points
    assert sorted(t.get_text() for t in ax.texts) == ["×2", "×3"]     # no label on the single one
