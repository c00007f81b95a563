"""The Jobs form's sequence-length row: a log-scale slider beside a spin box. While the slider is dragged it
pushes at most one edit per DEBOUNCE_MS, and always one on release; a whole drag is one undo step."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QSlider, QSpinBox, QWidget

from configurator.engine.model.build import Job
from configurator.ui.jobs.fields import (
    DEBOUNCE_MS,
    SEQ_MAX_EXP,
    SEQ_MIN_EXP,
    blocked,
    int_range,
    pos_from_seq,
    seq_from_pos,
    shown,
)
from configurator.ui.jobs.form_kit import FormKit


class SequenceRow:
    def __init__(self, kit: FormKit, owner: QObject) -> None:
        self.kit = kit
        self.pending: tuple[int, int] | None = None  # (job index, tokens) not yet pushed
        slider = self.slider = QSlider(Qt.Orientation.Horizontal)
        slider.setObjectName("seqSlider")
        slider.setRange(0, 2 * (SEQ_MAX_EXP - SEQ_MIN_EXP))
        slider.setPageStep(2)
        slider.setAccessibleName("Sequence length slider")
        slider.setToolTip("Sequence length, 128 to 131,072 tokens (log scale)")
        slider.setMinimumWidth(30)  # with the spin box, at most the field column of a 1024 px window's dock
        spin = self.spin = QSpinBox()
        spin.setRange(*int_range(Job, "sequence_length"))
        spin.setGroupSeparatorShown(True)
        spin.setMinimumWidth(82)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(slider, 1)
        layout.addWidget(spin)
        kit.register(spin, "seqSpin", "Sequence length in tokens", "Sequence length")
        kit.inputs.append(slider)
        kit.form.addRow(kit.label("Sequence", spin), row)
        self.timer = QTimer(owner)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self._tick)
        slider.valueChanged.connect(self._slid)
        slider.sliderReleased.connect(self._released)
        spin.valueChanged.connect(self._typed)

    def fill(self, job: Job) -> None:
        if not self.slider.isSliderDown():  # while dragged, the slider and spin show the pointer
            self.kit.set_value(self.spin, job.sequence_length)
            self.slider.setValue(pos_from_seq(job.sequence_length))

    def _slid(self, pos: int) -> None:
        tokens = seq_from_pos(pos)
        with blocked([self.spin]):
            self.spin.setValue(tokens)
        self.pending = (self.kit.index, tokens)
        if not self.slider.isSliderDown():
            self.flush()
        elif not self.timer.isActive():
            self.flush()
            self.timer.start()

    def _tick(self) -> None:
        if self.pending is not None:
            self.flush()
            self.timer.start()

    def _released(self) -> None:
        self.timer.stop()
        self.flush()

    def flush(self) -> None:
        """Push the length the slider shows, if it belongs to the selected job and was not pushed yet."""
        pending, self.pending = self.pending, None
        if pending is None or pending[0] != self.kit.index:
            return
        self._push(pending[1], self.slider)

    def _typed(self, tokens: int) -> None:
        with blocked([self.slider]):
            self.slider.setValue(pos_from_seq(tokens))
        self._push(tokens, self.spin)

    def _push(self, tokens: int, widget: QWidget) -> None:
        if self.kit.job() is not None:
            self.kit.apply(widget, "sequence_length", shown(tokens), {"sequence_length": tokens}, merge=True)
