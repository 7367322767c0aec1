"""``itsa analyze``: every quantity of the paper, the regime and the bounds."""

import click

from ._common import (
    Q_RULE,
    Q_RULE_DEFAULT,
    LibraryChoice,
    LibraryDefault,
    console,
    echo_json,
    itsa_errors,
    load_instance,
    warn,
)


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option("--detail", is_flag=True, help="Add the table of every configuration (u, m, n), streamed.")
@click.option("--only", type=LibraryChoice("itsa.output.detail", "ONLY"), default=None,
              help="With --detail: only the critical configurations (|A| = |S̄|), or those with c = e*.")
@click.option("--config", metavar="U,M,N", default=None,
              help="With --detail: only this configuration (1-based).")
@click.option("--force", is_flag=True,
              help="With --detail: print more than 1,000,000 configurations.")
@click.option("--q-rule", type=Q_RULE, default=Q_RULE_DEFAULT,
              show_default=True, help="How Q_1 and Q_2 combine into Q (docs/model.md §6.1).")
@click.option("--corrected/--no-corrected", default=LibraryDefault("itsa.bounds.analysis", "analyze", "corrected"), show_default=True,
              help="Compute itsa's corrected lower bound (itsa/bounds/corrected.py).")
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
    from itsa.output.report import analysis_to_dict

    detail = detail or only is not None or config is not None
    with itsa_errors():
        instance = load_instance(path)
        result = itsa.analyze(instance, q_rule=q_rule, corrected=corrected)
        keep = _selection(result, only, config, force) if detail else None
    warn(instance.warnings)
    warn(instance.outside_assumptions())
    if as_json:
        _stream_json(analysis_to_dict(result), result, keep)
    else:
        render(result, keep)


def _selection(result, only, config, force):
    """The rows --detail prints; too many without --force is bad input (exit 2)."""
    from itsa.output.detail import MAX_ROWS, select

    return select(result, only, config, max_rows=None if force else MAX_ROWS)


def _stream_json(obj, result, keep) -> None:
    """One JSON object; with ``keep``, its "configurations" array is written row by row."""
    import json
    import sys

    from itsa.output.detail import iter_json_rows

    if keep is None:
        echo_json(obj)
        return
    head = json.dumps(obj, indent=2)
    out = sys.stdout
    out.write(head[:-2] + ',\n  "configurations": [')
    sep = "\n    "
    for row in iter_json_rows(result, keep):
        out.write(sep + row)
        sep = ",\n    "
    out.write("\n  ]\n}\n")
    out.flush()


def render(a, keep) -> None:
    from rich.table import Table

    from itsa._util.display import config

    inst, s = a.instance, a.sets
    out = console()
    summary = Table(title=f"itsa analyze: {inst.name or 'instance'}", show_header=False)
    summary.add_column(style="bold")
    summary.add_column()
    for key, val in [
        ("servers V_u", str(list(inst.servers))),
        ("U, K, M, N", f"{inst.U}, {inst.K}, {inst.M}, {inst.N}"),
        ("|S̄|", str(s.S_bar.bit_count())),
        ("a*", str(s.a_star)),
        ("e*", f"{s.e_star}, attained first at (u,m,n) = {config(a.e_star_configuration)}"),
        ("critical (u,m,n)", f"{int(a.configurations.critical.sum())} with |A_(u,m,n)| = |S̄|"),
        ("regime", f"{a.regime}: {a.regime_reason}"),
        ("R_X, R_Y", ">= 1, optimal (Theorem 1)"),
        ("key rate lower (paper)", f"{a.key_rate_lower_printed.value}  ({a.key_rate_lower_printed.reason})"),
        ("key rate lower (itsa)", f"{_opt(a.key_rate_lower.value)}  ({a.key_rate_lower.reason})"),
        ("key rate upper", f"{_opt(a.key_rate_upper.value)}  ({a.key_rate_upper.reason})"),
    ] + ([("key rate upper (itsa)", f"{a.key_rate_upper_used.value}  ({a.key_rate_upper_used.reason})")]
         if a.key_rate_upper_used is not None else []):
        summary.add_row(key, val)
    out.print(summary)

    sets = Table(title="Named sets")
    sets.add_column("set", style="bold")
    sets.add_column("users")
    for key, mask in [("S_I", s.S_I), ("S̄", s.S_bar), ("Q_1", s.Q1), ("Q_2", s.Q2),
                      (f"Q ({s.q_rule})", s.Q)]:
        sets.add_row(key, inst.describe(mask))
    out.print(sets)

    if a.lp is not None:
        _render_lp(out, a)
    if keep is not None:
        _render_configurations(a, keep)


def _render_lp(out, a) -> None:
    from rich.table import Table

    from itsa._util.display import config, user

    inst, lp = a.instance, a.lp
    if not lp.feasible:
        out.print(f"[bold red]Theorem-2 LP infeasible[/]: configuration {config(lp.empty_constraint)} "
                  "gives a constraint with no variable (D = K); b* and the upper bound are unknown.")
        return
    title = (f"Theorem-2 LP: b* = {lp.b_star} (certified: primal and dual feasible, "
             f"both objectives {lp.dual_objective})")
    table = Table(title=title)
    for col in ("constraint Σ b >= 1 over", "configurations (u,m,n)", "slack", "dual", "binding"):
        table.add_column(col)
    for c in lp.constraints:
        cfgs = ", ".join(config(x) for x in c.configurations[:6])
        if len(c.configurations) > 6:
            cfgs += f", … ({len(c.configurations)} in all)"
        table.add_row(inst.describe(c.users), cfgs, str(c.slack), str(c.dual),
                      "yes" if c.binding else ("dominated" if c.dominated else ""))
    out.print(table)
    out.print("b = " + ", ".join(f"b{user(*inst.label(i))} = {v}" for i, v in lp.b.items()))
    out.print(LP_NOTE)


#: Why the dual column can look odd; printed under every LP table.
LP_NOTE = ("binding: tight and not dominated by a smaller constraint; dominated: another "
           "constraint's users are a proper subset of these, so this one is implied. "
           "The LP is often degenerate (several optimal duals), so the "
           "dual shown is one certificate among several: a binding row may carry dual 0 and a "
           "dominated row a positive dual (Example 2 has both). The certificate is exact either way.")


def _render_configurations(a, keep) -> None:
    """Plain aligned lines, streamed (a rich table would hold every row in memory)."""
    from itsa._util.display import users
    from itsa.output.detail import iter_rows

    cols = ("u", "m", "n", "U^(m,n)", "F^(m,n)", "D", "|A|", "c", "critical")
    click.echo(f"Configurations (u, m, n): {int(keep.sum()):,} shown")
    click.echo("  ".join(cols))
    for row in iter_rows(a, keep):
        click.echo("  ".join([str(row["u"]), str(row["m"]), str(row["n"]), str(row["U_mn"]),
                              str(row["F_mn"]), users(row["D"]), str(len(row["A"])), str(row["c"]),
                              "yes" if row["critical"] else ""]))


def _opt(x) -> str:
    return "unknown" if x is None else str(x)
