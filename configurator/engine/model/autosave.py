"""Crash-restore autosaves, one per window, Qt-free.

Each window claims its own slot: ``autosave-<id>.yaml`` beside a ``.lock`` file it holds an exclusive
``flock`` on for as long as it lives. A slot whose lock nobody holds belongs to a window that is gone (it
closed, or crashed): only those are offered back, so a second window never offers, or deletes, the first's
live autosave. Beside the build, ``autosave-<id>.json`` keeps where the build came from (its file and folder),
so a relative ``model: hf/config.json`` still resolves against the build's folder after a restore.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import atomic_write_text, open_regular, regular_or_absent, safe_read_text
from configurator.engine.model.build import Build
from configurator.engine.model.buildfile import build_to_yaml, load_build

try:
    import fcntl
except ImportError:  # Windows: no flock; a slot is then taken as live while its lock file exists
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Orphan:
    """An autosave whose window is gone, ready to offer back."""

    build_path: Path  # the autosaved YAML
    origin: Path | None  # the file the window had open, if any
    base_dir: Path | None  # the folder relative model paths resolve against

    def load(self) -> Build:
        return load_build(self.build_path, keep_unknown=True)  # unsaved work with an unknown id is still work

    def discard(self) -> None:
        for p in (self.build_path, self.build_path.with_suffix(".json"), self.build_path.with_suffix(".lock")):
            with contextlib.suppress(OSError):
                p.unlink()


class AutosaveSlot:
    """This window's autosave, locked while the window lives; :meth:`release` on a clean close."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.id = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.build_path = folder / f"autosave-{self.id}.yaml"
        self._lock_path = self.build_path.with_suffix(".lock")
        # the safe opener (fileio.open_regular): non-blocking, a regular file only (a FIFO put in its place
        # never hangs the window's start), O_EXCL: the id is new, so an existing file is not ours
        fd = open_regular(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
        self._lock = os.fdopen(fd, "w")
        if fcntl is not None:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def save(self, build: Build, origin: Path | None) -> None:
        """Write the build and where it came from (both atomic); FileError when the folder is unwritable."""
        meta = {"origin": str(origin) if origin else None, "base_dir": str(origin.parent) if origin else None}
        atomic_write_text(self.build_path.with_suffix(".json"), json.dumps(meta), what="the autosave")
        atomic_write_text(self.build_path, build_to_yaml(build), what="the autosave")

    def clear(self) -> None:
        """The build was saved (or is unmodified): nothing to restore, the slot stays claimed."""
        for p in (self.build_path, self.build_path.with_suffix(".json")):
            with contextlib.suppress(OSError):
                p.unlink()

    def release(self) -> None:
        """A clean close: remove the autosave and give up the lock."""
        self.clear()
        with contextlib.suppress(OSError):
            self._lock.close()
            self._lock_path.unlink()


def _is_live(lock_path: Path) -> bool:
    """Whether a window holds ``lock_path``. A lock that is not a regular file (a FIFO, a device, a folder)
    is nobody's: it is never opened for reading (a FIFO would block the start), and never offered."""
    if not os.path.lexists(lock_path):
        return False
    if regular_or_absent(lock_path) is not None:
        return True  # not ours to read, and the slot beside it is not offered
    if fcntl is None:
        return True
    try:
        fd = open_regular(lock_path)
    except FileError:
        return True
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True  # another window holds it
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def orphans(folder: Path) -> list[Orphan]:
    """Autosaves left by windows that are gone (no live lock), newest first."""
    out: list[tuple[float, Orphan]] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if not (name.startswith("autosave-") and name.endswith(".yaml")):
            continue
        path = folder / name
        if _is_live(path.with_suffix(".lock")):
            continue
        origin = base = None
        with contextlib.suppress(FileError, ValueError, TypeError):
            meta = json.loads(safe_read_text(path.with_suffix(".json"), limit=100_000))
            origin = Path(meta["origin"]) if meta.get("origin") else None
            base = Path(meta["base_dir"]) if meta.get("base_dir") else None
        with contextlib.suppress(OSError):
            out.append((path.stat().st_mtime, Orphan(path, origin, base)))
    return [o for _, o in sorted(out, key=lambda t: -t[0])]
