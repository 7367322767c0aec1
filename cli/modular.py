"""``itsa modular``: overflow margins, digit compatibility, payload and the converse of layered modular sums."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, console, echo_json, itsa_errors, progress_callback
from ._progress import time_limit_of

_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
_RADIX = click.option("--radix", "-r", type=int, default=3, show_default=True, help="Odd radix ρ >= 3.")
_LAYERS = click.option("--layers", "-L", type=int, default=4, show_default=True, help="Number of layers L.")
_CARRY = click.option("--carry", "-p", default="1/1000", show_default=True,
                      help="Carry target in (0, 1): 1/1000 or 0.001 (read exactly).")
_READING = click.option("--reading", type=click.Choice(["per-layer", "all-layers", "union"]), default="per-layer",
                        show_default=True, help="The target per layer, for all L independent layers, or L·p <= target.")


_TIME_LIMIT = click.option("--time-limit", type=SECONDS, default=None,
                           help=f"Seconds for the whole run (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit); past it "
                                "the run stops with one line, exit 1.")
_METHOD = click.option("--method", type=click.Choice(["auto", "exact", "certified"]), default="auto",
                       show_default=True, help="Exact integers, or certified fixed-point bounds (deployment scale).")


def _limit(time_limit):
    return time_limit_of(time_limit, DEFAULT_TIME_LIMIT)


@click.group()
def modular():
    """Layered modular sums of progressive-resolution secure aggregation, exactly.

    Margins (the carry law), digits (Assumption 1), payload (Proposition 2),
    converse (Theorem 2), rules (Theorem 1), distortion (Theorem 4), privacy
    (§VII, through itsa.privacy) and the audit of the paper's printed numbers. Every probability is exact or a
    certified interval, and says which. Model: docs/modular.md.

    Based on Azimi-Abarghouyi, arXiv 2610.00695.
    """


@modular.command()
@click.option("--clients", "-K", required=True, help="K values: 8,16,32, a range 8..4096, 8..64:8, or 8..4096x2.")
@_RADIX
@_LAYERS
@_CARRY
@_READING
@_METHOD
@click.option("--law", default=None, help="Digit law: an odd number (at most ρ) of weights centred on 0, e.g. "
              "1/4,1/2,1/4 (default uniform).")
@_TIME_LIMIT
@_JSON
def margins(clients, radix, layers, carry, reading, method, law, time_limit, as_json):
    """The smallest overflow margin per K for a carry target, and the slope against log_ρ K."""
    from itsa.modular import DigitLaw, parse_clients, staircase

    with itsa_errors():
        ks = parse_clients(clients)
        digit_law = None if law is None else DigitLaw.parse(law)
        with progress_callback("margins", quiet=as_json) as progress:
            result = staircase(ks, radix, layers, carry, reading, digit_law, method, progress=progress,
                               time_limit=_limit(time_limit))
    if as_json:
        data = result.to_json()
        if result.slope is not None:
            data["slope_3dp"] = result.slope.nearest(3)
        echo_json(data)
        return
    from rich.table import Table

    from itsa.modular import Reading
    from itsa.modular.numbers import fraction_text

    first = result.margins[0]
    q = first.quantity
    table = Table(title=f"itsa modular margins: ρ = {radix}, L = {layers}, target {q} <= {fraction_text(first.target)} "
                        f"({first.reading}; p = carry per layer)")
    per_layer = first.reading is Reading.PER_LAYER
    for col in ("K", "margin m", "modulus", "p at m", *(() if per_layer else (f"{q} at m",)), f"{q} at m − 1"):
        table.add_column(col)
    for r in result.margins:
        below = "" if r.constrained_below is None else r.constrained_below.text()
        shown = (r.carry.text(),) if per_layer else (r.carry.text(), r.constrained.text())
        table.add_row(str(r.clients), str(r.margin), f"{radix}^{r.width + r.margin}", *shown, below)
    out = console()
    out.print(table)
    if result.slope is not None:
        out.print(f"slope of m against log_{radix} K: {result.slope.text(4)} (certified, least squares)")
    if result.offset is not None:
        out.print(f"mean of m − ½ log_{radix} K: {result.offset.text(3)} (certified)")
    out.print(f"largest carry per layer p at the margins: {result.largest_carry.text()}")


@modular.command()
@click.option("--chain", type=click.Choice(["integer", "a2"]), default="integer", show_default=True)
@_RADIX
@_LAYERS
@click.option("--block-dimension", "-n", type=int, default=None,
              help="n_b of the integer chain (default 1); refused with A2, which is 2-dimensional.")
@click.option("--max-points", type=int, default=2_000_000, show_default=True,
              help="Enumerate every point up to this many; sample beyond.")
@click.option("--samples", type=int, default=200_000, show_default=True, help="Points drawn when sampling.")
@click.option("--seed", type=int, default=0, show_default=True)
@_JSON
def digits(chain, radix, layers, block_dimension, max_points, samples, seed, as_json):
    """Assumption 1 (digit compatibility) counted over every point of Λ_1 ∩ V_(L+1)."""
    from itsa.modular import compatibility

    with itsa_errors():
        result = compatibility(chain, radix, layers, block_dimension, max_points, samples, seed)
    if as_json:
        echo_json(result.to_json())
    else:
        click.echo(result.summary())


@modular.command()
@click.option("--clients", "-K", type=int, required=True, help="Number of clients K.")
@_RADIX
@_LAYERS
@click.option("--stages", default="each", show_default=True,
              help="Stages coarse to fine, e.g. 4,3/2,1; 'each' (one layer per stage) or 'one'.")
@_CARRY
@_READING
@click.option("--rule", type=click.Choice(["exact", "theorem1a", "theorem1b", "fixed"]), default="exact",
              show_default=True, help="Where each margin comes from.")
@click.option("--margin", type=int, default=None, help="With --rule fixed (only): the margin of every modulus.")
@_METHOD
@_TIME_LIMIT
@_JSON
def payload(clients, radix, layers, stages, carry, reading, rule, margin, method, time_limit, as_json):
    """Proposition 2's payload of one PSA upload against repeated flat executions."""
    from itsa._util.progress import counting
    from itsa.modular import payload as run

    with itsa_errors(), progress_callback("payload: margins", quiet=as_json) as progress:
        result = run(clients, radix, layers, stages, carry, reading, rule, margin, method,
                     time_limit=_limit(time_limit), tick=counting(progress, "payload"))
    if as_json:
        echo_json(result.to_json())
    else:
        click.echo(result.summary())


@modular.command()
@click.option("--clients", "-K", type=int, required=True)
@_RADIX
@click.option("--margin", "-m", type=int, default=None, help="Margin m: modulus ρ^(1+m).")
@click.option("--modulus", "-M", type=int, default=None, help="Any modulus M (instead of --margin).")
@click.option("--success", default="999/1000", show_default=True,
              help="Success target of the exact converse margin.")
@click.option("--law", default=None, help="Digit law: an odd number (at most ρ) of weights centred on 0 "
              "(default uniform).")
@_TIME_LIMIT
@_JSON
def converse(clients, radix, margin, modulus, success, law, time_limit, as_json):
    """The best decoder from S mod M against centred reduction, and the exact converse margin."""
    from itsa._util.checks import whole_number
    from itsa.modular import DigitLaw, check_radix, converse_margin, decoder_success
    from itsa.modular.checks import exclusive

    with itsa_errors():
        check_radix(radix)
        exclusive(margin=margin, modulus=modulus)
        digit_law = None if law is None else DigitLaw.parse(law)
        if margin is not None:
            modulus = radix ** (1 + whole_number("margin", margin, minimum=0, maximum=200))
        need = converse_margin(clients, radix, success, digit_law, time_limit=_limit(time_limit))
        at = decoder_success(clients, modulus, digit_law, radix) if modulus is not None else None
    if as_json:
        echo_json({"decoder": None if at is None else at.to_json(), "converse": need.to_json()})
        return
    if at is not None:
        click.echo(at.summary())
    click.echo(need.summary())


@modular.command()
@click.option("--clients", "-K", required=True, help="K values, as for margins.")
@_RADIX
@_LAYERS
@_CARRY
@_READING
@click.option("--noise-scale", default="0", show_default=True, help="s̃ >= 1/2 of the DP noise, or 0 for none.")
@_METHOD
@_TIME_LIMIT
@_JSON
def rules(clients, radix, layers, carry, reading, noise_scale, method, time_limit, as_json):
    """Theorem 1(a) and (b) against the exact smallest margin."""
    from itsa._util.deadline import Deadline
    from itsa._util.progress import counting
    from itsa.modular import compare, parse_clients

    with itsa_errors(), progress_callback("rules", quiet=as_json) as progress:
        ks, clock, rows = parse_clients(clients), Deadline(_limit(time_limit)), []
        tick = counting(progress, "rules")
        for i, k in enumerate(ks):
            clock.check(f"K = {k}, {i} of {len(ks)} done")
            rows.append(compare(k, radix, layers, carry, reading, noise_scale=noise_scale, method=method,
                                time_limit=clock))
            if tick is not None:
                tick(i + 1, len(ks))
    if as_json:
        echo_json({"radix": radix, "layers": layers, "target": carry, "reading": reading,
                   "rows": [r.to_json() for r in rows]})
        return
    from rich.table import Table

    table = Table(title=f"itsa modular rules: ρ = {radix}, L = {layers}, target {carry} ({reading})")
    for col in ("K", "exact", "Theorem 1(a)", "Theorem 1(b)", "p per layer at exact margin"):
        table.add_column(col)
    for r in rows:
        table.add_row(str(r.exact.clients), str(r.exact.margin), f"{r.worst_case} ({r.excess_worst_case:+d})",
                      f"{r.concentration} ({r.excess_concentration:+d})", r.exact.carry.text())
    out = console()
    out.print(table)
    a, b = rows[0].budgets()
    out.print(f"budgets: Theorem 1(a) {a}; Theorem 1(b) {b} (each rule's per-layer carry bound is its budget / L)")


@modular.command()
@click.option("--finest", "-l", type=int, default=None, help="Finest authorized layer ℓ0 (default: every one).")
@_RADIX
@_LAYERS
@click.option("--source", type=click.Choice(["uniform", "gaussian"]), default="uniform", show_default=True)
@click.option("--spread", type=float, default=None,
              help="Half-range (uniform, at most (ρ^L − 1)/2 − 1/2) or standard deviation (Gaussian, clipped).")
@click.option("--samples", type=int, default=100_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@_TIME_LIMIT
@_JSON
def distortion(finest, radix, layers, source, spread, samples, seed, time_limit, as_json):
    """Theorem 4: closed-form T, the two-sided bounds and a seeded Monte Carlo check."""
    from itsa._util.checks import whole_number
    from itsa._util.deadline import Deadline
    from itsa._util.progress import counting
    from itsa.modular import monte_carlo

    with itsa_errors(), progress_callback("distortion: samples", quiet=as_json) as progress:
        levels = [finest] if finest is not None else list(range(whole_number("L (layers)", layers, minimum=1, maximum=30), 0, -1))
        clock = Deadline(_limit(time_limit))
        tick = counting(progress, "distortion")
        rows = [monte_carlo(f, radix, layers, source, spread, samples, seed, time_limit=clock,
                            tick=None if tick is None else (lambda d, t, i=i: tick(i * t + d, len(levels) * t)))
                for i, f in enumerate(levels)]
    if as_json:
        echo_json({"rows": [r.to_json() for r in rows]})
        return
    for r in rows:
        click.echo(r.summary())


@modular.command()
@click.option("--privacy/--no-privacy", default=True, show_default=True,
              help="Include the §VII values computed by itsa.privacy.")
@_JSON
def audit(privacy, as_json):
    """Every printed number of the paper's exact calculations, beside itsa's value and its reading."""
    from itsa.modular import audit as run

    with itsa_errors():
        result = run(privacy=privacy)
    if as_json:
        echo_json(result.to_json())
        return
    from rich.table import Table

    table = Table(title="itsa modular audit: Azimi-Abarghouyi, arXiv 2610.00695")
    for col in ("where", "printed", "itsa", "status", "reading / reason"):
        table.add_column(col)
    for c in result.checks:
        table.add_row(c.where, c.printed, c.itsa, str(c.status), c.reading)
    console().print(table)


@modular.command()
@click.option("--clients", "-K", type=int, required=True, help="K_eff: honest clients whose noise is counted.")
@_RADIX
@_LAYERS
@click.option("--authorized", default=None, help="Released layers, a suffix L..ℓ0 such as 4,3 (default: all L).")
@click.option("--scaled-scale", "-s", default="1", show_default=True, help="s̃ = s_ℓ/(h ρ^(ℓ-1)) >= 1/2, every layer.")
@click.option("--dimension", "-d", type=int, default=1, show_default=True, help="Model dimension d.")
@click.option("--delta", default="1e-6", show_default=True)
@click.option("--conversion", type=click.Choice(["cks", "mironov"]), default="cks", show_default=True)
@_JSON
def privacy(clients, radix, layers, authorized, scaled_scale, dimension, delta, conversion, as_json):
    """Rényi DP of an authorized set of layers (eq. 30–31, Theorem 3), by itsa.privacy's accountant."""
    from itsa.exceptions import InvalidOption
    from itsa.modular.privacy import release_privacy

    with itsa_errors():
        try:
            chosen = [int(x) for x in authorized.split(",")] if authorized is not None else None
        except ValueError:
            raise InvalidOption(f"authorized: {authorized!r} is not a list of layers (write 4,3)") from None
        result = release_privacy(clients=clients, radix=radix, layers=layers, authorized=chosen,
                                 scaled_scale=scaled_scale, dimension=dimension, delta=delta, conversion=conversion)
    if as_json:
        echo_json(result.to_json())
    else:
        click.echo(result.summary())
