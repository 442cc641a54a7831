"""The code's shape, as the contributing rules state it (README, CONTRIBUTING)."""

import ast
from pathlib import Path

import pytest

NUMBA = Path(__file__).resolve().parents[1] / "src" / "pegasos" / "_numba"
MAX_LINES = 60  # of a compiled function's body, its docstring not counted
MAX_PARAMS = 8  # more travel in a named tuple


def _compiled_functions():
    for path in sorted(NUMBA.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.decorator_list:
                yield f"{path.stem}.{node.name}", node


def _body_lines(node):
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


@pytest.mark.parametrize("name, node", list(_compiled_functions()),
                         ids=[name for name, _ in _compiled_functions()])
def test_compiled_functions_are_small_and_take_few_parameters(name, node):
    params = len(node.args.args) + len(node.args.kwonlyargs)
    assert params <= MAX_PARAMS, f"{name} takes {params} parameters: group them in a NamedTuple"
    assert _body_lines(node) <= MAX_LINES, f"{name} is {_body_lines(node)} lines long: split it"


def test_every_compiled_module_is_found():
    names = {name.split(".")[0] for name, _ in _compiled_functions()}
    assert {"blocks", "kernel_pegasos", "sbp", "gram", "water_filling", "linear",
            "changes"} <= names
