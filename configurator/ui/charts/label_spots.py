"""Where the roofline puts a point's label: the spots it tries around the point, and the first free one.

Split out of ``roofline.py`` (issue 11: modules under ~400 lines, functions under ~60). Pixels, y down.
"""

from __future__ import annotations

Rect = tuple[float, float, float, float]  # left, top, right, bottom in pixels


def label_spots(u: float, v: float, tw: float, th: float, kind: str) -> list[tuple[float, float]]:
    """Top-left corners to try for a ``tw`` x ``th`` label of the point at (u, v) pixels, best first: a few
    around the point (by ``kind``: a ridge, a memory-bound point on the slope, a compute-bound one on the
    flat), then further down below, right and left of it."""
    below = [(u - tw / 2, v + 9 + k * 15) for k in range(0, 8)]
    if kind == "ridge":
        first = [(u - tw - 8, v - th - 2), (u + 8, v + 4), (u - tw / 2, v - th - 8)]
    elif kind == "memory":
        first = [(u + 9, v + 1), (u - tw - 9, v - th - 1), (u + 9, v + 16)]
    else:
        first = [(u - tw / 2, v + 9), (u - tw / 2, v - th - 9)]
    return [*first, *below, *[(u + 10, v + 9 + k * 15) for k in range(6)],
            *[(u - tw - 10, v + 9 + k * 15) for k in range(6)]]  # fmt: skip


def free_spot(
    spots: list[tuple[float, float]],
    placed: list[Rect],
    point: tuple[float, float],
    size: tuple[float, float],
    area: tuple[float, float],
) -> Rect:
    """The first spot inside ``area`` (w, h) overlapping nothing ``placed``; else just below the point."""
    (u, v), (tw, th), (w, h) = point, size, area
    for cu, cv in spots:
        cu = min(max(cu, 2.0), w - tw - 2)
        if cv < 2 or cv + th > h - 2:
            continue
        rect = (cu, cv, cu + tw, cv + th)
        if all(rect[2] <= a or rect[0] >= c or rect[3] <= b or rect[1] >= d for a, b, c, d in placed):
            return rect
    cu = min(max(u - tw / 2, 2.0), w - tw - 2)
    return (cu, min(v + 9, h - th - 2), cu + tw, min(v + 9, h - th - 2) + th)
