"""Where the roofline puts a point's label: the spots it tries around the point, and the first free one (the fit
frontier places its "fits up to" label by the same ``free_spot``, around its own spots).

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
    # then a ring of spots at growing distances all round, nearest first (a label hemmed in by roofs and other
    # labels on the first spots found none free and was struck through)
    ring = [(u + d if dx > 0 else u - d - tw if dx < 0 else u - tw / 2,
             v + d if dy > 0 else v - d - th if dy < 0 else v - th / 2)
            for d in (10, 24, 40, 60, 85)
            for dx, dy in ((1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1))]  # fmt: skip
    return [*first, *below, *[(u + 10, v + 9 + k * 15) for k in range(6)],
            *[(u - tw - 10, v + 9 + k * 15) for k in range(6)], *ring]  # fmt: skip


Segment = tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels


def crosses(segment: Segment, rect: Rect) -> bool:
    """Whether ``segment`` passes through ``rect`` (Liang-Barsky clipping: Liang & Barsky 1984, "A new concept and
    method for line clipping")."""
    x1, y1, x2, y2 = segment
    left, top, right, bottom = rect
    dx, dy = x2 - x1, y2 - y1
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x1 - left), (dx, right - x1), (-dy, y1 - top), (dy, bottom - y1)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def leader_end(point: tuple[float, float], rect: Rect) -> tuple[float, float]:
    """The point of ``rect`` nearest ``point``: where a leader from the point meets its label."""
    u, v = point
    return (min(max(u, rect[0]), rect[2]), min(max(v, rect[1]), rect[3]))


def free_spot(
    spots: list[tuple[float, float]],
    placed: list[Rect],
    point: tuple[float, float],
    size: tuple[float, float],
    area: tuple[float, float],
    lines: list[Segment] | None = None,
    labels: list[Rect] | None = None,
) -> tuple[Rect, int]:
    """The first spot inside ``area`` (w, h) that overlaps nothing ``placed`` (markers and labels), that no segment
    of ``lines`` (the roofs, leaders drawn before) passes through, and whose leader from ``point`` crosses no label
    placed before (``labels``); else the spot inside with the fewest such conflicts (roof lines struck labels
    through, leaders crossed other labels), and the count of its conflicts."""
    (u, v), (tw, th), (w, h) = point, size, area
    lines, labels = lines or [], labels or []
    best: tuple[int, Rect] | None = None
    for cu, cv in spots:
        cu = min(max(cu, 2.0), w - tw - 2)
        if cv < 2 or cv + th > h - 2:
            continue
        rect = (cu, cv, cu + tw, cv + th)
        grown = (rect[0] - 1, rect[1] - 1, rect[2] + 1, rect[3] + 1)
        end = leader_end((u, v), rect)
        conflicts = sum(not (rect[2] <= a or rect[0] >= c or rect[3] <= b or rect[1] >= d) for a, b, c, d in placed)
        conflicts += sum(crosses(s, grown) for s in lines)
        conflicts += sum(crosses((u, v, *end), label) for label in labels)
        if conflicts == 0:
            return rect, 0
        if best is None or conflicts < best[0]:
            best = (conflicts, rect)
    if best is not None:
        return best[1], best[0]
    cu = min(max(u - tw / 2, 2.0), w - tw - 2)
    return (cu, min(v + 9, h - th - 2), cu + tw, min(v + 9, h - th - 2) + th), 1
