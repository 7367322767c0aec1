"""The block stream's driver: draws written block by block, memory bounded, refusals before any draw."""

import io
import threading

import numpy as np
import pytest
from click.testing import CliRunner

from itsa.exceptions import InvalidOption
from itsa.privacy.samplers import BLOCK, MAX_DRAWS, _stream, discrete_gaussian, fair_coins, npy_draws, sample, skellam
from itsa_cli import main as cli


def cheap(calls, fail_at=None):
    lock = threading.Lock()

    def block(key, index, size):
        with lock:
            calls.append(index)
            if fail_at is not None and len(calls) == fail_at:
                raise RuntimeError("stop")
        return np.full(size, index, dtype=np.int64)
    return block


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_blocks_are_drawn_as_they_are_written_not_all_at_once(workers):
    """Before: a list of every job was built and pool.map submitted them all, so a failure at the 5th block still
    drew the other 95 (and held them)."""
    calls = []
    with pytest.raises(RuntimeError):
        _stream.draw_blocks(cheap(calls, fail_at=5), count=100 * BLOCK, start=0, seed=1, workers=workers,
                            time_limit=None, what="draws")
    assert len(calls) <= 5 + 2 * workers


@pytest.mark.parametrize("start, count", [(0, 3 * BLOCK), (5, 2 * BLOCK), (BLOCK - 1, 2), (7, 0), (3 * BLOCK, 9)])
@pytest.mark.parametrize("workers", [1, 2])
def test_each_draw_lands_where_its_index_says(start, count, workers):
    out = _stream.draw_blocks(cheap([]), count=count, start=start, seed=1, workers=workers, time_limit=None,
                              what="draws")
    assert out.tolist() == [i // BLOCK for i in range(start, start + count)]


def test_a_count_past_the_memory_available_is_refused_before_any_draw(monkeypatch):
    monkeypatch.setattr(_stream, "available_memory", lambda: 2**20)
    calls = []
    with pytest.raises(InvalidOption, match=r"count: 1,000,000 draws take 7.6 MiB as int64, more than the 1.0 MiB"):
        _stream.draw_blocks(cheap(calls), count=10**6, start=0, seed=1, workers=1, time_limit=None, what="draws")
    assert calls == []
    with pytest.raises(InvalidOption, match="memory available"):
        skellam(3, 10**6, seed=1)
    assert len(discrete_gaussian(3, 1000, seed=1)) == 1000


def test_the_memory_available_is_read():
    assert _stream.available_memory() is None or _stream.available_memory() > 0


def test_the_npy_file_is_the_one_numpy_writes(tmp_path):
    draws = fair_coins(1001, 3 * BLOCK + 17, seed=4, start=11)
    expected = io.BytesIO()
    np.save(expected, draws)
    with open(tmp_path / "d.npy", "w+b") as fh:
        fair_coins(1001, 3 * BLOCK + 17, seed=4, start=11, workers=2, out=npy_draws(fh, 3 * BLOCK + 17)).flush()
    assert (tmp_path / "d.npy").read_bytes() == expected.getvalue()
    with open(tmp_path / "e.npy", "w+b") as fh:
        assert len(npy_draws(fh, 0)) == 0
    assert np.load(tmp_path / "e.npy").shape == (0,)


def test_an_output_of_another_length_is_refused():
    with pytest.raises(InvalidOption, match="an output of 5 draws, not 4"):
        discrete_gaussian(3, 5, seed=1, out=np.zeros(4, dtype=np.int64))


def test_a_count_past_the_disk_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    """Before: --count up to 2^40 was drawn into memory (2.8 GB after 15 s) until the time limit or the machine
    gave out; now the .npy is written block by block, and a file the disk cannot hold is refused first."""
    out = tmp_path / "d.npy"
    res = CliRunner().invoke(cli, ["privacy", "sample", "dgauss", "--sigma-squared", "4", "--count", str(MAX_DRAWS),
                                   "--seed", "1", "-o", str(out)])
    assert res.exit_code == 2, res.output
    assert "as int64, more than the" in res.output and "disk free" in res.output and len(res.output.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
    res = CliRunner().invoke(cli, ["privacy", "sample", "dgauss", "--sigma-squared", "4", "--count",
                                   str(MAX_DRAWS + 1), "--seed", "1", "-o", str(out)])
    assert res.exit_code == 2 and "count: must be a whole number" in res.output, res.output


@pytest.mark.parametrize("law, parameter", [("dgauss", "5/2"), ("skellam", 1000), ("binomial", 10**6)])
def test_a_run_reports_its_progress_chunk_by_chunk_and_draws_what_one_call_draws(law, parameter):
    from itsa.privacy.samplers._run import CHUNK

    count = 2 * CHUNK + 7
    events = []
    run = sample(law, parameter, count, "p", workers=2, progress=events.append)
    assert [e.done for e in events] == [CHUNK, 2 * CHUNK, count] and {e.total for e in events} == {count}
    one = {"dgauss": discrete_gaussian, "skellam": skellam, "binomial": fair_coins}[law]
    assert np.array_equal(run.draws, one(parameter, count, "p"))
    with pytest.raises(InvalidOption, match="an output of"):
        sample(law, parameter, 5, "p", out=np.empty(4, dtype=np.int64))
