"""The suite's own layout: tests live in feature folders, and no test module (or conftest) is imported by
another module — shared code lives in helper modules (tests/helpers.py, gui_helpers.py, paths.py, ...)."""

from __future__ import annotations

import ast

from tests.paths import ROOT

TESTS = ROOT / "tests"


def imported_modules(path) -> set[str]:  # type: ignore[no-untyped-def]
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_test_module_sits_at_the_top_of_tests() -> None:
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []


def test_no_module_imports_a_test_module_or_a_conftest() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        for module in imported_modules(path):
            last = module.rsplit(".", 1)[-1]
            if module.startswith("tests.") and (last.startswith("test_") or last == "conftest"):
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_the_rule_sees_an_offender(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "test_bad.py"
    bad.write_text("from tests.engine.test_mig import x\nimport tests.ui.conftest\n")
    assert imported_modules(bad) == {"tests.engine.test_mig", "tests.ui.conftest"}
