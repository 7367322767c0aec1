"""The ``itsa`` command line: a thin click front end over the :mod:`itsa` library.

Each verb lives in a module of its own and imports the library lazily, so
``itsa --help`` starts instantly.
"""

import importlib
import sys

import click

_COMMANDS = {
    "analyze": ("itsa_cli.analyze", "analyze"),
    "check": ("itsa_cli.check", "check"),
    "build": ("itsa_cli.build", "build"),
    "verify": ("itsa_cli.verify", "verify"),
    "draw": ("itsa_cli.draw", "draw"),
    "audit": ("itsa_cli.audit", "audit"),
    "converse": ("itsa_cli.converse", "converse"),
    "solve": ("itsa_cli.solve", "solve"),
    "census": ("itsa_cli.census", "census"),
    "examples": ("itsa_cli.examples", "examples"),
    "modular": ("itsa_cli.modular", "modular"),
    "privacy": ("itsa_cli.privacy", "privacy"),
    "plan": ("itsa_cli.plan", "plan"),
    "secagg": ("itsa_cli.secagg", "secagg"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(_COMMANDS)

    def get_command(self, ctx, name):
        if name not in _COMMANDS:
            return None
        module, attr = _COMMANDS[name]
        return getattr(importlib.import_module(module), attr)

    def invoke(self, ctx):
        from ._common import resource_net

        with resource_net():
            return super().invoke(ctx)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Run the command line; a usage error is one line on stderr and exit 2.

        Click's own form is a four-line block (usage, a hint, a blank line, the
        error); itsa prints ``error: MESSAGE (see itsa VERB --help)`` as it does
        for every other error.
        """
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        from ._common import EXIT_BAD_INPUT, fail

        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "itsa"
            fail(f"{exc.format_message()} (see {where} --help)", EXIT_BAD_INPUT)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, KeyboardInterrupt, EOFError):
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="itsa", prog_name="itsa")
def main():
    """Information-theoretic secure aggregation, exact: analyze, build, verify, draw,
    audit, converse, solve, census, examples, privacy, modular, plan, secagg and check (one line each below).

    Every verb but privacy, modular and plan takes an instance file or the name of a
    shipped one (itsa examples); privacy takes privacy parameters or client updates,
    modular the parameters of a layered modular sum, plan a deployment file. Errors are one line on stderr:
    exit 2 for bad input, 1 for a failed check or a missing optional part (the line
    names the extra to install, e.g. pip install '.[draw]' in itsa's source folder).

    Based on Li, Zhang, He, Caire, arXiv 2604.26391; modular on
    Azimi-Abarghouyi, arXiv 2610.00695.
    """
