"""The service planner window: a plan document with undo, planning on a worker thread, charts, the class x
device table, an inputs panel and "Open as build". Self-contained: the build editor opens it through
:func:`open_planner` and gets candidate builds back through a callback.
"""

from configurator.ui.base import PlanDocument, install_pg_guard
from configurator.ui.planner.window import PlannerWindow, open_planner

install_pg_guard()  # before any chart is built (base/pg_guard.py says why)

__all__ = ["PlanDocument", "PlannerWindow", "open_planner"]
