"""Build outputs the suite can keep between runs (issue 11): the PyInstaller bundle and the wheel.

An output is kept in build/<kind>/<key>, the key a hash of the files it is built from, the interpreter and the
installed distributions; same key, same inputs, so the next run reuses it. `make clean` deletes build/.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def inputs_key(names: tuple[str, ...]) -> str:
    """A hash of the files and folders ``names`` (relative to the root; missing ones skipped, caches ignored),
    the interpreter and the installed distributions with their versions."""
    digest = hashlib.sha256(f"{sys.executable}\n{sys.version}".encode())
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    digest.update("\n".join(dists).encode())
    for name in names:
        top = ROOT / name
        files = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def kept(kind: str, key: str) -> Path | None:
    """The kept output folder for ``key``, or None when there is none (or its build did not finish)."""
    folder = ROOT / "build" / kind / key
    return folder if (folder / "complete").is_file() else None


def keep(kind: str, key: str, built: Path, note: str) -> Path:
    """Move the finished output folder ``built`` to build/<kind>/<key> (older keys removed) and return where
    it now is; ``built`` itself when it cannot be moved (another file system, a concurrent run)."""
    cache = ROOT / "build" / kind
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    try:
        built.rename(cache / key)
    except OSError:
        return built
    (cache / key / "complete").write_text(note + "\n", encoding="utf-8")
    return cache / key
