"""``itsa converse``: a certified lower bound on the source key rate, with its proof."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, LibraryChoice, itsa_errors, load_instance, show, warn, warn_instance
from ._paths import OUTPUT_FILE
from ._progress import progress_display, time_guard, time_limit_of

TIME_LIMIT_HELP = (f"Seconds for the whole run (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit). When it "
                   "runs out, the command says which stage was cut and prints the best bound proved.")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False), metavar="PATH|EXAMPLE")
@click.option("--lp", "method", type=LibraryChoice("itsa.keys.converse.registry", "CLASSES"), default=None,
              help="The converse LP: keys (key entropies with the general group lemma; the "
              "default) or model (every variable of the model; K <= 4, a cross-check), both "
              "bounding every scheme; or linear (keys plus Ingleton: schemes with linear keys).")
@click.option("--class", "old_name", type=LibraryChoice("itsa.keys.converse.registry", "ALIASES"), default=None,
              help="Old name of --lp: additive = keys, general = model.")
@click.option("--proof", "proof_file", type=OUTPUT_FILE,
              help="Write the proof to FILE.md (Markdown) or FILE.tex (LaTeX, for pdflatex).")
@click.option("--time-limit", type=SECONDS, help=TIME_LIMIT_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def converse(path, method, old_name, proof_file, time_limit, as_json):
    """Prove R_ZΣ >= bound on PATH by a Shannon-type LP, certified in exact arithmetic.

    With --lp keys or model the bound holds for every scheme of the model
    (any encoders, relays and keys); with --lp linear, for schemes with
    linear keys. The scope is printed with the bound. Exits 0 with a proved
    bound, 1 when the solver fails or the certificate does not check (no bound is then claimed), 2 for bad input
    (including an instance beyond the LP's size limit). Progress (stage, LP
    size, cutting-plane round) is drawn on stderr when it is a terminal.
    """
    from itsa._util.files import check_distinct_files
    from itsa.keys.converse import prove
    from itsa.keys.converse.registry import resolve
    from itsa.keys.examples import resolve as resolve_instance

    with itsa_errors():
        method = resolve(method, old_name).name
        if old_name:
            warn([f"--class {old_name} is the old name of --lp {method} (every bound "
                  "itsa proves now holds for every scheme; the JSON's class 'general' says so)"])
        instance = load_instance(path)
        check_distinct_files({"INSTANCE": resolve_instance(path)}, {"--proof": proof_file})
        limit = time_limit_of(time_limit, DEFAULT_TIME_LIMIT)
        with progress_display(as_json) as progress, time_guard(limit):
            result = prove(instance, method, proof_file=proof_file, time_limit=limit, progress=progress)
    warn_instance(instance)
    show(result, as_json)
    if not result.bound.certified:
        raise SystemExit(1)
