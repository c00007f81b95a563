"""The service planner window: a plan document with undo, planning on a worker thread, charts, the class x
device table, an inputs panel and "Open as build". Self-contained: the build editor opens it through
:func:`open_planner` and gets candidate builds back through a callback.
"""

from configurator.ui import pg_guard
from configurator.ui.planner.document import PlanDocument
from configurator.ui.planner.window import PlannerWindow, open_planner

pg_guard.install()  # before any chart is built (pg_guard.py says why)

__all__ = ["PlanDocument", "PlannerWindow", "open_planner"]
