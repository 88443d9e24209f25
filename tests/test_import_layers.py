"""The package's import graph: no cycles, layers only point down, importers reached only
from the front ends and built only on the public API.

Walks every module's imports with ``ast`` — module level, ``TYPE_CHECKING`` blocks and
function-local imports alike — so a cycle or an upward arrow cannot hide behind a deferred
import.
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


# The layers, bottom first: a module may import its own layer (the cycle test keeps that
# acyclic) and the layers below, never one above. Every top-level module and package of
# ``worldinfo`` has a layer (``"worldinfo"`` is the package's own ``__init__``, the public
# API: what tools may import besides the public modules below it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("records", ("_record", "_lazy", "_collector")),
    ("_js", ("_js",)),
    ("values", ("enums", "types", "trace", "result", "trust", "macros", "interchange")),
    ("engine", ("engine",)),
    ("session", ("session",)),
    ("sources", ("sources", "memory")),
    ("public API", ("worldinfo",)),
    (
        "tools",
        (
            "authortest",
            "conformance",
            "examples",
            "explain",
            "importers",
            "lint",
            "pytest_plugin",
            "replay",
            "server",
        ),
    ),
    ("cli", ("cli", "__main__")),
)


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _layer_of() -> dict[str, int]:
    return {top: n for n, (_, tops) in enumerate(LAYERS) for top in tops}


def upward_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every import from a module to a module of a higher layer."""
    layer = _layer_of()
    return sorted(
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if layer[_top(target)] > layer[_top(module)]
    )


def test_every_module_has_a_layer() -> None:
    unplaced = sorted({_top(m) for m in import_graph()} - set(_layer_of()))
    assert unplaced == [], f"add these to LAYERS: {unplaced}"


def test_layers_only_point_down() -> None:
    assert upward_arrows(import_graph()) == []


def test_an_upward_arrow_is_caught() -> None:
    """The check itself: the engine importing a source, a value importing the engine."""
    graph = {
        "worldinfo.engine.loop": {"worldinfo.sources.base", "worldinfo.types"},
        "worldinfo.trust": {"worldinfo.engine.timed_effects"},
        "worldinfo.cli.scan": {"worldinfo.engine.loop"},
    }
    assert upward_arrows(graph) == [
        ("worldinfo.engine.loop", "worldinfo.sources.base"),
        ("worldinfo.trust", "worldinfo.engine.timed_effects"),
    ]


# What ``worldinfo.importers`` may import from the rest of the package: the public API
# (``worldinfo`` itself) and the public modules documented as such; ``_lazy`` (the one PEP
# 562 ``__getattr__`` of the lazy package ``__init__``\s) and ``_record`` (the value class
# maker) are package mechanics, no rule of the engine.
PUBLIC_MODULES = ("worldinfo", "worldinfo.interchange", "worldinfo._lazy", "worldinfo._record")


def private_imports(graph: dict[str, set[str]], package: str) -> list[tuple[str, str]]:
    """Imports from ``package``'s modules of ``worldinfo`` modules outside it and not public."""
    inside = (package, f"{package}.")
    return sorted(
        (module, target)
        for module, targets in graph.items()
        if module == package or module.startswith(inside[1])
        for target in targets
        if not (target == package or target.startswith(inside[1])) and target not in PUBLIC_MODULES
    )


def test_importers_use_only_the_public_api() -> None:
    assert private_imports(import_graph(), "worldinfo.importers") == []


def test_a_private_import_is_caught() -> None:
    graph = {
        "worldinfo.importers.load": {"worldinfo", "worldinfo.importers.cards", "worldinfo._js"},
        "worldinfo.importers.trust": {"worldinfo.interchange", "worldinfo.trust"},
        "worldinfo.cli.scan": {"worldinfo._js"},
    }
    assert private_imports(graph, "worldinfo.importers") == [
        ("worldinfo.importers.load", "worldinfo._js"),
        ("worldinfo.importers.trust", "worldinfo.trust"),
    ]


def test_the_walk_sees_deferred_imports() -> None:
    """The graph includes imports inside functions and ``TYPE_CHECKING`` blocks."""
    graph = import_graph()
    # cli/scan.py imports the memory factory inside a function only.
    assert "worldinfo.sources.memory_open" in graph["worldinfo.cli.scan"]
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [
        ["a", "b", "c"]
    ]
