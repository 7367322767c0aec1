"""``itsa build``: the regime's explicit key scheme over F_q, verified before it is shown."""

import click

from ._common import (
    Q_RULE,
    Q_RULE_DEFAULT,
    LibraryDefault,
    itsa_errors,
    load_instance,
    progress_callback,
    show,
    warn,
    warn_instance,
)
from ._paths import OUTPUT_FILE
from ._progress import time_limited


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--field", "-q", type=int, default=None,
              help="The prime q of F_q (default: the smallest prime above the construction's "
                   "Schwartz-Zippel size and 100, as verify and audit use).")
@click.option("--seed", type=int, default=LibraryDefault("itsa.keys.schemes.constructions", "build_scheme", "seed"), show_default=True, help="Seed of the coefficient draws.")
@click.option("--max-tries", type=click.IntRange(1), default=LibraryDefault("itsa.keys.schemes.constructions", "build_scheme", "max_tries"), show_default=True,
              help="Coefficient draws before giving up.")
@click.option("--q-rule", type=Q_RULE, default=Q_RULE_DEFAULT, show_default=True,
              help="How Q_1 and Q_2 combine into Q (docs/model.md §6.1).")
@click.option("-o", "--output", type=OUTPUT_FILE, help="Write the scheme JSON here.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@time_limited
def build(path, field, seed, max_tries, q_rule, output, as_json):
    """Build the scheme of the instance's regime over F_q and verify it (exit 1 if none verifies)."""
    import itsa
    from itsa._util.files import check_distinct_files
    from itsa.keys.schemes.constructions import field_warning

    with itsa_errors():
        instance = load_instance(path)
        check_distinct_files({"INSTANCE": itsa.keys.examples.resolve(path)}, {"-o": output})
        warn_instance(instance)
        analysis = itsa.analyze(instance, q_rule=q_rule)
        field = itsa.default_field(analysis) if field is None else field
        warn([w for w in [field_warning(analysis, field)] if w])
        with progress_callback(f"draws over F_{field}", quiet=as_json, delay=1.0) as progress:
            result = itsa.build_scheme(analysis, field, seed=seed, max_tries=max_tries,
                                       progress=progress)
        if output:
            itsa.save_scheme(instance, result.scheme, output)
    show(result, as_json)
    if output and not as_json:
        click.echo(f"wrote {output}")
