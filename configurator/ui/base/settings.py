"""Preferences over QSettings (INI format), each declared once as a typed option with its default.

Like Picard's ``BoolOption`` / ``TextOption``: an option knows its key, its default and what a valid value
is. A stored value that is not valid (a hand-edited ``units=MB``, a PIN with letters) is replaced by the
default with a warning in the log: a bad settings file never stops the window. No other module reads a raw
QSettings key.
"""

from __future__ import annotations

import copy
import logging
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from configurator.catalog.fileio import regular_or_absent
from configurator.catalog.limits import idle_minutes
from configurator.catalog.preferences import validate_preference

ORG, APP = "GPU Build Configurator", "configurator"
MAX_SETTINGS_BYTES = 1_000_000  # the real file is under 10 kB; Qt reads it whole, in the GUI thread
log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Option(Generic[T]):
    """One setting: ``parse`` turns the stored value into a T or raises ValueError/TypeError."""

    key: str
    default: T
    parse: Callable[[Any], T]
    doc: str = ""
    choices: tuple[T, ...] = field(default=())

    def read(self, raw: Any) -> T:
        if raw is None:
            return copy.copy(self.default)
        try:
            value = self.parse(raw)
        except (TypeError, ValueError) as exc:
            log.warning("setting %s=%r is not valid (%s): using %r", self.key, raw, exc, self.default)
            return self.default
        if self.choices and value not in self.choices:
            log.warning("setting %s=%r is not one of %s: using %r", self.key, raw, list(self.choices), self.default)
            return self.default
        return value


def _text(raw: Any) -> str:
    if isinstance(raw, list | tuple):
        raise ValueError("a list, not text")
    return str(raw)


def _int_at_least(low: int) -> Callable[[Any], int]:
    def parse(raw: Any) -> int:
        value = int(raw)
        if value < low:
            raise ValueError(f"under {low}")
        return value

    return parse


def _idle_minutes(raw: Any) -> float:
    # bounded where it becomes a timer (catalog/limits.py): 100,000 minutes overflowed QTimer's int and
    # crashed every demo start; inf exited 3
    return idle_minutes(raw)


def _text_list(raw: Any) -> list[str]:
    if raw == "":
        return []
    return [str(v) for v in raw] if isinstance(raw, list | tuple) else [str(raw)]


def _digits(raw: Any) -> str:
    text = str(raw)
    if not (text.isdigit() and 1 <= len(text) <= 12):  # the PIN pad takes up to 12 digits
        raise ValueError("a PIN is 1 to 12 digits")
    return text


def _bytes(raw: Any) -> QByteArray:
    if not isinstance(raw, QByteArray | bytes):
        raise TypeError("not saved window geometry")
    return QByteArray(raw)


def text_option(key: str, default: str, doc: str = "", choices: tuple[str, ...] = ()) -> Option[str]:
    return Option(key, default, _text, doc, choices)


_DECLARED: tuple[Option[Any], ...] = (
    text_option("units", "GB", "GB (10^9 B, as card makers quote memory) or GiB", ("GB", "GiB")),
    Option[list[str]]("recent_files", [], _text_list, "most recent first, at most 10"),
    text_option("last_folder", "", "where Open and Save start"),
    Option("autosave_seconds", 30, _int_at_least(5), "seconds between autosaves"),
    text_option("theme", "light", "light or dark", ("light", "dark")),
    text_option("seller_name", "GPU Build Configurator", "build sheet header"),
    text_option("sheet/customer", "", "who the last build sheet's quote was for (its preview asks)"),
    text_option("seller_logo", "", "SVG or PNG; the app icon when empty"),
    text_option("page", "", 'a4, letter, or "" for the locale\'s', ("", "a4", "letter")),
    text_option("price_list", "", "the seller's price list (YAML or CSV, catalog/prices.py); no prices when empty"),
    text_option(
        "trace_python",
        "",
        "a Python with the trace extra for Trace exactly; this one (or $CONFIGURATOR_TRACE_PYTHON) when empty",
    ),
    Option("window/geometry", QByteArray(), _bytes, "the main window's saved geometry"),
    # demo mode (not in the Preferences dialog): see ui/kiosk/
    Option("demo/pin", "2468", _digits, "the PIN that leaves demo mode"),
    Option("demo/idle_minutes", 3.0, _idle_minutes, "minutes without input before the attract loop (0.1 to 1440)"),
    text_option("demo/folder", "", "where take-home builds go; Documents/configurator-demo when empty"),
)
OPTIONS: dict[str, Option[Any]] = {o.key: o for o in _DECLARED}
DEFAULTS: dict[str, Any] = {key: o.default for key, o in OPTIONS.items()}


def settings_file() -> Path:
    """Where QSettings keeps the user's INI file (its user scope: $XDG_CONFIG_HOME/ORG/APP.ini on Linux and
    macOS), found without opening it (QSettings reads the file, blocking, as it is constructed)."""
    from PySide6.QtCore import QStandardPaths

    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(base or Path.home() / ".config") / ORG / f"{APP}.ini"


def settings_file_problem(path: Path) -> str | None:
    """Why the settings file (or Qt's lock file beside it) cannot be used: a FIFO, a device, a folder, or
    over :data:`MAX_SETTINGS_BYTES`. Checked with ``stat`` only: QSettings opens it blocking."""
    problem = regular_or_absent(path, MAX_SETTINGS_BYTES)
    if problem is None:
        lock_problem = regular_or_absent(f"{path}.lock")
        problem = f"its lock file {path}.lock {lock_problem}" if lock_problem else None
    return f"{path}: {problem}" if problem else None


_SCRATCH: list[Path] = []


def _scratch_folder() -> Path:
    """A private folder for this session's settings when the user's file cannot be used (removed at exit)."""
    if not _SCRATCH:
        import atexit
        import shutil

        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="configurator-settings-")))
        atexit.register(shutil.rmtree, _SCRATCH[0], True)
    return _SCRATCH[0]


class Settings:
    """The typed options over a QSettings. ``problem`` says why the user's settings file was not used (a
    FIFO, a device, a folder, too large): the window then starts with the defaults, saves nothing there,
    and the kiosk stays locked (a PIN set in the unreadable file must not fall back to the default)."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.problem: str | None = None
        if settings is None:
            path = settings_file()
            self.problem = settings_file_problem(path)
            if self.problem is None:
                settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)
            else:
                log.warning("settings not read: %s", self.problem)
                settings = QSettings(str(_scratch_folder() / f"{APP}.ini"), QSettings.Format.IniFormat)
        self.q = settings

    def stored_problem(self, key: str) -> str | None:
        """Why the stored value of ``key`` is not usable (it then reads as the default), or None when it is
        usable or nothing is stored. The kiosk PIN uses it to lock instead of falling back."""
        if self.problem is not None:
            return f"the settings file cannot be read ({self.problem})"
        raw = self.q.value(key, None)
        if raw is None:
            return None
        option = OPTIONS[key]
        try:
            value = option.parse(raw)
        except (TypeError, ValueError) as exc:
            return f"the stored {key} is not valid ({exc})"
        if option.choices and value not in option.choices:
            return f"the stored {key} is not one of {list(option.choices)}"
        return None

    def reset(self, key: str) -> None:
        """Remove the stored ``key``: it reads as its default again (``configurator demo-pin --reset``)."""
        self.q.remove(key)
        self.q.sync()

    def get(self, key: str) -> Any:
        """The stored value of option ``key``, valid, or its default (KeyError for an undeclared key)."""
        option = OPTIONS[key]
        value = option.read(self.q.value(key, None))
        # the Qt-free range and length rules (catalog/preferences.py) on top of the option's own type
        checked, warning = validate_preference(key, value, copy.copy(option.default))
        if warning:
            log.warning("%s", warning)
        return checked

    def set(self, key: str, value: Any) -> None:
        if key not in OPTIONS:
            raise KeyError(f"undeclared setting {key!r}: declare it in OPTIONS")
        self.q.setValue(key, value)

    def add_recent(self, path: str) -> list[str]:
        recent = [p for p in self.get("recent_files") if p != path]
        recent.insert(0, path)
        self.set("recent_files", recent[:10])
        return recent[:10]
