"""The documentation builds with no warning, and its pages are linked from the front door.

The build (``mkdocs build --strict``: every warning is an error, including a
broken link, an anchor that does not exist, or a docstring the API reference
cannot render) needs the docs extra; without it the build test is skipped.
"""

import re
import subprocess
import sys

import pytest
import yaml

from .conftest import ROOT


def test_docs_build_with_warnings_as_errors(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings[python] is not installed")
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "analysis" / "index.html").read_text(encoding="utf-8")
    assert "itsa.bounds.analysis.analyze" in api                # the reference is generated, not empty
    # the docstrings' reST roles (:func:`solve` ...) are links (scripts/griffe_roles.py), never shown raw
    pages = {p: p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html")}
    raw = {str(p.relative_to(tmp_path)): len(re.findall(r":(?:func|class|mod|meth|data|attr|obj|exc):", t))
           for p, t in pages.items()}
    assert not any(raw.values()), {p: n for p, n in raw.items() if n}
    solve = pages[tmp_path / "site" / "api" / "solve" / "index.html"]
    assert 'href="#itsa.optimum.solve"><code>solve</code></a>' in solve


def _nav_files(nav):
    for entry in nav:
        for value in entry.values():
            if isinstance(value, list):
                yield from _nav_files(value)
            else:
                yield value


def test_every_page_is_in_the_nav_and_linked_from_the_readme():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = set(_nav_files(config["nav"]))
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert pages == in_nav
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(docs/([\w./-]+\.md)\)", readme))
    top = {p for p in pages if "/" not in p and p != "index.md"}
    assert top <= linked, sorted(top - linked)
