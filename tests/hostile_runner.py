"""Run itsa's commands on the hostile corpus in one process; print one JSON line per run.

Used by ``tests/test_hostile.py`` in a subprocess under a memory cap::

    python tests/hostile_runner.py CORPUS_DIR OUT_DIR INSTANCE [CASE ...]
"""

import json
import sys
import time
import traceback


def main(argv):
    from click.testing import CliRunner

    from itsa.testing.hostile import commands, write_corpus
    from itsa_cli import main as itsa

    corpus, out, instance, *only = argv
    for case in write_corpus(corpus):
        if only and case.name not in only:
            continue
        for cmd in commands(case, instance, out):
            start = time.monotonic()
            res = CliRunner().invoke(itsa, cmd)
            exc = res.exception
            tb = "" if exc is None or isinstance(exc, SystemExit) else "".join(
                traceback.format_exception(*res.exc_info))[-2000:]
            print(json.dumps({"case": case.name, "command": cmd[0], "exit": res.exit_code,
                              "stderr": res.stderr[-2000:], "traceback": tb,
                              "seconds": round(time.monotonic() - start, 3)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
