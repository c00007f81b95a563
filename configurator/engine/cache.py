"""The engine's one memo (it replaces six hand-made ones: evaluate's topology, MIG layout and job memos, the memory
model's, the stack's and the activations' per-layer cache).

Values are keyed on the identity of immutable inputs (builds, jobs, catalog specs and MIG layouts are frozen) and
on plain values; each entry keeps its inputs and a hit must find the very same objects, so an id reused after
garbage collection never hits. Two generations: ``turn()`` (evaluate calls it as it starts) drops what the
evaluation before the last one used and nothing else, so a drag always hits and a long session (the demo
cycling its scenarios) holds no more than two builds' worth; a generation that grows past ``limit`` entries turns
by itself (sweeps and the calibration's refits call the memory model thousands of times outside evaluate).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from operator import is_
from typing import Any, TypeVar

T = TypeVar("T")

Entry = tuple[tuple[object, ...], Any]  # (the inputs, held so their ids stay theirs; the value)


class Cache:
    def __init__(self, limit: int = 8192) -> None:
        self.limit = limit
        self._now: dict[tuple[Hashable, ...], Entry] = {}
        self._before: dict[tuple[Hashable, ...], Entry] = {}

    def memo(self, space: str, inputs: tuple[object, ...], key: tuple[Hashable, ...], make: Callable[[], T]) -> T:
        """The value ``make()`` gives for ``inputs`` (by identity) and ``key`` (by value), made once."""
        # one input (the hot paths: the per-layer activations, the memory model's job) keys on its id alone; the
        # C-level map and is_ keep a hit to a few hundred ns
        ids = id(inputs[0]) if len(inputs) == 1 else tuple(map(id, inputs))
        full = (space, ids, key) if key else (space, ids)
        hit = self._now.get(full)
        if hit is None:
            hit = self._before.get(full)
            if hit is not None:
                self._now[full] = hit
        if hit is not None and all(map(is_, hit[0], inputs)):  # the same ids, so the same number of inputs
            value: T = hit[1]
            return value
        made = make()
        if len(self._now) >= self.limit:
            self.turn()
        self._now[full] = (inputs, made)
        return made

    def of(self, space: str, obj: object, make: Callable[[], T]) -> T:
        """``memo`` for a value of one object alone (stack_of's: called many times per memory model)."""
        hit = self._now.get((space, id(obj)))
        if hit is not None and hit[0][0] is obj:
            value: T = hit[1]
            return value
        return self.memo(space, (obj,), (), make)  # the same key: (space, id)

    def turn(self) -> None:
        """A new evaluation starts: what the one before the last used goes."""
        self._before, self._now = self._now, {}

    def clear(self, *spaces: str) -> None:
        """Forget every entry, or those of the named spaces ("job", "memory", ...)."""
        if not spaces:
            self._now, self._before = {}, {}
            return
        for generation in (self._now, self._before):
            for key in [k for k in generation if k[0] in spaces]:
                del generation[key]

    def __len__(self) -> int:
        return len(self._now.keys() | self._before.keys())


CACHE = Cache()
