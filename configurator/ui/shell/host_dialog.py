"""Edit > Host memory and storage…: the host RAM and NVMe the build's jobs need, the DIMMs and drives the engine
picks for it, and the parts the user states as installed instead (or "pick for me" again).

Non-modal: it follows the document (undo and redo move it too). Each change is one undoable edit through
``document.edit`` (engine/editing/host.py); a part the chassis cannot take is refused on the row that asked for it,
with the engine's sentence, and the build stays as it was. Every figure comes from the result (BuildResult.host).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from configurator.engine import Build, BuildResult, editing
from configurator.engine.memory.host import DIMM_SIZES_GB, DRIVE_SIZES_TB
from configurator.engine.model.build import DimmSet, DriveSet
from configurator.engine.model.result import HostPart, HostResult
from configurator.present.host_words import nvme_words, part_words
from configurator.ui.base import SEVERITY_COLOUR, SEVERITY_COLOUR_DARK, BuildDocument, ViewState, fit_to_screen


class _PartRows(QGroupBox):
    """One kind of part (DIMMs or drives): the need, the engine's pick, and a stated count × size."""

    def __init__(self, title: str, kind: str, sizes: list[float], unit: str, max_count: int) -> None:
        super().__init__(title)
        self.kind = kind
        form = QFormLayout(self)
        self.need = QLabel()
        self.need.setWordWrap(True)
        self.need.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Needed", self.need)
        self.picked = QLabel()
        self.picked.setWordWrap(True)
        form.addRow("Picked for it", self.picked)
        self.state = QCheckBox("State what is installed" if kind == "dimm" else "State the drives installed")
        self.state.setObjectName(f"{kind}StateCheck")
        self.state.setToolTip("Unchecked: the engine picks the smallest set that holds the need (pick for me); "
                              "checked: the build installs the parts set here")  # fmt: skip
        form.addRow("", self.state)
        self.count = QSpinBox()
        self.count.setRange(1, max_count)
        self.count.setKeyboardTracking(False)  # typed digits are one edit, on Enter or leaving the field
        self.count.setObjectName(f"{kind}CountSpin")
        self.count.setAccessibleName("DIMM count" if kind == "dimm" else "Drive count")
        self.count.setToolTip("How many DIMMs are installed" if kind == "dimm" else "How many NVMe drives")
        self.size_box = QComboBox()
        self.size_box.setObjectName(f"{kind}SizeBox")
        self.size_box.setAccessibleName("DIMM size" if kind == "dimm" else "Drive size")
        self.size_box.setToolTip("Each DIMM's size as labelled (binary GB)" if kind == "dimm"
                             else "Each drive's size (TB = 10^12 bytes, as drive makers label them)")  # fmt: skip
        for s in sizes:
            self.size_box.addItem(f"{s:g} {unit}", s)
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.count)
        times = QLabel("×")
        line.addWidget(times)
        line.addWidget(self.size_box)
        line.addStretch(1)
        self.count.setMinimumWidth(72)
        self.size_box.setMinimumWidth(110)
        label = QLabel("&Installed" if kind == "dimm" else "Dri&ves")
        label.setBuddy(self.count)
        form.addRow(label, row)
        self.now = QLabel()
        self.now.setWordWrap(True)
        for label_ in (self.need, self.picked, self.now):  # catalog words, never markup
            label_.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow("In the build", self.now)
        self.refusal = QLabel()  # the engine's sentence when the last change was refused
        self.refusal.setObjectName(f"{kind}Refusal")
        self.refusal.setWordWrap(True)
        self.refusal.hide()
        form.addRow(self.refusal)
        self.tips = {w: w.toolTip() for w in (self.count, self.size_box)}

    def show_refusal(self, message: str, colour: str) -> None:
        self.refusal.setText(f"<span style='color:{colour}'>Refused: {escape(message)}</span>")
        self.refusal.show()
        for w in (self.count, self.size_box):
            w.setStyleSheet(f"#{w.objectName()} {{ border: 2px solid {colour}; border-radius: 3px; }}")
            w.setToolTip(f"Refused: {message}")

    def clear_refusal(self) -> None:
        self.refusal.hide()
        self.refusal.clear()
        for w in (self.count, self.size_box):
            w.setStyleSheet("")
            w.setToolTip(self.tips[w])

    @property
    def refused(self) -> str | None:
        return self.refusal.text() if self.refusal.isVisibleTo(self) else None

    def set_size(self, value: float) -> None:
        i = self.size_box.findData(value)
        if i < 0:  # a size from a file that is not on the list: shown as it is
            self.size_box.addItem(f"{value:g} {'GB' if self.kind == 'dimm' else 'TB'}", value)
            i = self.size_box.count() - 1
        self.size_box.setCurrentIndex(i)


class HostDialog(QDialog):
    def __init__(self, document: BuildDocument, view: ViewState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc, self.view = document, view
        self.setWindowTitle("Host memory and storage")
        self.setObjectName("hostDialog")
        layout = QVBoxLayout(self)
        intro = QLabel("What the build's jobs need on the host at the same time (model loading, offloaded states, "
                       "checkpoints…), the parts picked to hold it, and the parts you install instead.")  # fmt: skip
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.dimms = _PartRows("Memory (DIMMs)", "dimm", list(DIMM_SIZES_GB), "GB", 96)
        self.drives = _PartRows("NVMe drives", "drive", list(DRIVE_SIZES_TB), "TB", 64)
        layout.addWidget(self.dimms)
        layout.addWidget(self.drives)
        self.checks = QLabel()  # the host checks' sentences, as the Checks panel gives them
        self.checks.setObjectName("hostChecks")
        self.checks.setWordWrap(True)
        layout.addWidget(self.checks)
        layout.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)
        self._filling = False
        rows: tuple[tuple[_PartRows, Callable[[], None]], ...] = ((self.dimms, self._dimms_changed),
                                                                (self.drives, self._drives_changed))  # fmt: skip
        for rows_, changed in rows:
            rows_.state.toggled.connect(changed)
            rows_.count.valueChanged.connect(changed)
            rows_.size_box.currentIndexChanged.connect(changed)
        document.changed.connect(self._refresh)
        view.theme_changed.connect(self._theme_changed)  # bound methods: disconnected when the dialog goes
        self._refresh(document.build, document.result)
        fit_to_screen(self, 560, 520)

    # ---- showing the result ----

    def _colour(self, meaning: str) -> str:
        return (SEVERITY_COLOUR_DARK if self.view.dark else SEVERITY_COLOUR)[meaning]

    def _theme_changed(self, _dark: bool) -> None:
        self._refresh(self.doc.build, self.doc.result)

    def _refresh(self, build: Build, result: BuildResult) -> None:
        host = result.host or HostResult()
        self._filling = True
        try:
            most = f", at most {host.ram_max_gb:,.0f} GB in this chassis" if host.ram_max_gb is not None else ""
            self.dimms.need.setText(f"{host.ram_need_gb:,.0f} GB{most}")
            bays = f", {host.drive_bays} drive bays in this chassis" if host.drive_bays is not None else ""
            self.drives.need.setText(f"{nvme_words(host.nvme_need_gb)}{bays}")
            stated = build.host
            self._fill(self.dimms, host.picked_dimms, host.dimms,
                       (stated.dimms.count, stated.dimms.size_gb) if stated and stated.dimms else None)  # fmt: skip
            self._fill(self.drives, host.picked_drives, host.drives,
                       (stated.drives.count, stated.drives.tb) if stated and stated.drives else None)  # fmt: skip
            self._mark_sizes(build)
            found = [c for c in result.checks if c.code.startswith("HOST_")]
            self.checks.setText(
                "<br>".join(f"<span style='color:{self._colour(c.severity)}'>{escape(c.message)}</span>" for c in found)
            )
            self.checks.setVisible(bool(found))
        finally:
            self._filling = False

    def _fill(self, rows: _PartRows, picked: HostPart | None, part: HostPart | None,
              stated: tuple[int, float] | None) -> None:  # fmt: skip
        rows.picked.setText(part_words(picked) if picked is not None else "nothing needed, or none holds it")
        rows.now.setText(f"{part_words(part)}{' (installed)' if part and part.stated else ' (picked)'}"
                         if part is not None else "none")  # fmt: skip
        rows.state.setChecked(stated is not None)
        shown = stated or ((picked.count, picked.size) if picked is not None else None)
        if shown is not None:
            rows.count.setValue(shown[0])
            rows.set_size(shown[1])
        rows.count.setEnabled(stated is not None)
        rows.size_box.setEnabled(stated is not None)
        rows.clear_refusal()

    def _mark_sizes(self, build: Build) -> None:
        """DIMM sizes the chassis cannot take are disabled, the engine's reason in their tooltip (the stated one
        stays choosable: the user is shown what the file says)."""
        box = self.dimms.size_box
        model = box.model()
        stated = build.host.dimms.size_gb if build.host and build.host.dimms else None
        for i in range(box.count()):
            size = box.itemData(i)
            why = editing.check_dimms(build, self.doc.catalog, 1, int(size))
            item = model.item(i) if hasattr(model, "item") else None
            if item is not None:
                item.setEnabled(why is None or size == stated)
            box.setItemData(i, why or "", Qt.ItemDataRole.ToolTipRole)

    # ---- edits ----

    def _apply(self, rows: _PartRows, text: str, make: Callable[[Build], Build]) -> bool:
        """One undoable edit; a refusal is shown on ``rows``, the build unchanged."""
        build = self.doc.build
        try:
            after = make(build)
        except ValueError as exc:  # EditRefused and pydantic's ValidationError
            rows.show_refusal(str(exc), self._colour("error"))
            return False
        rows.clear_refusal()
        return self.doc.edit(text, lambda b: after if b is build else make(b))

    def _dimms_changed(self, *_: object) -> None:
        if self._filling:
            return
        rows = self.dimms
        rows.count.setEnabled(rows.state.isChecked())
        rows.size_box.setEnabled(rows.state.isChecked())
        if not rows.state.isChecked():
            self._apply(rows, "Pick the DIMMs for the need", editing.clear_host_dimms)
            return
        count, size = rows.count.value(), int(rows.size_box.currentData())
        if self.doc.build.host and self.doc.build.host.dimms == DimmSet(count=count, size_gb=size):
            rows.clear_refusal()
            return
        self._apply(
            rows,
            f"Install {count} × {size} GB DIMMs",
            partial(editing.set_host_dimms, catalog=self.doc.catalog, count=count, size_gb=size),
        )

    def _drives_changed(self, *_: object) -> None:
        if self._filling:
            return
        rows = self.drives
        rows.count.setEnabled(rows.state.isChecked())
        rows.size_box.setEnabled(rows.state.isChecked())
        if not rows.state.isChecked():
            self._apply(rows, "Pick the drives for the need", editing.clear_host_drives)
            return
        count, tb = rows.count.value(), float(rows.size_box.currentData())
        if self.doc.build.host and self.doc.build.host.drives == DriveSet(count=count, tb=tb):
            rows.clear_refusal()
            return
        self._apply(
            rows,
            f"Install {count} × {tb:g} TB NVMe drives",
            partial(editing.set_host_drives, catalog=self.doc.catalog, count=count, tb=tb),
        )


def open_host_dialog(parent: QWidget, document: BuildDocument, view: ViewState) -> HostDialog:
    """The window's one host dialog: raised when open, else made (deleted on close)."""
    existing = parent.findChild(HostDialog, "hostDialog")
    if existing is not None and existing.isVisible():
        existing.raise_()
        existing.activateWindow()
        return existing
    dialog = HostDialog(document, view, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
