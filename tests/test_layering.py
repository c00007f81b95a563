"""The engine and catalog are pure Python: importable and usable without Qt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engine_imports_no_qt() -> None:
    """Importing and running the engine loads neither PySide6 nor pyqtgraph."""
    code = (
        "import sys\n"
        "from configurator.engine import evaluate\n"
        "from configurator.engine.buildfile import load_build\n"
        "from configurator.cli import default_build_path\n"
        "evaluate(load_build(default_build_path()))\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_import_contracts() -> None:
    """import-linter: engine/catalog/present never import Qt; layers point downward (cli -> ui -> report ->
    present -> engine -> catalog); only ui imports engine/editing."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 kept, 0 broken" in out.stdout
