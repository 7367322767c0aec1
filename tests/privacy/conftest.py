"""Fixtures of the release tests: the installed ``itsa privacy`` in a subprocess, and a CSV of updates."""

import os
import subprocess

import pytest


@pytest.fixture
def itsa_privacy():
    """``itsa_privacy(*args, env=None, check=True)``: the installed ``itsa privacy ARGS`` in a subprocess, as a pipe sees it.

    With ``check`` the exit code must be 0 (stderr is shown otherwise).
    """
    def run(*args, env=None, check=True):
        res = subprocess.run(["itsa", "privacy", *map(str, args)], capture_output=True, text=True, timeout=300,
                             env={**os.environ, **(env or {})})
        if check:
            assert res.returncode == 0, res.stderr
        return res
    return run


@pytest.fixture
def updates_csv(tmp_path):
    """``updates_csv(updates, name="u.csv")``: a CSV (header ``x,y,…``) of the rows of ``updates`` in ``tmp_path``."""
    def write(updates, name="u.csv"):
        path = tmp_path / name
        header = ",".join(f"x{j}" for j in range(len(updates[0])))
        path.write_text(header + "\n" + "\n".join(",".join(repr(float(x)) for x in row) for row in updates) + "\n")
        return path
    return write
