"""``itsa draw`` and :mod:`itsa.keys.output.draw`: files written whole, the configuration shown, bad input."""

import pytest

import itsa
from itsa.keys.output.draw import LAYOUTS, default_config, draw_instance, instance_figure, parse_config
from tests.conftest import INSTANCES

EX2 = INSTANCES / "example-2.yaml"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def analysis2():
    return itsa.analyze(itsa.load_instance(EX2))


def test_draw_png_example2(cli, tmp_path):
    out = tmp_path / "ex2.png"
    res = cli("draw", EX2, "-o", out)
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000
    assert str(out) in res.stdout and "(1,2,5)" in res.stdout   # first config with c = e*
    assert [p.name for p in tmp_path.iterdir()] == ["ex2.png"]  # no temp file left behind


def test_draw_svg_names_instance_and_config(cli, tmp_path):
    out = tmp_path / "ex2.svg"
    res = cli("draw", EX2, "-o", out, "--config", "1,8,21", "--layout", "spring", "--style", "annotated")
    assert res.exit_code == 0, res.output
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "example-2: configuration (u, m, n) = (1, 8, 21)" in svg
    assert "critical" in svg
    assert "(1,8,21)" in res.stdout and "c = 2" in res.stdout and " critical" in res.stdout


@pytest.mark.parametrize("config", ["1,8", "9,1,1", "a,b,c", "0,1,1", "1,9,1", "1,1,29",
                                    "1,2,3,4", "1.5,1,1"])
def test_bad_config_exit_2(cli, tmp_path, config):
    out = tmp_path / "bad.png"
    res = cli("draw", EX2, "-o", out, "--config", config)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: configuration")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["out.jpg", "out.txt", "out"])
def test_unsupported_extension_exit_2(cli, tmp_path, name):
    res = cli("draw", EX2, "-o", tmp_path / name)
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1 and ".png, .svg or .pdf" in res.stderr
    assert not any(tmp_path.iterdir())


def test_missing_directory_exit_2(cli, tmp_path):
    res = cli("draw", EX2, "-o", tmp_path / "nowhere" / "x.png")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1


def test_cli_layouts_match_library():
    from itsa_cli.draw import draw as cmd

    opt = next(p for p in cmd.params if p.name == "layout")
    assert tuple(opt.type.choices) == LAYOUTS


@pytest.mark.parametrize("path", ["example-1.yaml", "example-2.yaml"])
def test_default_config_attains_e_star(path):
    a = itsa.analyze(itsa.load_instance(INSTANCES / path))
    _, info = instance_figure(a)
    u, m, n = info.config
    assert info.default and info.config == default_config(a)
    assert info.c == a.e_star == int(a.configurations.c[u - 1, m - 1, n - 1])
    # first in (u, m, n) index order
    assert all(a.configurations.c[x - 1, y - 1, z - 1] < a.e_star
               for x, y, z in a.configurations.where(a.configurations.c >= 0)
               if (x, y, z) < info.config)


def test_chosen_config_reports_c_and_critical(analysis2):
    _, info = instance_figure(analysis2, (1, 8, 21))
    assert (info.c, info.critical, info.default) == (2, True, False)
    assert "(1, 8, 21)" in info.caption and info.caption.startswith("example-2")


def test_parse_config_library_errors(analysis2):
    inst = analysis2.instance
    assert parse_config(" (1, 8, 21) ", inst) == (1, 8, 21)
    for bad in ["1,8", "x,1,1", (1, 8), (True, 1, 1), (4, 1, 1)]:
        with pytest.raises(itsa.InvalidOption):
            parse_config(bad, inst)


def test_output_is_deterministic(tmp_path, analysis2):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    draw_instance(analysis2, a, "1,8,21", layout="spring")
    draw_instance(analysis2, b, "1,8,21", layout="spring")
    assert a.read_bytes() == b.read_bytes()


def test_bad_layout(analysis2, tmp_path):
    with pytest.raises(itsa.InvalidOption):
        draw_instance(analysis2, tmp_path / "x.png", layout="circle")
    assert not any(tmp_path.iterdir())


def test_failed_save_leaves_nothing(analysis2, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    def boom(self, *args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Figure, "savefig", boom)
    with pytest.raises(RuntimeError):
        draw_instance(analysis2, tmp_path / "x.png")
    assert not any(tmp_path.iterdir())


def test_too_many_users_to_draw_is_refused_before_drawing(tmp_path):
    from itsa.keys.output.draw import MAX_DRAW_USERS

    inst = itsa.Instance((MAX_DRAW_USERS // 3 + 1,) * 3, (1,), (0,))
    with pytest.raises(itsa.InvalidOption, match="cannot draw"):
        itsa.draw_instance(itsa.analyze(inst, corrected=False), tmp_path / "x.png")
    assert not any(tmp_path.iterdir())


def test_paper_style_pdf_has_no_title_and_a_legend_of_the_roles_present(cli, tmp_path):
    """itsa draw example-2 --style paper -o fig.pdf: the figure and its legend, nothing baked in."""
    out = tmp_path / "fig.pdf"
    res = cli("draw", "example-2", "--style", "paper", "-o", out)
    assert res.exit_code == 0, res.output
    assert out.read_bytes().startswith(b"%PDF")
    a = itsa.analyze(itsa.load_instance(EX2))
    fig, info = instance_figure(a, style="paper")
    assert fig.texts == [] and fig.get_suptitle() == "" and len(fig.axes) == 1
    assert all(t.get_bbox_patch() is None for t in fig.axes[0].texts)        # no caption box
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    # configuration (1, 2, 5) of Example 2: U^(2,5) is empty and no user is implicit (S_I = ∅)
    conf = a.configurations
    assert not conf.U_servers(2, 5) and a.S_I == 0
    assert not any("mathcal{U}" in t for t in legend) and not any("implicit" in t for t in legend)
    assert "eavesdropping server $u$ = 1" in legend and "other server" in legend
    assert not any(t.startswith(("Users", "Configuration", "Links")) for t in legend)    # no headings


def test_annotated_style_keeps_the_title_and_the_sets(analysis2):
    fig, _ = instance_figure(analysis2, (1, 8, 21), style="annotated")
    texts = [t.get_text() for t in fig.texts]
    assert texts[0] == "example-2: configuration (u, m, n) = (1, 8, 21)"
    assert any("Eavesdropping server" in t for t in texts)


def test_radial_layout_is_symmetric_on_example_2(analysis2):
    """Servers evenly on their circle: Example 2's servers 2 and 3 at one height."""
    from itsa.keys.output.layout import _radial

    pos = _radial(analysis2.instance)
    assert pos[("s", 2)][1] == pytest.approx(pos[("s", 3)][1])
    assert pos[("s", 1)][0] == pytest.approx(0) and pos[("s", 2)][0] == pytest.approx(-pos[("s", 3)][0])
    users = [pos[("k", i)] for i in range(analysis2.instance.K)]
    assert len({(round(x, 9), round(y, 9)) for x, y in users}) == len(users)    # no two users overlap


def test_bad_style(analysis2, tmp_path):
    with pytest.raises(itsa.InvalidOption, match="style"):
        draw_instance(analysis2, tmp_path / "x.png", style="poster")


def test_annotated_plot_ends_at_its_lowest_node(analysis2):
    """No blank band between the drawing and the box of sets under it."""
    fig, _ = instance_figure(analysis2, (1, 8, 21), style="annotated")
    ax = fig.axes[0]
    lowest = min(p.center[1] for p in ax.patches if hasattr(p, "center"))   # user circles
    bottom, top = ax.get_ylim()
    assert bottom > -top + 1e-9                     # cropped below, not the full square
    assert 0 < lowest - bottom < 0.25 * (top - bottom)
