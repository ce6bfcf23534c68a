"""Sphinx configuration of the kgroups_rs documentation.

Build (from the repository root, with the package and the ``docs`` extra installed)::

    python -m sphinx -W -b html docs docs/_build/html

The API reference is generated from the docstrings of the *installed* package, and the
gallery runs ``examples/plot_*.py`` against it.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import kgroups_rs

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# -- Project -----------------------------------------------------------------------------------

project = "kgroups_rs"
author = "the kgroups_rs authors"
copyright = "the kgroups_rs authors, MIT licence"
version = release = kgroups_rs.__version__

# -- Extensions ----------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 from the package into _static/mathjax (mathjax_path points there): the
    # formulas render offline and no page loads a script from another site.
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "dev", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json"]
templates_path = ["_templates"]

# The gallery's figures are drawn off-screen.
os.environ.setdefault("MPLBACKEND", "Agg")
# The gallery's scikit-learn and numpy calls are small; their OpenMP/BLAS thread pools spend
# more time waiting than computing on a busy 2-core machine (KMeans on 2000 points: 2-3 s of
# wall time instead of 0.1 s). One thread each keeps the build fast; kgroups_rs has its own
# thread pool and still uses every core. Set before any example imports them.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# -- API reference (autodoc + autosummary + numpydoc) ---------------------------------------------

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"  # the numpydoc "Parameters" sections say the types
autodoc_member_order = "bysource"

numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- Markdown (the paper reproduction report is experiments/RESULTS.md) ----------------------------

myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3
suppress_warnings = [
    # RESULTS.md's headings start at level 1 and jump levels inside its findings list.
    "myst.header",
]

# -- Gallery (sphinx-gallery) ---------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("kgroups_rs",),
    "reference_url": {"kgroups_rs": None},
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "min_reported_time": 1,
    "show_memory": False,
    # The execution-times page loads jQuery and DataTables from CDNs; each example's page
    # already reports its own running time.
    "write_computation_times": False,
    "plot_gallery": "True",
    # An example that raises fails the build (as a warning would with -W).
    "abort_on_example_error": True,
}

# -- HTML (pydata-sphinx-theme) ----------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"kgroups_rs {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_sidebars = {"index": [], "getting_started": [], "paper_reproduction": []}
html_show_sourcelink = False

# matplotlib in the gallery: no interactive backend warnings.
warnings.filterwarnings("ignore", category=UserWarning, message="Matplotlib is currently using agg")


# -- Docstring repairs ---------------------------------------------------------------------------
# Docstrings write absolute values as ``|x_a - x_b|`` in plain text, which reStructuredText
# reads as a substitution reference ("Undefined substitution referenced"). Outside inline
# literals and literal blocks, such pipes are escaped so they print as written.
_SUBSTITUTION = re.compile(r"(?<![\\|`])\|(?=\S)([^|`\n]*?\S)\|(?![\w|])")


def _escape_pipes(line: str, in_literal: bool) -> tuple[str, bool]:
    """``line`` with ``|...|`` escaped outside inline literals (which may span lines)."""
    parts = line.split("``")
    for j, part in enumerate(parts):
        literal = in_literal if j % 2 == 0 else not in_literal
        if not literal:
            parts[j] = _SUBSTITUTION.sub(r"\\|\1\\|", part)
    return "``".join(parts), in_literal ^ (len(parts) % 2 == 0)


def _repair_docstring(app, what, name, obj, options, lines):  # noqa: ANN001, ARG001
    literal_indent = None  # indentation of the paragraph that opened a literal block
    in_literal = False  # inside an inline literal that started on an earlier line
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if not stripped:
            in_literal = False  # inline markup never spans paragraphs
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                continue
            literal_indent = None
        if stripped.startswith(">>>") or stripped.startswith("..."):
            continue
        lines[i], in_literal = _escape_pipes(line, in_literal)
        if stripped.endswith("::"):
            literal_indent = indent


def setup(app):  # noqa: ANN001, ANN201
    app.connect("autodoc-process-docstring", _repair_docstring)
