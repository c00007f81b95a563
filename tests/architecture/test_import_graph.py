"""The import graph of configurator/ (grimp, the graph import-linter checks its contracts on) has no cycle: a
module never reaches itself through its imports, those inside functions included."""

from __future__ import annotations

import grimp


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    graph = grimp.build_graph("configurator", cache_dir=None)
    modules = graph.modules
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in modules:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle() -> None:
    """None anywhere in configurator/, ui/ included: ui/ runs one way (base -> dnd -> widgets -> rooms -> the
    application), the layers contract in pyproject.toml."""
    assert _cycles() == []
