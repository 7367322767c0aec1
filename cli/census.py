"""``itsa census``: run a census on Dask, and ``itsa census report`` its tables and figures.

``itsa census SPEC.yaml -o RESULTS.parquet`` is short for
``itsa census run SPEC.yaml -o RESULTS.parquet``: a first argument that is not
a subcommand name is taken as the spec of ``run``.
"""

import sys
from typing import Any

import click

from ._common import LibraryChoice, LibraryDefault, echo_json, itsa_errors, show
from ._progress import time_limited


class _DefaultRun(click.Group):
    """A group whose default subcommand is ``run``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultRun)
def census():
    """Run a census of instances on Dask (itsa census SPEC -o OUT), or report on one.

    \b
      itsa census SPEC.yaml -o RESULTS.parquet [--workers N | --scheduler ADDR] [--resume]
      itsa census report RESULTS.parquet -o DIR
    """


@census.command()
@click.argument("spec_path", metavar="SPEC", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(), help="Results folder (Parquet parts).")
@click.option("--workers", type=click.IntRange(0), help="Local Dask worker processes (default: all cores; 0: serial, no Dask).")
@click.option("--scheduler", metavar="ADDRESS", help="Join a running Dask cluster, e.g. tcp://host:8786.")
@click.option("--resume", is_flag=True, help="Keep the rows in OUTPUT and skip their instances.")
@click.option("--connect-timeout", type=click.FloatRange(min=0, min_open=True), default=LibraryDefault("itsa.keys.census.run", "run_census", "connect_timeout"), show_default=True, help="Seconds to reach --scheduler.")
@click.option("--json", "as_json", is_flag=True, help="Print the final counts as one JSON object.")
def run(spec_path, output, workers, scheduler, resume, connect_timeout, as_json):
    """Run the census of SPEC, streaming one row per instance to OUTPUT.

    Each instance runs under the spec's time_limit (default 300 s; 0: none) and is recorded as timed out
    past it; the universe is bounded before any work (docs/census.md)."""
    from itsa import examples

    with itsa_errors():
        from itsa.keys.census import load_spec, run_census  # one line without the census extra

        spec = load_spec(examples.resolve_spec(spec_path))     # a file, or a shipped spec's name
        try:
            with _progress_bar(quiet=as_json) as progress:
                result = run_census(spec, output, workers=workers, scheduler=scheduler, resume=resume,
                                    connect_timeout=connect_timeout, progress=progress)
        except KeyboardInterrupt:      # the bar has stopped (its last line ended): a line of its own
            click.echo(f"interrupted: finished rows are in {output}; continue with --resume", err=True)
            sys.exit(130)
    show(result, as_json)


@census.command()
@click.argument("results", type=click.Path(exists=False))
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=LibraryChoice("itsa.keys.output.draw", "FORMATS"),
              default=LibraryDefault("itsa.keys.census.report", "write_report", "fmt"), show_default=True,
              help="Format of the figures.")
@click.option("--style", type=LibraryChoice("itsa.keys.output.draw", "STYLES"),
              default=LibraryDefault("itsa.keys.census.report", "write_report", "style"), show_default=True,
              help="paper: no titles (the caption is yours); annotated: each figure titled with its question.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary and the files written as JSON.")
@time_limited
def report(results, out_dir, fmt, style, as_json):
    """Write the tables (CSV) and figures of a census results folder to DIR."""
    with itsa_errors():
        from itsa.keys.census import write_report

        result = write_report(results, out_dir, fmt=fmt, style=style)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(result.headline())
    for key, val in result.counts():
        click.echo(f"{key:22s} {val}")
    for note in result.notes:
        click.echo(f"note: {note}")
    click.echo(f"wrote {result.file_count} files to {result.out_dir}")


class _progress_bar:
    """A rich bar on stderr: done/total, running, failed, rate and ETA (nothing if quiet or not a tty).

    The bar is one short line (under 80 columns whatever the counts), so that a
    terminal never wraps it: a wrapped live line is redrawn below itself.
    """

    def __init__(self, quiet: bool, console=None, label: str = "census"):
        from rich.console import Console

        self.label = label
        self.console = console or Console(stderr=True)
        self.enabled = not quiet and self.console.is_terminal
        self.bar: Any = None       # a rich Progress once started
        self.task: Any = None

    def __enter__(self):
        if not self.enabled:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn(self.label), BarColumn(bar_width=16), MofNCompleteColumn(),
                            TextColumn("{task.fields[state]}"), TextColumn("ETA"), TimeRemainingColumn(),
                            console=self.console)
        self.bar.start()
        return self.update

    def update(self, p) -> None:
        rate = p.done / p.elapsed if p.elapsed > 0 else 0.0
        state = f"run {p.running} fail {p.failed} t/o {p.timeout} {rate:.2f}/s"
        if self.task is None:
            self.task = self.bar.add_task(self.label, total=p.total, state=state)
        self.bar.update(self.task, completed=p.done, total=p.total, state=state)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
