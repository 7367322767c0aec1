"""A ``.npy`` whose header lies (a shape the file does not hold, a negative or huge dimension, a dtype that is not
a number) is refused in one line before numpy maps it: no warning, no traceback."""

import warnings

import numpy as np
import pytest

from itsa.exceptions import InvalidInput
from itsa.privacy.updates import load_updates


def _npy(path, shape: str, descr: str = "<f8", data: bytes = b"\0" * 16, version: bytes = b"\x01\x00"):
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    header = header + " " * (118 - len(header)) + "\n"
    path.write_bytes(b"\x93NUMPY" + version + len(header).to_bytes(2, "little") + header.encode() + data)
    return path


@pytest.mark.parametrize("shape, descr, says", [
    ("(1000, 1000)", "<f8", "the file does not hold"),
    ("(10, -3)", "<f8", "not whole numbers >= 0"),
    ("(4294967296, 4294967296, 4294967296)", "<f8", "entries is more than"),
    ("(2, 2)", "|O", "not a .npy file of numbers"),
    ("(1, 2)", "<c16", "not a .npy file of numbers"),
])
def test_a_lying_header_is_refused_without_a_warning(tmp_path, shape, descr, says):
    path = _npy(tmp_path / "u.npy", shape, descr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInput, match=says):
            load_updates(path)


def test_a_true_npy_still_loads(tmp_path):
    path = tmp_path / "u.npy"
    np.save(path, np.full((4, 3), 0.25))
    assert load_updates(path).values.shape == (4, 3)


def test_the_cli_says_one_line(cli, tmp_path):
    path = _npy(tmp_path / "u.npy", "(10, -3)")
    res = cli("privacy", "release", path, "--epsilon", "1")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "Warning" not in res.output, res.output
