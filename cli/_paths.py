"""Files on the command line: a file a verb will write is checked as its option is parsed.

The check is the library's (:func:`itsa._util.files.check_output_file`, or a
verb's own, such as the audit record's), so a bad place to write (a device, a
FIFO, a folder, a missing folder, an empty or too long name) is one line and
exit 2 before any work.
"""

from __future__ import annotations

import importlib

import click


class OutputFile(click.ParamType):
    """A file to write, refused as parsed when the library's checker refuses it.

    ``checker`` names the check, ``(module, function)``, imported on first use
    (``itsa --help`` imports nothing of the library).
    """

    name = "PATH"

    def __init__(self, checker: tuple[str, str] = ("itsa._util.files", "check_output_file")):
        self._checker = checker

    def convert(self, value, param, ctx):
        from itsa.exceptions import InvalidOutputPath

        module, function = self._checker
        try:
            getattr(importlib.import_module(module), function)(value)
        except InvalidOutputPath as exc:
            self.fail(str(exc), param, ctx)
        return value


#: A report, figure or scheme file: a regular file, new or replaced whole.
OUTPUT_FILE = OutputFile()
#: The audit record: a new file (an existing name is refused).
RECORD_FILE = OutputFile(("itsa.privacy.commitment", "check_record_path"))
