"""``itsa plan A B --grid FIELD=VALUES ... -o OUT.parquet``: a fleet of plans on Dask (the census's engine).

Only parses and renders: the grid, the deployments, the checks and the run are
:mod:`itsa.planning.drivers.fleet`'s.
"""

import re
import sys

import click

from ._common import itsa_errors, show

#: A positional ``FIELD=VALUES`` after ``--grid`` (``--grid word_bits=16..24 epsilon=2,4``) is a grid field.
_GRID_TOKEN = re.compile(r"^[a-z_]+=")


def split_grid(paths: tuple[str, ...], grid: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The deployments and the grid fields: with ``--grid``, a positional ``FIELD=VALUES`` that is no file
    is one more grid field."""
    from itsa._util.files import exists

    if not grid:
        return list(paths), []
    fields = [p for p in paths if _GRID_TOKEN.match(p) and not exists(p)]
    return [p for p in paths if p not in fields], [*grid, *fields]


def single_only(given: dict) -> None:
    """Refuse the options of a single plan in a fleet (one line, exit 2)."""
    for name, value in given.items():
        if value:
            raise click.UsageError(f"{name} goes with a single plan, not a fleet (-o)")


def run_fleet_command(paths, grid, output, workers, scheduler, resume, connect_timeout, seed, time_limit,
                      as_json) -> None:
    """Check everything, then run the fleet with a progress bar; Ctrl-C is one line and exit 130."""
    from .census import _progress_bar

    with itsa_errors():
        from itsa._util.dask_run import check_cluster_options
        from itsa.planning.drivers.fleet import (
            check_fleet,
            check_fleet_output,
            fleet_deployments,
            parse_grid,
            run_fleet,
        )

        check_cluster_options(workers, scheduler, connect_timeout)
        parsed = parse_grid(grid)
        deployments = fleet_deployments(paths)
        check_fleet(deployments, parsed)
        check_fleet_output(output, resume)
        try:
            with _progress_bar(quiet=as_json, label="plans") as progress:
                result = run_fleet(deployments, parsed, output, workers=workers, scheduler=scheduler,
                                   resume=resume, seed=seed, time_limit=time_limit,
                                   connect_timeout=connect_timeout, progress=progress)
        except KeyboardInterrupt:
            click.echo(f"interrupted: finished rows are in {output}; continue with --resume", err=True)
            sys.exit(130)
    show(result, as_json)
