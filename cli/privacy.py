"""``itsa privacy``: integer-domain private aggregation and certified privacy accounting."""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import SECONDS, LibraryChoice, LibraryConstant, LibraryDefault, itsa_errors, note, show, warn
from ._paths import RECORD_FILE
from ._progress import time_limited

JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
DELTA = click.option("--delta", default=LibraryConstant("itsa.privacy", "DEFAULT_DELTA"), show_default=True,
                     help="delta in (0, 1), read exactly.")
CONVERSION = click.option("--conversion", type=LibraryChoice("itsa.privacy", "Conversion"),
                          default=LibraryDefault("itsa.privacy", "calibrate", "conversion"), show_default=True,
                          help="RDP -> (eps, delta): Mironov 2017 or Canonne-Kamath-Steinke 2020.")
ENGINE = LibraryChoice("itsa.privacy", "SamplerEngine")


@click.group()
def privacy():
    """Private integer aggregation (PCU-FL Algorithm 3) and certified accounting.

    Every eps, delta and noise multiplier printed says what it is: a certified
    bound (ball arithmetic, rounded in the safe direction), exact, conditional
    on a premise that could not be certified, or a heuristic; with its method.
    Model and audit: docs/privacy.md.
    """


@privacy.command(context_settings={"ignore_unknown_options": True})
@click.option("--alpha", type=int, required=True, help="The grid: integer weights add to alpha.")
@click.argument("data_weights", nargs=-1, required=True, type=click.UNPROCESSED, metavar="WEIGHTS...")
@JSON
@time_limited
def weights(alpha, data_weights, as_json):
    """Hamilton integer weights on the grid ALPHA for data weights W1 W2 ... (ties by client order).

    A weight that starts with '-' is read as a number (and refused: weights are >= 0), not as an option."""
    from itsa.privacy import weights as run

    with itsa_errors():
        show(run(list(data_weights), alpha), as_json)


@privacy.command()
@click.option("--noise-multiplier", "noise_multiplier", required=True, help="z: noise std / l2 sensitivity.")
@click.option("--rounds", type=int, default=LibraryDefault("itsa.privacy", "account", "rounds"), show_default=True,
              help="Rounds T composed.")
@DELTA
@click.option("--epsilon-per-round", default=None,
              help="Per-round eps for basic/advanced composition, checked against the exact curve "
                   "(not certified: the totals are shown as conditional).")
@click.option("--per-round", type=LibraryChoice("itsa.privacy", "PerRound"), default=None,
              help="Instead of --epsilon-per-round: the exact curve's one-round eps (tight, the default; "
                   "certified) or the classical formula's (checked the same way).")
@click.option("--delta-slack", default=None, help="delta' of advanced composition (default: delta).")
@click.option("--accountant", "accountants", type=LibraryChoice("itsa.privacy", "ACCOUNTANTS"), multiple=True,
              help="Ask only this accountant (repeat for several; default: every one).")
@click.option("--crosscheck", is_flag=True, help="Add dp-accounting's RDP and PLD floats (itsa[crosscheck]).")
@JSON
@time_limited
def account(noise_multiplier, rounds, delta, epsilon_per_round, per_round, delta_slack, accountants, crosscheck,
            as_json):
    """eps after T Gaussian rounds under every accountant: mironov, cks, tight, basic, advanced, eps sqrt(T)."""
    from itsa.privacy import account as run

    with itsa_errors():
        result = run(noise_multiplier, rounds, delta, per_round_epsilon=epsilon_per_round, per_round=per_round,
                     delta_slack=delta_slack, accountants=accountants or None, crosscheck=crosscheck)
    warn(result.notes)
    show(result, as_json)


@privacy.command()
@click.option("--epsilon", required=True, help="Target eps > 0.")
@DELTA
@click.option("--rounds", type=int, default=LibraryDefault("itsa.privacy", "calibrate", "rounds"), show_default=True,
              help="Rounds composed before conversion.")
@CONVERSION
@click.option("--quiet", is_flag=True, help="No progress line.")
@JSON
@time_limited
def calibrate(epsilon, delta, rounds, conversion, quiet, as_json):
    """The smallest Gaussian noise multiplier meeting (eps, delta) over T rounds under the chosen
    RDP conversion, certified."""
    from itsa.privacy import calibrate as run

    from ._progress import progress_display

    with itsa_errors(), progress_display(as_json, quiet=quiet) as progress:
        result = run(epsilon, delta, rounds=rounds, conversion=conversion, progress=progress)
    show(result, as_json)


@privacy.command()
@click.option("--epsilon", required=True, help="Target eps > 0, read exactly.")
@DELTA
@click.option("--max-coins", type=int, default=LibraryDefault("itsa.privacy", "binomial", "max_coins"),
              show_default=True, help="Refuse a target no N up to this meets.")
@JSON
@time_limited
def binomial(epsilon, delta, max_coins, as_json, time_limit):
    """The fewest fair coins N whose Bin(N, 1/2) noise makes a sensitivity-1 count (eps, delta)-DP.

    Exact: the privacy profile of Bin(N, 1/2) against Bin(N, 1/2) + 1 in integer
    binomial coefficients, e^eps in ball arithmetic; every larger N meets the
    target too. Beside it, the N of the binomial draft's (cpSGD) formula."""
    from itsa.privacy import binomial as run

    with itsa_errors():
        result = run(epsilon, delta, max_coins=max_coins, time_limit=time_limit)
    show(result, as_json)


@privacy.command()
@click.option("--sigma", required=True, help="The discrete Gaussian's sigma (a rational, e.g. 14924 or 3/2).")
@click.option("--count", type=int, required=True, help="Number of draws.")
@click.option("--seed", required=True, help="Seed text (it keys the engine's stream: ChaCha20 for exact, HMAC-SHA256 "
                                          "for table).")
@click.option("--engine", type=ENGINE, default=LibraryDefault("itsa.privacy", "noise", "engine"), show_default=True,
              help="exact: the exact CKS 2020 sampler (docs/samplers.md); table: the page's truncated inverse-CDF "
                   "table.")
@click.option("--verify", "expected", default=None, metavar="HEX", help="Redraw and check this commitment.")
@click.option("--show", "shown", type=click.IntRange(min=0), default=LibraryDefault("itsa.privacy", "noise", "shown"),
              show_default=True, help="Draws shown without --json.")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds for the draws (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit). A count whose estimate "
                   "is past it is refused before any draw; the exact engine stops when it runs out.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@JSON
def noise(sigma, count, seed, engine, expected, shown, time_limit, quiet, as_json):
    """Discrete Gaussian draws reproducible from a seed, with their SHA-256 commitment (or --verify one).

    The cost is estimated up front (the exact engine makes millions of draws a second, the table
    engine a few hundred thousand); a progress bar is drawn on stderr when it is a terminal."""
    import sys

    from itsa.privacy import noise as run

    from ._common import progress_callback
    from ._progress import time_limit_of

    limit = time_limit_of(time_limit, DEFAULT_TIME_LIMIT)
    with itsa_errors(), progress_callback("noise: exact draws", quiet or (as_json and not sys.stdout.isatty())) as bar:
        result = run(sigma, count, seed, engine, expected=expected, shown=shown, time_limit=limit, progress=bar)
    show(result, as_json)


@privacy.command()
@click.option("--max-weight", "--w-max", "max_weight", default=None,
              help="Largest integer weight over alpha (e.g. 6/256); --w-max is its old name.")
@click.option("--alpha", type=int, default=LibraryDefault("itsa.privacy", "sensitivity", "alpha"), show_default=True,
              help="Weight grid.")
@click.option("--clip", default=LibraryDefault("itsa.privacy", "sensitivity", "clip"), show_default=True,
              help="Clipping norm S.")
@click.option("--dimension", "-d", type=int, required=True, help="Model dimension d.")
@click.option("--gamma", type=int, default=LibraryDefault("itsa.privacy", "sensitivity", "gamma"), show_default=True,
              help="Encoding scale gamma.")
@click.option("--clients", type=int, default=None, help="Equal clients M_t (gives the largest weight by Hamilton's rule).")
@click.option("--epsilon", default=None, help="Per-round eps: add sigma_t and sigma_int (classical formula).")
@DELTA
@JSON
@time_limited
def sensitivity(max_weight, alpha, clip, dimension, gamma, clients, epsilon, delta, as_json):
    """The sensitivity 2 (max weight/W_t)(S + sqrt(d)/(2 gamma)) (a reading), the rounding bound and grid guidance."""
    from itsa.privacy import sensitivity as run

    with itsa_errors():
        show(run(max_weight=max_weight, alpha=alpha, clip=clip, dimension=dimension, gamma=gamma, clients=clients,
                 epsilon=epsilon, delta=delta), as_json)


SEED_HELP = ("Noise seed: a whole number >= 0 (decimal digits). A seed on the command line is visible to other users of the machine (ps): "
             "prefer --seed-file or the ITSA_SEED environment variable. Without one, 256 bits of the operating "
             "system's entropy, kept only in the audit record. The noise is keyed by the seed and a fresh 256-bit "
             "salt together: a weak or reused seed does not let the public redraw it.")

@privacy.command()
@click.argument("path", type=click.Path(dir_okay=False), required=False, metavar="[UPDATES]")
@click.option("--alpha", type=int, default=LibraryDefault("itsa.privacy", "release", "alpha"), show_default=True,
              help="Weight grid.")
@click.option("--gamma", type=int, default=LibraryDefault("itsa.privacy", "release", "gamma"), show_default=True,
              help="Encoding scale gamma.")
@click.option("--clip", default=LibraryDefault("itsa.privacy", "release", "clip"), show_default=True,
              help="Clipping norm S.")
@click.option("--epsilon", default=None, help="Per-round eps (sigma_t by the classical formula).")
@click.option("--noise-multiplier", "noise_multiplier", default=None, help="sigma_t directly.")
@DELTA
@click.option("--weights", "data_weights", default=None, help="Data weights w1,w2,... (a .npy file has none).")
@click.option("--seed", envvar="ITSA_SEED", show_envvar=True, default=None, metavar="INT", help=SEED_HELP)
@click.option("--seed-file", type=click.Path(dir_okay=False), default=None,
              help="Read the seed (a whole number) from this file (its content without the final line break).")
@click.option("--engine", type=ENGINE, default=LibraryConstant("itsa.privacy.releasing", "DEFAULT_ENGINE"),
              show_default=True, help="exact: the discrete Gaussian the epsilon is claimed for; table: the page's "
              "float table, only by name (its delta_run adds the table's certified distance).")
@click.option("--conversion", type=LibraryChoice("itsa.privacy", "Conversion"),
              default=LibraryConstant("itsa.privacy.releasing", "DEFAULT_CONVERSION"), show_default=True,
              help="RDP -> (eps, delta): Mironov 2017 or Canonne-Kamath-Steinke 2020.")
@click.option("--no-noise", is_flag=True, help="Release the exact weighted sum without noise: NOT private "
              "(refused with --seed, --seed-file, ITSA_SEED, --engine, --conversion and --delta).")
@click.option("--record", "record_path", type=RECORD_FILE, default=None,
              help="Write the audit record (seed, salt, noise, noiseless sum: SECRET) to this new file, mode 0600.")
@click.option("--verify", "verify_path", type=click.Path(dir_okay=False), default=None, metavar="RECORD",
              help="Check an audit record instead of releasing (with UPDATES: also rerun the release on them). "
                   "Exit 0 PASS, 1 FAIL, 2 bad input.")
@click.option("--published", "published_path", type=click.Path(dir_okay=False), default=None,
              help="With --verify: the published --json output, checked against the record.")
@click.option("--time-limit", type=SECONDS, default=None,
              help=f"Seconds the run may take, estimated before any noise is drawn (default {DEFAULT_TIME_LIMIT:g}; "
                   "0: none).")
@click.option("--quiet", is_flag=True, help="No progress line.")
@JSON
@click.pass_context
def release(ctx, path, alpha, gamma, clip, epsilon, noise_multiplier, delta, data_weights, seed, seed_file, engine,
            conversion, no_noise, record_path, verify_path, published_path, time_limit, quiet, as_json):
    """One release of Algorithm 3 on UPDATES (a CSV with header, or .npy clients x coordinates).

    Stdout (text or --json) holds only what may be published: the released
    values, eps, delta, the parameters and a salted commitment. The seed, the
    salt, the noise and the noiseless sum go only to the audit record
    (--record PATH), for the auditor, who checks it with --verify RECORD.
    """
    from ._progress import progress_display, time_limit_of

    limit = time_limit_of(time_limit, DEFAULT_TIME_LIMIT)
    if verify_path is not None:
        _verify_release(ctx, verify_path, path, published_path, limit, quiet, as_json)
        return
    from itsa.privacy import release as run
    from itsa.privacy.commitment import check_record_path, read_seed_file
    from itsa.privacy.release_request import release_weights
    from itsa.privacy.releasing import load_updates

    with itsa_errors():
        _release_options(ctx, path, seed, seed_file, published_path, data_weights, no_noise)
        if record_path is not None:
            check_record_path(record_path)
        if seed_file is not None:
            seed = read_seed_file(seed_file)
        updates, weights_in_file, ids = load_updates(path)
        given = release_weights(data_weights, weights_in_file, path)
        noisy = {} if no_noise else {"delta": delta, "seed": seed, "engine": engine, "conversion": conversion}
        with progress_display(as_json, quiet=quiet) as progress:
            result = run(updates, given, alpha=alpha, gamma=gamma, clip=clip, epsilon=epsilon,
                         noise_multiplier=noise_multiplier, ids=ids, no_noise=no_noise, time_limit=limit,
                         progress=progress, **noisy)
        if record_path is not None:
            from itsa.privacy.commitment import write_record

            write_record(record_path, result.record())
    warn(result.warnings)
    if not as_json:
        note(f"audit record written to {record_path} (SECRET, mode 0600: keep it from the public)" if record_path
             else "no audit record kept (--record PATH keeps one for an auditor)")
    show(result, as_json)


def _given(ctx, names) -> list[str]:
    """The options among ``names`` given on the command line, as written (``--seed-file``), in that order."""
    from click.core import ParameterSource

    return [next(p.opts[0] for p in ctx.command.params if p.name == name) for name in names
            if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE]


def _release_options(ctx, path, seed, seed_file, published_path, data_weights, no_noise) -> None:
    """The library's rules of a release request (:func:`itsa.privacy.release_request.check_release_request`)."""
    from click.core import ParameterSource

    from itsa.privacy.release_request import NOISE_ONLY, check_release_request

    environment = "ITSA_SEED" if ctx.get_parameter_source("seed") is ParameterSource.ENVIRONMENT else None
    seed_from = ([environment or "--seed"] if seed is not None else []) + (["--seed-file"] if seed_file is not None else [])
    check_release_request(updates=path, published=published_path, data_weights=data_weights, no_noise=no_noise,
                          noise_given=_given(ctx, NOISE_ONLY) if no_noise else (), seed_from=seed_from,
                          seed_environment=environment)


def _verify_release(ctx, verify_path, path, published_path, limit, quiet, as_json) -> None:
    """``--verify RECORD [UPDATES]``: every check of the record; exit 1 on a FAIL."""
    from itsa.privacy.commitment import load_published, load_record
    from itsa.privacy.record_check import check_record
    from itsa.privacy.release_request import MAKING, check_verify_request
    from itsa.privacy.releasing import load_updates

    from ._common import EXIT_FAILED
    from ._progress import progress_display

    with itsa_errors():
        check_verify_request(_given(ctx, MAKING))
        record = load_record(verify_path)
        published = None if published_path is None else load_published(published_path)
        updates = None if path is None else load_updates(path)      # with the file's weights and IDs
        with progress_display(as_json, quiet=quiet) as progress:
            result = check_record(record, updates, published, time_limit=limit, progress=progress)
    show(result, as_json)
    if not result.ok:
        raise SystemExit(EXIT_FAILED)


from .privacy_sample import sample  # noqa: E402  (a verb in its own module, registered on the group)

privacy.add_command(sample)

from .privacy_tree import toeplitz, tree  # noqa: E402  (DP-FTRL's verbs: their own module, registered on the group)

privacy.add_command(tree)
privacy.add_command(toeplitz)
