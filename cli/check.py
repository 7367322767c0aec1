"""``itsa check``: certify a framework's configuration (``itsa check flower``: Flower's SecAgg+)."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import EXIT_FAILED, SECONDS, LibraryChoice, LibraryDefault, WholeNumber, itsa_errors, show
from ._progress import time_guard, time_limit_of

LIB = "itsa.frameworks.flower"


def _default(parameter: str) -> LibraryDefault:
    return LibraryDefault(LIB, "check_flower", parameter)


@click.group()
def check():
    """Certify a framework's configuration for a cohort: whether its modular sum can wrap, its
    quantization error, its secure-aggregation failure bounds, a verdict and the smallest fix.

    Exits 0 when the configuration passes, 1 when it wraps or fails, 2 for bad input."""


@check.command()
@click.option("--clients", "-n", type=WholeNumber(), required=True, help="The cohort: clients summed in a round.")
@click.option("--num-shares", type=str, default=_default("num_shares"), show_default=True,
              help="Flower's num_shares: an int counts a neighbourhood's shares, the client's own included; "
                   "a float is a fraction of the cohort (Flower's example app's value when left out).")
@click.option("--reconstruction-threshold", type=str, default=_default("reconstruction_threshold"),
              show_default=True, help="Flower's reconstruction_threshold: an int, or a float fraction of the shares.")
@click.option("--max-weight", type=str, default=_default("max_weight"), show_default=True,
              help="Flower's max_weight: updates are scaled by weight / max_weight before the clip.")
@click.option("--clipping-range", type=str, default=_default("clipping_range"), show_default=True,
              help="Flower's clipping_range c: each coordinate is clipped to [-c, c].")
@click.option("--quantization-range", type=str, default=_default("quantization_range"), show_default=True,
              help="Flower's quantization_range Q: a coordinate is quantized onto 0..Q.")
@click.option("--modulus-range", type=str, default=_default("modulus_range"), show_default=True,
              help="Flower's modulus_range M (a power of 2): the sum is taken modulo M.")
@click.option("--dropout", default=_default("dropout"), show_default=True,
              help="Fraction of clients that drop out, in [0, 1), read exactly (for the SecAgg+ bounds).")
@click.option("--corrupt", default=_default("corrupt"), show_default=True,
              help="Fraction of corrupt clients, in [0, 1), read exactly (for the SecAgg+ bounds).")
@click.option("--adversary", type=LibraryChoice("itsa.keys.secagg", "Adversary"), default=_default("adversary"),
              show_default=True, help="The server follows the protocol (semi-honest), asks neighbours inconsistently "
                                      "(semi-malicious: Flower's unmask stage has no consistency round), or none.")
@click.option("--clip", default=None, help="The l2 clip the clients apply to their updates: is it clamped by "
                                          "clipping_range?")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds for the check, in CPU and wall-clock time (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (can_wrap, max_cohort and verdict first).")
def flower(clients, num_shares, reconstruction_threshold, max_weight, clipping_range, quantization_range,
           modulus_range, dropout, corrupt, adversary, clip, time_limit, as_json):
    """Certify a Flower SecAggPlusWorkflow configuration for a cohort of --clients: whether the modular
    sum can wrap (for any data, and for data at zero), the largest cohort that never wraps, the int32
    limit, the quantization error, what it means for an l2 clip (--clip), the SecAgg+ failure bounds of its
    neighbourhoods, a verdict and the smallest fix. Model: docs/frameworks.md."""
    from itsa.frameworks.flower import check_flower

    with itsa_errors(), time_guard(time_limit_of(time_limit, DEFAULT_TIME_LIMIT)):
        result = check_flower(clients=clients, num_shares=num_shares,
                              reconstruction_threshold=reconstruction_threshold, max_weight=max_weight,
                              clipping_range=clipping_range, quantization_range=quantization_range,
                              modulus_range=modulus_range, dropout=dropout, corrupt=corrupt, adversary=adversary,
                              clip=clip)
    show(result, as_json)
    if str(result.verdict) != "passes":
        raise SystemExit(EXIT_FAILED)
