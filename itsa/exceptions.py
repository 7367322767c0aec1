"""The small exception hierarchy of itsa.

Every error the library raises on purpose is an :class:`ItsaError`; the CLI
turns each into one line and an exit code. Bad input of any kind is an
:class:`InvalidInput` (also a :class:`ValueError`), with one subclass per kind
of input, so a caller can catch exactly what it passed::

    ItsaError
    ├── InvalidInput (also ValueError)      exit 2
    │   ├── InvalidInstance                 an instance or family file
    │   ├── InvalidScheme                   a scheme file or Scheme
    │   ├── InvalidOption                   a parameter: field, engine, rule, configuration...
    │   ├── InvalidSpec                     a census spec
    │   ├── InvalidDeployment               a deployment file (itsa plan)
    │   └── InvalidOutputPath               a place to write to
    ├── Infeasible                          exit 1
    ├── Unreachable                         exit 1: a service itsa needs does not answer
    ├── VerificationError                   exit 1
    ├── TimeLimitReached                    exit 1: a computation stopped at its time limit
    └── MissingExtra (also ImportError)     exit 1: an optional part whose extra is not installed

>>> issubclass(InvalidScheme, ValueError) and issubclass(InvalidScheme, ItsaError)
True
"""


class ItsaError(Exception):
    """Root of every error raised by itsa on purpose."""


class InvalidInput(ItsaError, ValueError):
    """Input that itsa refuses: a file, a parameter or a path. The CLI exits 2."""


class InvalidInstance(InvalidInput):
    """An instance or family file that does not describe a valid problem."""


class InvalidScheme(InvalidInput):
    """A scheme (file or object) that is malformed or does not fit its instance."""


class InvalidOption(InvalidInput):
    """A parameter outside its domain: a field, an engine, a rule, a configuration, a limit."""


class InvalidSpec(InvalidInput):
    """A census spec that cannot be run (the CLI exits 2 with its one line)."""


class InvalidDeployment(InvalidInput):
    """A deployment file (``itsa plan``) that does not describe a deployment to size."""


class InvalidOutputPath(InvalidInput):
    """A file or directory that cannot be written, or whose name picks no known format."""


class Infeasible(ItsaError):
    """A construction or linear program that has no solution."""


class Unreachable(ItsaError):
    """A service itsa needs (a Dask scheduler) that does not answer: the environment, not the input."""


class VerificationError(ItsaError):
    """A certificate or scheme that does not pass its own exact check."""


class TimeLimitReached(ItsaError):
    """A computation that stopped at its time limit (``--time-limit``) before it had a result."""


class MissingExtra(ItsaError, ImportError):
    """An optional part of itsa whose extra is not installed (``pip install '.[EXTRA]'`` in its source folder)."""


#: Longest quotation of an offending input value in an error message (characters).
EXCERPT_CHARS = 60


def excerpt(value, limit: int = EXCERPT_CHARS) -> str:
    """A short ``repr`` of ``value`` for an error message, cut at ``limit`` characters.

    Deep or huge values (an expanded YAML alias, a megabyte string) are never
    rendered in full: :mod:`reprlib` stops at a few items per level.

    >>> excerpt([[1, 2]] * 1000)
    '[[1, 2], [1, 2], [1, 2], [1, 2], ...]'
    >>> excerpt("x" * 20)
    "'xxxxxxxxxxxxxxxxxxxx'"
    >>> len(excerpt("x" * 10**6)) <= EXCERPT_CHARS
    True
    """
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxlist, r.maxtuple, r.maxdict, r.maxset = 3, 4, 4, 4, 4
    r.maxstring, r.maxlong, r.maxother = limit - 3, limit, limit
    try:
        text = r.repr(value)
    except ValueError:      # an int beyond the str-conversion limit, deep inside
        text = f"<{type(value).__name__} too large to quote>"
    return text if len(text) <= limit else text[:limit - 1] + "…"
