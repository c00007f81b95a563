"""The sheet's memory figure: each card's bar stacks what is alive at its peak, so the bar's top is the peak
reserved the headroom written on it is measured from (each kind's largest over the run stacked above it)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage, QPainter

from tests.sheet_text import ROOT


class _Recorder:
    """A QPainter that records the rectangles drawn with a brush (the bars' segments)."""

    def __init__(self, painter: QPainter) -> None:
        self._painter = painter
        self.rects: list[QRectF] = []

    def drawRect(self, rect: QRectF) -> None:
        self.rects.append(QRectF(rect))
        self._painter.drawRect(rect)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._painter, name)


def test_the_bar_stands_as_high_as_its_peak(qapp) -> None:  # type: ignore[no-untyped-def]
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.report.figures import _y, draw_headroom

    build = load_build(ROOT / "resources" / "builds" / "default.yaml")
    job = evaluate(build).jobs[0]
    row = job.cards[0]
    largest = sum(getattr(row, k) for k in ("weights_gb", "adapters_gb", "gradients_gb", "optimizer_gb",
                                            "activations_gb", "transient_gb", "overhead_gb"))  # fmt: skip
    assert largest > row.peak_reserved_gb + 0.5  # the case the figure got wrong: the largests overstate the peak
    image = QImage(600, 300, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    recorder = _Recorder(painter)
    try:
        rect = QRectF(0, 0, 600, 300)
        draw_headroom(recorder, rect, job)  # type: ignore[arg-type]
    finally:
        painter.end()
    bar = [r for r in recorder.rects if r.width() > 7]  # the legend's swatches are 7 wide
    card_x = bar[0].center().x()
    segments = [r for r in bar if abs(r.center().x() - card_x) < 1]
    top_px = min(r.top() for r in segments)
    bottom_px = max(r.bottom() for r in segments)
    drawn = sum(r.height() for r in segments)
    assert abs(drawn - (bottom_px - top_px)) < 0.5  # stacked, not overlapping
    # the plot's scale from the figure's own mapping: the drawn height is the peak reserved's
    legend_h, axis_w, bottom_h = 14.0, 34.0, 22.0
    plot = QRectF(axis_w, legend_h + 6, 600 - axis_w - 4, 300 - legend_h - bottom_h - 6)
    top = max(max(r.peak_reserved_gb, r.capacity_gb) for r in job.cards) * 1.15
    assert abs(top_px - _y(plot, top, row.peak_reserved_gb)) < 0.5
