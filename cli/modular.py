"""``itsa modular``: overflow margins, digit compatibility, payload and the converse of layered modular sums.

Each verb parses its options, calls the function of the same name of
:mod:`itsa.modular` and prints the result with :func:`show`; choices and
defaults are the library's.
"""

import click

from itsa._util.deadline import DEFAULT_TIME_LIMIT

from ._common import (
    SECONDS,
    HiddenAlias,
    LibraryChoice,
    LibraryConstant,
    LibraryDefault,
    itsa_errors,
    progress_callback,
    show,
)
from ._progress import time_limit_of, time_limited

LIB = "itsa.modular"

_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")


def _default(verb: str, parameter: str):
    return LibraryDefault(LIB, verb, parameter)


def _radix(verb):
    return click.option("--radix", "-r", type=int, default=_default(verb, "radix"), show_default=True,
                        help="Odd radix ρ >= 3.")


def _layers(verb):
    return click.option("--layers", "-L", type=int, default=_default(verb, "layers"), show_default=True,
                        help="Number of layers L.")


def _carry(verb):
    return click.option("--carry", "-p", default=_default(verb, "carry"), show_default=True,
                        help="Carry target in (0, 1): 1/1000 or 0.001 (read exactly).")


def _reading(verb):
    return click.option("--reading", type=LibraryChoice(LIB, "Reading"), default=_default(verb, "reading"),
                        show_default=True, help="The target per layer, for all L independent layers, or L·p <= target.")


def _arithmetic(verb):
    return click.option("--arithmetic", "--method", "arithmetic", type=LibraryChoice(LIB, "Arithmetic"),
                        default=_default(verb, "arithmetic"), show_default=True,
                        help="Exact integers, or certified fixed-point bounds (deployment scale); --method is its "
                             "former name.")


_LAW = click.option("--law", default=None, help="Digit law: an odd number (at most ρ) of weights centred on 0, "
                    "e.g. 1/4,1/2,1/4 (default uniform).")
_TIME_LIMIT = click.option("--time-limit", type=SECONDS, default=None,
                           help=f"Seconds for the whole run (default {DEFAULT_TIME_LIMIT:g}; 0 = no limit); past it "
                                "the run stops with one line, exit 1.")


def _limit(time_limit):
    return time_limit_of(time_limit, DEFAULT_TIME_LIMIT)


@click.group()
def modular():
    """Layered modular sums of progressive-resolution secure aggregation, exactly.

    Margins (the carry law), digits (Assumption 1), payload (Proposition 2),
    converse (Theorem 2), rules (Theorem 1), distortion (Theorem 4), privacy
    (§VII, through itsa.privacy), the clip rate of a rotated coordinate (§IX-E)
    and the audit of the paper's printed numbers. Every probability is exact or a
    certified interval, and says which. Model: docs/modular.md.

    Based on Azimi-Abarghouyi, arXiv 2610.00695.
    """


@modular.command()
@click.option("--clients", "-K", required=True, help="K values: 8,16,32, a range 8..4096, 8..64:8, or 8..4096x2.")
@_radix("margins")
@_layers("margins")
@_carry("margins")
@_reading("margins")
@_arithmetic("margins")
@_LAW
@_TIME_LIMIT
@_JSON
def margins(clients, radix, layers, carry, reading, arithmetic, law, time_limit, as_json):
    """The smallest overflow margin per K for a carry target, and the slope against log_ρ K."""
    from itsa.modular import margins as run

    with itsa_errors(), progress_callback("margins", quiet=as_json) as progress:
        result = run(clients, radix, layers, carry, reading, law, arithmetic, progress=progress,
                     time_limit=_limit(time_limit))
    show(result, as_json)


@modular.command()
@click.option("--chain", type=LibraryChoice(LIB, "Chain"), default=_default("digits", "chain"), show_default=True,
              help="The integer chain or the hexagonal A2 chain.")
@_radix("digits")
@_layers("digits")
@click.option("--block-dimension", "-n", type=int, default=None,
              help="n_b of the integer chain (default 1); refused with A2, which is 2-dimensional.")
@click.option("--max-points", type=int, default=_default("digits", "max_points"), show_default=True,
              help="Enumerate every point up to this many; sample beyond.")
@click.option("--samples", type=int, default=_default("digits", "samples"), show_default=True,
              help="Points drawn when sampling.")
@click.option("--seed", type=int, default=_default("digits", "seed"), show_default=True, help="Seed of the sample.")
@_JSON
@time_limited
def digits(chain, radix, layers, block_dimension, max_points, samples, seed, as_json):
    """Assumption 1 (digit compatibility) counted over every point of Λ_1 ∩ V_(L+1)."""
    from itsa.modular import digits as run

    with itsa_errors():
        result = run(chain, radix, layers, block_dimension, max_points, samples, seed)
    show(result, as_json)


@modular.command()
@click.option("--clients", "-K", type=int, required=True, help="Number of clients K.")
@_radix("payload")
@_layers("payload")
@click.option("--stages", default=_default("payload", "stages"), show_default=True,
              help="Stages coarse to fine, e.g. 4,3/2,1; 'each' (one layer per stage) or 'one'.")
@_carry("payload")
@_reading("payload")
@click.option("--rule", type=LibraryChoice(LIB, "MarginRule"), default=_default("payload", "rule"),
              show_default=True, help="Where each margin comes from.")
@click.option("--margin", type=int, default=None, help="With --rule fixed (only): the margin of every modulus.")
@_arithmetic("payload")
@_TIME_LIMIT
@_JSON
def payload(clients, radix, layers, stages, carry, reading, rule, margin, arithmetic, time_limit, as_json):
    """Proposition 2's payload of one PSA upload against repeated flat executions."""
    from itsa.modular import payload as run

    with itsa_errors(), progress_callback("payload: margins", quiet=as_json) as progress:
        result = run(clients, radix, layers, stages, carry, reading, rule, margin, arithmetic,
                     time_limit=_limit(time_limit), progress=progress)
    show(result, as_json)


@modular.command()
@click.option("--clients", "-K", type=int, required=True, help="Number of clients K.")
@_radix("converse")
@click.option("--margin", "-m", type=int, default=None, help="Margin m: the decoders at modulus ρ^(1+m).")
@click.option("--modulus", "-M", type=int, default=None, help="Any modulus M (instead of --margin).")
@click.option("--success", default=_default("converse", "success"), show_default=True,
              help="Success target of the exact converse margin.")
@_LAW
@_TIME_LIMIT
@_JSON
def converse(clients, radix, margin, modulus, success, law, time_limit, as_json):
    """The best decoder from S mod M against centred reduction, and the exact converse margin."""
    from itsa.modular import converse as run

    with itsa_errors():
        result = run(clients, radix, margin, modulus, success, law, time_limit=_limit(time_limit))
    show(result, as_json)


@modular.command()
@click.option("--clients", "-K", required=True, help="K values, as for margins.")
@_radix("rules")
@_layers("rules")
@_carry("rules")
@_reading("rules")
@click.option("--scaled-scale", "--noise-scale", "scaled_scale", cls=HiddenAlias,
              default=_default("rules", "scaled_scale"), show_default=True,
              help="s̃ >= 1/2 of the DP noise (digit units, as for privacy), or 0 for none.")
@_arithmetic("rules")
@_TIME_LIMIT
@_JSON
def rules(clients, radix, layers, carry, reading, scaled_scale, arithmetic, time_limit, as_json):
    """Theorem 1(a) and (b) against the exact smallest margin."""
    from itsa.modular import rules as run

    with itsa_errors(), progress_callback("rules", quiet=as_json) as progress:
        result = run(clients, radix, layers, carry, reading, scaled_scale, arithmetic, progress=progress,
                     time_limit=_limit(time_limit))
    show(result, as_json)


@modular.command()
@click.option("--finest", "-l", type=int, default=None, help="Finest authorized layer ℓ0 (default: every one).")
@_radix("distortion")
@_layers("distortion")
@click.option("--source", type=LibraryChoice(LIB, "Source"), default=_default("distortion", "source"),
              show_default=True, help="The law of the scaled update.")
@click.option("--spread", default=None,
              help="Half-range (uniform, at most (ρ^L − 1)/2 − 1/2) or standard deviation (Gaussian, clipped), "
                   "read exactly.")
@click.option("--samples", type=int, default=_default("distortion", "samples"), show_default=True,
              help="Clients drawn at each finest layer.")
@click.option("--seed", type=int, default=_default("distortion", "seed"), show_default=True)
@_TIME_LIMIT
@_JSON
def distortion(finest, radix, layers, source, spread, samples, seed, time_limit, as_json):
    """Theorem 4: closed-form T, the two-sided bounds and a seeded Monte Carlo check."""
    from itsa.modular import distortion as run

    with itsa_errors(), progress_callback("distortion: samples", quiet=as_json) as progress:
        result = run(finest, radix, layers, source, spread, samples, seed, progress=progress,
                     time_limit=_limit(time_limit))
    show(result, as_json)


@modular.command()
@click.option("--privacy/--no-privacy", default=_default("audit", "privacy"), show_default=True,
              help="Include the §VII values computed by itsa.privacy.")
@_JSON
@time_limited
def audit(privacy, as_json):
    """Every printed number of the paper's exact calculations, beside itsa's value and its reading."""
    from itsa.modular import audit as run

    with itsa_errors():
        result = run(privacy=privacy)
    show(result, as_json)


@modular.command()
@click.option("--survivors", type=int, required=True, help="K_eff: the honest clients whose noise is counted.")
@_radix("privacy")
@_layers("privacy")
@click.option("--authorized", default=None, help="Released layers, a suffix L..ℓ0 such as 4,3 (default: all L).")
@click.option("--scaled-scale", "-s", default=_default("privacy", "scaled_scale"), show_default=True,
              help="s̃ = s_ℓ/(h ρ^(ℓ-1)) >= 1/2, every layer.")
@click.option("--dimension", "-d", type=int, default=_default("privacy", "dimension"), show_default=True,
              help="Model dimension d.")
@click.option("--delta", default=LibraryConstant("itsa.privacy", "DEFAULT_DELTA"), show_default=True,
              help="delta in (0, 1), read exactly.")
@click.option("--conversion", type=LibraryChoice("itsa.privacy.conversion", "Conversion"),
              default=_default("privacy", "conversion"), show_default=True,
              help="RDP -> (eps, delta): Mironov 2017 or Canonne-Kamath-Steinke 2020.")
@_JSON
@time_limited
def privacy(survivors, radix, layers, authorized, scaled_scale, dimension, delta, conversion, as_json):
    """Rényi DP of an authorized set of layers (eq. 30–31, Theorem 3), by itsa.privacy's accountant."""
    from itsa.modular import privacy as run

    with itsa_errors():
        result = run(survivors=survivors, radix=radix, layers=layers, authorized=authorized,
                     scaled_scale=scaled_scale, dimension=dimension, delta=delta, conversion=conversion)
    show(result, as_json)


@modular.command("clip-rate")
@click.option("--norm", default=_default("clip_rate", "norm"), show_default=True,
              help="‖g‖/C: the update's norm over its clip (1: at the clip), read exactly.")
@click.option("--clip-factor", default=_default("clip_rate", "clip_factor"), show_default=True,
              help="γ: each rotated coordinate is clipped at γC/√d, read exactly.")
@click.option("--dimension", "-d", type=int, default=_default("clip_rate", "dimension"), show_default=True,
              help="d, the dimension the rotation works in (a power of two for hadamard).")
@click.option("--rotation", type=LibraryChoice(LIB, "ClipRotation"), default=_default("clip_rate", "rotation"),
              show_default=True, help="A uniformly random rotation (exact rate) or randomized Hadamard (an upper bound).")
@click.option("--rate", default=None, help="A clip rate in (0, 1): also the largest ‖g‖/C meeting it.")
@_JSON
@time_limited
def clip_rate(norm, clip_factor, dimension, rotation, rate, as_json):
    """The rate of a rotated coordinate exceeding γC/√d, certified, as a function of ‖g‖/C, γ and d."""
    from itsa.modular import clip_rate as run

    with itsa_errors():
        result = run(norm=norm, clip_factor=clip_factor, dimension=dimension, rotation=rotation, rate=rate)
    show(result, as_json)
