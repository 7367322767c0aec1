"""``itsa analyze``: every quantity of the paper, the regime and the bounds."""

import click

from ._common import Q_RULE, console, echo_json, itsa_errors, load_instance, warn


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option("--detail", is_flag=True, help="Add the table of every configuration (u, m, n).")
@click.option("--q-rule", type=Q_RULE, default="union",
              show_default=True, help="How Q_1 and Q_2 combine into Q (docs/model.md §6.1).")
@click.option("--corrected/--no-corrected", default=True, show_default=True,
              help="Compute itsa's corrected lower bound (itsa/bounds.py).")
def analyze(path, as_json, detail, q_rule, corrected):
    """Compute U^(m,n), F^(m,n), S_I, S̄, a*, e*, Q, the regime, the bounds and the LP.

    PATH is an instance file or a shipped example (itsa examples). A
    configuration (u,m,n) is critical when it covers all of S̄
    (|A_(u,m,n)| = |S̄|); Q_1 and the Theorem-2 LP are built from the critical
    ones. The configuration that attains e* is named. Model: docs/model.md.
    """
    import itsa
    from itsa.report import analysis_to_dict

    with itsa_errors():
        instance = load_instance(path)
        result = itsa.analyze(instance, q_rule=q_rule, corrected=corrected)
    warn(instance.warnings)
    warn(instance.outside_assumptions())
    if as_json:
        echo_json(analysis_to_dict(result, detail=detail))
    else:
        render(result, detail)


def render(a, detail: bool) -> None:
    from rich.table import Table

    from itsa.display import config

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
    ]:
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
    if detail:
        _render_configurations(out, a)


def _render_lp(out, a) -> None:
    from rich.table import Table

    from itsa.display import config, user

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
                      "yes" if c.binding else ("implied" if c.dominated else ""))
    out.print(table)
    out.print("b = " + ", ".join(f"b{user(*inst.label(i))} = {v}" for i, v in lp.b.items()))
    out.print(LP_NOTE)


#: Why the dual column can look odd; printed under every LP table.
LP_NOTE = ("binding: tight and not implied by a smaller constraint; implied: another constraint's "
           "users are a subset of these. The LP is often degenerate (several optimal duals), so the "
           "dual shown is one certificate among several: a binding row may carry dual 0 and an "
           "implied row a positive dual (Example 2 has both). The certificate is exact either way.")


def _render_configurations(out, a) -> None:
    from rich.table import Table

    from itsa.display import users
    from itsa.report import configurations_to_list

    table = Table(title="Configurations (u, m, n)")
    for col in ("u", "m", "n", "U^(m,n)", "F^(m,n)", "D", "|A|", "c", "critical"):
        table.add_column(col)
    for row in configurations_to_list(a):
        table.add_row(str(row["u"]), str(row["m"]), str(row["n"]),
                      str(row["U_mn"]), str(row["F_mn"]),
                      users(row["D"]), str(len(row["A"])),
                      str(row["c"]), "yes" if row["critical"] else "")
    out.print(table)


def _opt(x) -> str:
    return "unknown" if x is None else str(x)
