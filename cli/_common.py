"""What every command shares: error handling, JSON output, a console."""

from __future__ import annotations

import contextlib
import enum
import importlib
import json
import sys

import click

from itsa._util.deadline import MAX_SECONDS

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
#: ``itsa plan``: the plan ran and its verdict is infeasible (a pipeline can gate on it; not bad input).
EXIT_INFEASIBLE = 3
#: Longest error message printed (characters); the library keeps its own shorter.
MAX_MESSAGE = 1000
#: The safety net's prefix: an input that reached it was not caught by a check of its own.
LIMIT_PREFIX = "resource limit hit"
#: Line width of piped output: wide enough that nothing wraps.
PIPE_WIDTH = 10_000


@contextlib.contextmanager
def itsa_errors():
    """Turn an :class:`itsa.ItsaError` into one line on stderr and an exit code.

    Bad input of any kind (:class:`itsa.InvalidInput`: an instance, a scheme,
    an option, an output path) exits 2; any other itsa error (an infeasible
    construction, a failed certificate) exits 1.
    A package of a missing extra (``itsa[census]``, ``itsa[draw]``, ...) is
    one line naming the extra, exit 1.
    """
    from itsa import InvalidInput, ItsaError
    from itsa._util.extras import missing_message

    try:
        yield
    except InvalidInput as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except ItsaError as exc:
        fail(str(exc), EXIT_FAILED)
    except ModuleNotFoundError as exc:
        message = missing_message(exc.name or "")
        if message is None:
            raise
        fail(message, EXIT_FAILED)


def fail(message: str, code: int) -> None:
    """Print ``error: message`` as one line on stderr and exit with ``code``."""
    line = " ".join(message[:MAX_MESSAGE].split())
    if len(message) > MAX_MESSAGE:
        line += " …"
    click.echo(f"error: {line}", err=True)
    sys.exit(code)


class LibraryChoice(click.Choice):
    """A :class:`click.Choice` over a constant of the library, imported on first use.

    The values stay defined in one place (e.g. ``itsa.keys.model.quantities.Q_RULES``)
    while ``itsa --help`` does not import the library.
    """

    def __init__(self, module: str, name: str):
        self._where = (module, name)
        self.case_sensitive = True

    # click stores the choices as a tuple attribute; this one is read from the library on first use
    @property
    def choices(self):  # type: ignore[override]
        module, name = self._where
        return tuple(str(value) for value in getattr(importlib.import_module(module), name))


Q_RULE = LibraryChoice("itsa.keys.model.quantities", "Q_RULES")


class LibraryDefault:
    """The default of a library function's parameter, read on first use: one home for every default.

    A click option's ``default``: called when the command runs, printed (``str``)
    in the verb's help; ``itsa --help`` imports nothing of the library.
    """

    def __init__(self, module: str, function: str, parameter: str):
        self._where = (module, function, parameter)

    def __call__(self):
        import inspect

        module, function, parameter = self._where
        with itsa_errors():                  # a part whose extra is missing: its one line, exit 1
            value = inspect.signature(getattr(importlib.import_module(module), function)).parameters[parameter].default
        return str(value) if isinstance(value, enum.Enum) else value

    def __str__(self) -> str:
        return str(self())


class LibraryHelpOption(click.Option):
    """An option whose help the library writes (``help_from=(module, function)``), read when help is shown:
    ``itsa --help`` imports nothing of the library."""

    def __init__(self, *args, help_from: tuple[str, str], **kwargs):
        self._help_from = help_from
        super().__init__(*args, **kwargs)

    @property
    def help(self):
        module, function = self._help_from
        return getattr(importlib.import_module(module), function)()

    @help.setter
    def help(self, value) -> None:          # click sets it at creation; the library's text is read instead
        pass


#: ``--q-rule``'s default: :func:`itsa.analyze`'s.
Q_RULE_DEFAULT = LibraryDefault("itsa.keys.bounds.analysis", "analyze", "q_rule")


class LibraryConstant(LibraryDefault):
    """A constant of the library as a click default, read on first use."""

    def __init__(self, module: str, name: str):
        self._name = (module, name)

    def __call__(self):
        module, name = self._name
        with itsa_errors():
            value = getattr(importlib.import_module(module), name)
        return str(value) if isinstance(value, enum.Enum) else value


class WholeNumber(click.ParamType):
    """A whole number ``>= 1``, also written ``2e9`` or ``2_000_000_000``, at most ``maximum``.

    Read by :func:`itsa._util.checks.read_whole`, which checks the range on the
    text before converting it (``1e999999999`` is refused at once).
    """

    name = "N"

    def __init__(self, maximum: int | None = None):
        self.maximum = maximum

    def convert(self, value, param, ctx):
        from itsa import InvalidInput
        from itsa._util.checks import MAX_WHOLE, read_whole, whole_range

        maximum = self.maximum or MAX_WHOLE
        try:
            return read_whole("value", value, minimum=1, maximum=maximum)
        except InvalidInput:
            self.fail(f"{value!r} is not a whole number{whole_range(1, maximum)}", param, ctx)




class Seconds(click.FloatRange):
    """A time limit in seconds, in ``[0, MAX_SECONDS]`` (0: none); ``nan`` and ``inf``, which a float range lets
    through, refused."""

    name = "SECONDS"

    def __init__(self):
        super().__init__(min=0)

    def convert(self, value, param, ctx):
        seconds = super().convert(value, param, ctx)
        if seconds != seconds:
            self.fail(f"{value!r} is not a number of seconds >= 0", param, ctx)
        if seconds > MAX_SECONDS:
            self.fail(f"{value!r} is more than {MAX_SECONDS:.0e} seconds (give 0 for no limit)", param, ctx)
        if seconds == 0 and isinstance(value, str) and any(c in "123456789" for c in value.lower().split("e")[0]):
            self.fail(f"{value!r} is too small a number of seconds (0 means no limit: give 0 for that)", param, ctx)
        return seconds


#: The ``--time-limit`` option's type, shared by every verb that has one.
SECONDS = Seconds()


class HiddenAlias(click.Option):
    """An option whose first name is shown in ``--help``; its other long names (old spellings) still parse."""

    def get_help_record(self, ctx):
        shown, self.opts = self.opts, [o for o in self.opts if o == self.opts[0] or not o.startswith("--")]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


def load_instance(path):
    """The instance at ``path``, or the shipped example of that name (``itsa examples``).

    A missing file whose name is close to a shipped one says which it may have meant.
    """
    import itsa
    from itsa._util.files import exists

    found = itsa.keys.examples.resolve(path)
    if not exists(found):
        hint = itsa.keys.examples.suggest(path)
        if hint:
            raise itsa.InvalidInstance(f"{path}: no such file{hint}")
    return itsa.load_instance(found)


def echo_json(obj) -> None:
    """Print exactly one JSON object on stdout, its ``schema_version`` first.

    Every ``--json`` output goes through here, so every one carries the
    version (``itsa._util.schema.SCHEMA_VERSION``) whether or not the library's
    plain-data form already has it.
    """
    from itsa._util.plain import stamped

    click.echo(json.dumps(stamped({k: v for k, v in obj.items() if k != "schema_version"}), indent=2))


def echo_json_stream(obj, key: str, items) -> None:
    """Like :func:`echo_json`, with one more key, last, whose array is written item by item.

    ``items`` yields each element already as JSON text, so a long array
    (``analyze --json --detail``) is never held in memory.
    """
    import sys

    from itsa._util.plain import stamped

    head = json.dumps(stamped({k: v for k, v in obj.items() if k != "schema_version"}), indent=2)
    out = sys.stdout
    out.write(head[:-2] + f',\n  {json.dumps(key)}: [')
    sep = "\n    "
    for item in items:
        out.write(sep + item)
        sep = ",\n    "
    out.write("\n  ]\n}\n")
    out.flush()


def show(result, as_json: bool = False) -> None:
    """Print one result: its ``to_dict()`` as JSON, or its title, headline and ``rows()`` as a table.

    The one renderer of every verb: a result (``itsa._util.display.Displayable``)
    says what it holds; this only lays it out.
    """
    if as_json:
        echo_json(result.to_dict())
        return
    out = console()
    if not out.is_terminal:                 # piped: plain lines, whole, without a table's padding
        click.echo(result.summary())
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"{result.title()}: {result.headline()}"), title_justify="left",
                  show_header=False, box=None, padding=(0, 2, 0, 0))
    table.add_column(style="bold")
    table.add_column()
    for label, value in result.rows():
        table.add_row(Text(str(label)), Text(str(value)))
    out.print(table)


def warn(lines) -> None:
    for line in lines:
        click.echo(f"warning: {line}", err=True)


def warn_instance(instance) -> None:
    """An instance's warnings, then what it leaves outside the model's assumptions: one line each on stderr."""
    warn(instance.warnings)
    warn(instance.outside_assumptions())


def note(line: str) -> None:
    """One line of information on stderr (``note: ...``), never on stdout: ``--json`` stays one object."""
    click.echo(f"note: {line}", err=True)


def console():
    """The stdout console: wrapped to the terminal, or not wrapped at all when piped.

    Piped output keeps every file path and line whole (no wrapping at 80
    columns), so scripts can grep it.
    """
    from rich.console import Console

    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=PIPE_WIDTH, soft_wrap=True)
    return out


@contextlib.contextmanager
def progress_callback(description: str, quiet: bool = False, delay: float = 2.0):
    """A ``progress(event)`` callback drawing a rich bar of ``event.done`` of ``event.total`` on stderr.

    The bar appears only when the run is still going after ``delay`` seconds,
    and never with ``quiet`` or when stderr is not a terminal.
    """
    import time

    from rich.console import Console
    from rich.progress import Progress

    err = Console(stderr=True)
    if quiet or not err.is_terminal:
        yield None
        return
    start = time.monotonic()
    bar = Progress(console=err, transient=True)
    task = None

    def update(event) -> None:
        nonlocal task
        done, total = event.done, event.total
        if done is None or total is None:
            return
        if task is None:
            if time.monotonic() - start < delay:
                return
            bar.start()
            task = bar.add_task(description, total=total)
        bar.update(task, completed=done, total=total)

    try:
        yield update
    finally:
        if task is not None:
            bar.stop()


#: The share of the machine's memory one command may hold (its data, ``RLIMIT_DATA``): past it an allocation fails
#: as ``MemoryError``, which :func:`resource_net` prints as one line.
MEMORY_SHARE = 0.5


def memory_bound() -> int | None:
    """Bound this process's data to :data:`MEMORY_SHARE` of the machine's memory (a lower bound already set stays).

    Returns the bound in bytes, or ``None`` where the platform says nothing of its memory.
    """
    import os
    import resource

    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    except (ValueError, OSError, AttributeError):
        return None
    bound = int(total * MEMORY_SHARE)
    if hard != resource.RLIM_INFINITY:
        bound = min(bound, hard)
    if soft != resource.RLIM_INFINITY and soft <= bound:
        return soft
    resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    return bound


@contextlib.contextmanager
def resource_net():
    """The last line of defence: ``RecursionError`` and ``MemoryError`` become one line, exit 2.

    Every known hostile input is refused earlier by a check of its own (the
    tests assert it); this only keeps an unforeseen one from printing a
    traceback. The command's memory is bounded first (:func:`memory_bound`).
    """
    memory_bound()
    try:
        yield
    except BrokenPipeError:         # the reader went away (| head): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_FAILED)
    except RecursionError:
        fail(f"{LIMIT_PREFIX}: Python's recursion limit ({sys.getrecursionlimit()}) was reached; "
             "the input is nested too deeply or too large", EXIT_BAD_INPUT)
    except MemoryError:
        fail(f"{LIMIT_PREFIX}: out of memory; the input or the requested output is too large "
             "for this machine (reduce it, or use a filter where the command has one)", EXIT_BAD_INPUT)
