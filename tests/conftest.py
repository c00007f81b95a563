"""Shared fixtures. Tests run headless: Qt uses the offscreen platform, no GPU, no network."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
