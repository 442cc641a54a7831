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
