"""Analysis tabs: fit frontier, step time, roofline and the link topology of the build.

Each chart creates its plot items once and updates them with ``setData`` / ``setOpts`` on every
``BuildDocument.changed``; text labels come from small fixed pools. No axis grids (pyqtgraph repaints
them as a QPicture on every frame). Every number drawn comes from the engine (the result or
``engine.sweep.fit_frontier``); the drawing code only places it.
"""

from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QTextOption
from PySide6.QtWidgets import (
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.richtext import escape_rich, plain_tooltip
from configurator.ui.base import is_dark

LIGHT_INK, DARK_INK = "#222222", "#e6e6e6"
DARK_BACKGROUND = "#1f1f1f"  # a chart's panel in the dark theme
LIGHT_ALERT, DARK_ALERT = "#C62828", "#FF6F6F"  # "does not fit", communication dominates
LABEL_PT = 8.5

# Link kinds as the engine names them (Collective.link), coloured like the topology grid:
# NVLink green, PCIe inside a switch yellowish, through a CPU orange, across CPUs red.
LINK_STYLE: dict[str, tuple[str, str]] = {
    "nvlink": ("NVLink", "#2E9E4F"),
    "nvswitch": ("NVSwitch", "#00796B"),
    "pcie-pix": ("PCIe, one switch (PIX)", "#D4B000"),
    "pcie-pxb": ("PCIe, switches (PXB)", "#E69F00"),
    "pcie-node": ("PCIe, one CPU (NODE)", "#EF6C00"),
    "pcie-sys": ("PCIe across CPUs (SYS)", "#C62828"),
}
OTHER_LINK = ("Other link", "#8D6E63")
COMPUTE_MATMUL = ("Compute-bound ops", "#0072B2")  # GEMMs, attention (engine/time/steptime)
COMPUTE_MEMORY = ("Memory-bound ops", "#7FA7C9")  # elementwise, LoRA, dequant, optimizer

# Topology cells: (background, short meaning). Text on them is always dark.
TOPO_COLOURS = {
    "X": "#CFCFCF",
    "NV": "#A5D6A7",
    "PIX": "#FFF59D",
    "PXB": "#FFE082",
    "NODE": "#FFB74D",
    "SYS": "#EF9A9A",
}

MB_COLOURS = {1: "#0072B2", 2: "#009E73", 4: "#CC79A7", 8: "#E69F00"}
COMPARE_STYLES = [Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]
ROOF_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]


def _font(size: float = LABEL_PT, bold: bool = False) -> QFont:
    f = QFont()
    f.setPointSizeF(size)
    f.setBold(bold)
    return f


def _shorten(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _wrap(text: str, width: int, lines: int = 2) -> str:
    """Word-wrap ``text`` at ``width`` characters into at most ``lines`` lines (the last one shortened)."""
    out: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    out.append(line)
    if len(out) > lines:
        out = [*out[: lines - 1], _shorten(" ".join(out[lines - 1 :]), width)]
    return "\n".join(out)


def _length_label(v: float) -> str:
    v = int(v)
    return f"{v // 1024}k" if v >= 1024 and v % 1024 == 0 else f"{v:,}"


def _decade_label(k: int) -> str:
    v = 10.0**k
    if v >= 1000:
        return f"{v / 1000:g}k"
    return f"{v:g}"


def axis_number(v: float) -> str:
    """An axis tick label that stays readable for any value the engine can produce (10,000 GB and up)."""
    if not math.isfinite(v):
        return ""
    a = abs(v)
    if a >= 1e7:
        return f"{v:.1e}"
    if a >= 1000:
        return f"{v:,.0f}"
    return f"{v:g}"


class TipKeeper(QObject):
    """Keeps a chart's tooltip up while the mouse rests on what it describes.

    QGraphicsView answers Qt's resting-mouse ``QEvent.ToolTip`` (sent ~700 ms after the last move) by
    hiding any tooltip when no graphics item has one of its own, so a breakdown shown from
    ``sigMouseMoved`` vanished before it could be read. While a tip is shown this filter swallows that
    event, and the tip is shown with no auto-hide timeout; it goes when the pointer leaves the item or
    the widget.
    """

    HOLD_MS = 600_000  # effectively no auto-hide: the tip stays until the pointer moves off

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.view = view
        self.text = ""
        view.installEventFilter(self)
        view.viewport().installEventFilter(self)  # type: ignore[attr-defined]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.text:
            return True  # ours is up: don't let the view hide it
        if event.type() == QEvent.Type.Leave and watched is self.view:
            self.hide()
        return False

    def show(self, scene_pos: QPointF, text: str, rich: bool = False) -> None:
        """Show ``text`` at ``scene_pos``: plain text shown as typed (the chart's words name jobs and cards, user
        text); ``rich`` text is shown as markup, its caller having escaped every user string in it (escape_rich):
        passed through ``plain_tooltip`` the headroom chart's breakdown showed its ``<b>`` and ``<br>`` tags."""
        where = self.view.mapToGlobal(self.view.mapFromScene(scene_pos))  # type: ignore[attr-defined]
        if text == self.text and QToolTip.isVisible():
            return
        self.text = text
        QToolTip.showText(where, text if rich else plain_tooltip(text), self.view, QRect(), self.HOLD_MS)

    def hide(self) -> None:
        if self.text:
            self.text = ""
            QToolTip.hideText()


def wrap_label(label: pg.LabelItem, room: float, centred: bool = False) -> None:
    """Break ``label``'s text into lines ``room`` px wide when one line is wider (a LabelItem's minimum width is
    its text's, so a long title or note made the scene wider than its view and cut the chart's right side);
    a title in a PlotItem's fixed 30 px row gets a row as tall as its lines."""
    item = label.item
    item.setTextWidth(-1)
    natural = item.boundingRect().width()
    if natural > room > 40:
        item.setTextWidth(room)
        if centred:
            option = QTextOption(Qt.AlignmentFlag.AlignHCenter)
            option.setWrapMode(QTextOption.WrapMode.WordWrap)
            item.document().setDefaultTextOption(option)
    label.updateMin()
    label.resizeEvent(None)
    plot = label.parentItem()
    if isinstance(plot, pg.PlotItem) and label is plot.titleLabel and label.isVisible():
        height = max(30, math.ceil(label.itemRect().height()) + 4)
        label.setMaximumHeight(height)
        plot.layout.setRowFixedHeight(0, height)


def fit_legend(legend: pg.LegendItem, room: float, most: int) -> None:
    """As many legend columns (up to ``most``) as ``room`` px hold: a legend wider than its view pushed the
    plot past the right edge. A column is as wide as its widest label, its sample and the spacing."""
    if not legend.items:
        return
    widths = [label.item.boundingRect().width() + 48 for _, label in legend.items]
    cols = 1
    for c in range(min(most, len(widths)), 1, -1):
        if sum(max(widths[j::c]) for j in range(c)) <= room:
            cols = c
            break
    if cols != legend.columnCount:
        legend.setColumnCount(cols)


LegendKey = tuple[tuple[int, str], ...]  # what a legend lists: each entry's item (by id) and its words


def set_legend(legend: pg.LegendItem, entries: list[tuple[object, str]], listed: LegendKey) -> LegendKey:
    """List ``entries`` (a plot item, or an ItemSample drawn as its own sample, and its words) in ``legend``, which
    lists ``listed`` (this function's last answer); returns what it lists now. Only words changed: those labels are
    retexted (a rebuild costs a few ms); else it is rebuilt, each label in the legend's colour and size
    (restyle_legend). Every label escaped: pyqtgraph draws it as HTML, and a job or card name is never markup."""
    key = tuple((id(item), label) for item, label in entries)
    if key == listed:
        return key
    if [k[0] for k in key] == [k[0] for k in listed]:
        for (_, label_item), (_, text) in zip(legend.items, entries, strict=True):
            if label_item.text != escape_rich(text):
                label_item.setText(escape_rich(text))  # in the colour and size it has
    else:
        legend.clear()
        for item, label in entries:
            legend.addItem(item, escape_rich(label))
    return key


def restyle_legend(legend: pg.LegendItem, colour: object = None, size: str | None = None) -> None:
    """The legend's labels in ``colour`` and ``size`` (CSS: '8.5pt'), drawn again; the labels listed later take
    them too (pyqtgraph makes a label in the legend's own)."""
    if colour is not None:
        legend.setLabelTextColor(colour)
    if size is not None:
        legend.setLabelTextSize(size)
    for _, label in legend.items:
        label.setText(label.text)


class _Chart(QWidget):
    """A GraphicsLayoutWidget with a legend row above the plot, a note row below it and an empty-state text."""

    def __init__(self, name: str, legend_cols: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.max_legend_cols = legend_cols
        self.ink = LIGHT_INK
        self.alert = LIGHT_ALERT
        self.dark = False
        self._title = ""
        self._legend_key: LegendKey = ()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        self.view.setAccessibleName(name)
        self.view.ci.setContentsMargins(4, 2, 8, 2)
        self.view.ci.setSpacing(0)
        layout.addWidget(self.view)
        self.legend = pg.LegendItem(colCount=legend_cols, labelTextColor=self.ink, horSpacing=12,
                                    labelTextSize=f"{LABEL_PT}pt", verSpacing=-6)  # fmt: skip
        self.view.addItem(self.legend, row=0, col=0)
        self.plot = self.view.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.note = pg.LabelItem("", size=f"{LABEL_PT}pt", color=self.ink, justify="left")
        self.view.addItem(self.note, row=2, col=0)
        self.tips = TipKeeper(self.view)
        self.empty = pg.TextItem("", anchor=(0.5, 0.5), color="#777")
        self.empty.setFont(_font(10))
        self.empty.setZValue(50)
        self.plot.addItem(self.empty)
        self.empty.setVisible(False)
        self._empty_text = ""
        self._filled: list[pg.TextItem] = []
        self._blank_ticks = False

    # ---- pieces ----
    def _label(self, anchor: tuple[float, float] = (0.5, 1.0), bold: bool = False, fill: bool = False,
               size: float = LABEL_PT) -> pg.TextItem:  # fmt: skip
        t = pg.TextItem("", anchor=anchor, color=self.ink)
        t.setFont(_font(size, bold))
        t.setZValue(20)
        t.setVisible(False)
        if fill:  # a backing in the background colour keeps the text readable over curves
            t.fill = pg.mkBrush(self._backing())
            self._filled.append(t)
        self.plot.addItem(t)
        return t

    def _backing(self) -> QColor:
        c = QColor(DARK_BACKGROUND if self.dark else "#ffffff")
        c.setAlpha(215)
        return c

    def _set_text(self, item: pg.TextItem, text: str, colour: str | None = None, centred: bool = False) -> None:
        """setText / setHtml re-render the item: only when something changed."""
        colour = colour or self.ink
        key = (text, colour, centred)
        if getattr(item, "_key", None) == key:
            return
        item._key = key
        if centred:
            body = "<br>".join(html.escape(line) for line in text.split("\n"))
            item.textItem.setTextWidth(-1)
            item.textItem.setHtml(f"<div align='center' style='color:{colour};'>{body}</div>")
            item.textItem.setTextWidth(item.textItem.document().idealWidth())
            item.updateTextPos()
        else:
            item.setText(text, color=colour)

    def _show_tip(self, pos: QPointF, text: str | None) -> None:
        """Show ``text`` as a tooltip at the scene position ``pos`` (or hide the tooltip)."""
        if text:
            self.tips.show(pos, text)
        else:
            self.tips.hide()

    @property
    def title_text(self) -> str:
        """The chart's title as drawn above the plot."""
        return self._title

    def _set_title(self, title: str) -> None:
        if title != self._title:
            self._title = title
            # pyqtgraph draws titles, notes, axis titles and legend labels as HTML (LabelItem): every one is
            # escaped here, where the text meets the sink, so a job or card name is never markup
            self.plot.setTitle(escape_rich(title), color=self.ink, size="10pt")
            self._fit_texts()

    def _set_note(self, text: str) -> None:
        if text != getattr(self, "_note_html", None):
            self._note_html = text
            self.note.setText(escape_rich(text, 2000), color=self.ink)
            self._fit_texts()

    def _fit_texts(self) -> None:
        """The title and the note wrap to the widget's width instead of widening the scene past it."""
        room = self.width() - 28
        wrap_label(self.plot.titleLabel, room - 60, centred=True)  # beside the value axis
        wrap_label(self.note, room)

    def _set_legend(self, entries: list[tuple[object, str]]) -> None:
        listed, self._legend_key = self._legend_key, set_legend(self.legend, entries, self._legend_key)
        if self._legend_key != listed:
            self._fit_legend()

    def _fit_legend(self) -> None:
        """As many legend columns as the width holds: a legend wider than the widget would push the plot
        past the right edge."""
        fit_legend(self.legend, self.width() - 24, self.max_legend_cols)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().resizeEvent(event)
        self._fit_legend()
        self._fit_texts()

    def _set_axes(self, bottom: str, left: str) -> None:
        self._axis_titles = (bottom, left)
        for side in ("left", "bottom"):
            ax = self.plot.getAxis(side)
            ax.setTextPen(self.ink)
            ax.setPen("#888")
            ax.label.setFont(_font(9))
            ax.enableAutoSIPrefix(False)
        # after setPen, which writes the line's grey into the axis title's colour (3.5:1 on white)
        self.plot.setLabel("bottom", escape_rich(bottom), color=self.ink)
        self.plot.setLabel("left", escape_rich(left), color=self.ink)

    def _show_empty(self, text: str) -> None:
        """Hide the data, say why, keep the axes."""
        self._empty_text = text
        self._set_text(self.empty, text, "#8a8a8a")
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self.empty.setPos(0.5, 0.5)
        self.empty.setVisible(True)
        if not self._blank_ticks:  # no numbers on an empty chart
            self._blank_ticks = True
            for side in ("left", "bottom"):
                self.plot.getAxis(side).setTicks([[], []])

    def _hide_empty(self) -> None:
        self._empty_text = ""
        self.empty.setVisible(False)
        if self._blank_ticks:
            self._blank_ticks = False
            for side in ("left", "bottom"):
                self.plot.getAxis(side).setTicks(None)

    def is_empty(self) -> bool:
        return bool(self.empty.isVisible())

    def empty_text(self) -> str:
        return self._empty_text

    def set_dark(self, dark: bool) -> None:
        self.dark = dark
        self.ink = DARK_INK if dark else LIGHT_INK
        self.alert = DARK_ALERT if dark else LIGHT_ALERT
        self.view.setBackground(DARK_BACKGROUND if dark else "w")
        title, self._title = self._title, ""
        self._set_title(title)
        restyle_legend(self.legend, self.ink)
        note = getattr(self, "_note_html", "")
        self._note_html = None  # type: ignore[assignment]  # forces _set_note to draw it again in the new ink
        self._set_note(note)
        for t in self._filled:
            t.fill = pg.mkBrush(self._backing())
            t.update()
        if hasattr(self, "_axis_titles"):
            self._set_axes(*self._axis_titles)


# ====================================================================================================
# Fit frontier
# ====================================================================================================


def palette_is_dark(widget: QWidget) -> bool:
    """Whether the widget's palette (the application's, which View > Dark theme sets) is the dark one: the charts
    outside the analysis tabs follow it (ui/base is_dark: the inks' and the job form's rule too)."""
    return is_dark(widget)
