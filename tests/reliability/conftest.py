"""Fixtures of the hostile-input suite (helpers in hostile.py): a private home for fresh processes, and the
main window (the suite's one `window` fixture, tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config").mkdir()
    (tmp_path / "data").mkdir()
    return tmp_path
