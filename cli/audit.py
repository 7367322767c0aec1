"""``itsa audit``: the paper's claims beside verified schemes and published results."""

import click

from ._common import LibraryDefault, console, echo_json, itsa_errors, load_instance, progress_callback, warn


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--max-symbols", type=click.IntRange(0), help="Largest scalar number of key symbols searched (default K-1; capped, with a note, at the search's limit K·L + d <= 60).")
@click.option("--field", "-q", type=int, default=LibraryDefault("itsa.auditor", "audit", "field"), show_default=True, help="The prime q of the search; constructions use it too when it exceeds "
                   "their Schwartz-Zippel size, else the next prime above that.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of every draw (constructions and search).")
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False),
              help="Directory for every scheme the audit reports (default: audit-out/NAME).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def audit(path, max_symbols, field, seed, out_dir, as_json):
    """Search verified schemes and flag where the paper's printed claims fail on PATH.

    Exits 0 whenever the audit ran, whatever it found; 2 for bad input.
    """
    from pathlib import Path

    from itsa._util.files import safe_stem
    from itsa.auditor import audit as run_audit
    from itsa.output.report import audit_to_dict

    with itsa_errors():
        instance = load_instance(path)
        out_dir = out_dir or str(Path("audit-out") / safe_stem(instance.name or Path(path).stem))
        with progress_callback("search", quiet=as_json) as progress:
            result = run_audit(instance, field=field, seed=seed, max_symbols=max_symbols,
                               progress=progress, out_dir=out_dir)
    warn(instance.warnings)
    warn(instance.outside_assumptions())
    if as_json:
        echo_json(audit_to_dict(result))
    else:
        render(result, out_dir)


def render(result, out_dir) -> None:
    from rich.table import Table

    from itsa._util.display import user
    from itsa.auditor import claim_text, no_finding_sentence

    out = console()
    inst = result.instance
    table = Table(title=f"itsa audit: {inst.name}", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for rule, a in result.analyses.items():
        table.add_row(f"regime ({rule} Q)", f"{a.regime}: {claim_text(a)}")
    table.add_row("printed lower bound", f"{result.printed_lower}  (min{{e*, K-1}}, paper)")
    table.add_row("corrected lower bound", f"{result.corrected.value}  ({result.corrected.label})")
    if result.external:
        table.add_row("published optimum", f"{result.external.value}  ({result.external.source})")
    s = result.search
    table.add_row("search (bounded)", f"best verified rate {s.rate if s.found else 'none'} over F_{s.field}"
                  + (f", shape {s.shape}" if s.shape else "") + f"; {s.candidates} candidates"
                  + ("" if s.complete else f"; stopped: {s.limit}"))
    for c in result.checks:
        x = "" if c.extra_user is None else f" x={user(*inst.label(c.extra_user))}{'' if c.allowed else ' (x ∈ Q)'}"
        table.add_row(f"{c.construction} ({c.q_rule}){x}", c.state)
    out.print(table)
    if result.findings:
        out.print(f"[bold]{len(result.findings)} finding(s)[/]")
        for i, f in enumerate(result.findings, 1):
            evidence = [f"printed: {f.printed}"] if f.printed is not None else []
            if f.verified is not None:
                evidence.append(f"verified: {f.verified}")
            if f.scheme_file:
                evidence.append(f"scheme: {f.scheme_file}")
            out.print(f"{i}. [bold]{f.kind}[/]: {f.message}"
                      + (f"\n   ({'; '.join(evidence)})" if evidence else ""))
    else:
        out.print(no_finding_sentence(result))
    for note in result.notes:
        out.print(f"note: {note}")
    if result.search_file or any(c.scheme_file for c in result.checks):
        out.print(f"schemes saved under {out_dir}/ (re-check with itsa verify --scheme)")
