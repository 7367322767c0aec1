"""``itsa secagg``: the SecAgg+ degree and threshold for a number of clients, with certified bounds and cost."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, LibraryChoice, LibraryDefault, WholeNumber, itsa_errors, show
from ._progress import time_guard, time_limit_of

LIB = "itsa.keys.secagg"


@click.command()
@click.option("--clients", "-n", type=WholeNumber(), required=True, help="Number of clients n.")
@click.option("--corrupt", required=True, help="Fraction of corrupt clients in [0, 1), read exactly (1/20 or 0.05).")
@click.option("--dropout", required=True, help="Fraction of clients that drop out in [0, 1), read exactly.")
@click.option("--adversary", type=LibraryChoice(LIB, "Adversary"),
              default=LibraryDefault(LIB, "secagg_parameters", "adversary"), show_default=True,
              help="semi-honest server and clients, a semi-malicious server, or none.")
@click.option("--dimension", "-d", type=WholeNumber(), default=LibraryDefault(LIB, "secagg_parameters", "dimension"),
              show_default=True, help="Words in each client's input (for the bytes per client).")
@click.option("--payload-bits", type=WholeNumber(), default=LibraryDefault(LIB, "secagg_parameters", "payload_bits"),
              show_default=True, help="Bits of each word of the masked input.")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds for the search, in CPU and wall-clock time (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (degree and threshold at its top).")
def secagg(clients, corrupt, dropout, adversary, dimension, payload_bits, time_limit, as_json):
    """SecAgg+ degree k and threshold t for n clients (security 2^-40, failure 2^-20).

    The open-source finder's method (federated-compute's graph parameter
    finder) with every test decided exactly or in ball arithmetic, beside the
    finder's own answer in doubles; the certified failure bounds, the dropout
    the choice tolerates and the per-client cost. Method: docs/secagg.md.
    """
    from itsa.keys.secagg import secagg_parameters

    with itsa_errors(), time_guard(time_limit_of(time_limit, DEFAULT_TIME_LIMIT)):
        result = secagg_parameters(clients, corrupt, dropout, adversary, dimension=dimension,
                                   payload_bits=payload_bits)
    show(result, as_json)
