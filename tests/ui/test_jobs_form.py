"""The Jobs form: "Runs on" at its top (it sat under ~25 fields), and no stale fields after File > New (the
previous build's job stayed in the form, greyed, with "Runs on: slot 1 · H100 SXM")."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QCheckBox

from tests.gui_helpers import make_window


def test_runs_on_is_the_first_field(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    window.jobs_dock.raise_()
    QApplication.processEvents()
    panel = window.jobs_panel
    rows = [panel.form.getWidgetPosition(w)[0] for w in (panel.cards_group, panel.model_box)]
    assert rows[0] < rows[1] and rows[0] <= 3  # after the job's info (and trace) lines, before every field
    assert panel.cards_group.y() < panel.model_box.y()


def test_file_new_leaves_no_stale_job_in_the_form(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    window.jobs_dock.raise_()
    QApplication.processEvents()
    panel = window.jobs_panel
    assert panel.cards_group.isVisible() and panel.model_box.isVisible()
    window.files.new_build()
    QApplication.processEvents()
    assert not panel.cards_group.isVisible() and not panel.model_box.isVisible()
    assert not [c for c in panel.cards_group.findChildren(QCheckBox) if c.isVisible()]
    assert panel.info.isVisible() and "No job" in panel.info.text()
    # a job added again brings the form back
    panel.add_button.click()
    QApplication.processEvents()
    assert panel.cards_group.isVisible() and panel.model_box.isVisible()


def test_sheet_preview_takes_the_customer(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The first page names the customer typed in the preview's toolbar (the export --customer of the window)."""
    window = make_window(qtbot, tmp_path)
    dialog = window.sheet.preview_dialog()
    qtbot.addWidget(dialog)
    field = dialog.customer
    field.setText("Example Research GmbH")
    field.editingFinished.emit()
    assert dialog.sheet.options.customer == "Example Research GmbH"
    assert window.sheet.options().customer == "Example Research GmbH"
