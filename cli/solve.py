"""``itsa solve``: one verdict, the optimum with its proof and scheme, or the gap."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, LibraryDefault, itsa_errors, load_instance, show, warn_instance
from ._progress import progress_display, time_guard, time_limit_of


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False),
              help="Directory for the proof and the scheme (default: solve-out/NAME).")
@click.option("--time-limit", type=SECONDS,
              help=f"Seconds for the whole run (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit); what is proved and "
              "verified by then is reported, with each converse LP skipped or cut and why.")
@click.option("--seed", type=int, default=LibraryDefault("itsa.keys.optimum", "solve", "seed"), show_default=True,
              help="Seed of the scheme constructions and searches (the same seed, the same output).")
@click.option("--field", "-q", type=int, help="Prime field of the schemes (default: per construction).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def solve(path, out_dir, time_limit, seed, field, as_json):
    """Settle R* on PATH: a certified converse against verified schemes.

    Prints `R* = r, optimal` when the ends meet, else `lo ≤ R* ≤ hi, open`,
    each end with its reason. Exits 0 when it ran, 2 for bad input.
    """
    from itsa._util.files import check_output_dir
    from itsa.keys.optimum import default_output_dir
    from itsa.keys.optimum import solve as run

    with itsa_errors():
        instance = load_instance(path)
        out_dir = out_dir or default_output_dir(instance, path)
        check_output_dir(out_dir)            # a bad folder is refused before the work, and made only after it
        limit = time_limit_of(time_limit, DEFAULT_TIME_LIMIT)
        with progress_display(as_json) as progress, time_guard(limit):
            result = run(instance, time_limit=limit, seed=seed, field=field, progress=progress)
        result = result.saved(out_dir)
    warn_instance(instance)
    show(result, as_json)
