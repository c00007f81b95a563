"""Summary strip: power against the PSU and the room left, cards, bridges, how many jobs fit, and the host's RAM
and NVMe (need / installed).

The figures flow into a second row when the window is narrow (shell/flow.py), so the strip never sets the
window's minimum width. Colours follow the theme (the dark variants keep 4.5:1 on the dark window).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPaintEvent
from PySide6.QtWidgets import QLabel, QStyle, QStyleOptionFocusRect, QStylePainter, QWidget

from configurator.engine.model.result import BuildResult
from configurator.present.colours import STATUS_INK, STATUS_INK_DARK
from configurator.present.host_words import nvme_line, ram_line, short_line
from configurator.present.link_words import rate_words, short_rate_words
from configurator.present.words import psu_room_label
from configurator.ui.base import OK_COLOUR, OK_COLOUR_DARK, SEVERITY_COLOUR, SEVERITY_COLOUR_DARK, ViewState
from configurator.ui.shell.flow import FlowLayout


class _ClickLabel(QLabel):
    """A label that says when it is clicked (the Host figures open the host dialog), a Tab stop too: Enter or
    Space clicks it, and it draws the focus frame while it has the focus."""

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and not event.modifiers():
            self.clicked.emit()
            return
        super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.hasFocus():
            painter = QStylePainter(self)
            option = QStyleOptionFocusRect()
            option.initFrom(self)
            painter.drawPrimitive(QStyle.PrimitiveElement.PE_FrameFocusRect, option)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class SummaryStrip(QWidget):
    host_clicked = Signal()  # the Host figures were clicked: the window opens Edit > Host memory and storage…

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = FlowLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        self.power = QLabel()
        self.room = QLabel()
        self.cards = QLabel()
        self.bridges = QLabel()
        self.jobs = QLabel()
        self.links = QLabel()
        self.compute = QLabel()
        self.host = _ClickLabel()  # host RAM and NVMe: need / installed (engine/memory/host.py)
        self.host.setObjectName("summaryHost")
        self.host.setAccessibleName("Host memory and storage")
        self.host.setCursor(Qt.CursorShape.PointingHandCursor)
        self.host.clicked.connect(self.host_clicked)
        for w in (self.power, self.room, self.cards, self.bridges, self.jobs, self.links, self.compute, self.host):
            w.setTextFormat(Qt.TextFormat.RichText)
            layout.addWidget(w)
        self._dark = False
        self._last: tuple[BuildResult, int, int, float | None, int | None] | None = None

    def follow(self, view: ViewState) -> None:
        """Take the theme from the view state and follow it."""
        if view.dark:  # light is how it starts
            self.set_dark(True)
        view.theme_changed.connect(self.set_dark)

    def set_dark(self, dark: bool) -> None:
        """Redraw with the colours made for a dark (or light) background."""
        self._dark = dark
        if self._last is not None:
            self.update_result(*self._last)

    def _colour(self, meaning: str) -> str:
        if meaning == "ok":
            return OK_COLOUR_DARK if self._dark else OK_COLOUR
        if meaning == "unsized":
            return (STATUS_INK_DARK if self._dark else STATUS_INK)["unknown"]
        return (SEVERITY_COLOUR_DARK if self._dark else SEVERITY_COLOUR)[meaning]

    def update_result(self, result: BuildResult, n_cards: int, n_bridges: int, card_w: float | None = None,
                      free: int | None = None) -> None:  # fmt: skip
        """``card_w``: what one more card would draw (present.words.largest_card_w), ``free`` the empty slots
        (present.words.free_slots), for the PSU room."""
        self._last = (result, n_cards, n_bridges, card_w, free)
        self._power(result, card_w, free)
        self.cards.setText(f"<b>Cards</b> {n_cards}")
        self.bridges.setText(f"<b>Bridges</b> {n_bridges}")
        counts = result.status_counts
        self.jobs.setText(
            f"<b>Jobs</b> <span style='color:{self._colour('ok')}'>{counts['fits']} fit</span> · "
            f"<span style='color:{self._colour('warning')}'>{counts['tight']} tight</span> · "
            f"<span style='color:{self._colour('error')}'>{counts['does-not-fit']} don't fit</span>"
            # a job the engine could not size (an empty slot, an unknown model) is counted too, as the verdict does
            + (f" · <span style='color:{self._colour('unsized')}'>{counts['unknown']} not sized</span>"
               if counts["unknown"] else "")
        )  # fmt: skip
        self.links.setText(f"<b>Links</b> {short_rate_words(result.link_rates)}")
        self.links.setToolTip(f"Link rates: {rate_words(result.link_rates)} (View > Link rates)")
        if result.compute_rates == "estimated":
            # 'Compute incl. estimates' named neither what is estimated nor what else there is: the rates, both kinds
            self.compute.setText(f"<b>Compute rates</b> published <span style='color:{self._colour('warning')}'>"
                                 "+ estimated</span>")  # fmt: skip
            self.compute.setToolTip("Cards without a published dense BF16 rate use the catalog's UNCONFIRMED "
                                    "estimate (View > Compute rates)")  # fmt: skip
        else:
            self.compute.setText("<b>Compute rates</b> published only")
            self.compute.setToolTip("Compute time only from published dense BF16 rates (View > Compute rates)")
        self._host(result)

    def _host(self, result: BuildResult) -> None:
        host = result.host
        if host is None or not (host.ram_terms or host.nvme_terms):
            self.host.hide()
            return
        short = any(c.severity == "error" and c.code.startswith("HOST_") for c in result.checks)
        colour = self._colour("error" if short else "ok")
        self.host.setText(f"<b>Host</b> <span style='color:{colour}'>{escape(short_line(host))}</span>")
        self.host.setToolTip(f"{ram_line(host)}\n{nvme_line(host)}\nClick to state the DIMMs and drives installed "
                             "(Edit > Host memory and storage…), or Tab to it and press Enter")  # fmt: skip
        self.host.show()

    def _power(self, result: BuildResult, card_w: float | None, free: int | None = None) -> None:
        p = result.power
        if p and p.psu_capacity_w and p.margin_w is not None:
            colour = self._colour({"over": "error", "tight": "warning"}.get(p.psu_state, "ok"))  # the engine's verdict
            self.power.setText(f"<b>Power</b> <span style='color:{colour}'>{p.total_w:,.0f} W</span> of "
                               f"{p.psu_capacity_w:,.0f} W")  # fmt: skip
            self.power.setToolTip(f"Cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W; "
                                  f"margin {p.margin_w:,.0f} W (redundant PSUs held back)")  # fmt: skip
            self.room.setText(f"<b>PSU</b> {psu_room_label(p.margin_w, card_w, free)}")
            tip = "Counted in power only, in cards like the hungriest one fitted (its power limit applied)"
            if p.tight_above_w is not None:
                tip += f"; above {p.tight_above_w:,.0f} W the checks warn that the margin is thin"
            self.room.setToolTip(tip)
            self.room.show()
        else:
            self.power.setText("<b>Power</b> PSU rating unpublished")
            self.power.setToolTip(
                f"Cards {p.cards_w:,.0f} W + platform {p.platform_w:,.0f} W; check them against the vendor's PSU"
                if p
                else ""
            )
            self.room.hide()
