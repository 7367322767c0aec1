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
    │   └── InvalidOutputPath               a place to write to
    ├── Infeasible                          exit 1
    └── VerificationError                   exit 1

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


class InvalidOutputPath(InvalidInput):
    """A file or directory that cannot be written, or whose name picks no known format."""


class Infeasible(ItsaError):
    """A construction or linear program that has no solution."""


class VerificationError(ItsaError):
    """A certificate or scheme that does not pass its own exact check."""
