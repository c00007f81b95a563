"""The kiosk window's widgets and layout: the side column of questions, the stage (words, key figure, chassis,
chart, controls), the cross-fade and the banner; type and sizes for the screen (rescale). The window connects the
widgets' signals; the plan scenario's buttons (planmode.py) are placed here, built there."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import QEasingCurve, QPropertyAnimation, Qt
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from configurator.catalog.loader import Catalog
from configurator.ui.base import BuildDocument
from configurator.ui.charts import HeadroomChart
from configurator.ui.kiosk.scaling import scale_css, scale_tree
from configurator.ui.kiosk.scenarios import ACCENT, INK, METHODS, MUTED, SEQUENCE_LENGTHS, TOP_H, Scenario
from configurator.ui.kiosk.widgets import DemoChassisView, DemoPalette, MessageBar, WrapButton, _font

STYLE = f"""
DemoWindow {{ background: #F4F6F3; }}
QLabel {{ color: {INK}; }}
QPushButton {{ background: white; border: 2px solid #B8C2B0; border-radius: 14px; padding: 8px 18px;
              color: {INK}; min-height: 64px; font-size: 20pt; }}
QPushButton:checked {{ background: {ACCENT}; border-color: {ACCENT}; color: white; }}
QPushButton:pressed {{ background: #DDE7D6; }}
QPushButton:disabled {{ color: #9E9E9E; border-color: #DDDDDD; }}
QPushButton#primary {{ background: #76B900; border-color: #5E9400; color: #0B1F00; font-weight: bold; }}
QPushButton#primary:pressed {{ background: #5E9400; }}
QPushButton#pinkey {{ font-size: 30pt; }}
QFrame#card {{ background: white; border-radius: 18px; border: 1px solid #D6DDD0; }}
QLabel#message {{ background: white; border-radius: 14px; border: 2px solid #D6DDD0; }}
QListWidget {{ background: white; border: 1px solid #D6DDD0; border-radius: 14px; color: {INK}; }}
QListWidget::item:selected {{ background: #DDEFD0; color: {INK}; border-radius: 10px; }}
QSlider::groove:horizontal {{ height: 14px; background: #C9D3C0; border-radius: 7px; }}
QSlider::sub-page:horizontal {{ background: {ACCENT}; border-radius: 7px; }}
QSlider::handle:horizontal {{ width: 56px; height: 56px; margin: -21px 0; border-radius: 28px;
                              background: white; border: 4px solid {ACCENT}; }}
"""


# the build's assumptions.link_rates is "nominal" (engine/model/build.py: datasheet rates per direction; the main
# window's default, "measured", is typical nccl-tests bus bandwidth)
RATES_NOTE = "Link times at datasheet rates (per direction); measured transfers are slower."

# the key-figure card's designed width, its least, and its largest share of the stage (balance_top); the gap
# between it and the words
KEY_W, KEY_MIN_W, KEY_MAX_SHARE, TOP_GAP = 640, 480, 0.6, 20
# words and key card closer in height than this stand equally tall (their views' tops in line): a smaller step
# between the chassis's top and the chart's reads as a misalignment, a larger one as two columns
SNAP_H = 48

BANNER_HTML = (
    "<div style='font-size:34pt; font-weight:bold'>Touch the screen to try it yourself</div>"
    "<div style='font-size:20pt'>Drag cards into the server, move the slider, switch the method: "
    "the figures follow.</div>"
)


class _TopState(NamedTuple):
    """What balance_top balanced: the stage's width and scale, the chart's least width, the sizes it set (the key
    card's and chart's width, the card's and the words' least height) and the words it balanced."""

    stage_w: int
    scale: float
    chart_least: int
    key_w: int
    chart_w: int
    key_h: int
    words_h: int
    rates_note: bool
    labels: tuple[tuple[str, bool], ...]


class _Stage(QWidget):
    """The words, key card, views and controls; ``resized`` runs on each change of its size."""

    def __init__(self, resized: Callable[[], None]) -> None:
        super().__init__()
        self._resized = resized

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._resized()


class KioskView:
    """DemoWindow's widgets, laid out on ``window``; ``plan_box`` is the plan scenario's row of buttons."""

    def __init__(self, window: QWidget, scenarios: list[Scenario], catalog: Catalog, document: BuildDocument,
                 unit: str, plan_box: QWidget) -> None:  # fmt: skip
        self.window = window
        self.scenarios = scenarios
        self.catalog = catalog
        self.doc = document
        self.unit = unit
        self.plan_box = plan_box
        self.scale = 1.0
        self._top_state: _TopState | None = None  # what balance_top last balanced
        self._build_ui()

    # ---- layout ----
    def _build_ui(self) -> None:
        root = QHBoxLayout(self.window)
        # the window's size is the screen's: the layout never resizes it (nor re-sends size hints on every
        # scenario, which the offscreen platform answers with a warning each time)
        root.setSizeConstraint(QHBoxLayout.SizeConstraint.SetNoConstraint)
        root.setContentsMargins(24, 20, 24, 20)
        root.setSpacing(24)

        root.addWidget(self._build_side())

        # the stage: everything that cross-fades between scenarios; its width sets the key card's (balance_top)
        self.stage = _Stage(self.balance_top)
        stage = QVBoxLayout(self.stage)
        stage.setContentsMargins(0, 0, 0, 0)
        stage.setSpacing(14)
        stage.addLayout(self._build_columns(), 1)
        stage.addLayout(self._build_controls())
        # a refusal floats over the views' top edge while it is shown: a line kept for it in the layout took
        # ~44 px from the views in every scenario, and one shown and hidden in the layout would move the chassis
        # under a visitor's finger mid-drag
        self.message = MessageBar(self.stage, self.chassis, self.chart)
        root.addWidget(self.stage, 1)

        self._build_layers()

    def _build_side(self) -> QWidget:
        """The left column: the questions, a word on the figures, start over and take home."""
        side = QVBoxLayout()
        side.setSpacing(8)  # six questions and the two buttons in 1080 px
        brand = QLabel("Ask the configurator")
        brand.setFont(_font(26, True))
        side.addWidget(brand)
        hint = QLabel("Tap a question:")
        hint.setFont(_font(18))
        hint.setStyleSheet(f"color: {MUTED};")
        side.addWidget(hint)
        self.scenario_group = QButtonGroup(self.window)
        self.scenario_group.setExclusive(True)
        self.scenario_buttons: list[WrapButton] = []
        for i, s in enumerate(self.scenarios):
            b = WrapButton(f"{i + 1}.  {s.title}")
            b.label.setFont(_font(19, True))
            self.scenario_group.addButton(b, i)
            self.scenario_buttons.append(b)
            side.addWidget(b)
        side.addStretch(1)
        about = QLabel(
            "Every figure here comes from the same sizing engine our staff use: change the build "
            "and watch the numbers follow."
        )
        about.setFont(_font(18))
        about.setWordWrap(True)
        about.setStyleSheet(f"color: {MUTED};")
        side.addWidget(about)
        side.addSpacing(12)
        self.reset_button = QPushButton("Start this question over")
        self.reset_button.setMinimumHeight(80)
        side.addWidget(self.reset_button)
        self.take_home_button = QPushButton("Take this build home")
        self.take_home_button.setObjectName("primary")
        self.take_home_button.setMinimumHeight(104)
        self.take_home_button.setStyleSheet("font-size: 24pt;")
        side.addWidget(self.take_home_button)
        side.setContentsMargins(0, 0, 0, 0)  # the window's margins are the root layout's
        side_widget = QWidget()
        side_widget.setLayout(side)
        side_widget.setFixedWidth(440)
        return side_widget

    def _build_columns(self) -> QHBoxLayout:
        """Two columns: the words over the chassis, the key card over the chart (as wide as the card). Each view
        starts under its own column's top: in a row of words and card the shorter side left a band of empty
        background over its view (the plan scenario's paragraph stood ~100 px shorter than its card at 1920x1080,
        whatever the card's width)."""
        columns = QHBoxLayout()
        columns.setContentsMargins(0, 0, 0, 0)
        columns.setSpacing(TOP_GAP)
        left, right = QVBoxLayout(), QVBoxLayout()
        for column in (left, right):
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(14)
        left.addWidget(self._build_words())
        self.key_panel = self._key_panel()
        right.addWidget(self.key_panel)
        self._build_views()
        left.addWidget(self.chassis, 1)
        right.addWidget(self.chart, 1)
        columns.addLayout(left, 1)
        columns.addLayout(right)
        return columns

    def _build_words(self) -> QWidget:
        """The scenario's title and text."""
        self.words_box = QWidget()
        words = QVBoxLayout(self.words_box)
        words.setContentsMargins(0, 0, 0, 0)
        words.setSpacing(8)
        self.title = QLabel()
        self.title.setFont(_font(30, True))
        self.title.setWordWrap(True)
        words.addWidget(self.title)
        self.text = QLabel()
        self.text.setFont(_font(18))
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        for label in (self.title, self.text):  # the scenario file's words, shown as written
            label.setTextFormat(Qt.TextFormat.PlainText)
        words.addWidget(self.text, 1)
        self.words_box.setMinimumHeight(TOP_H)  # grows when a long question needs it (small screens)
        return self.words_box

    def balance_top(self) -> None:
        """Split the stage's width between the words and the key card (and the chart under it) so the taller of
        the two is as short as it can be: every pixel they do not need goes to the views. At a fixed 640 px the
        plan scenario's card stood ~90 px taller than its paragraph; no width evens that one out, so each view
        starts under its own column (_build_columns), and only words and card within SNAP_H stand equally tall.

        As the card widens its words wrap less and the paragraph's more, so the best width is where the two
        heights cross: a bisection, a handful of height-for-width looks (a scan of every width took ~15 ms on each
        change, and the attract loop's cross-fade stalled); nothing when nothing in its record (_TopState) changed.
        The chart's least width settles its graphics layout only when its drawing changed (it settled on every
        resize of the stage)."""
        s = self.scale
        total = self.stage.width()
        gap = round(TOP_GAP * s)
        designed = round(KEY_W * s)
        # the chart under the card is as wide: never narrower than its drawing needs (at 640 px the 1920x1080 MIG
        # scenario's chart drew 657 px, its legend cut); the chart settles for a new drawing before it answers
        chart_least = self.chart.least_width()
        least = max(self.key_panel.minimumSizeHint().width(), round(KEY_MIN_W * s), chart_least)
        most = min(round(total * KEY_MAX_SHARE), total - gap - self.words_box.minimumSizeHint().width())
        labels = [self.title, self.text, self.key_number, self.key_label, self.key_status, *self.more_labels]
        state = _TopState(total, s, chart_least, self.key_panel.minimumWidth(), self.chart.minimumWidth(),
                          self.key_panel.minimumHeight(), self.words_box.minimumHeight(),
                          self.rates_note.isVisibleTo(self.key_panel),
                          tuple((label.text(), label.isVisibleTo(self.window)) for label in labels))  # fmt: skip
        if state == self._top_state:
            return
        widths = list(range(least, most + 1, max(round(8 * s), 1))) or [least]
        seen: dict[int, tuple[int, int]] = {}

        def heights(width: int) -> tuple[int, int]:
            if width not in seen:
                seen[width] = (self.words_box.heightForWidth(total - gap - width),
                               self.key_panel.heightForWidth(width))  # fmt: skip
            return seen[width]

        lo, hi = 0, len(widths) - 1
        while lo < hi:  # the first width at which the words are the taller
            mid = (lo + hi) // 2
            words_h, card_h = heights(widths[mid])
            if words_h >= card_h:
                hi = mid
            else:
                lo = mid + 1
        near = min(widths, key=lambda w: abs(w - designed))
        # of equal heights, the one nearest the card's designed width, so it moves little between scenarios
        width = min({widths[lo], widths[max(lo - 1, 0)], near}, key=lambda w: (max(heights(w)), abs(w - designed)))
        words_h, card_h = heights(width)
        snap = round(SNAP_H * s)
        # a card that stands taller than its words by more than SNAP_H whatever its width (the plan scenario's):
        # the chart under it widens as far as ``most`` (its fourteen bars' words need it) while the card gets no
        # taller and the words stay short of it; at half the stage the bars kept 20-22 px each at 1280x800 and
        # 1366x768, too few for the legend beside them, which went above and left the plot 90-130 px high
        for wider in (w for w in widths if width < w <= most):
            if heights(wider)[1] > card_h or card_h - heights(wider)[0] <= snap:
                break
            width = wider
        words_h, card_h = heights(width)
        for sized in (self.key_panel, self.chart):
            if sized.minimumWidth() != width or sized.maximumWidth() != width:
                sized.setFixedWidth(width)
        least_h = round(TOP_H * s)
        tall = max(least_h, words_h, card_h) if abs(words_h - card_h) <= snap else least_h
        for block in (self.words_box, self.key_panel):
            if block.minimumHeight() != tall:
                block.setMinimumHeight(tall)
        self._top_state = state._replace(key_w=width, chart_w=width, key_h=tall, words_h=tall)

    def _build_views(self) -> None:
        """The chassis and the headroom chart (placed in the columns)."""
        self.chassis = DemoChassisView(self.doc)
        self.chassis.setMinimumHeight(300)
        self.chassis.setFrameShape(QFrame.Shape.NoFrame)
        self.chassis.setStyleSheet("background: white; border-radius: 14px;")
        self.chart = HeadroomChart(unit=self.unit)  # dressed by kioskchart.KioskChart; settles on its resizes

    def _build_controls(self) -> QHBoxLayout:
        """Below the views: the card palette, then the knobs (sequence, method, card count, plan)."""
        controls = QHBoxLayout()
        controls.setSpacing(22)
        self.pal_box = QWidget()  # hidden in a plan scenario: its server is the planner's
        pal = QVBoxLayout(self.pal_box)
        pal.setContentsMargins(0, 0, 0, 0)
        pal.setSpacing(4)
        pal_label = QLabel("Drag a card onto a slot:")
        pal_label.setFont(_font(18, True))
        pal.addWidget(pal_label)
        self.card_palette = DemoPalette(self.catalog)
        pal.addWidget(self.card_palette)
        controls.addWidget(self.pal_box)

        knobs = QVBoxLayout()
        knobs.setSpacing(10)
        knobs.addWidget(self._build_sequence_box())
        knobs.addWidget(self._build_method_box())
        knobs.addWidget(self._build_count_box())
        knobs.addWidget(self.plan_box)
        knobs.addStretch(1)
        controls.addLayout(knobs, 1)
        return controls

    def _build_sequence_box(self) -> QWidget:
        """The sequence-length slider and its label."""
        self.seq_box = QWidget()
        seq = QVBoxLayout(self.seq_box)
        seq.setContentsMargins(0, 0, 0, 0)
        seq.setSpacing(2)
        self.seq_label = QLabel()
        self.seq_label.setFont(_font(18, True))
        seq.addWidget(self.seq_label)
        self.seq_slider = QSlider(Qt.Orientation.Horizontal)
        self.seq_slider.setRange(0, len(SEQUENCE_LENGTHS) - 1)
        self.seq_slider.setPageStep(1)
        self.seq_slider.setMinimumHeight(68)
        self.seq_slider.setAccessibleName("Sequence length")
        seq.addWidget(self.seq_slider)
        return self.seq_box

    def _build_method_box(self) -> QWidget:
        """One checkable button per fine-tuning method."""
        self.method_box = QWidget()
        method = QHBoxLayout(self.method_box)
        method.setContentsMargins(0, 0, 0, 0)
        method.setSpacing(10)
        self.method_group = QButtonGroup(self.window)
        self.method_buttons: list[QPushButton] = []
        for i, (_, label) in enumerate(METHODS):
            b = QPushButton(label)
            b.setCheckable(True)
            b.setMinimumSize(150, 72)
            self.method_group.addButton(b, i)
            self.method_buttons.append(b)
            method.addWidget(b)
        method.addStretch(1)
        return self.method_box

    def _build_count_box(self) -> QWidget:
        """The card-count buttons and the NVLink bridge toggle."""
        self.count_box = QWidget()
        counts = QHBoxLayout(self.count_box)
        counts.setContentsMargins(0, 0, 0, 0)
        counts.setSpacing(10)
        self.count_group = QButtonGroup(self.window)
        self.count_buttons: dict[int, QPushButton] = {}
        for n in sorted({n for s in self.scenarios for n in s.card_counts}):
            b = QPushButton(f"{n} cards")
            b.setCheckable(True)
            b.setMinimumSize(150, 72)
            self.count_group.addButton(b, n)
            self.count_buttons[n] = b
            counts.addWidget(b)
        self.bridge_button = QPushButton("NVLink bridge")
        self.bridge_button.setCheckable(True)
        self.bridge_button.setMinimumSize(250, 72)
        counts.addWidget(self.bridge_button)
        counts.addStretch(1)
        return self.count_box

    def _build_layers(self) -> None:
        """Layers above the stage: the cross-fade and the attract loop's banner (the overlays are the PIN's and
        the take-home's)."""
        self.fade = QLabel(self.stage)
        self.fade.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.fade_effect = QGraphicsOpacityEffect(self.fade)
        self.fade.setGraphicsEffect(self.fade_effect)
        self.fade.hide()
        self.fade_anim = QPropertyAnimation(self.fade_effect, b"opacity", self.window)
        self.fade_anim.setStartValue(1.0)
        self.fade_anim.setEndValue(0.0)
        self.fade_anim.setEasingCurve(QEasingCurve.Type.InOutQuad)
        self.fade_anim.finished.connect(self.fade_done)
        self.banner = QLabel(BANNER_HTML, self.window)
        self.banner.setWordWrap(True)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setStyleSheet(f"background: {ACCENT}; color: white; border-radius: 18px;")
        self.banner.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.banner.hide()

    def start_fade(self) -> None:
        """Cover the stage with a picture of itself, to fade out once the next scenario is shown (``fade_in``)."""
        self.fade_anim.stop()
        self.fade.setPixmap(self.stage.grab())
        self.fade.setGeometry(self.stage.rect())
        self.fade_effect.setOpacity(1.0)
        self.fade.show()
        self.fade.raise_()

    def fade_in(self, ms: int) -> None:
        if self.fade.isVisible():
            self.fade_anim.setDuration(ms)
            self.fade_anim.start()

    def fade_done(self) -> None:
        self.fade.hide()
        self.fade.setPixmap(QPixmap())

    def stop_fade(self) -> None:
        if self.fade_anim.state() == QPropertyAnimation.State.Running:
            self.fade_anim.stop()
            self.fade_done()

    def _key_panel(self) -> QFrame:
        panel = QFrame()
        panel.setObjectName("card")
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(26, 12, 26, 12)
        layout.setSpacing(2)
        self.key_number = QLabel()
        self.key_number.setFont(_font(56, True))
        self.key_number.setAccessibleName("Key figure")
        layout.addWidget(self.key_number)
        self.key_label = QLabel()
        self.key_label.setFont(_font(22, True))
        self.key_label.setWordWrap(True)
        layout.addWidget(self.key_label)
        self.key_status = QLabel()
        self.key_status.setFont(_font(19, True))
        for label in (self.key_number, self.key_label, self.key_status):  # figures carry class and server names
            label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.key_status)
        self.more_labels: list[QLabel] = []
        for _ in range(max(len(s.more) for s in self.scenarios)):
            label = QLabel()
            label.setFont(_font(18))
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            layout.addWidget(label)
            self.more_labels.append(label)
        self.rates_note = QLabel(RATES_NOTE)  # shown when the build times its links at datasheet rates
        self.rates_note.setFont(_font(15))
        self.rates_note.setWordWrap(True)
        self.rates_note.setStyleSheet(f"color: {MUTED};")
        self.rates_note.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.rates_note)
        layout.addStretch(1)
        panel.setFixedWidth(KEY_W)  # balance_top moves it to suit the scenario's words and figures
        return panel

    def rescale(self, s: float) -> None:
        """Fonts and sizes for screen scale ``s`` (kiosk/scaling.py); the chart is dressed by its KioskChart."""
        self.scale = s
        scale_tree(self.window, s, skip=(self.chassis, self.chart, self.card_palette))
        self.card_palette.set_scale(s)
        self.message.scale = s
        self.chassis.setMinimumHeight(round(300 * s))
        self.chassis.set_scale(s)
        self.banner.setText(scale_css(BANNER_HTML, s))
        if self.fade.isVisible():
            self.fade.setGeometry(self.stage.rect())
