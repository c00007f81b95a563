"""Preferences over QSettings (INI format): the one registry of settings, each declared once as a typed option
with its default and everything a valid value must be (its type, its choices, its range or length).

Like Picard's ``BoolOption`` / ``TextOption``: an option knows its key, its default and what a valid value
is. A stored value that is not valid (a hand-edited ``units=MB``, ``autosave_seconds=-4``, a PIN with
letters, a 10,000-character seller) is replaced by the default with a warning in the log: a bad settings file
never stops the window. No other module reads a raw QSettings key. The unit choices are the display units'
(``present.words.UNITS``), not a copy of them.
"""

from __future__ import annotations

import atexit
import copy
import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from configurator.catalog.errors import short_repr
from configurator.catalog.fileio import regular_or_absent
from configurator.catalog.limits import idle_minutes
from configurator.present.words import UNITS

ORG, APP = "GPU Build Configurator", "configurator"
MAX_SETTINGS_BYTES = 1_000_000  # the real file is under 10 kB; Qt reads it whole, in the GUI thread
MAX_RECENT = 10  # recent files kept
MAX_PATH = 4096  # characters in a stored path (PATH_MAX on Linux)
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
            log.warning("setting %s=%s is not valid (%s): using %r", self.key, short_repr(raw), exc, self.default)
            return copy.copy(self.default)
        if self.choices and value not in self.choices:
            log.warning("setting %s=%s is not one of %s: using %r", self.key, short_repr(raw), list(self.choices),
                        self.default)  # fmt: skip
            return copy.copy(self.default)
        return value


def _text_upto(length: int) -> Callable[[Any], str]:
    def parse(raw: Any) -> str:
        if isinstance(raw, list | tuple):
            raise ValueError("a list, not text")
        text = str(raw)
        if len(text) > length or "\x00" in text:
            raise ValueError(f"not text of at most {length} characters")
        return text

    return parse


def _int_between(low: int, high: int) -> Callable[[Any], int]:
    def parse(raw: Any) -> int:
        if isinstance(raw, bool):
            raise TypeError("a truth value, not a number")
        value = int(str(raw).strip())  # a 5,000-digit string raises (Python's int digit limit)
        if not low <= value <= high:
            raise ValueError(f"not a whole number from {low} to {high}")
        return value

    return parse


def _idle_minutes(raw: Any) -> float:
    # bounded where it becomes a timer (catalog/limits.py): 100,000 minutes overflowed QTimer's int and
    # crashed every demo start; inf exited 3
    return idle_minutes(raw)


def _paths(raw: Any) -> list[str]:
    """The recent files: paths as text, at most MAX_RECENT; entries that are not (a number, an empty or an
    over-long string) are dropped with a warning, the rest kept."""
    if raw == "":
        return []
    items = list(raw) if isinstance(raw, list | tuple) else [raw]
    good = [v for v in items if isinstance(v, str) and 0 < len(v) <= MAX_PATH][:MAX_RECENT]
    if len(good) < len(items):
        log.warning("setting recent_files: dropped %d entries", len(items) - len(good))
    return good


def _digits(raw: Any) -> str:
    text = str(raw)
    if not (text.isdigit() and 1 <= len(text) <= 12):  # the PIN pad takes up to 12 digits
        raise ValueError("a PIN is 1 to 12 digits")
    return text


def _bytes(raw: Any) -> QByteArray:
    if not isinstance(raw, QByteArray | bytes):
        raise TypeError("not saved window geometry")
    return QByteArray(raw)


def text_option(
    key: str, default: str, doc: str = "", choices: tuple[str, ...] = (), length: int = MAX_PATH
) -> Option[str]:
    return Option(key, default, _text_upto(length), doc, choices)


_DECLARED: tuple[Option[Any], ...] = (
    text_option("units", "GB", "GB (10^9 B, as card makers quote memory) or GiB", UNITS),
    Option[list[str]]("recent_files", [], _paths, f"most recent first, at most {MAX_RECENT}"),
    text_option("last_folder", "", "where Open and Save start"),
    Option("autosave_seconds", 30, _int_between(5, 3600), "seconds between autosaves, 5 to 3600"),
    text_option("theme", "light", "light or dark", ("light", "dark")),
    text_option("seller_name", "", "build sheet header (the sheet's preview asks too)", length=200),
    text_option("sheet/customer", "", "who the last build sheet's quote was for (its preview asks)", length=200),
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
        return OPTIONS[key].read(self.q.value(key, None))

    def set(self, key: str, value: Any) -> None:
        if key not in OPTIONS:
            raise KeyError(f"undeclared setting {key!r}: declare it in OPTIONS")
        self.q.setValue(key, value)

    def add_recent(self, path: str) -> list[str]:
        recent = [p for p in self.get("recent_files") if p != path]
        recent.insert(0, path)
        self.set("recent_files", recent[:10])
        return recent[:10]
