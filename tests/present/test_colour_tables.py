"""Colours that carry a status are defined once, in present/colours.py: a fill table (FIT_COLOUR) and an ink
table for status words on a light ground (STATUS_INK); the text ink on any fill comes from one luminance formula
(WCAG 2.1), so the chassis' cards and the step-time chart's labelled bars choose their ink the same way."""

from __future__ import annotations

import re
from pathlib import Path

from configurator.present.colours import (
    FIT_COLOUR,
    INK_DARK,
    INK_LIGHT,
    SEVERITY_COLOUR,
    SEVERITY_COLOUR_DARK,
    STATUS_INK,
    contrast,
    ink_on,
)

ROOT = Path(__file__).resolve().parents[2]
STATUSES = {"fits", "tight", "does-not-fit", "unknown"}
# a dict literal keyed by fit statuses with colour values: a status table typed again
TABLE = re.compile(r"\{\s*\"(fits|error)\"\s*:\s*\"#[0-9A-Fa-f]{6}\"")
LUMA = re.compile(r"0\.299\s*\*|0\.2126\s*\*")


def test_status_tables_cover_every_status_and_ink_reads_on_white() -> None:
    assert set(FIT_COLOUR) == set(STATUS_INK) == STATUSES
    for status, ink in STATUS_INK.items():
        assert contrast(ink, "#FFFFFF") >= 4.5, status
    assert set(SEVERITY_COLOUR) == set(SEVERITY_COLOUR_DARK) == {"error", "warning", "info"}
    for severity in SEVERITY_COLOUR:
        assert contrast(SEVERITY_COLOUR[severity], "#EFEFEF") >= 4.5, severity
        assert contrast(SEVERITY_COLOUR_DARK[severity], "#2A2A2A") >= 4.5, severity


def test_ink_on_picks_the_higher_contrast() -> None:
    assert ink_on("#FFFFFF") == INK_DARK and ink_on("#000000") == INK_LIGHT
    # the step-time chart's NVLink green: white read at 3.4:1 under the old luma rule, near-black reads at 5.5:1
    assert ink_on("#2E9E4F") == INK_DARK and contrast("#2E9E4F", INK_DARK) > 4.5


def test_no_second_status_table_or_luminance_formula() -> None:
    found = []
    for path in sorted((ROOT / "configurator").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "configurator/present/colours.py":
            continue
        text = path.read_text(encoding="utf-8")
        found += [f"{rel}: status table" for _ in TABLE.finditer(text)]
        found += [f"{rel}: luminance formula" for _ in LUMA.finditer(text)]
    assert not found, "\n".join(found)
    assert TABLE.search('INK = {"fits": "#2E7D32", "tight": "#8A5A00"}')
    assert TABLE.search('colour = {"error": "#C62828", "warning": "#B26A00", "info": "#1565C0"}')
    assert LUMA.search("0.299 * c.red() + 0.587 * c.green()")
