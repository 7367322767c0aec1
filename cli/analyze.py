"""``itsa analyze``: every quantity of the paper, the regime and the bounds."""

import click

from ._common import (
    Q_RULE,
    Q_RULE_DEFAULT,
    LibraryChoice,
    LibraryDefault,
    console,
    echo_json,
    echo_json_stream,
    itsa_errors,
    load_instance,
    warn_instance,
)
from ._progress import time_limited


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option("--detail", is_flag=True, help="Add the table of every configuration (u, m, n), streamed.")
@click.option("--only", type=LibraryChoice("itsa.keys.output.detail", "ONLY"), default=None,
              help="With --detail: only the critical configurations (|A| = |S̄|), or those with c = e*.")
@click.option("--config", metavar="U,M,N", default=None,
              help="With --detail: only this configuration (1-based).")
@click.option("--force", is_flag=True,
              help="With --detail: print more than 1,000,000 configurations.")
@click.option("--q-rule", type=Q_RULE, default=Q_RULE_DEFAULT,
              show_default=True, help="How Q_1 and Q_2 combine into Q (docs/model.md §6.1).")
@click.option("--corrected/--no-corrected", default=LibraryDefault("itsa.keys.bounds.analysis", "analyze", "corrected"), show_default=True,
              help="Compute itsa's corrected lower bound (itsa/keys/bounds/corrected.py).")
@time_limited
def analyze(path, as_json, detail, only, config, force, q_rule, corrected):
    """Compute U^(m,n), F^(m,n), S_I, S̄, a*, e*, Q, the regime, the bounds and the LP.

    PATH is an instance file or a shipped example (itsa examples). A
    configuration (u,m,n) is critical when it covers all of S̄
    (|A_(u,m,n)| = |S̄|); Q_1 and the Theorem-2 LP are built from the critical
    ones. The configuration that attains e* is named. Model: docs/model.md.

    --detail streams one row per configuration (u, m, n) in bounded memory;
    --only and --config select rows (and imply --detail).
    """
    import itsa

    detail = detail or only is not None or config is not None
    with itsa_errors():
        instance = load_instance(path)
        result = itsa.analyze(instance, q_rule=q_rule, corrected=corrected)
        keep = _selection(result, only, config, force) if detail else None
    warn_instance(instance)
    if as_json and keep is not None:
        from itsa.keys.output.detail import iter_json_rows

        echo_json_stream(result.to_dict(), "configurations", iter_json_rows(result, keep))
    elif as_json:
        echo_json(result.to_dict())
    else:
        render(result, keep)


def _selection(result, only, config, force):
    """The rows --detail prints; too many without --force is bad input (exit 2)."""
    from itsa.keys.output.detail import MAX_ROWS, select

    return select(result, only, config, max_rows=None if force else MAX_ROWS)


def render(a, keep) -> None:
    from rich.table import Table

    from itsa.keys.output import report

    out = console()
    summary = Table(title=f"itsa analyze: {a.instance.name or 'instance'}", show_header=False)
    summary.add_column(style="bold")
    summary.add_column()
    for key, val in report.analysis_summary_rows(a):
        summary.add_row(key, val)
    out.print(summary)
    sets = Table(title="Named sets")
    sets.add_column("set", style="bold")
    sets.add_column("users")
    for key, val in report.named_set_rows(a):
        sets.add_row(key, val)
    out.print(sets)
    if a.lp is not None:
        _render_lp(out, a)
    if keep is not None:
        click.echo(f"Configurations (u, m, n): {int(keep.sum()):,} shown")
        click.echo("  ".join(report.CONFIGURATION_COLUMNS))
        for row in report.configuration_text_rows(a, keep):     # plain lines, streamed
            click.echo("  ".join(row))


def _render_lp(out, a) -> None:
    from rich.markup import escape
    from rich.table import Table

    from itsa.keys.output import report

    title, solution = report.lp_text(a)
    if not a.lp.feasible:
        out.print(f"[bold red]{escape(title)}[/]")
        return
    table = Table(title=title)
    for col in report.LP_COLUMNS:
        table.add_column(col)
    for row in report.lp_rows(a):
        table.add_row(*row)
    out.print(table)
    out.print(solution)
    out.print(report.LP_NOTE)
