"""``itsa audit``: the paper's claims beside verified schemes and published results."""

import click

from ._common import LibraryDefault, itsa_errors, load_instance, progress_callback, show, warn_instance
from ._progress import time_limited


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--max-symbols", type=click.IntRange(0), help="Largest scalar number of key symbols searched (default K-1; capped, with a note, at the search's limit K·L + d <= 60).")
@click.option("--field", "-q", type=int, default=LibraryDefault("itsa.keys.auditor", "audit", "field"), show_default=True, help="The prime q of the search; constructions use it too when it exceeds "
                   "their Schwartz-Zippel size, else the next prime above that.")
@click.option("--seed", type=int, default=LibraryDefault("itsa.keys.auditor", "audit", "seed"), show_default=True,
              help="Seed of every draw (constructions and search).")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False),
              help="Directory for every scheme the audit reports (default: audit-out/NAME).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@time_limited
def audit(path, max_symbols, field, seed, out_dir, as_json):
    """Search verified schemes and flag where the paper's printed claims fail on PATH.

    Exits 0 whenever the audit ran, whatever it found; 2 for bad input.
    """
    from itsa.keys.auditor import OUTPUT_ROOT
    from itsa.keys.auditor import audit as run_audit
    from itsa.keys.optimum import default_output_dir

    with itsa_errors():
        instance = load_instance(path)
        out_dir = out_dir or default_output_dir(instance, path, OUTPUT_ROOT)
        with progress_callback("search", quiet=as_json) as progress:
            result = run_audit(instance, field=field, seed=seed, max_symbols=max_symbols,
                               progress=progress, out_dir=out_dir)
    warn_instance(instance)
    show(result, as_json)
