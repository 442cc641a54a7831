"""The code's shape, as the contributing rules state it (CONTRIBUTING.md)."""

import ast
import re
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
    assert {"blocks", "kernel_pegasos", "sbp", "chunk", "water_filling", "linear",
            "changes"} <= names


SRC = NUMBA.parent


def _module_name(path):
    parts = ("pegasos",) + path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, modules):
    """The package's modules that ``path`` imports, at any depth of its code (a
    function's import is a dependency too, only a later one)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return (found & modules) - {name}


def test_the_import_graph_of_the_package_has_no_cycle():
    """Issue 44: no circle anywhere (engine <-> gram through one_blas_thread, datasets <->
    stream through the format's error once were), function-level imports included."""
    paths = sorted(SRC.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    graph = {_module_name(p): _imports(p, modules) for p in paths}
    assert "pegasos._solvers.engine" in graph["pegasos._dual"]  # (the walk sees imports)
    done, path = set(), []

    def visit(node):
        if node in path:
            cycle = path[path.index(node):] + [node]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if node in done:
            return
        path.append(node)
        for nxt in sorted(graph[node]):
            visit(nxt)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)


def test_the_code_cites_benchmarks_md_by_title_not_by_section_number():
    """(Issue 44: 20 citations by number, which a new section in between would break.)"""
    cited = re.compile(r"BENCHMARKS\.md,?\s+section\s+\d", re.MULTILINE)
    found = [str(p.relative_to(SRC)) for p in sorted(SRC.rglob("*.py"))
             if cited.search(p.read_text())]
    assert not found, f"cite BENCHMARKS.md's sections by their titles: {found}"


def test_a_recompiled_step_replaces_only_names_its_source_reads():
    """``_jit.recompiled`` refuses, at import, a replacement for a name that neither the
    step nor its helpers read (a renamed operation would otherwise run the original in
    the copy), and the two copies made at import replace names their source reads."""
    from pegasos._numba import kernel_pegasos, sbp
    from pegasos._numba._jit import recompiled
    from pegasos._numba.chunk import ON_MATRIX

    with pytest.raises(ValueError, match="add_column not read by sbp_blocks or its helpers"):
        recompiled(sbp.sbp_blocks, (sbp._add_draws,), {"add_column": sbp._columns_on_matrix},
                   "sbp_misnamed")
    steps = (kernel_pegasos.kernel_pegasos_blocks, kernel_pegasos._violators,
             kernel_pegasos._shrink, kernel_pegasos._step)
    read = {n for fn in steps for n in getattr(fn, "py_func", fn).__code__.co_names}
    assert set(ON_MATRIX._asdict()) <= read


def test_the_code_cites_journals_that_exist():
    """Measurements moved from BENCHMARKS.md to docs/journal/ (issue 61): every journal the
    code or the tests cite is there."""
    root = SRC.parent.parent
    cited = re.compile(r"docs/journal/([\w.-]+\.md)")
    missing = sorted({(str(p.relative_to(root)), name)
                      for p in [*SRC.rglob("*.py"), *(root / "tests").rglob("*.py")]
                      for name in cited.findall(p.read_text())
                      if not (root / "docs" / "journal" / name).is_file()})
    assert not missing, f"cited journals that do not exist: {missing}"
