"""File > Verify build… in the window (offscreen): pass / warn / fail per figure, slots outlined on the chassis
drawing, the measured peak beside the predicted bar of the headroom chart."""

from __future__ import annotations

from pathlib import Path

from configurator.paths import resource
from configurator.ui.shell.verify_dialog import COLOUR, VerifyDialog, open_verify_dialog
from tests.gui_helpers import make_window


def test_menu_has_verify(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    assert window.menus.verify_action.text() == "&Verify build…"
    window.menus.verify_action.trigger()
    dialogs = [w for w in window.findChildren(VerifyDialog)]
    assert dialogs and dialogs[0].isVisible()
    dialogs[0].close()


def test_dialog_marks_slots_and_chart(qtbot, tmp_path: Path, fixtures: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path, resource("builds", "seed-70b-lora-8x-h200-nvl.yaml"))
    dialog = open_verify_dialog(window)
    with qtbot.waitSignal(dialog.verified, timeout=30000):  # read on a worker: load returns at once
        dialog.load([fixtures / "gpu-x8"])
    assert "FAIL" in dialog.summary.text()
    first = [
        dialog.table.item(r, 1).text()
        for r in range(dialog.table.rowCount())
        if dialog.table.item(r, 0).text() == "FAIL"
    ]
    assert "GPU5 PCIe link" in first
    marks = window.chassis_view.slot_marks()
    assert marks[6] == COLOUR["fail"].lower() and marks[1] == COLOUR["pass"].lower()
    points = window.chart.measured_points()
    assert len(points) == 1 and abs(points[0][1] - 34.8) < 0.1  # DCGM peak FB used, GB, beside the job's bar
    # keep the measurements: written under the data folder
    monkeypatch.setattr("configurator.ui.shell.verify_dialog.data_folder", lambda: tmp_path / "data")
    kept = dialog.store()
    assert kept is not None and kept.is_file() and kept.parent.parent.name == "measured"
    assert dialog.save_pdf(tmp_path / "acceptance.pdf") >= 1 and (tmp_path / "acceptance.pdf").stat().st_size > 0
    assert dialog.save_pdf(tmp_path / "no-such-folder" / "a.pdf") == 0 and "Could not write" in dialog.summary.text()
    dialog.close()
    assert window.chassis_view.slot_marks() == {} and window.chart.measured_points() == []


def test_dialog_with_unreadable_files_says_so(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot, tmp_path)
    bad = tmp_path / "topo.txt"
    bad.write_bytes(b"\x00\xff" * 100 + b"GPU0 GPU1\nGPU0 X ZZZ\n")
    dialog = VerifyDialog(window)
    with qtbot.waitSignal(dialog.verified, timeout=30000):
        dialog.load([bad, tmp_path / "missing.txt"])
    text = dialog.summary.text()
    assert "No result file was recognised" in text
    # one bullet per file, by name; the paths and what was wrong in the tooltip (review2 gui 18)
    listed = dialog.unreadable.text()
    assert dialog.unreadable.isVisibleTo(dialog) and "Could not read 2 files" in listed
    assert "<li>topo.txt</li>" in listed and "<li>missing.txt</li>" in listed and str(tmp_path) not in listed
    assert str(bad) in dialog.unreadable.toolTip()
    assert not dialog.store_button.isEnabled()
    dialog.close()
