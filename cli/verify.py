"""``itsa verify``: exact correctness and zero-leakage checks of a key scheme."""

import click

from ._common import (
    EXIT_FAILED,
    Q_RULE,
    Q_RULE_DEFAULT,
    LibraryChoice,
    LibraryConstant,
    LibraryDefault,
    WholeNumber,
    console,
    echo_json,
    itsa_errors,
    load_instance,
    progress_callback,
    show,
    warn_instance,
)
from ._progress import time_limited


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--scheme", "scheme_path", type=click.Path(dir_okay=False),
              help="Scheme JSON to check; without it the regime's scheme is built first.")
@click.option("--field", "-q", type=int,
              help="The prime q. With --scheme, re-reads the scheme's integers mod q (default: the "
                   "file's). Without it: the smallest prime above 100 and the construction's "
                   "Schwartz-Zippel size.")
@click.option("--engine", type=LibraryChoice("itsa.keys.schemes.verifier", "ENGINES"), default=LibraryDefault("itsa.keys.schemes.verifier", "verify", "engine"), show_default=True,
              help="rank: exact ranks over F_q (any size); enumerate: every key and input value (small "
                   "schemes, a cross-check); auto: enumerate when it is small, else rank.")
@click.option("--seed", type=int, default=LibraryDefault("itsa.keys.schemes.constructions", "build_scheme", "seed"), show_default=True, help="Seed of the build, without --scheme.")
@click.option("--q-rule", type=Q_RULE, default=Q_RULE_DEFAULT, show_default=True,
              help="How Q_1 and Q_2 combine into Q (docs/model.md §6.1).")
@click.option("--enum-budget", type=WholeNumber(), default=LibraryConstant("itsa.keys.schemes.verifier", "ENUM_BUDGET"),
              show_default=True,
              help="Work limit of the enumerate engine (source values x passes; "
                   "2e10 and 20000000000 are both accepted).")
@click.option("--all", "show_all", is_flag=True, help="List every configuration, not only the leaking ones.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@time_limited
def verify(path, scheme_path, field, engine, seed, q_rule, enum_budget, show_all, as_json):
    """Check that every server decodes ΣW and that I(view_k; W_Sm | ΣW, W_Tn, Z_Tn) = 0 for all k, m, n.

    Exit code 0 when every check passes, 1 when any fails, 2 for bad input.
    """
    import itsa

    with itsa_errors():
        instance = load_instance(path)
        warn_instance(instance)
        if scheme_path:
            scheme = itsa.load_scheme(instance, itsa.keys.examples.resolve(scheme_path), field=field)
            with progress_callback(f"verify ({engine})", quiet=as_json) as progress:
                verdict = itsa.verify(instance, scheme, engine=engine, progress=progress,
                                      enum_budget=enum_budget)
        else:       # build verifies every draw with this engine: its verdict is the answer
            analysis = itsa.analyze(instance, q_rule=q_rule)
            q = field if field is not None else itsa.default_field(analysis)
            with progress_callback(f"build and verify ({engine})", quiet=as_json) as progress:
                verdict = itsa.build_scheme(analysis, q, seed=seed, engine=engine, progress=progress,
                                            enum_budget=enum_budget).verdict
    if as_json:
        echo_json(verdict.to_dict(include_all=show_all))
    else:
        show(verdict)
        _leak_table(verdict.leak_rows(include_all=show_all))
    if not verdict.ok:
        raise SystemExit(EXIT_FAILED)


def _leak_table(rows) -> None:
    if not rows:
        return
    from rich.table import Table

    table = Table(title="I(view_k; W_Sm | ΣW, W_Tn, Z_Tn) in q-ary units")
    for col in ("k", "m", "n", "leak"):
        table.add_column(col)
    for row in rows:
        table.add_row(*map(str, row))
    console().print(table)
