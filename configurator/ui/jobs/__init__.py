"""The Jobs room: the job list and form, and the compare dialog (issue #11 step 7).

Names are loaded on first use, so importing this package does not load the compare dialog (and its
chart) with the panel. Code in the app imports the submodules directly (configurator.ui.jobs.panel,
configurator.ui.jobs.compare), which the PyInstaller import scanner can follow.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "STATUS_ROLE": "fields",
    "JobsPanel": "panel",
    "pos_from_seq": "fields",
    "seq_from_pos": "fields",
    "CompareDialog": "compare",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
