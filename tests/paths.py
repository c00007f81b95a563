"""Where the tests find the repository's files: one place, so a test module can move between feature folders
without counting parent folders. A helper module, not a test module."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILDS = ROOT / "resources" / "builds"
SPECS = ROOT / "specs"
HF_CONFIGS = ROOT / "tests" / "fixtures" / "hf_configs"
