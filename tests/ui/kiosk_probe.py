"""Run as a script on a bare X server (xvfb-run, no window manager): the demo as the app starts it
(``DemoWindow.cover_screen``), then one JSON line: its geometry against the screen's, its window flags, whether
every chassis slot lies inside the chassis view, and the Qt messages logged.
Saves the whole screen (the root window) to OUT."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt, qInstallMessageHandler
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


def main(out: Path) -> None:
    messages: list[str] = []
    qInstallMessageHandler(lambda mode, context, text: messages.append(text))
    app = QApplication(sys.argv[:1])  # noqa: F841  (kept alive for the run)
    from configurator.ui.kiosk import DemoWindow
    from tests.gui_helpers import charts_cut

    demo = DemoWindow()
    demo.cover_screen()
    QTest.qWaitForWindowExposed(demo)
    QTest.qWait(1500)
    screen = demo.screen().geometry()
    view = demo.chassis
    shown = QRect(QPoint(0, 0), view.viewport().size())
    slots = {slot: view.mapFromScene(item.sceneBoundingRect()).boundingRect() for slot, item in view.slot_items.items()}
    cut = [slot for slot, rect in slots.items() if not shown.adjusted(-1, -1, 1, 1).contains(rect)]
    heights = sorted(rect.height() for rect in slots.values())
    out.parent.mkdir(parents=True, exist_ok=True)
    demo.screen().grabWindow(0).save(str(out))
    flags = demo.windowFlags()
    print(json.dumps({
        "screen": [screen.width(), screen.height()],
        "window": [demo.geometry().x(), demo.geometry().y(), demo.width(), demo.height()],
        "frameless": bool(flags & Qt.WindowType.FramelessWindowHint),
        "on_top": bool(flags & Qt.WindowType.WindowStaysOnTopHint),
        "slots": len(slots), "slots_cut": cut, "slot_height_px": heights[0] if heights else 0,
        "chart_plot_px": round(demo.chart.plot.vb.height()),
        "charts_cut": charts_cut(demo),
        "messages": messages,
    }))  # fmt: skip
    demo.allow_close = True
    demo.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
