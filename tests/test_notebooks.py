"""Execute every notebook of ``notebooks/`` top to bottom; a cell that raises fails the test.

Each notebook runs in a fresh ``python3`` kernel with ``notebooks/`` as its
working directory (the notebooks read the shipped instances through
``itsa.keys.examples``, so any directory works). Their own cells assert the results
(paper values reproduced, schemes verified, audit findings consistent). Needs the ``test`` extra: nbclient, nbformat,
ipykernel (whose wheel installs the ``python3`` kernelspec).
"""

from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


def test_notebooks_present():
    assert {"01-paper-examples.ipynb", "02-audit.ipynb", "03-optimum.ipynb", "04-census.ipynb"} <= {p.name for p in PATHS}


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    stored = [i for i, c in enumerate(nb.cells)
              if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not stored, (f"{path.name}: cells {stored} carry outputs; commit notebooks without outputs "
                        "(clear them: jupyter nbconvert --clear-output --inplace notebooks/*.ipynb)")


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_names_its_kernel(path):
    """Jupyter opens a notebook without asking for a kernel only when its metadata names one."""
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", path.name


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()   # raises CellExecutionError, naming the cell and its traceback, if a cell raises
