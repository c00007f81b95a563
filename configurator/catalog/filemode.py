"""The permissions a new file should get: what the user's umask gives an ordinary file (0666 & ~umask).

``tempfile.mkstemp`` creates files 0600 (private, whatever the umask), so a file written atomically
through it and renamed over the target would stay readable by its owner only; the writers here set
this mode on the temporary file before the rename, as ``open()`` would have.
"""

from __future__ import annotations

import os
import threading

_lock = threading.Lock()


def user_umask() -> int:
    """The process umask; read from /proc on Linux (no change), else set and restored under a lock."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def new_file_mode() -> int:
    return 0o666 & ~user_umask()


def apply_new_file_mode(path: str | os.PathLike[str]) -> None:
    """Give ``path`` the mode a newly created file gets under the user's umask (no-op where chmod is absent)."""
    os.chmod(path, new_file_mode())
