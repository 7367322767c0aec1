"""``itsa privacy tree`` and ``itsa privacy toeplitz``: DP-FTRL's tree aggregation under a participation schedule,
accounted exactly, and the banded Toeplitz and BLT mechanisms beside it."""

import click

from ._common import LibraryConstant, itsa_errors, show
from ._progress import time_limited


def _restarts(ctx, param, value):
    """``400,400,400`` -> ``[400, 400, 400]`` (the library checks each length)."""
    if value is None:
        return None
    from itsa._util.checks import read_whole

    with itsa_errors():
        return [read_whole("--restarts: a tree length", part, minimum=1) for part in value.split(",")]


@click.command()
@click.option("--max-participations", type=int, required=True, help="E: most rounds one client takes part in.")
@click.option("--min-separation", type=int, required=True,
              help="xi: fewest rounds strictly between two participations of one client (TF Privacy's).")
@click.option("--rounds", type=int, default=None, help="T: rounds (leaves); with --restarts, their sum.")
@click.option("--noise-multiplier", "noise_multiplier", default=None, help="z: noise std on every node / clip.")
@click.option("--epsilon", default=None, help="Instead of --noise-multiplier: the target eps to calibrate z for.")
@click.option("--delta", default=LibraryConstant("itsa.privacy", "DEFAULT_DELTA"), show_default=True,
              help="delta in (0, 1), read exactly.")
@click.option("--restarts", default=None, callback=_restarts, metavar="T1,T2,...",
              help="Tree lengths between restarts (TF Privacy's steps_list).")
@click.option("--per-epoch", type=int, default=None,
              help="With --restarts: most rounds of one client between two restarts (TF Privacy's restart "
                   "accounting takes 1).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="A participation log (CSV client,round or JSON {client: [rounds]}): certify the realized "
                   "schedule's eps; a log that breaks the plan is refused (exit 2).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@time_limited
def tree(max_participations, min_separation, rounds, noise_multiplier, epsilon, delta, restarts, per_epoch,
         log_path, as_json):
    """Tree aggregation (DP-FTRL without restarts, or with --restarts): the exact worst-case squared sensitivity
    over participation patterns with a pattern attaining it, rho exact, eps certified through the exact
    Gaussian privacy curve, eps_rdp by TF Privacy's Renyi route; or the least z for --epsilon.

    Conventions as TF Privacy's tree_aggregation_accountant (rounds from 0). Model: docs/privacy.md."""
    from itsa.exceptions import InvalidOption
    from itsa.privacy.matrix import read_log, realized
    from itsa.privacy.matrix import tree as run

    schedule = {"max_participations": max_participations, "min_separation": min_separation, "rounds": rounds,
                "delta": delta, "restarts": restarts, "per_epoch": per_epoch}
    result: object
    with itsa_errors():
        if log_path is None:
            result = run(noise_multiplier=noise_multiplier, epsilon=epsilon, **schedule)
        else:
            if epsilon is not None or noise_multiplier is None:
                raise InvalidOption("--log: accounts a run at its noise multiplier: give --noise-multiplier "
                                    "(not --epsilon)")
            result = realized(read_log(log_path), noise_multiplier=noise_multiplier, **schedule)
    show(result, as_json)


def _numbers(ctx, param, value):
    """``1,1/2,1/4`` -> ``["1", "1/2", "1/4"]`` (the library reads each exactly)."""
    return None if value is None else [part.strip() for part in value.split(",")]


@click.command()
@click.option("--coefficients", default=None, callback=_numbers, metavar="C0,C1,...",
              help="A banded Toeplitz mechanism: the first column of C (read exactly).")
@click.option("--output-scale", default=None, callback=_numbers, metavar="W1,W2,...",
              help="A BLT: its output scales omega (jax-privacy's output_scale).")
@click.option("--buf-decay", default=None, callback=_numbers, metavar="T1,T2,...",
              help="A BLT: its buffer decays theta (jax-privacy's buf_decay).")
@click.option("--rounds", type=int, required=True, help="T: rounds.")
@click.option("--max-participations", type=int, required=True, help="E: most rounds one client takes part in.")
@click.option("--min-separation", type=int, required=True,
              help="xi: fewest rounds strictly between two participations (jax-privacy's min_sep is xi + 1).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@time_limited
def toeplitz(coefficients, output_scale, buf_decay, rounds, max_participations, min_separation, as_json):
    """A banded Toeplitz (--coefficients) or BLT (--output-scale, --buf-decay) mechanism on a participation
    schedule: its squared sensitivity (exact where the closed form's conditions are checked to hold, a certified
    upper bound otherwise) and its mean squared error of the prefix sums beside tree aggregation's. Model:
    docs/matrix.md."""
    from itsa.privacy.matrix import toeplitz as run

    with itsa_errors():
        result = run(coefficients, rounds=rounds, max_participations=max_participations,
                     min_separation=min_separation, output_scale=output_scale, buf_decay=buf_decay)
    show(result, as_json)
