"""The rules of a release request, checked before anything is read or written: one line each.

A release is made (updates, options) or a record is checked (``--verify``).
These rules say which options go together; the command line passes what it
was given (by the options' names, and where the seed came from) and prints
the one line. :func:`itsa.privacy.release` applies the same rule to a
release without noise (:func:`refuse_without_noise`).

Examples
--------
>>> refuse_without_noise({"delta": None, "seed": 7})
Traceback (most recent call last):
...
itsa.exceptions.InvalidOption: no noise: seed does not apply to a release without noise
>>> release_weights(None, [1, 2], "u.csv")
[1, 2]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from itsa.exceptions import InvalidOption

__all__ = ["NOISE_ONLY", "MAKING", "refuse_without_noise", "check_release_request", "release_weights",
           "check_verify_request"]

#: Options that say how to draw the noise: refused without noise.
NOISE_ONLY = ("seed", "seed_file", "engine", "conversion", "delta")
#: Options that say how to make a release: refused when a record is checked (the record says them).
MAKING = ("alpha", "gamma", "clip", "epsilon", "noise_multiplier", "delta", "data_weights", "seed", "seed_file",
          "engine", "conversion", "no_noise", "record_path")


def refuse_without_noise(given: Mapping[str, object], who: str = "no noise") -> None:
    """A release without noise has no delta, seed, salt, engine or conversion: the first given is refused by name.

    Parameters
    ----------
    given : mapping
        Each name (as the caller says it) and its value (``None``: not given).
    who : str
        How the caller says "without noise" (``no noise``, ``--no-noise``).
    """
    for name, value in given.items():
        if value is not None:
            raise InvalidOption(f"{who}: {name} does not apply to a release without noise")


def check_release_request(*, updates, published, data_weights: str | None, no_noise: bool,
                          noise_given: Sequence[str] = (), seed_from: Sequence[str] = (),
                          seed_environment: str | None = None) -> None:
    """What a release needs and refuses, before anything is read or written.

    Parameters
    ----------
    updates : object or None
        The updates' file (``None``: not given).
    published : object or None
        A published output to check (only with a record to check).
    data_weights : str or None
        The weights as written (an empty list is refused).
    no_noise : bool
        A release without noise.
    noise_given : sequence of str
        The options of :data:`NOISE_ONLY` given, by the names the caller shows (in that order).
    seed_from : sequence of str
        Where a seed was given (``--seed``, ``ITSA_SEED``, ``--seed-file``): more than one is refused.
    seed_environment : str, optional
        The environment variable the seed came from, if it did.
    """
    if updates is None:
        raise InvalidOption("UPDATES: give the file of client updates (or --verify RECORD to check a record)")
    if published is not None:
        raise InvalidOption("--published: only with --verify")
    if data_weights is not None and not data_weights.strip():
        raise InvalidOption("--weights: the list is empty (leave the option out for equal weights)")
    if no_noise:
        if seed_environment is not None:
            raise InvalidOption(f"--no-noise: {seed_environment} is set, and a release without noise has no seed "
                                "(unset it)")
        refuse_without_noise(dict.fromkeys(noise_given, True), "--no-noise")
    if len(seed_from) > 1:
        raise InvalidOption(f"seed: given twice ({seed_from[0]} and {seed_from[1]}); give one")


def release_weights(data_weights: str | None, weights_in_file, path) -> list | None:
    """The data weights of a release: written (``1,2,3``) or the file's column, never both.

    Parameters
    ----------
    data_weights : str or None
        The weights as written.
    weights_in_file : sequence or None
        The file's weight column.
    path : str
        The file (named in the refusal).
    """
    if data_weights is not None and weights_in_file is not None:
        raise InvalidOption(f"--weights: {path} has a weight column already; give one of the two")
    return data_weights.split(",") if data_weights is not None else weights_in_file


def check_verify_request(given: Sequence[str]) -> None:
    """Checking a record takes no option that makes a release (:data:`MAKING`): the first given is refused.

    Parameters
    ----------
    given : sequence of str
        The options of :data:`MAKING` given, by the names the caller shows.
    """
    if given:
        raise InvalidOption(f"--verify: the record says how the release was made; {given[0]} does not apply")
