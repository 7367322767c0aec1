"""``itsa plan``: size a whole deployment (noise, encoding, payload, keys, error) from one file."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, itsa_errors, show
from ._progress import progress_display, time_limit_of


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="DEPLOYMENT")
@click.option("--markdown", "report", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Also write the plan as a Markdown report to PATH.")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds for the whole plan (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the key-rate solve's scheme constructions (with servers:); the same seed, the same plan.")
@click.option("--quiet", is_flag=True, help="No progress line.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def plan(path, report, time_limit, seed, quiet, as_json):
    """Size the deployment in DEPLOYMENT (a YAML file, docs/format.md): the noise and its certified
    epsilon, the scale and word with the certified probability that the sum wraps, the payload, the
    key material (with servers:), the error of the released mean, and a verdict.

    Exits 0 when it ran (feasible or infeasible: the verdict says which), 2 for bad input."""
    from itsa.planning import load_deployment
    from itsa.planning import plan as run
    from itsa.planning.planner import check_report_path, write_report

    with itsa_errors():
        deployment = load_deployment(path)
        if report:
            check_report_path(report)
        with progress_display(as_json, quiet=quiet) as progress:
            result = run(deployment, time_limit=time_limit_of(time_limit, DEFAULT_TIME_LIMIT), seed=seed,
                         progress=progress)
        if report:
            write_report(result, report)
    show(result, as_json)
