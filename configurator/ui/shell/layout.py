"""How the main window's views share the screen: the centre (chassis | analysis, then the summary), the
tabbed Cards/Jobs docks, the window's minimum and its first size.

Measured at 1024x700 before these rules (issue 15): the summary strip's single row made the centre 786 px
wide at least, so the window grew to 1048 px and its right edge (the analysis tabs, the status bar) left a
1024 px screen; the MIG and topology pages need about 580 px and were cut inside a 414 px panel.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFrame,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

SCREEN_FRACTION = 0.9  # a first start fills most of the screen (1728x972 on 1920x1080), not a fixed size
SMALL_SCREEN_W = 1500  # below this width a first start takes the whole available area: at 90 % of 1280x800
# (1152x720) the analysis half was 441 px, under the 454 px its tab strip needs, and the Headroom chart's
# legend pushed slot 3's bar off its right edge
CHASSIS_MIN_W = 300
ANALYSIS_SHARE = 0.5  # of the splitter at first: the chassis is drawn to fit its width (to scale), so it needs
# half to stay readable at 1280x800; an analysis page wider than its half scrolls sideways (1024 px screens)
LEFT_DOCK_SHARE, LEFT_DOCK_RANGE = 0.225, (230, 340)  # the Cards/Jobs docks: the jobs form wants ~265-300 px


def left_dock_width(window_width: int) -> int:
    """The Cards/Jobs docks' width for a window ``window_width`` wide: 230 px at 1024, 288 at 1280, 340 on
    a full-HD screen (what is left keeps the chassis' 300 px and the analysis' ~580 px from 1280 up)."""
    low, high = LEFT_DOCK_RANGE
    return max(low, min(high, round(window_width * LEFT_DOCK_SHARE)))


def default_geometry(available: QRect, minimum: QSize, fraction: float = SCREEN_FRACTION) -> QRect:
    """``fraction`` of the screen's ``available`` area, centred, never under ``minimum`` (then from its
    top-left corner, so the title bar stays on screen); all of it on a screen under ``SMALL_SCREEN_W``."""
    if available.width() < SMALL_SCREEN_W:
        fraction = 1.0
    size = QSize(round(available.width() * fraction), round(available.height() * fraction)).expandedTo(minimum)
    rect = QRect(QPoint(0, 0), size)
    rect.moveCenter(available.center())
    rect.moveTopLeft(QPoint(max(rect.left(), available.left()), max(rect.top(), available.top())))
    return rect


def place_window(window: QWidget, saved: QByteArray) -> bool:
    """Where the window was left (``saved``, Qt's saveGeometry), else ``default_geometry`` on its screen.
    Returns whether the saved geometry was used."""
    if not saved.isEmpty() and window.restoreGeometry(saved):
        return True
    screen = window.screen() or QGuiApplication.primaryScreen()
    available = screen.availableGeometry()
    window.setGeometry(default_geometry(available, window.minimumSize()))
    holds = available.width() >= window.minimumWidth() and available.height() >= window.minimumHeight()
    if holds and available.width() < SMALL_SCREEN_W:  # the whole screen: maximized, so a window manager's frame
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)  # fits too
    return False


def first_split(centre_width: int, tabs_width: int) -> tuple[int, int]:
    """(chassis, analysis) widths for a first show in a centre ``centre_width`` px wide: half each, the
    analysis more where its tab strip (``tabs_width``) needs it, so every tab shows, as long as the chassis
    keeps ``CHASSIS_MIN_W``."""
    analysis = max(round(centre_width * ANALYSIS_SHARE), min(centre_width - CHASSIS_MIN_W, tabs_width + 12))
    return centre_width - analysis, analysis


def centre(chassis_view: QWidget, analysis: QWidget, summary: QWidget) -> tuple[QWidget, QSplitter, QScrollArea]:
    """The chassis beside the analysis tabs, the summary below. The analysis sits in a scroll area: where
    the window is too narrow for its widest page (1024 px screens), it scrolls instead of being cut."""
    scroll = QScrollArea()
    scroll.setWidget(analysis)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no Tab stop of its own: the tabs and pages take focus
    scroll.setMinimumSize(360, 240)
    # sideways only: the window's minimum height (MIN_WINDOW) leaves the pages their 300 px
    scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    chassis_view.setMinimumSize(CHASSIS_MIN_W, 240)
    # the chassis is drawn to fit its width: at the top of its view, not centred under a band of nothing
    chassis_view.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)  # type: ignore[attr-defined]
    split = QSplitter(Qt.Orientation.Horizontal)
    split.addWidget(chassis_view)
    split.addWidget(scroll)
    split.setStretchFactor(0, 1)
    split.setStretchFactor(1, 1)
    split.setChildrenCollapsible(False)
    split.setSizes([round(1000 * (1 - ANALYSIS_SHARE)), round(1000 * ANALYSIS_SHARE)])
    widget = QWidget()
    col = QVBoxLayout(widget)
    col.setContentsMargins(0, 0, 0, 0)
    col.addWidget(split, 1)
    col.addWidget(summary)
    return widget, split, scroll


class _NoTitle(QWidget):
    """A dock's title bar of no size (a plain QWidget's size hint is -1 x -1, which the dock's layout turned
    into a negative minimum height)."""

    def sizeHint(self) -> QSize:
        return QSize(0, 0)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, 0)


def tab_docks(window: QMainWindow, docks: list[QDockWidget]) -> None:
    """Tab ``docks`` together, the first one raised. While tabbed, a dock has no title bar of its own: the
    tab names it, and the title repeated it ("Cards" above the Cards tab)."""
    for other in docks[1:]:
        window.tabifyDockWidget(docks[0], other)
    docks[0].raise_()

    def titles(*_: object) -> None:
        for dock in docks:
            tabbed = not dock.isFloating() and bool(window.tabifiedDockWidgets(dock))
            if tabbed and dock.titleBarWidget() is None:
                dock.setTitleBarWidget(_NoTitle(dock))
            elif not tabbed and dock.titleBarWidget() is not None:
                old = dock.titleBarWidget()
                dock.setTitleBarWidget(None)  # type: ignore[arg-type]
                old.deleteLater()

    for dock in docks:
        dock.topLevelChanged.connect(titles)
        dock.dockLocationChanged.connect(titles)
    titles()


def parked(widget: QWidget, window: QWidget) -> bool:
    """Whether ``widget`` is in a part of ``window`` Qt keeps "visible" but off-screen: a dock behind another
    dock's tab is moved to -500 - its size (QWidgetAnimator), not hidden."""
    part = widget
    parent = part.parentWidget()
    while parent is not None and parent is not window:
        part, parent = parent, parent.parentWidget()
    return not QRect(part.mapTo(window, QPoint(0, 0)), part.size()).intersects(window.rect())


def _tab_stop(widget: QWidget, window: QWidget) -> bool:
    """Whether Tab may stop at ``widget``: it takes Tab focus, is shown and enabled, and is not parked."""
    takes_tab = bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and widget.focusProxy() is None
    shown = widget.window() is window and widget.isVisible() and widget.isEnabled()
    return takes_tab and shown and not parked(widget, window)


def tab_ring(window: QWidget, regions: list[QWidget], start: QWidget) -> list[QWidget]:
    """``window``'s focus chain (with ``start`` in it) ordered by the region each widget lies in
    (``regions``: widgets in the order Tab should visit them; a widget in none comes last), Qt's chain order
    kept inside a region. Qt's own chain follows the order the widgets were made: the docks, made after the
    centre, came after the charts."""
    chain: list[QWidget] = []
    widget: QWidget | None = start
    for _ in range(10_000):  # the chain is a ring; the bound only guards a broken one
        assert widget is not None
        chain.append(widget)
        widget = widget.nextInFocusChain()
        if widget is None or widget is start:
            break

    def region(w: QWidget) -> int:
        for i, part in enumerate(regions):
            if w is part or part.isAncestorOf(w):
                return i
        return len(regions)

    # from the window itself (a fixed start), so the order does not depend on where the focus is
    first = chain.index(window) if window in chain else 0
    chain = chain[first:] + chain[:first]
    return sorted(chain, key=region)  # stable: the chain's order inside each region


def focus_next_shown(window: QWidget, forward: bool, regions: list[QWidget] | None = None) -> bool:
    """Tab (Shift+Tab): the focus to the next (previous) widget of the Tab chain that takes Tab focus and is
    not parked off-screen. Qt's own chain walked into the Jobs form behind the Cards tab, where two Down
    presses changed a LoRA rank unseen. Walks the chain without moving the focus through the skipped
    widgets (no focus-out edits from the hidden form). With ``regions``, the chain is taken in their order
    (tab_ring). False when no widget qualifies (Qt's own then)."""
    start = QApplication.focusWidget()
    if start is None or start.window() is not window:
        return False
    ring = tab_ring(window, regions or [], start)
    at = ring.index(start)
    step = 1 if forward else -1
    for k in range(1, len(ring)):
        widget = ring[(at + step * k) % len(ring)]
        if _tab_stop(widget, window):
            widget.setFocus(Qt.FocusReason.TabFocusReason if forward else Qt.FocusReason.BacktabFocusReason)
            return True
    return False
