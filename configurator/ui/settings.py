"""Preferences over QSettings (INI format), each declared once with its default."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings

ORG, APP = "GPU Build Configurator", "configurator"

DEFAULTS: dict[str, Any] = {
    "units": "GB",  # GB (10^9 B, as the seeds) or GiB
    "recent_files": [],
    "last_folder": "",
    "autosave_seconds": 30,
    "theme": "light",  # light | dark
    "seller_name": "GPU Build Configurator",  # build sheet header
    "seller_logo": "",  # SVG or PNG; the app icon when empty
    "page": "",  # a4 | letter | "" = from the locale
}


class Settings:
    def __init__(self, settings: QSettings | None = None) -> None:
        self.q = settings or QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)

    def get(self, key: str) -> Any:
        default = DEFAULTS[key]
        value = self.q.value(key, default)
        if isinstance(default, list):
            if value in (None, ""):
                return []
            return list(value) if isinstance(value, list | tuple) else [value]
        if isinstance(default, int):
            try:
                return int(value)
            except (TypeError, ValueError):
                return default
        return value

    def set(self, key: str, value: Any) -> None:
        self.q.setValue(key, value)

    def add_recent(self, path: str) -> list[str]:
        recent = [p for p in self.get("recent_files") if p != path]
        recent.insert(0, path)
        self.set("recent_files", recent[:10])
        return recent[:10]
