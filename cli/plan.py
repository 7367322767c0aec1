"""``itsa plan``: size a whole deployment (noise, encoding, payload, keys, error) from one file."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import EXIT_INFEASIBLE, SECONDS, LibraryChoice, LibraryDefault, LibraryHelpOption, itsa_errors, show
from ._paths import OUTPUT_FILE
from ._progress import progress_display, time_guard, time_limit_of


def said_estimate(progress, quiet: bool):
    """The progress callback, with the simulation's time estimate also printed on stderr (unless ``quiet``)
    before its rounds start."""
    def callback(event) -> None:
        if event.stage == "simulate: estimate" and not quiet:
            click.echo(f"simulate: {event.note}", err=True)
        if progress is not None:
            progress(event)
    return callback


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="DEPLOYMENT...")
@click.option("--markdown", "report", type=OUTPUT_FILE, default=None, metavar="PATH",
              help="Also write the plan as a Markdown report to PATH.")
@click.option("--simulate", "rounds", type=int, default=None, metavar="ROUNDS",
              help="Also run the planned deployment for ROUNDS rounds on synthetic updates and set the empirical "
                   "wrap rates and error beside the certified ones.")
@click.option("--updates", type=LibraryChoice("itsa.planning.run.setup", "UPDATES"),
              default=LibraryDefault("itsa.planning.run.simulate", "simulate", "updates"), show_default=True,
              help="The simulated updates: on the clip sphere, or uniform integers (the digit prior).")
@click.option("--sweep", "spec", default=None, metavar="QUANTITY=LOW..HIGH",
              help="Also re-plan over word_bits, epsilon, clients, dropout, rounds, dimension, clip, sigma or "
                   "population (e.g. word_bits=12..32, "
                   "epsilon=1,2,4) beside the k-standard-deviations rule.")
@click.option("--figure", type=OUTPUT_FILE, default=None, metavar="PATH",
              help="With --sweep: draw the curves to PATH (.pdf, .svg or .png).")
@click.option("--export", "framework", type=LibraryChoice("itsa.frameworks.export", "Framework"), multiple=True,
              cls=LibraryHelpOption, help_from=("itsa.frameworks.export", "export_help"))
@click.option("--export-file", type=OUTPUT_FILE, default=None, metavar="PATH",
              help="With --export: write the export's JSON to PATH (a regular file), and print the plan (or, with "
                   "--snippet, the Python that reads PATH).")
@click.option("--snippet", is_flag=True, help="With --export: Python to paste instead of JSON (with --export-file, "
                                               "printed, the JSON going to the file).")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds for the whole plan, with its simulation and sweep (default {DEFAULT_TIME_LIMIT:g}; "
                   "0 = no limit).")
@click.option("--seed", type=int, default=LibraryDefault("itsa.planning.planner", "plan", "seed"), show_default=True,
              help="Seed of the key-rate solve's scheme constructions (with servers: or a multi-server protocol) "
                   "and of the simulation; "
                   "the same seed, the same plan.")
@click.option("--quiet", is_flag=True, help="No progress line.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--grid", multiple=True, metavar="FIELD=VALUES",
              help="A fleet: plan every DEPLOYMENT at every point of the grid (the --sweep quantities, several "
                   "at once: --grid word_bits=16..24 epsilon=2,4,8 dropout=0,1/10); needs -o.")
@click.option("-o", "--output", default=None, metavar="OUT.parquet",
              help="A fleet: write one row per plan to this results folder (Parquet parts, as a census).")
@click.option("--workers", type=click.IntRange(0), default=None,
              help="A fleet, or --simulate sharded over clients: local Dask worker processes (a fleet's default: "
                   "all cores; a simulation's: none, in this process; 0: serial, no Dask).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="A fleet, or --simulate sharded over clients: join a running Dask cluster.")
@click.option("--resume", is_flag=True, help="A fleet: keep the rows in OUT and skip their plans.")
@click.option("--connect-timeout", type=click.FloatRange(min=0, min_open=True),
              default=LibraryDefault("itsa.planning.drivers.fleet", "run_fleet", "connect_timeout"), show_default=True,
              help="A fleet or a sharded simulation: seconds to reach --scheduler.")
def plan(paths, report, rounds, updates, spec, figure, framework, export_file, snippet, time_limit, seed, quiet,
         as_json, grid, output, workers, scheduler, resume, connect_timeout):
    """Size the deployment in DEPLOYMENT (a YAML file, docs/format.md): the noise and its certified
    epsilon, the scale and word with the certified probability that the sum wraps, the payload, the
    keys of the protocol (with protocol: or servers:), the error of the released mean, and a verdict.

    With -o, a fleet: every DEPLOYMENT (files, shipped names or folders) at every point of --grid, one
    Parquet row per plan, on Dask, and per deployment the cheapest feasible configuration.

    Exits 0 for a feasible plan (or a finished fleet), 3 for an infeasible one (the verdict says why),
    2 for bad input."""
    from ._plan_fleet import run_fleet_command, single_only, split_grid

    if len(framework) > 1:          # read as a list so that a second one is refused, not silently the one kept
        raise click.UsageError(f"--export: one framework a run, not {', '.join(framework)}")
    framework = framework[0] if framework else None
    paths, grid = split_grid(paths, grid)
    if output is not None:
        single_only({"--markdown": report, "--simulate": rounds is not None, "--sweep": spec, "--figure": figure,
                     "--export": framework, "--export-file": export_file, "--snippet": snippet})
        run_fleet_command(paths, grid, output, workers, scheduler, resume, connect_timeout, seed,
                          time_limit_of(time_limit, DEFAULT_TIME_LIMIT), as_json)
        return
    fleet_only = {"--grid": grid, "--resume": resume}
    if rounds is None:
        fleet_only |= {"--workers": workers is not None, "--scheduler": scheduler}
    for name, value in fleet_only.items():
        if value:
            raise click.UsageError(f"{name} goes with a fleet: give -o OUT.parquet"
                                   + ("" if name in ("--grid", "--resume") else ", or with --simulate"))
    if len(paths) != 1:
        raise click.UsageError("several deployments are a fleet: give -o OUT.parquet")
    path = paths[0]
    from itsa._util.files import check_distinct_files
    from itsa.keys.examples import resolve_deployment
    from itsa.planning import explore_plan, load_deployment
    from itsa.planning.drivers.explore import ExploredPlan, check_sweep_figure
    from itsa.planning.drivers.sweep import draw_sweep, parse_sweep
    from itsa.planning.planner import check_report_path, write_report

    if framework is None and (export_file is not None or snippet):
        raise click.UsageError("--export-file and --snippet go with --export")
    if snippet and as_json:
        raise click.UsageError("--snippet prints Python and --json prints JSON: give one of them")
    with itsa_errors():
        deployment = load_deployment(path)
        check_distinct_files({"DEPLOYMENT": resolve_deployment(path), "servers:": deployment.servers},
                             {"--markdown": report, "--figure": figure, "--export-file": export_file})
        if report is not None:
            check_report_path(report)
        swept = None if spec is None else parse_sweep(spec)
        if figure is not None:
            check_sweep_figure(figure, swept)
        if framework is not None:
            from itsa.frameworks.export import check_export, export_plan, write_export

            check_export(deployment, framework)
        limit = time_limit_of(time_limit, DEFAULT_TIME_LIMIT)
        with progress_display(as_json, quiet=quiet) as progress, time_guard(limit):
            shown = explore_plan(deployment, simulate_rounds=rounds, updates=updates, sweep=swept,
                                 time_limit=limit, seed=seed, progress=said_estimate(progress, quiet),
                                 workers=workers, scheduler=scheduler, connect_timeout=connect_timeout)
        result = shown.plan if isinstance(shown, ExploredPlan) else shown
        curves = shown.sweep if isinstance(shown, ExploredPlan) else None
        export = None if framework is None else export_plan(result, framework)   # refused before any write
        if figure is not None and curves is not None:
            draw_sweep(curves, figure)
        if report is not None:
            write_report(shown, report)
        if export is not None and export_file is not None:
            write_export(export, export_file)           # the JSON a program (and the snippet) reads
    if export is not None and snippet:
        click.echo(export.snippet() if export_file is None else export.snippet(export_path=str(export_file)), nl=False)
    elif export is not None and export_file is None:
        show(export, as_json=True)
    else:
        show(shown, as_json)
    if not result.verdict.feasible:
        raise SystemExit(EXIT_INFEASIBLE)
