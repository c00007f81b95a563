"""Headroom chart: per card (and MIG instance) per job, stacked memory components against the memory
the driver shows, with the headroom written on each bar. Items are created once and updated with
``setOpts`` / ``setData`` on every change, so a drag repaints within a frame.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QToolTip, QVBoxLayout, QWidget

from configurator.engine.result import BuildResult, CardMemory
from configurator.present.words import headroom_label
from configurator.ui.shell.style import COMPONENTS, FIT_COLOUR, to_unit

BAR_WIDTH = 0.6
MAX_LABELS = 64


class HeadroomChart(QWidget):
    def __init__(self, parent: QWidget | None = None, unit: str = "GB") -> None:
        super().__init__(parent)
        self.unit = unit
        self.dark = False
        self.ink = "#222"
        self.rows: list[tuple[str, CardMemory]] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # Legend in its own row above the plot, so it never covers a bar.
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        self.view.setAccessibleName("Headroom chart")
        layout.addWidget(self.view)
        self.legend = pg.LegendItem(colCount=4, labelTextColor="#222", horSpacing=14)
        self.view.addItem(self.legend, row=0, col=0)
        self.plot = self.view.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setTitle("Memory per card against what the driver shows", color="#222", size="10pt")
        # No axis grid: pyqtgraph redraws it as a QPicture on every repaint (10 ms at 1920x1080 in software
        # rendering, measured in benchmarks/test_bench_gui.py); the capacity lines are the reference.
        self.bars: dict[str, pg.BarGraphItem] = {}
        for key, label, colour in COMPONENTS:
            bar = pg.BarGraphItem(x=[], height=[], width=BAR_WIDTH, y0=[], brush=colour, pen=pg.mkPen("w", width=0.5))
            self.plot.addItem(bar)
            self.legend.addItem(bar, label)
            self.bars[key] = bar
        self.capacity = pg.PlotDataItem([], [], pen=pg.mkPen("#212121", width=2.5), connect="pairs")
        self.plot.addItem(self.capacity)
        self.legend.addItem(self.capacity, "Capacity")
        self.labels: list[pg.TextItem] = []
        font = QFont()
        font.setPointSizeF(8.5)
        font.setBold(True)
        for _ in range(MAX_LABELS):
            t = pg.TextItem("", anchor=(0.5, 1.0), color="#222")
            t.setFont(font)
            t.setVisible(False)
            self.plot.addItem(t)
            self.labels.append(t)
        self.empty = pg.TextItem("Place a card and assign a job to see its memory", anchor=(0.5, 0.5), color="#777")
        self.plot.addItem(self.empty)
        self._set_axes()
        self.plot.scene().sigMouseMoved.connect(self._hover)

    def set_dark(self, dark: bool) -> None:
        """Follow the window's light or dark theme."""
        self.dark = dark
        self.ink = "#e6e6e6" if dark else "#222"
        self.view.setBackground("#1f1f1f" if dark else "w")
        self.plot.setTitle("Memory per card against what the driver shows", color=self.ink, size="10pt")
        self.legend.setLabelTextColor(self.ink)
        for _, label in self.legend.items:
            label.setText(label.text, color=self.ink)
        self.capacity.setPen(pg.mkPen(self.ink, width=2.5))
        self._set_axes()
        if self.rows:
            self.update_result_rows()

    def _set_axes(self) -> None:
        ink = self.ink
        self.plot.setLabel("left", f"Memory ({self.unit})", color=ink)
        self.plot.getAxis("bottom").setHeight(44)
        for side in ("left", "bottom"):
            ax = self.plot.getAxis(side)
            ax.setTextPen(ink)
            ax.setPen("#888")

    def set_unit(self, unit: str, result: BuildResult | None = None) -> None:
        self.unit = unit
        self._set_axes()
        if result is not None:
            self.update_result(result)

    # ---- data ----
    def update_result(self, result: BuildResult) -> None:
        self.rows = [(job.name, row) for job in result.jobs for row in job.cards]
        self.update_result_rows()

    def update_result_rows(self) -> None:
        n = len(self.rows)
        xs = np.arange(n, dtype=float)
        base = np.zeros(n)
        for key, _, _ in COMPONENTS:
            h = np.array([to_unit(getattr(r, key), self.unit) for _, r in self.rows], dtype=float)
            self.bars[key].setOpts(x=xs, height=h, y0=base.copy(), width=BAR_WIDTH)
            base += h
        caps = [to_unit(r.capacity_gb, self.unit) for _, r in self.rows]
        cx = np.repeat(xs, 2) + np.tile([-0.42, 0.42], n) if n else np.array([])
        cy = np.repeat(caps, 2) if n else np.array([])
        self.capacity.setData(cx, cy)
        for i, label in enumerate(self.labels):
            if i < n:
                _, r = self.rows[i]
                label.setText(headroom_label(r.headroom_gb, r.fits, self.unit))
                ok = "#81C784" if self.dark else "#1B5E20"
                label.setColor(FIT_COLOUR[r.status] if r.status != "fits" else ok)
                label.setPos(float(i), max(base[i], caps[i]) * 1.01)
                label.setVisible(True)
            else:
                label.setVisible(False)
        self.empty.setVisible(n == 0)
        ticks = []
        for i, (job, r) in enumerate(self.rows):
            where = f"slot {r.slot}" + (f" {r.mig}#{r.instance}" if r.mig else "")
            short = job if len(job) <= 18 else job[:17] + "…"
            ticks.append((float(i), f"{where}\n{short}"))
        self.plot.getAxis("bottom").setTicks([ticks])
        top = max([*(base.tolist() if n else []), *caps, 1.0]) * 1.25
        self.plot.setXRange(-0.6, max(n - 0.4, 0.6), padding=0)
        self.plot.setYRange(0, top, padding=0)
        if n == 0:
            self.empty.setPos(0, top / 2)

    # ---- hover ----
    def tooltip_for(self, index: int) -> str:
        job, r = self.rows[index]
        u = self.unit
        lines = [f"<b>{job}</b> — slot {r.slot} {r.card_name}" + (f" ({r.mig} instance {r.instance})" if r.mig else "")]
        lines += [f"{label}: {to_unit(getattr(r, key), u):.2f} {u}" for key, label, _ in COMPONENTS]
        lines += [
            f"Model states: {to_unit(r.model_states_gb, u):.2f} {u}",
            f"Peak allocated: {to_unit(r.peak_allocated_gb, u):.2f} {u}",
            f"Peak reserved (nvidia-smi): {to_unit(r.peak_reserved_gb, u):.2f} {u} "
            f"(band {to_unit(r.peak_low_gb, u):.1f}–{to_unit(r.peak_high_gb, u):.1f})",
            f"Capacity: {to_unit(r.capacity_gb, u):.2f} {u} · headroom {to_unit(r.headroom_gb, u):.2f} {u}",
            f"Status: {r.status}",
        ]
        if r.reserved_set_by == "fsdp-setup":
            lines.append(
                f"Reserved set by the FSDP set-up pool ({to_unit(r.fsdp_setup_pool_gb, u):.2f} {u}), not the step"
            )
        return "<br>".join(lines)

    def _hover(self, pos: QPointF) -> None:
        if not self.rows:
            return
        point = self.plot.vb.mapSceneToView(pos)
        i = round(point.x())
        if 0 <= i < len(self.rows) and abs(point.x() - i) <= BAR_WIDTH / 2:
            # scene -> widget -> screen: the plot is a graphics item, the layout widget maps to the screen
            where = self.view.mapToGlobal(self.view.mapFromScene(pos))
            QToolTip.showText(where, self.tooltip_for(i), self.view)
        else:
            QToolTip.hideText()

    def bar_colour(self, key: str) -> QColor:
        return QColor(next(c for k, _, c in COMPONENTS if k == key))

    def heights(self, key: str) -> list[float]:
        """Bar heights of one component, for tests and exports."""
        opts = self.bars[key].opts
        return [float(v) for v in (opts.get("height") if opts.get("height") is not None else [])]
