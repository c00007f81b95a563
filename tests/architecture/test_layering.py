"""The engine and catalog are pure Python: importable and usable without Qt."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "configurator" / "ui"
ROOMS = sorted(p.parent.name for p in UI.glob("*/__init__.py"))


def _contracts() -> list[dict[str, object]]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = pyproject["tool"]["importlinter"]["contracts"]
    return contracts


def test_engine_imports_no_qt() -> None:
    """Importing and running the engine loads neither PySide6 nor pyqtgraph."""
    code = (
        "import sys\n"
        "from configurator.engine import evaluate\n"
        "from configurator.engine.model.buildfile import load_build\n"
        "from configurator.cli import default_build_path\n"
        "evaluate(load_build(default_build_path()))\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_import_contracts() -> None:
    """import-linter: engine/catalog/present never import Qt; layers point downward (cli -> ui -> report ->
    trace -> present -> engine -> catalog); only the tracer's worker imports torch; only ui imports
    engine/editing."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    # every contract of pyproject.toml ran (none skipped or mistyped); 7 (the engine's subpackage layers and the
    # ui layers among them) + one per ui package (the tracer's worker and the measurement tool (acceptance_tool)
    # are the two that import torch; nothing imports them)
    assert len(_contracts()) == 7 + len(ROOMS)
    assert f"{len(_contracts())} kept, 0 broken" in out.stdout


def test_every_ui_room_has_its_contract() -> None:
    """Each room of ui/ (base, shell, chassis, dnd, charts, mig, jobs, kiosk, planner) has a protected contract: its
    modules are imported only inside the room (and by cli.py, the entry point), so dropping one fails here."""
    assert {"base", "shell", "chassis", "dnd", "charts", "mig", "jobs", "kiosk", "planner"} <= set(ROOMS)
    protected = {
        tuple(c["protected_modules"]): c  # type: ignore[arg-type]
        for c in _contracts()
        if c["type"] == "protected"
    }
    for room in ROOMS:
        contract = protected.get((f"configurator.ui.{room}.*",))
        assert contract is not None, f"no protected contract for configurator/ui/{room}/ in pyproject.toml"
        assert contract["allowed_importers"] == [f"configurator.ui.{room}", "configurator.cli"], room
        assert contract.get("as_packages", True) is True, room


def _cross_room_imports() -> list[tuple[str, int, str, str]]:
    """(file, line, room imported, name) for every `from configurator.ui.<room> import name` in another room."""
    found = []
    for room in ROOMS:
        for path in sorted((UI / room).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("configurator.ui."):
                    continue
                other = node.module.split(".")[2]  # type: ignore[union-attr]
                if other != room:
                    found += [(path.name, node.lineno, other, alias.name) for alias in node.names]
    return found


def test_rooms_import_each_other_through_exported_names() -> None:
    """A name one room takes from another is in that room's __all__ (and resolves, lazy ones included); the
    protected contracts forbid the modules, this forbids reaching an unexported helper through the package."""
    imports = _cross_room_imports()
    assert len(imports) > 20  # the main window alone takes names from five rooms
    exported = {room: importlib.import_module(f"configurator.ui.{room}") for room in ROOMS}
    for room, package in exported.items():
        for name in package.__all__:
            assert getattr(package, name) is not None, f"configurator.ui.{room}.{name}"
    bad = [f"{file}:{line}: {name} from ui/{room}" for file, line, room, name in imports
           if room not in exported or name not in exported[room].__all__]  # fmt: skip
    assert not bad, "not exported by the room's __init__.py:\n" + "\n".join(bad)


def test_ui_runs_one_way() -> None:
    """One layers contract orders every package of ui/: the application (shell) on top, the rooms, the widgets
    they share, the drag payloads, the base at the bottom; exhaustive, so a new package cannot skip it."""
    layered = [c for c in _contracts() if c["type"] == "layers" and c.get("containers") == ["configurator.ui"]]
    assert len(layered) == 1
    contract = layered[0]
    assert contract["exhaustive"] is True
    layers = [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]  # type: ignore[union-attr]
    assert layers[0] == ["shell"] and layers[-1] == ["base"]
    assert sorted(name for layer in layers for name in layer) == sorted(ROOMS)
