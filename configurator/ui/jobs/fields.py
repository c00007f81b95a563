"""The Jobs form's building blocks: readable labels, field bounds from the pydantic models, and the small
widgets (status delegate, job list, card check box, choice box, wheel guard) that ui/jobs/panel.py composes.
"""

from __future__ import annotations

import contextlib
import math
import re
import typing
from collections.abc import Iterator, Sequence
from typing import Any

import annotated_types
from pydantic import BaseModel, ValidationError
from PySide6.QtCore import QEvent, QMimeData, QObject, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QDrag, QFont, QFontMetrics, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QCheckBox,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QWidget,
)

from configurator.engine.model.labels import METHOD_NAMES
from configurator.present.verdict import WORDS
from configurator.ui.base import FIT_COLOUR, ShownTextComboBox, edit_field_width
from configurator.ui.dnd import job_mime

STATUS_ROLE = Qt.ItemDataRole.UserRole + 1
STATUS_TEXT = WORDS  # the verdict's words (present/verdict.py), as the summary and the sheet say them
REFUSED = "#C62828"

# readable names for the words the build file allows (a word missing here is shown as it is)
LABELS: dict[str, dict[str, str]] = {
    "method": METHOD_NAMES,
    "quantization": {"nf4-dq": "NF4 + double quant", "nf4": "NF4"},
    "optimizer": {
        "adamw": "AdamW",
        "adamw-8bit": "AdamW 8-bit",
        "paged-adamw": "Paged AdamW",
        "paged-adamw-8bit": "Paged AdamW 8-bit",
        "sgd": "SGD",
    },
    "precision": {"mixed-bf16": "Mixed BF16", "pure-bf16": "Pure BF16", "fp8": "FP8 (the card's default recipe)",
                  "fp8-delayed": "FP8, delayed scaling", "fp8-current": "FP8, current scaling",
                  "fp8-block": "FP8, block scaling", "mxfp8": "MXFP8", "nvfp4": "NVFP4"},
    "base_weights": {"bf16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4 experts (as shipped)"},
    "parallelism": {"single": "Single card", "ddp": "DDP", "fsdp": "FSDP", "tp": "Tensor parallel",
                    "zero1": "DeepSpeed ZeRO-1", "zero2": "DeepSpeed ZeRO-2", "zero3": "DeepSpeed ZeRO-3",
                    "ep": "Expert parallel (MoE)"},
    "framework": {"hf-trainer": "Transformers Trainer / TRL + PEFT", "torchtune": "torchtune",
                  "torchtitan": "torchtitan", "axolotl": "Axolotl", "litgpt": "LitGPT",
                  "fsdp-qlora": "Answer.AI fsdp_qlora"},
    "fsdp_version": {"1": "FSDP1 (flat parameters)", "2": "FSDP2 (per-parameter)"},
    "offload": {"none": "None", "cpu": "CPU", "cpu-optimizer": "CPU (optimizer only)", "nvme": "NVMe"},
    "loss": {"standard": "Standard (fp32 logits)", "chunked": "Chunked", "bf16": "BF16 logits",
             "fused": "Fused (no full logits)"},
    "attention": {"sdpa": "SDPA", "flash": "FlashAttention", "eager": "Eager"},
    "targets": {"all-linear": "All linear", "attention": "Attention (q k v o)", "qv": "q and v"},
}
# The closed box's words where a label is wider than the box (the list shows the whole label): a 1024-1920 px
# window's Jobs dock has 140-194 px for the text, and "Transformers Trainer / TRL + PEFT" (204 px) was cut to
# "... TRL + PEI" even at 1920x1080.
SHORT: dict[str, dict[str, str]] = {
    "framework": {"hf-trainer": "HF Trainer / TRL", "fsdp-qlora": "fsdp_qlora"},
    "objective": {"sft": "SFT", "dpo": "DPO", "grpo": "GRPO", "ppo": "PPO"},
    "precision": {"fp8": "FP8 (card default)", "fp8-delayed": "FP8 delayed", "fp8-current": "FP8 current",
                  "fp8-block": "FP8 block"},
    "base_weights": {"mxfp4": "MXFP4 experts"},
    "parallelism": {"zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3", "ep": "Expert parallel"},
    "generation": {"vllm-colocate": "vLLM, same cards", "vllm-server": "vLLM server", "transformers": "HF generate"},
    "fsdp_version": {"1": "FSDP1", "2": "FSDP2"},
    "offload": {"cpu-optimizer": "CPU (optimizer)"},
    "loss": {"standard": "Standard", "fused": "Fused"},
    "attention": {"flash": "FlashAttention"},
    "targets": {"attention": "Attention"},
}  # fmt: skip
SHORT_ROLE = Qt.ItemDataRole.UserRole + 7  # an item's short words (SHORT)
CUSTOM = "custom"
DEFAULT = ""  # item data of a choice that leaves the field None: the framework's default

# how a field is named in undo texts: "Set sequence length of 70B QLoRA to 4,096"
FIELD_NAMES = {
    "model": "model", "method": "method", "quantization": "quantization", "optimizer": "optimizer",
    "precision": "precision", "base_weights": "LoRA base", "framework": "framework", "fsdp_version": "FSDP version",
    "offload": "offload", "parallelism": "parallelism", "tensor_parallel": "tensor-parallel degree",
    "sequence_length": "sequence length", "micro_batch_size": "micro-batch size",
    "gradient_accumulation_steps": "gradient accumulation", "loss": "loss", "attention": "attention",
    "activation_memory_gb": "activation budget", "rank": "LoRA rank", "alpha": "LoRA alpha",
    "targets": "LoRA targets", "dropout": "LoRA dropout", "adapter_fraction": "adapter share",
    "images_per_sample": "images per sample", "image_resolution": "image resolution",
    "train_vision_tower": "vision tower training",
    "objective": "objective", "beta": "KL coefficient", "generations": "generations per prompt",
    "prompt_length": "prompt tokens", "completion_length": "completion tokens", "generation": "generation",
    "vllm_gpu_memory_utilization": "vLLM share", "server_gpu_memory_utilization": "vLLM server share",
    "generation_cards": "generation slots", "vllm_tensor_parallel": "vLLM tensor parallelism",
    "reward_model": "reward model", "critic_model": "critic model", "ppo_epochs": "PPO epochs",
    "moe_capacity_factor": "MoE capacity factor",
    "checkpoints_kept": "checkpoints kept",
}  # fmt: skip

SEQ_MIN_EXP, SEQ_MAX_EXP = 7, 17  # the slider spans 2^7 = 128 .. 2^17 = 131,072 tokens in half octaves
DEBOUNCE_MS = 60
_PARAMS = re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmbt]?)\s*(?:params|parameters)?\s*$", re.IGNORECASE)
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}


# ---- helpers ----------------------------------------------------------------------------------------------


def field_bounds(model: type[BaseModel], name: str) -> tuple[float | None, float | None, bool, bool]:
    """(low, high, low_open, high_open) of a pydantic field, from its ``Field(ge/gt/le/lt)`` metadata."""
    low: Any = None
    high: Any = None
    low_open = high_open = False
    for m in model.model_fields[name].metadata:
        if isinstance(m, annotated_types.Ge):
            low = m.ge
        elif isinstance(m, annotated_types.Gt):
            low, low_open = m.gt, True
        elif isinstance(m, annotated_types.Le):
            high = m.le
        elif isinstance(m, annotated_types.Lt):
            high, high_open = m.lt, True
    return low, high, low_open, high_open


def int_range(model: type[BaseModel], name: str) -> tuple[int, int]:
    low, high, lo_open, hi_open = field_bounds(model, name)
    lo = int(low if low is not None else 0) + (1 if lo_open else 0)
    hi = int(high if high is not None else 2**31 - 1) - (1 if hi_open else 0)
    return lo, min(hi, 2**31 - 1)


def float_range(model: type[BaseModel], name: str, decimals: int, scale: float = 1.0) -> tuple[float, float]:
    low, high, lo_open, hi_open = field_bounds(model, name)
    step = 10.0**-decimals
    lo = (low if low is not None else 0.0) * scale + (step if lo_open else 0.0)
    hi = (high if high is not None else 1e9) * scale - (step if hi_open else 0.0)
    return lo, hi


def choices(model: type[BaseModel], name: str) -> list[str]:
    """The words a ``Literal`` field (or the Literal part of a union) allows, in declaration order."""

    def walk(tp: Any) -> list[str]:
        if typing.get_origin(tp) is typing.Literal:
            return [str(a) for a in typing.get_args(tp)]
        return [w for arg in typing.get_args(tp) for w in walk(arg)]

    return walk(model.model_fields[name].annotation)


def reason(exc: Exception) -> str:
    """A one-line reason from an engine refusal or a pydantic validation error."""
    if isinstance(exc, ValidationError):
        parts = []
        for e in exc.errors():
            loc = ".".join(str(p) for p in e["loc"])
            parts.append(f"{loc}: {e['msg']}" if loc else e["msg"])
        return "; ".join(parts)
    return str(exc)


def seq_from_pos(pos: int) -> int:
    """Slider position (half octaves from 128) -> tokens: 128, 192, 256, 384, 512, ..."""
    exp = SEQ_MIN_EXP + pos // 2
    return int(2**exp * 3 // 2 if pos % 2 else 2**exp)


def pos_from_seq(tokens: int) -> int:
    pos = round(2 * math.log2(max(tokens, 1) / 2**SEQ_MIN_EXP))
    return max(0, min(pos, 2 * (SEQ_MAX_EXP - SEQ_MIN_EXP)))


def shown(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@contextlib.contextmanager
def blocked(widgets: list[QObject]) -> Iterator[None]:
    old = [w.blockSignals(True) for w in widgets]
    try:
        yield
    finally:
        for w, was in zip(widgets, old, strict=True):
            w.blockSignals(was)


# ---- the job list -----------------------------------------------------------------------------------------


class StatusDelegate(QStyledItemDelegate):
    """Draws the job's name with its fit status, coloured, at the right; editing edits the name only."""

    def _status(self, index) -> str:  # type: ignore[no-untyped-def]
        return STATUS_TEXT.get(index.data(STATUS_ROLE) or "unknown", "")

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:  # type: ignore[no-untyped-def]
        status = index.data(STATUS_ROLE) or "unknown"
        text = self._status(index)
        bold = QFont(option.font)
        bold.setBold(True)
        painter.save()
        painter.setFont(bold)
        width = painter.fontMetrics().horizontalAdvance(text) + 14
        painter.restore()
        full = QStyleOptionViewItem(option)
        self.initStyleOption(full, index)
        full.text = ""
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, full, painter, widget)
        narrow = QStyleOptionViewItem(option)
        self.initStyleOption(narrow, index)
        narrow.rect = option.rect.adjusted(0, 0, -width, 0)
        if style is not None:  # the name, elided before the status; the background is already drawn
            text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, narrow, widget)
            name = option.fontMetrics.elidedText(narrow.text, Qt.TextElideMode.ElideRight, text_rect.width())
            selected = bool(option.state & QStyle.StateFlag.State_Selected)
            role = option.palette.ColorRole.HighlightedText if selected else option.palette.ColorRole.Text
            painter.save()
            painter.setFont(option.font)
            painter.setPen(option.palette.color(role))
            painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), name)
            painter.restore()
        painter.save()
        painter.setFont(bold)
        colour = QColor(FIT_COLOUR.get(status, "#777777"))
        if option.state & QStyle.StateFlag.State_Selected:
            colour = option.palette.color(option.palette.ColorRole.HighlightedText)
        painter.setPen(colour)
        badge = QRect(option.rect.right() - width, option.rect.top(), width - 6, option.rect.height())
        painter.drawText(badge, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index) -> QSize:  # type: ignore[no-untyped-def]
        size = super().sizeHint(option, index)
        extra = option.fontMetrics.horizontalAdvance(self._status(index)) + 20
        return QSize(size.width() + extra, max(size.height(), option.fontMetrics.height() + 8))


class JobList(QListWidget):
    """The jobs, draggable onto cards (the payload is the job's index and name)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.setItemDelegate(StatusDelegate(self))
        self.setUniformItemSizes(True)
        self._drag_mime: QMimeData | None = None  # kept referenced while the drag runs

    def mime_for(self, row: int) -> QMimeData | None:
        item = self.item(row)
        return job_mime(item.text()) if item is not None else None

    def startDrag(self, supported_actions: Qt.DropAction) -> None:
        row = self.currentRow()
        item = self.currentItem()
        if item is None or row < 0:
            return
        self._drag_mime = self.mime_for(row)
        if self._drag_mime is None:
            return
        drag = QDrag(self)
        drag.setMimeData(self._drag_mime)
        fm = self.fontMetrics()
        pm = QPixmap(min(fm.horizontalAdvance(item.text()) + 16, 260), fm.height() + 8)
        pm.fill(QColor(40, 40, 40, 200))
        p = QPainter(pm)
        p.setPen(Qt.GlobalColor.white)
        p.drawText(pm.rect().adjusted(8, 0, -8, 0), int(Qt.AlignmentFlag.AlignVCenter), item.text())
        p.end()
        drag.setPixmap(pm)
        drag.exec(Qt.DropAction.CopyAction)


def first_fitting(words: Sequence[str], fm: QFontMetrics, room: float) -> str:
    """The first of ``words`` that fits ``room`` px in ``fm``'s font, else the last cut at the right with an
    ellipsis (a button's, a check box's or a closed combo box's words)."""
    for text in words:
        if fm.horizontalAdvance(text) <= room:
            return text
    return fm.elidedText(words[-1], Qt.TextElideMode.ElideRight, int(room))


class _Words(QObject):
    """The words a button shows at its width: the first of ``words`` that fits, else the last cut at the right
    with an ellipsis. Its hint is the first (whole) words, its minimum the last cut to ``MIN_CHARS``, so a narrow
    dock shrinks the button instead of the form growing past the dock's right edge (1024x768: the form was
    264 px in a 234 px viewport, "slot 3 · RTX PRO…0 Server Edition" and every field's right edge cut off).
    It watches the button's resizes and font or style changes itself (an event filter), so the buttons that
    use it only report its sizes."""

    MIN_CHARS = 12  # the least of the last words kept before the ellipsis: "slot 3 · RTX…"
    REFIT = (QEvent.Type.Resize, QEvent.Type.FontChange, QEvent.Type.StyleChange)

    def __init__(self, button: QAbstractButton, contents: QStyle.ContentsType, words: tuple[str, ...]) -> None:
        super().__init__(button)
        self.button, self.contents, self.words = button, contents, words
        # a button's own policy (Minimum) never shrinks under its hint: Preferred lets it down to minimumSizeHint
        button.setSizePolicy(QSizePolicy.Policy.Preferred, button.sizePolicy().verticalPolicy())
        button.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.button and event.type() in self.REFIT:
            self.fit()
        return False

    def around(self) -> int:
        """What the style adds to the whole words' width: the indicator or bevel, spacing and margins."""
        b, fm = self.button, self.button.fontMetrics()
        option = QStyleOptionButton()
        option.initFrom(b)
        option.text, option.icon = self.words[0], b.icon()
        whole = fm.horizontalAdvance(self.words[0])
        return b.style().sizeFromContents(self.contents, option, QSize(whole, fm.height()), b).width() - whole

    def hint(self, text: str, height: int) -> QSize:
        return QSize(self.around() + self.button.fontMetrics().horizontalAdvance(text), height)

    def size_hint(self, natural: QSize) -> QSize:
        """The button's size hint: its whole words, not the words shown now, at its ``natural`` (its style's) height."""
        return self.hint(self.words[0], natural.height())

    def minimum_size_hint(self, natural: QSize) -> QSize:
        """The least it may take: its shortest words, cut after MIN_CHARS, at its ``natural`` size hint's height."""
        return self.hint(self.least(), natural.height())

    def least(self) -> str:
        last = self.words[-1]
        return last if len(last) <= self.MIN_CHARS else last[: self.MIN_CHARS] + "…"

    def text_for(self, width: int) -> str:
        return first_fitting(self.words, self.button.fontMetrics(), width - self.around())

    def fit(self) -> None:
        text = self.text_for(self.button.width())
        if text != self.button.text():
            self.button.setText(text)


class FittingCheck(QCheckBox):
    """A check box whose words follow its width (``_Words``); the whole words belong in its tooltip."""

    def __init__(self, *words: str) -> None:
        super().__init__(words[0])
        self.fitting = _Words(self, QStyle.ContentsType.CT_CheckBox, words)

    def sizeHint(self) -> QSize:
        return self.fitting.size_hint(super().sizeHint())

    def minimumSizeHint(self) -> QSize:
        return self.fitting.minimum_size_hint(super().sizeHint())


class FittingButton(QPushButton):
    """A push button whose words follow its width (``_Words``): 'Import config.json…' (135 px) else 'Import…'."""

    def __init__(self, *words: str) -> None:
        super().__init__(words[0])
        self.fitting = _Words(self, QStyle.ContentsType.CT_PushButton, words)

    def sizeHint(self) -> QSize:
        return self.fitting.size_hint(super().sizeHint())

    def minimumSizeHint(self) -> QSize:
        return self.fitting.minimum_size_hint(super().sizeHint())


class CardCheck(FittingCheck):
    """One card (or one MIG instance of a card) the job may run on: ``label`` ('slot 3 · RTX PRO 6000 Server
    Edition') where it fits, else ``short`` (the card's abbreviated name, 'slot 3 · RTX PRO 6000 Server'), else
    that cut at the right."""

    chosen = Signal(int, int, bool)  # slot, MIG instance (-1: the whole card), checked

    def __init__(self, label: str, slot: int, instance: int | None, short: str | None = None) -> None:
        super().__init__(label, short or label)
        self.label, self.slot, self.instance = label, slot, instance
        self.toggled.connect(self._emit)

    def _emit(self, checked: bool) -> None:
        self.chosen.emit(self.slot, -1 if self.instance is None else self.instance, checked)


class ChoiceBox(ShownTextComboBox):
    """A combo box for one ``Literal`` field of the job; says which field the user changed."""

    chosen = Signal(str, int)  # field, index

    def __init__(self, field: str) -> None:
        super().__init__()
        self.field = field
        self.currentIndexChanged.connect(self._emit)

    def _emit(self, index: int) -> None:
        self.chosen.emit(self.field, index)

    def shown_text(self) -> str:
        """What the closed box writes: the choice's label where it fits, else its short words (SHORT_ROLE), else
        the label cut with an ellipsis (the box used to cut it mid-letter); the list shows whole labels."""
        short = self.currentData(SHORT_ROLE)
        words = [self.currentText(), *([short] if isinstance(short, str) and short else [])]
        return first_fitting(words, self.fontMetrics(), edit_field_width(self) - 2)


class _WheelGuard(QObject):
    """Wheel over an unfocused combo/spin/slider scrolls the form instead of changing the value."""

    def __init__(self, scroll: QScrollArea) -> None:
        super().__init__(scroll)
        self._scroll = scroll

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Wheel and isinstance(obj, QWidget) and not obj.hasFocus():
            bar = self._scroll.verticalScrollBar()
            delta = event.angleDelta().y()  # type: ignore[attr-defined]
            bar.setValue(bar.value() - delta // 2)
            return True
        return False


# ---- the panel --------------------------------------------------------------------------------------------
