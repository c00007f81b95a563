"""The PyInstaller bundle runs on its own, and the Linux desktop files are valid.

The slow test builds packaging/configurator.spec and runs the frozen app: version, sizing, PDF export and an
offscreen window. The build (about 45 s of CPU) is kept in build/test-bundle/<key> (tests/build_cache.py), the
key a hash of every input the spec reads (configurator/, packaging/, specs/, resources/, pyproject.toml), the
interpreter and the installed distributions: a second `make test` on an unchanged tree runs the same checks on
the same bundle without rebuilding it; a fresh clone (CI) builds it once. `make clean` forces a rebuild.
The fast tests check the .desktop entry, the AppStream metainfo and the icon theme without building anything.
"""

from __future__ import annotations

import configparser
import os
import shutil
import struct
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.build_cache import inputs_key, keep, kept

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.gpu_configurator"
DESKTOP = ROOT / "resources" / "linux" / f"{APP_ID}.desktop"
METAINFO = ROOT / "resources" / "linux" / f"{APP_ID}.metainfo.xml"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# What packaging/configurator.spec reads: the package (Analysis), its data folders (datas) and the metadata.
BUNDLE_INPUTS = ("configurator", "packaging", "specs", "resources", "pyproject.toml")


def _project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120):  # type: ignore[no-untyped-def]
    run = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"{' '.join(cmd)} exited {run.returncode}\n{run.stdout}\n{run.stderr}"
    return run


def _tree_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def _built_bundle(tmp_path: Path) -> tuple[Path, str]:
    """The one-folder bundle for this tree: the kept one when its inputs are unchanged, else a fresh PyInstaller
    build (in tmp_path, kept once complete). Returns it and how it came."""
    key = inputs_key(BUNDLE_INPUTS)
    cached = kept("test-bundle", key)
    if cached:
        return cached / "configurator", "kept from an earlier run, inputs unchanged"
    dist, work = tmp_path / "dist", tmp_path / "work"
    start = time.perf_counter()
    spec = ROOT / "packaging" / "configurator.spec"
    _run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--distpath", str(dist),
          "--workpath", str(work), str(spec)], cwd=tmp_path, timeout=600)  # fmt: skip
    how = f"built in {time.perf_counter() - start:.0f} s"
    return keep("test-bundle", key, dist, how) / "configurator", how


@pytest.mark.slow
def test_bundle_runs_the_cli_and_the_window(tmp_path: Path) -> None:
    pytest.importorskip("PyInstaller")
    bundle, how = _built_bundle(tmp_path)
    exe = bundle / ("configurator.exe" if sys.platform == "win32" else "configurator")
    assert exe.is_file()
    size_mb = _tree_size(bundle) / 1e6
    print(f"\nbundle: {size_mb:.0f} MB in {bundle}, {how}")

    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
    env["QT_QPA_PLATFORM"] = "offscreen"
    default = ROOT / "resources" / "builds" / "default.yaml"

    # The version comes from the bundled dist-info (copy_metadata), not the source-tree fallback.
    out = _run([str(exe), "--version"], cwd=tmp_path, env=env).stdout
    assert out.split() == ["configurator", _project_version()], out
    assert "0.0.0+source" not in out

    # The catalog (configurator/specs) is inside the bundle, with its sub-folders (the measured runs, specs/runs).
    out = _run([str(exe), "size", str(default)], cwd=tmp_path, env=env).stdout
    assert "Job:" in out
    assert (exe.parent / "_internal" / "configurator" / "specs" / "runs" / "litgpt.yaml").is_file()

    # Headless PDF: Qt's offscreen platform, fonts, the SVG logo from configurator/resources.
    sheet = tmp_path / "sheet.pdf"
    _run([str(exe), "export", str(default), "-o", str(sheet), "--page", "a4"], cwd=tmp_path, env=env)
    assert sheet.read_bytes().startswith(b"%PDF")
    if shutil.which("pdftotext"):
        text = _run(["pdftotext", "-layout", str(sheet), "-"], cwd=tmp_path).stdout
        assert "Parts list" in text
        assert "Page 1 of" in text

    # The window, offscreen: start-up to a painted window is the wall time of the whole command.
    shot = tmp_path / "shot.png"
    start = time.perf_counter()
    _run([str(exe), "--screenshot", str(shot), "--size", "1280x800"], cwd=tmp_path, env=env)
    startup_s = time.perf_counter() - start
    print(f"start-up to painted window (offscreen, 1280x800): {startup_s:.2f} s")
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 800)

    # The xcb platform plugin and its libraries are bundled too: the same under a virtual X server.
    if sys.platform == "linux" and shutil.which("xvfb-run"):
        xshot = tmp_path / "shot-xcb.png"
        _run(["xvfb-run", "-a", str(exe), "--screenshot", str(xshot), "--size", "1280x800"], cwd=tmp_path,
             env={**env, "QT_QPA_PLATFORM": "xcb"})  # fmt: skip
        assert QImage(str(xshot)).size().toTuple() == (1280, 800)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_desktop_entry_and_icons() -> None:
    if shutil.which("desktop-file-validate"):
        run = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, timeout=30)
        assert run.returncode == 0 and not run.stdout.strip(), run.stdout + run.stderr
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    entry = parser["Desktop Entry"]
    for key in ("Type", "Name", "Exec", "Icon", "Categories"):
        assert entry.get(key), f"{DESKTOP.name}: {key} missing"
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "configurator"  # the console script and the bundle's executable
    assert entry["Icon"] == APP_ID
    categories = entry["Categories"].split(";")
    assert entry["Categories"].endswith(";")
    assert {"Science", "Engineering"} <= set(categories) or "Development" in categories
    # The icon the entry names exists in the theme at every size, and the PNGs are those sizes.
    hicolor = ROOT / "resources" / "icons" / "hicolor"
    for n in ICON_SIZES:
        assert _png_size(hicolor / f"{n}x{n}" / "apps" / f"{APP_ID}.png") == (n, n)
    scalable = hicolor / "scalable" / "apps" / f"{APP_ID}.svg"
    assert scalable.read_bytes() == (ROOT / "resources" / "icons" / "configurator.svg").read_bytes(), (
        "the theme's SVG differs from resources/icons/configurator.svg: run packaging/render_icons.py"
    )


def test_appstream_metainfo() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"

    def text(tag: str) -> str:
        node = root.find(tag)
        assert node is not None and (node.text or "").strip(), f"{METAINFO.name}: <{tag}> missing or empty"
        return node.text.strip()

    assert text("id") == APP_ID
    assert text("metadata_license") == "CC0-1.0"
    assert text("project_license")
    assert text("name")
    assert text("summary")
    assert root.find("description/p") is not None
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert root.find("content_rating") is not None
    releases = root.findall("releases/release")
    assert releases, "no <release>"
    assert releases[0].get("version") == _project_version(), "the newest <release> is not pyproject's version"
    assert releases[0].get("date")
    if shutil.which("appstreamcli"):
        run = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)], capture_output=True, text=True,
                             timeout=60)  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
