"""Traced results kept across restarts, keyed by the request and the library versions.

A trace is exact for the code it ran: the same request with the same torch, transformers, peft, accelerate,
bitsandbytes and torchao (and the same configurator) gives the same bytes, so the key is a hash of the request's
canonical JSON and of those versions. Files live in the user's data folder (the same rule as the window's
autosave folder: Qt's AppDataLocation for this application), one JSON file per request and set of versions:
``<folder>/<request hash>/<versions hash>.json``. ``CONFIGURATOR_TRACE_CACHE`` names another folder.

Only successful traces are kept. A damaged or foreign file reads as a miss, never as an error; a folder that
cannot be written loses the cache entry, never the result.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import atomic_write_text, safe_read_text
from configurator.trace.protocol import TraceRequest, TraceResult

ENV_FOLDER = "CONFIGURATOR_TRACE_CACHE"
# Qt's QStandardPaths::AppDataLocation for organisation "GPU Build Configurator", application "configurator"
# (ui/shell/app.py sets both); computed here without Qt so the command line and the window share the folder.
_ORG, _APP = "GPU Build Configurator", "configurator"


def default_cache_folder() -> Path:
    """Where traced results are kept: ``$CONFIGURATOR_TRACE_CACHE``, else the user's data folder + ``traces``."""
    override = os.environ.get(ENV_FOLDER)
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:  # XDG base directory rule, as Qt applies it on Linux
        xdg = os.environ.get("XDG_DATA_HOME")
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / _ORG / _APP / "traces"


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def request_key(request: TraceRequest) -> str:
    """The request's identity: every setting the worker reads, in canonical JSON."""
    return _digest(request.wire())


def versions_key(versions: dict[str, str | None]) -> str:
    return _digest(versions)[:32]


@dataclass(frozen=True)
class CachedTrace:
    result: TraceResult
    versions: dict[str, str | None]  # the environment the key was made for (the worker's own report is in result)
    saved_at: str  # ISO 8601, UTC

    @property
    def when(self) -> str:
        """'2026-12-02 11:40 UTC'."""
        try:
            return dt.datetime.fromisoformat(self.saved_at).strftime("%Y-%m-%d %H:%M UTC")
        except ValueError:
            return self.saved_at


class TraceCache:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_folder()

    def _dir(self, request: TraceRequest) -> Path:
        return self.folder / request_key(request)

    def _read(self, path: Path) -> CachedTrace | None:
        try:
            data = json.loads(safe_read_text(path, limit=2_000_000))
            return CachedTrace(TraceResult.model_validate(data["result"]), dict(data["versions"]),
                               str(data.get("saved_at", "")))  # fmt: skip
        except (FileError, OSError, ValueError, KeyError, TypeError, ValidationError):
            return None  # damaged, foreign or half-written: a miss

    def get(self, request: TraceRequest, versions: dict[str, str | None]) -> CachedTrace | None:
        """The result traced for exactly this request with exactly these versions, or None."""
        path = self._dir(request) / f"{versions_key(versions)}.json"
        return self._read(path) if path.is_file() else None

    def latest(self, request: TraceRequest) -> CachedTrace | None:
        """The newest result traced for this request, with whatever versions it ran on (the window shows it
        at once, with those versions named; the sheet prints it so)."""
        folder = self._dir(request)
        try:
            files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            return None
        for path in files:
            hit = self._read(path)
            if hit is not None and hit.result.ok:
                return hit
        return None

    def put(self, request: TraceRequest, versions: dict[str, str | None], result: TraceResult) -> Path | None:
        """Keep a successful result; returns the file, or None when it was not kept (a failed trace, or a
        folder that cannot be written: the caller still has the result)."""
        if not result.ok:
            return None
        path = self._dir(request) / f"{versions_key(versions)}.json"
        record = {
            "request": request.wire(),
            "versions": versions,
            "result": result.model_dump(mode="json", by_alias=True),
            "saved_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        with contextlib.suppress(OSError, FileError):
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(record, indent=1), what="the trace cache")
            return path
        return None
