"""Bounds on every user value that becomes a timer, a size or a count (Qt-free), in one place.

Each limit is chosen so that the worst input it allows is processed in about 2 s or less on the
development machine (2 shared cores; ``benchmarks/test_bench_limits.py`` measures them), or it is refused
at once with a message that names the value and the range. A limit is a plain number here so the loaders,
the command line and the windows all quote the same one.
"""

from __future__ import annotations

import math
import re

from configurator.catalog.errors import short_repr

# --- window and screenshot sizes (pixels) -------------------------------------------------------------
# the main and planner windows' minimum (ui/shell/layout.py MIN_WINDOW): a smaller --size would be drawn at
# this size anyway, so it is refused instead of printing a size that was not written
MIN_WINDOW_WIDTH, MIN_WINDOW_HEIGHT = 960, 600
MAX_WINDOW_WIDTH, MAX_WINDOW_HEIGHT = 3840, 2160  # 4K UHD: a grab is 33 MB of pixels

# --- kiosk ----------------------------------------------------------------------------------------------
# QTimer takes a signed 32-bit millisecond count: 35,791 minutes overflow it (a crash at start). A shop's
# idle time is minutes; a day is more than any shop means.
MIN_IDLE_MINUTES = 0.1
MAX_IDLE_MINUTES = 24 * 60.0

# --- service planner ------------------------------------------------------------------------------------
# classes x devices is the plan sheet's matrix table: QTextDocument lays out 550 cells in ~1.8 s (load ~4 on
# the 2 cores, benchmarks/test_bench_limits.py), so 300 keeps the sheet near 1 s; the 8,000-class plan of the
# issue ran for minutes
MAX_PLAN_CLASSES = 50  # job classes in one plan
MAX_PLAN_NODES = 16  # node types in one plan
# classes x devices (a node type is one device, and one more per MIG layout): each cell is a sizing of the
# class on the device, and a row of the plan sheet's table
MAX_PLAN_CELLS = 300
MAX_CANDIDATES = 100_000  # fleets the search may enumerate (search.max_candidates; the schema allowed 10^7)
# the search routes every class on every candidate: ~100,000 class-candidates a second on 2 cores (91,560
# candidates x 4 classes in 3.66 s, seed B widened), so 200,000 is about 2 s; more is refused before it starts
MAX_SEARCH_WORK = 200_000

# --- price lists ----------------------------------------------------------------------------------------
MAX_PRICE_PARTS = 1_000  # parts.<id> entries (only catalog ids and bridges are allowed: ~60 exist)
MAX_PRICE_SERVICES = 100  # services lines: each is a row of the sheet's bill of materials (250 take ~2.7 s to lay out)
MAX_CSV_FIELD_CHARS = 4_096  # a CSV cell (the csv module's own limit is 131,072: it raises, we explain)


# --- files: the 5 MB of catalog/fileio.py is for config.json and logs; a user's own documents are far smaller
# and YAML composes ~1 MB a second here (a 4.9 MB build took 13-20 s, an 8,000-class plan ~10 s to refuse)
MAX_BUILD_BYTES = 1_000_000  # the shipped builds are ~1 kB; 64 jobs with every option ~20 kB
MAX_PLAN_BYTES = 500_000  # 50 classes with every option ~25 kB
MAX_PRICE_LIST_BYTES = 500_000  # 1,000 parts and 100 services ~40 kB
MAX_BUILD_JOBS = 64  # jobs in one build: 8 cards x 7 MIG instances is 56
MAX_LORA_TARGETS = 64  # module names a job's LoRA targets (a model has under 10 kinds of linear layer)
# images per training sample of a vision-language job, and an image's side in pixels: multi-image recipes use up to
# a few dozen frames; Qwen2.5-VL's max_pixels (12845056) is a 3584 px square, so 8192 px is resized down anyway
MAX_IMAGES_PER_SAMPLE = 64
MIN_IMAGE_SIDE = 28  # one Qwen2.5-VL token (patch 14 x merge 2); smaller images are scaled up by the processor
MAX_IMAGE_SIDE = 8192


class LimitError(ValueError):
    """A user value outside its bounds; the message names it and what is allowed."""


_SIZE = re.compile(r"^\s*(\d{1,6})\s*[xX×]\s*(\d{1,6})\s*$")


def parse_window_size(text: str, what: str = "--size") -> tuple[int, int]:
    """``"1920x1080"`` -> (1920, 1080); LimitError for anything else or a side outside the bounds."""
    m = _SIZE.match(text or "")
    if not m:
        raise LimitError(f"{what} takes WIDTHxHEIGHT in pixels, e.g. 1920x1080; got {short_repr(text)}")
    width, height = int(m[1]), int(m[2])
    if not (MIN_WINDOW_WIDTH <= width <= MAX_WINDOW_WIDTH and MIN_WINDOW_HEIGHT <= height <= MAX_WINDOW_HEIGHT):
        raise LimitError(f"{what} {width}x{height} is out of range: width {MIN_WINDOW_WIDTH} to {MAX_WINDOW_WIDTH}, "
                         f"height {MIN_WINDOW_HEIGHT} to {MAX_WINDOW_HEIGHT} pixels")  # fmt: skip
    return width, height


def idle_minutes(value: object) -> float:
    """The kiosk's idle time in minutes, finite and within bounds; LimitError otherwise."""
    if isinstance(value, bool):
        raise LimitError("demo/idle_minutes is a number of minutes, not yes/no")
    try:
        minutes = float(str(value).strip()) if isinstance(value, str) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise LimitError(f"demo/idle_minutes={short_repr(value)} is not a number of minutes") from None
    if not math.isfinite(minutes) or not MIN_IDLE_MINUTES <= minutes <= MAX_IDLE_MINUTES:
        raise LimitError(f"demo/idle_minutes={short_repr(value)} is out of range: {MIN_IDLE_MINUTES:g} to "
                         f"{MAX_IDLE_MINUTES:g} minutes")  # fmt: skip
    return minutes
