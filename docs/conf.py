"""Sphinx configuration: numpydoc, sphinx-gallery, MyST for the guide, the PyData theme."""

import os
import sys
from importlib.metadata import version as _version

project = "pegasos"
author = "the pegasos developers"
copyright = "2026, the pegasos developers"
release = _version("pegasos")
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# The journals are lab notes kept as plain Markdown (read on the repository); the gallery's
# generated files are written below, never committed.
templates_path = ["_templates"]
exclude_patterns = ["_build", "_templates", "journal", "**.ipynb_checkpoints", "auto_examples/*.md5",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json",
                    "auto_examples/*.ipynb"]

autosummary_generate = True
autodoc_default_options = {"members": False, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set = set()
myst_heading_anchors = 3
intersphinx_mapping = {}  # no network at build time: references stay local

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": os.environ.get("PEGASOS_DOCS_PLOT", "True"),
    "abort_on_example_error": True,
    "show_memory": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"pegasos {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list = []

sys.path.insert(0, os.path.abspath(".."))
