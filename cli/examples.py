"""``itsa examples``: the shipped instances and deployments, and a generator for the homogeneous family."""

import click

from itsa._util.checks import digits_only

from ._common import echo_json, itsa_errors
from ._progress import time_limited


def _triple(ctx, param, value):
    if value is None:
        return None
    parts = value.split(",")
    if len(parts) != 3 or not all(digits_only(p.strip()) for p in parts):
        raise click.BadParameter(f"expected three whole numbers U,V,t, not {value!r}")
    return tuple(int(p) for p in parts)


@click.command()
@click.option("--homogeneous", "params", metavar="U,V,t", callback=_triple,
              help="Print the YAML instance of the homogeneous family: U servers of V users, "
                   "every input protected, any t users collude.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@time_limited
def examples(params, as_json):
    """List the shipped instances (usable as PATH by every command) and the shipped deployments (usable as
    DEPLOYMENT by itsa plan), one line each."""
    import itsa

    with itsa_errors():
        if params:
            found = itsa.keys.examples.homogeneous_file(*params)
            if not as_json:
                click.echo(found.text, nl=False)
                return
            echo_json(found.to_dict())
            return
        result = itsa.keys.examples.catalogue()
    if as_json:
        echo_json(result.to_dict())
        return
    rows = result.rows()
    width = max(len(n) for n, _ in rows)
    for name, text in rows:
        click.echo(f"{name:<{width}}  {text}")
