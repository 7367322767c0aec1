"""The ``itsa`` command line: a thin click front end over the :mod:`itsa` library.

Each verb lives in a module of its own and imports the library lazily, so
``itsa --help`` starts instantly.
"""

import importlib

import click

_COMMANDS = {
    "analyze": ("itsa_cli.analyze", "analyze"),
    "build": ("itsa_cli.build", "build"),
    "verify": ("itsa_cli.verify", "verify"),
    "draw": ("itsa_cli.draw", "draw"),
    "audit": ("itsa_cli.audit", "audit"),
    "converse": ("itsa_cli.converse", "converse"),
    "solve": ("itsa_cli.solve", "solve"),
    "census": ("itsa_cli.census", "census"),
    "examples": ("itsa_cli.examples", "examples"),
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


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="itsa", prog_name="itsa")
def main():
    """Information-theoretic secure aggregation: analyse, build, verify, audit.

    Based on Li, Zhang, He, Caire, arXiv 2604.26391.
    """
