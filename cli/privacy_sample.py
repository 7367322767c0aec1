"""``itsa privacy sample``: exact draws of a noise law to an int64 ``.npy``, timed."""

import click

from itsa._util.checks import digits_only
from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, LibraryChoice, itsa_errors, show
from ._paths import OUTPUT_FILE

#: Each law's parameter option.
OPTION = {"dgauss": "--sigma-squared", "skellam": "--variance", "binomial": "--coins"}


@click.command()
@click.argument("law", type=LibraryChoice("itsa.privacy.samplers", "Law"))
@click.option("--sigma-squared", "sigma_squared", default=None, metavar="S2",
              help="dgauss: sigma^2, exactly (an integer, a decimal or a fraction such as 5/2).")
@click.option("--variance", default=None, metavar="V",
              help="skellam: the variance V, exactly (an integer, a decimal or a fraction such as 5/2).")
@click.option("--coins", default=None, metavar="N", help="binomial: the number of fair coins N (Bin(N, 1/2)'s heads).")
@click.option("--count", type=click.IntRange(min=0), required=True, help="Number of draws.")
@click.option("--seed", required=True, help="The stream's key: a whole number or a text.")
@click.option("-o", "--output", required=True, type=OUTPUT_FILE, help="The .npy file to write (int64).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Threads drawing blocks at once (the draws are the same for any number).")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds for the draws (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--quiet", is_flag=True, help="No progress bar (drawn on stderr when it is a terminal and the run "
                                            "outlasts two seconds).")
def sample(law, sigma_squared, variance, coins, count, seed, output, workers, time_limit, as_json, quiet):
    """Exact draws of LAW (dgauss: the discrete Gaussian N_Z(0, sigma^2); skellam: Poisson(V/2) - Poisson(V/2);
    binomial: the heads of N fair coins) from a ChaCha20 stream keyed by SEED.

    Every decision compares random whole numbers with proven integer bounds: the law is exact. The same
    seed gives the same draws for any --workers. Not constant-time."""
    import numpy as np

    from itsa._util.checks import whole_number
    from itsa._util.files import atomic_writer
    from itsa.exceptions import InvalidOption
    from itsa.privacy.samplers import MAX_DRAWS, law_of, npy_draws, seed_text
    from itsa.privacy.samplers import sample as run

    from ._common import progress_callback
    from ._progress import time_limit_of

    with itsa_errors():
        given = {"--sigma-squared": sigma_squared, "--variance": variance, "--coins": coins}
        option = OPTION[law]
        wrong = [name for name, value in given.items() if value is not None and name != option]
        if wrong:
            raise InvalidOption(f"{law}: {wrong[0]} is not its parameter (give {option})")
        parameter = given[option]
        if parameter is None:
            raise InvalidOption(f"{law}: give {option}")
        law_of(law, parameter)
        seed = int(seed) if digits_only(seed) else seed
        seed_text(seed)
        whole_number("count", count, maximum=MAX_DRAWS)
        with (atomic_writer(output, binary=True) as fh,      # the draws go to the file block by block
              progress_callback(f"sample: exact {law} draws", quiet) as bar):
            result = run(law, parameter, count, seed, workers=workers,
                         time_limit=time_limit_of(time_limit, DEFAULT_TIME_LIMIT), out=npy_draws(fh, count),
                         progress=bar)
            if isinstance(result.draws, np.memmap):
                result.draws.flush()
    show(result, as_json)
