"""The umask a new file's mode comes from, read where /proc is absent (macOS, Windows) from two threads at once."""

from __future__ import annotations

import threading
import time

import pytest

from configurator.catalog import fileio


class _NoProc:
    def __init__(self, path: str) -> None:
        self.path = path

    def read_text(self) -> str:
        raise OSError(f"no {self.path}")


def test_umask_read_by_two_threads_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.umask both sets and reads: without a lock the second thread reads the 0o022 the first one set for a
    moment, and its file gets the wrong mode (the sheet is written on a worker thread beside the window's saves)."""
    state = {"mask": 0o077}
    first = threading.Event()

    def umask(new: int) -> int:
        old, state["mask"] = state["mask"], new
        if not first.is_set():  # the first set-and-read holds on, so the other thread comes in meanwhile
            first.set()
            time.sleep(0.2)
        return old

    monkeypatch.setattr(fileio, "Path", _NoProc)
    monkeypatch.setattr(fileio.os, "umask", umask)
    read: list[int] = []
    threads = [threading.Thread(target=lambda: read.append(fileio._umask())) for _ in range(2)]
    threads[0].start()
    assert first.wait(5)
    threads[1].start()
    for t in threads:
        t.join(5)
    assert read == [0o077, 0o077]
    assert state["mask"] == 0o077
