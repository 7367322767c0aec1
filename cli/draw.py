"""``itsa draw``: the two-hop topology, with one configuration highlighted, to PDF, SVG or PNG."""

import click

from ._common import (
    Q_RULE,
    Q_RULE_DEFAULT,
    LibraryChoice,
    LibraryDefault,
    itsa_errors,
    load_instance,
    show,
    warn_instance,
)
from ._paths import OUTPUT_FILE
from ._progress import time_limited


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("-o", "--output", required=True, type=OUTPUT_FILE,
              help="Image to write; the extension (.pdf, .svg or .png) picks the format.")
@click.option("--config", metavar="U,M,N", default=None,
              help="Configuration to highlight, 1-based. Default: the first with c = e*.")
@click.option("--layout", type=LibraryChoice("itsa.keys.output.draw", "LAYOUTS"),
              default=LibraryDefault("itsa.keys.output.draw", "draw_instance", "layout"),
              show_default=True, help="radial: servers inside, users fanned out around "
              "them; spring: seeded force-directed layout.")
@click.option("--style", type=LibraryChoice("itsa.keys.output.draw", "STYLES"),
              default=LibraryDefault("itsa.keys.output.draw", "draw_instance", "style"), show_default=True,
              help="paper: the figure and a legend of the roles present; annotated: also a title "
              "and a box listing the configuration's sets.")
@click.option("--q-rule", type=Q_RULE, default=Q_RULE_DEFAULT,
              show_default=True, help="How Q_1 and Q_2 combine into Q (docs/model.md §6.1).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object describing what was drawn.")
@time_limited
def draw(path, output, config, layout, style, q_rule, as_json):
    """Draw servers, broadcast links and users, coloured by role, with one configuration (u, m, n)."""
    import itsa
    from itsa._util.files import check_distinct_files
    from itsa.keys.output.draw import draw_instance, output_format, parse_config

    with itsa_errors():
        output_format(output)
        instance = load_instance(path)
        check_distinct_files({"INSTANCE": itsa.keys.examples.resolve(path)}, {"-o": output})
        if config is not None:
            config = parse_config(config, instance)
        drawn = draw_instance(itsa.analyze(instance, q_rule=q_rule), output, config, layout, style)
    warn_instance(instance)
    show(drawn, as_json)
