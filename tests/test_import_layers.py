"""The package's import graph: no cycles, and importers reached only from the tools above.

Walks every module's imports with ``ast`` — module level, ``TYPE_CHECKING`` blocks and
function-local imports alike — so a cycle cannot hide behind a deferred import.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "worldinfo"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, *, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def import_graph() -> dict[str, set[str]]:
    """Every ``worldinfo`` module and the ``worldinfo`` modules it imports anywhere."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, node, is_package=path.name == "__init__.py")
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    # ``from pkg import submodule`` depends on the submodule; any other
                    # name comes from the package's ``__init__``.
                    targets.add(sub if sub in paths else base)
        graph[module] = {t for t in targets if t in paths and t != module}
    return graph


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components with more than one module (each one a cycle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    cycles = _strongly_connected(import_graph())
    assert cycles == [], f"import cycles: {cycles}"


# Front ends: the only modules that may reach the importers (the engine, sessions, sources
# and author tools get what they need as values or injected callables).
FRONT_ENDS = (
    "worldinfo.cli",
    "worldinfo.conformance",
    "worldinfo.pytest_plugin",
    "worldinfo.server",  # worldinfo serve: a front end like the CLI
)


def test_importers_are_reached_only_from_the_front_ends() -> None:
    offenders = sorted(
        (module, target)
        for module, targets in import_graph().items()
        if not module.startswith(("worldinfo.importers", *FRONT_ENDS))
        for target in targets
        if target == "worldinfo.importers" or target.startswith("worldinfo.importers.")
    )
    assert offenders == []


def test_the_walk_sees_deferred_imports() -> None:
    """The graph includes imports inside functions and ``TYPE_CHECKING`` blocks."""
    graph = import_graph()
    # cli/scan.py imports the memory factory inside a function only.
    assert "worldinfo.sources.memory_open" in graph["worldinfo.cli.scan"]
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [
        ["a", "b", "c"]
    ]
