"""The README's and the user guide's Python code blocks run as written, each as a script
in a fresh process; the API reference has a page for every public name.

The Dask blocks start a LocalCluster (seconds), so they are marked slow.
"""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: the Markdown fences of the README and the guide (MyST), and reStructuredText's code blocks
FENCE = re.compile(r"```python\n(.*?)```", flags=re.S)
RST_BLOCK = re.compile(r"\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)")


def python_blocks(path):
    """The Python code blocks of one Markdown or reStructuredText file, as scripts."""
    text = path.read_text()
    if path.suffix == ".rst":
        return [textwrap.dedent(block) for block in RST_BLOCK.findall(text)]
    return FENCE.findall(text)


BLOCKS = python_blocks(README)
DOC_FILES = sorted(p for p in [*DOCS.rglob("*.md"), *DOCS.rglob("*.rst")]
                   if not ({"_build", "journal", "generated", "auto_examples", "_templates"}
                           & set(p.relative_to(DOCS).parts)))
DOC_BLOCKS = [(f"{p.relative_to(DOCS)}:{i}", code) for p in DOC_FILES
              for i, code in enumerate(python_blocks(p))]


def test_the_readme_and_the_guide_have_their_python_blocks():
    assert len(BLOCKS) >= 2
    assert len(DOC_BLOCKS) >= 10, [name for name, _ in DOC_BLOCKS]


def run_block(code, tmp_path, where):
    if "dask" in code:
        pytest.importorskip("distributed")
    script = tmp_path / "block.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"the {where} block failed:\n{code}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("code", [
    pytest.param(code, id=f"block{i}", marks=[pytest.mark.slow] if "dask" in code else [])
    for i, code in enumerate(BLOCKS)
])
def test_readme_block_runs_as_a_script(code, tmp_path):
    run_block(code, tmp_path, "README")


@pytest.mark.parametrize("code", [
    pytest.param(code, id=name, marks=[pytest.mark.slow] if "dask" in code else [])
    for name, code in DOC_BLOCKS
])
def test_guide_block_runs_as_a_script(code, tmp_path):
    run_block(code, tmp_path, "guide's")


def test_every_public_name_has_an_api_page():
    """docs/api.rst lists every name of pegasos.__all__ in an autosummary (a page each)."""
    import pegasos

    listed = set(re.findall(r"^   ([\w.]+)$", (DOCS / "api.rst").read_text(), flags=re.M))
    missing = sorted(set(pegasos.__all__) - listed)
    assert not missing, f"docs/api.rst lacks {missing}"


CLI_EXAMPLE = next(block for block in re.findall(r"```bash\n(.*?)```", README.read_text(),
                                                 flags=re.S) if "pegasos train -c 1" in block)
#: the guide's command-line examples on the shared data (others, set-up commands, are not run)
GUIDE_CLI = sorted({block for p in DOC_FILES if p.suffix == ".md"
                    for block in re.findall(r"```bash\n(.*?)```", p.read_text(), flags=re.S)
                    if "../shared/data" in block} - {CLI_EXAMPLE})


def run_cli_block(block, tmp_path):
    """Run a block's commands, with the paths it gives (../shared/data from the repository
    root), in a folder laid out as the repository is, so that what it writes stays in
    tmp_path; check each output a comment shows."""
    shared = README.parent.parent / "shared" / "data"
    if not shared.exists():
        pytest.skip(f"{shared} not found (the shared data sits beside the repository)")
    (tmp_path / "shared").symlink_to(shared.parent)
    root = tmp_path / "main"
    root.mkdir()
    for line in block.splitlines():
        command = line.split("#")[0].strip()
        done = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (command, done.stderr[-2000:])
        if "#" in line:  # the output the block shows
            assert line.split("#", 1)[1].strip() in done.stdout + done.stderr, done.stdout
    return root


def test_the_readme_command_line_example_runs_as_written(tmp_path):
    root = run_cli_block(CLI_EXAMPLE, tmp_path)
    assert (root / "a9a.model").exists() and (root / "curves.png").exists()


def test_the_guide_has_command_line_examples():
    assert len(GUIDE_CLI) >= 1


@pytest.mark.parametrize("block", [pytest.param(b, id=f"cli{i}")
                                   for i, b in enumerate(GUIDE_CLI)])
def test_guide_command_line_example_runs_as_written(block, tmp_path):
    run_cli_block(block, tmp_path)
