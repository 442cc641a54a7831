"""The README's Python code blocks run as written, each as a script in a fresh process.

The Dask block starts a LocalCluster (seconds), so it is marked slow.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_its_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", [
    pytest.param(code, id=f"block{i}", marks=[pytest.mark.slow] if "dask" in code else [])
    for i, code in enumerate(BLOCKS)
])
def test_readme_block_runs_as_a_script(code, tmp_path):
    if "dask" in code:
        pytest.importorskip("distributed")
    script = tmp_path / "block.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"the README block failed:\n{code}\n{done.stderr[-3000:]}"


CLI_EXAMPLE = next(block for block in re.findall(r"```bash\n(.*?)```", README.read_text(),
                                                 flags=re.S) if "pegasos train -c 1" in block)


def test_the_readme_command_line_example_runs_as_written(tmp_path):
    """The a9a example, with the paths it gives (../shared/data from the repository root), in
    a folder laid out as the repository is, so that what it writes stays in tmp_path."""
    shared = README.parent.parent / "shared" / "data" / "a9a.xz"
    if not shared.exists():
        pytest.skip(f"{shared} not found (the shared data sits beside the repository)")
    (tmp_path / "shared").symlink_to(shared.parent.parent)
    root = tmp_path / "main"
    root.mkdir()
    for line in CLI_EXAMPLE.splitlines():
        command = line.split("#")[0].strip()
        done = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (command, done.stderr[-2000:])
        if "#" in line:  # the output the README shows
            assert line.split("#", 1)[1].strip() in done.stdout + done.stderr, done.stdout
    assert (root / "a9a.model").exists() and (root / "curves.png").exists()
