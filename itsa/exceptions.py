"""The small exception hierarchy of itsa.

Every error the library raises on purpose is an :class:`ItsaError`; the CLI
turns each into one line and an exit code.
"""


class ItsaError(Exception):
    """Root of every error raised by itsa on purpose."""


class InvalidInstance(ItsaError):
    """An instance, family or scheme file that does not describe a valid problem."""


class Infeasible(ItsaError):
    """A construction or linear program that has no solution."""


class VerificationError(ItsaError):
    """A certificate or scheme that does not pass its own exact check."""
