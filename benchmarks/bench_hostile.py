"""Benchmark: wall time and peak memory of itsa on hostile input and on a 10M-configuration --detail.

Run:  python benchmarks/bench_hostile.py [--all-commands] [--skip-large] [--users-per-server 6] [--smoke]

Each hostile file of :mod:`itsa.testing.hostile` is given to ``itsa analyze`` (scheme
files to ``itsa verify example-1 --scheme``; with ``--all-commands`` to every
command) in a fresh process, and the wall time and peak RSS of that process
are printed, beside the same numbers for ``itsa analyze`` on the paper's
Example 1 measured in the same run (the baseline: the cost of starting itsa).
Goals: every hostile file answered in under 2 s and 200 MB, with exit code 2.

Then ``itsa analyze --detail --json --force`` streams every configuration of
an instance with U = 5 servers of V users, S every set of at most 2 users and
T every set of at most 3 (V = 6: 10,545,580 configurations) to /dev/null.
Goal: peak RSS under 500 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from itsa.testing.hostile import commands, write_corpus

ROOT = Path(__file__).resolve().parents[1]
EX1 = ROOT / "instances" / "example-1.yaml"
RUN = [sys.executable, "-c", "from itsa_cli import main; main()"]


def measure(args: list[str], cwd: str) -> tuple[int, float, float, str]:
    """Exit code, wall seconds, peak RSS in MB and the last stderr line of one itsa process."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "wb") as null:
        start = time.monotonic()
        proc = subprocess.Popen(RUN + args, stdout=null, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").splitlines()
    return proc.returncode, wall, usage.ru_maxrss / 1024, lines[-1] if lines else ""


def big_instance(path: Path, V: int) -> int:
    users = ", ".join(f"[{u}, {v}]" for u in range(1, 6) for v in range(1, V + 1))
    path.write_text(f"name: stream-{V}\nservers: [{', '.join([str(V)] * 5)}]\n"
                    f"security_sets: {{subsets_of: [{users}], max_size: 2}}\n"
                    "collusion_sets: {all_users_up_to: 3}\n")
    K = 5 * V
    return 5 * (1 + K + K * (K - 1) // 2) * (1 + K + K * (K - 1) // 2 + K * (K - 1) * (K - 2) // 6)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all-commands", action="store_true", help="every command, not only the first")
    ap.add_argument("--skip-large", action="store_true", help="skip the 10M-configuration --detail run")
    ap.add_argument("--users-per-server", type=int, default=6)
    ap.add_argument("--smoke", action="store_true", help="three files, no large run (the smoke test)")
    args = ap.parse_args()
    if args.smoke:
        args.skip_large = True
    with tempfile.TemporaryDirectory() as tmp:
        code, base_wall, base_rss, _ = measure(["analyze", str(EX1)], tmp)
        assert code == 0
        print(f"baseline: itsa analyze example-1: {base_wall:.2f} s, {base_rss:.0f} MB")
        print(f"{'file':30} {'command':8} {'exit':>4} {'wall s':>7} {'x base':>6} {'RSS MB':>7}  stderr")
        worst_wall = worst_rss = 0.0
        failures = 0
        corpus = write_corpus(Path(tmp) / "corpus")
        for case in corpus[:3] if args.smoke else corpus:
            cmds = commands(case, EX1, tmp)
            for cmd in cmds if args.all_commands else cmds[:1]:
                code, wall, rss, line = measure(cmd, tmp)
                worst_wall, worst_rss = max(worst_wall, wall), max(worst_rss, rss)
                bad = code != 2 or wall >= 2 or rss >= 200
                failures += bad
                print(f"{case.name:30} {cmd[0]:8} {code:>4} {wall:7.2f} {wall / base_wall:6.2f} "
                      f"{rss:7.0f}  {'MISSED GOAL ' if bad else ''}{line[:70]}")
        print(f"hostile files: worst {worst_wall:.2f} s, worst {worst_rss:.0f} MB; "
              f"{failures} run(s) missed a goal (exit 2, < 2 s, < 200 MB)")
        if args.skip_large:
            return
        path = Path(tmp) / "stream.yaml"
        n = big_instance(path, args.users_per_server)
        code, wall, rss, line = measure(["analyze", str(path), "--detail", "--json", "--force"], tmp)
        print(f"analyze --detail --json --force, {n:,} configurations: exit {code}, {wall:.1f} s, "
              f"peak RSS {rss:.0f} MB (goal < 500 MB){'' if code == 0 else ': ' + line}")
        code, wall0, rss0, _ = measure(["analyze", str(path), "--json"], tmp)
        print(f"  same instance without --detail: {wall0:.1f} s, peak RSS {rss0:.0f} MB "
              f"(streaming adds {rss - rss0:+.0f} MB)")


if __name__ == "__main__":
    main()
