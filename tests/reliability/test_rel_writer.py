"""One safe writer for every output: screenshots, plan PDFs and plan files go through
``catalog.fileio.atomic_replace`` (regular targets only, a verified temporary file renamed over the target),
and no module writes a user's file any other way (an AST scan closes the class)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from configurator.catalog.errors import FileError
from configurator.catalog.fileio import check_image_target, temp_files_of
from configurator.catalog.limits import (
    MAX_WINDOW_HEIGHT,
    MAX_WINDOW_WIDTH,
    MIN_WINDOW_HEIGHT,
    MIN_WINDOW_WIDTH,
    LimitError,
    parse_window_size,
)
from tests.reliability.hostile import DEFAULT_BUILD, ROOT, SEED_B

PNG_1x1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


# ---- screenshots ---------------------------------------------------------------------------------------


def test_screenshot_onto_a_build_keeps_the_build(tmp_path: Path, qapp, capsys) -> None:  # type: ignore[no-untyped-def]
    """`configurator --screenshot mybuild.yaml` (arguments swapped) truncated the build to 0 bytes."""
    from configurator import cli

    build = tmp_path / "mybuild.yaml"
    build.write_bytes(DEFAULT_BUILD.read_bytes())
    assert cli.main(["--screenshot", str(build)]) == 2
    assert build.read_bytes() == DEFAULT_BUILD.read_bytes()
    err = capsys.readouterr().err
    assert "not one" in err and "BUILD.yaml --screenshot FILE.png" in err


@pytest.mark.timeout(60)
@pytest.mark.parametrize("words", [["--demo"], ["planner"]])
def test_demo_and_planner_screenshots_refuse_a_yaml_target(words: list[str], tmp_path: Path, qapp) -> None:  # type: ignore[no-untyped-def]
    """`--demo --screenshot` and `planner --screenshot` did the same."""
    from configurator import cli

    target = tmp_path / "plan.yaml"
    target.write_bytes(SEED_B.read_bytes())
    assert cli.main([*words, "--screenshot", str(target)]) == 2
    assert target.read_bytes() == SEED_B.read_bytes()


@pytest.mark.timeout(20)  # a hang guard: Qt opening a FIFO to write waits for a reader for ever
def test_screenshot_onto_a_fifo_is_refused_at_once(tmp_path: Path, qapp) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QImage

    from configurator.ui.base import save_image

    fifo = tmp_path / "shot.png"
    os.mkfifo(fifo)
    image = QImage(4, 4, QImage.Format.Format_ARGB32)
    with pytest.raises(FileError, match="FIFO"):
        save_image(image, fifo)
    assert fifo.is_fifo()


def test_an_existing_file_that_is_not_an_image_is_never_replaced(tmp_path: Path) -> None:
    notes = tmp_path / "notes.png"
    notes.write_text("my notes, misnamed", encoding="utf-8")
    with pytest.raises(FileError, match="not an image"):
        check_image_target(notes)
    (tmp_path / "folder.png").mkdir()
    with pytest.raises(FileError, match="folder"):
        check_image_target(tmp_path / "folder.png")


def test_a_screenshot_replaces_an_old_one_whole_or_not_at_all(tmp_path: Path, qapp, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QImage

    from configurator.ui.base import save_image

    target = tmp_path / "shot.png"
    target.write_bytes(PNG_1x1)
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    image.fill(0xFF336699)
    save_image(image, target)
    assert QImage(str(target)).size().toTuple() == (8, 8)
    monkeypatch.setattr(QImage, "save", lambda *a, **k: False)  # the encoder fails (a full disk)
    with pytest.raises(FileError, match="old file is kept"):
        save_image(image, target)
    assert QImage(str(target)).size().toTuple() == (8, 8) and not temp_files_of(target)


@given(st.text(max_size=40))
def test_window_size_is_bounded_or_refused(text: str) -> None:
    """--size 0x0 printed 0x0 and wrote 960x600; 99999999999999999999x10 exited 3; 99999x99999 ran out of memory."""
    try:
        width, height = parse_window_size(text)
    except LimitError as exc:
        assert "--size" in str(exc)
        return
    assert MIN_WINDOW_WIDTH <= width <= MAX_WINDOW_WIDTH and MIN_WINDOW_HEIGHT <= height <= MAX_WINDOW_HEIGHT


@pytest.mark.parametrize("size", ["0x0", "99999999999999999999x10", "99999x99999", "20000x20000", "1920"])
def test_bad_window_sizes_exit_2_before_any_window(size: str, tmp_path: Path, qapp) -> None:  # type: ignore[no-untyped-def]
    from configurator import cli

    with pytest.raises(SystemExit) as info:
        cli.main(["--size", size, "--screenshot", str(tmp_path / "a.png")])
    assert info.value.code == 2 and not (tmp_path / "a.png").exists()


def test_the_window_minimum_is_the_size_limit() -> None:
    from configurator.ui.base import MIN_WINDOW

    assert (MIN_WINDOW.width(), MIN_WINDOW.height()) == (MIN_WINDOW_WIDTH, MIN_WINDOW_HEIGHT)


# ---- plan PDFs and plan files ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plan_result():  # type: ignore[no-untyped-def]
    from configurator.engine.planner import load_plan, plan_service

    return plan_service(load_plan(SEED_B), base_dir=SEED_B.parent)


@pytest.mark.timeout(30)
def test_plan_pdf_refuses_a_fifo_and_a_folder(tmp_path: Path, plan_result, qapp) -> None:  # type: ignore[no-untyped-def]
    """`plan --pdf FIFO` renamed its temporary file over the FIFO (and over a device) and exited 0."""
    from configurator.report.plan_sheet import export_plan_pdf

    fifo = tmp_path / "plan.pdf"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="FIFO"):
        export_plan_pdf(fifo, plan_result)
    assert fifo.is_fifo()
    (tmp_path / "dir.pdf").mkdir()
    with pytest.raises(FileError, match="folder"):
        export_plan_pdf(tmp_path / "dir.pdf", plan_result)
    assert not list(tmp_path.glob(".*tmp"))


def test_save_plan_refuses_a_fifo(tmp_path: Path) -> None:
    from configurator.engine.planner import load_plan
    from configurator.engine.planner.planfile import save_plan

    fifo = tmp_path / "plan.yaml"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="FIFO"):
        save_plan(load_plan(SEED_B), fifo)
    assert fifo.is_fifo()


# ---- the class: nothing writes or opens a user's file but the safe reader and writer --------------------

# (module, call) pairs that may stay, each with its reason
ALLOWED = {
    ("configurator/catalog/fileio.py", "*"): "the safe reader and writer themselves",
    ("configurator/report/attachment.py", "open"): "writes into the temporary file atomic_replace gives it",
    ("configurator/ui/base/screenshot.py", "save"): "encodes into the temporary file atomic_replace gives it",
    ("configurator/trace/oracle/generate.py", "read_text"): "make oracle's generator reads the repository's own "
    "config.json files and its own shards in the trace venv; no user path reaches it",
    ("configurator/cli.py", "os.replace"): "demo-pin --reset moves an unusable settings file aside (never opens it)",
    ("configurator/acceptance_tool/measure.py", "read_text"): "a standalone script the burn-in kit runs on the "
    "measured machine (standard library only): reads the kit's own jobs.json",
    ("configurator/acceptance_tool/measure.py", "write_text"): "the same script: writes its result to a temporary "
    "file it then renames",
    ("configurator/acceptance_tool/measure.py", "os.replace"): "the same script's rename",
    ("configurator/engine/acceptance/kit.py", "read_text"): "copies the package's own measure.py into the kit",
}
FILE_CALLS = {"write_text", "write_bytes", "read_text", "read_bytes"}


def _receiver(node: ast.expr) -> str:
    return ast.unparse(node).lower()


def _calls(path: Path) -> list[tuple[str, int]]:
    """Calls that read or write a file by name: open(), os.open/replace/rename, Path.read_text/write_text and
    the like, and an image's .save(path) (a QImage or a grab(): not painter.save() nor a document's save)."""
    out: list[tuple[str, int]] = []
    text = path.read_text(encoding="utf-8")
    if not any(word in text for word in ("open(", "os.re", ".save(", *FILE_CALLS)):
        return out  # nothing to parse for
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open":
            out.append(("open", node.lineno))
        elif isinstance(f, ast.Attribute):
            who = _receiver(f.value)
            if f.attr in FILE_CALLS:
                out.append((f.attr, node.lineno))
            elif who == "os" and f.attr in {"open", "replace", "rename"}:
                out.append((f"os.{f.attr}", node.lineno))
            elif f.attr == "save" and node.args and ("grab(" in who or "image" in who or "pix" in who):
                out.append(("save", node.lineno))
    return out


def test_every_file_goes_through_the_safe_reader_and_writer() -> None:
    found = []
    for path in sorted((ROOT / "configurator").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if (rel, "*") in ALLOWED:
            continue
        found += [f"{rel}:{line}: {call}(...)" for call, line in _calls(path) if (rel, call) not in ALLOWED]
    assert not found, "read or write through catalog/fileio.py instead:\n" + "\n".join(found)
