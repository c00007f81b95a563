"""`configurator catalog cards` as a table a reader can follow (review 2, CLI finding 23): every row's columns
line up with the header (the RTX PRO 6000 names overflowed the name column and shifted the rest), and a
rate NVIDIA does not publish is shown as the estimate the other commands use, with a legend saying so."""

from __future__ import annotations

import pytest

from configurator.catalog.loader import default_catalog
from configurator.cli import main


def table(capsys: pytest.CaptureFixture[str]) -> tuple[list[str], list[str]]:
    """(the header and card rows, the lines under the table)."""
    assert main(["catalog", "cards"]) == 0
    out = capsys.readouterr().out.splitlines()
    ids = set(default_catalog().cards)
    rows = [line for line in out if line.split() and (line.split()[0] in ids or line.startswith("id "))]
    rest = [line for line in out if line not in rows and line.strip()]
    return rows, rest


def test_columns_line_up(capsys: pytest.CaptureFixture[str]) -> None:
    rows, _ = table(capsys)
    header = rows[0]
    # where each numeric column ends in the header: every row's figure ends there too
    for title in ("visible GB", "BF16 TFLOPS", "TDP W"):
        end = header.index(title) + len(title)
        for row in rows[1:]:
            assert row[end - 1] != " " and (len(row) == end or row[end] == " "), (title, row)
    nvlink = header.index("NVLink")
    assert all(row[nvlink : nvlink + 3] in ("yes", "no ") for row in rows[1:]), rows


def test_long_names_are_shortened_not_spilled(capsys: pytest.CaptureFixture[str]) -> None:
    rows, _ = table(capsys)
    by_id = {row.split()[0]: row for row in rows[1:]}
    assert "RTX PRO 6000 Max-Q Workstation Edition" in by_id["rtx-pro-6000-maxq"]
    assert "RTX PRO 6000 Server Edition" in by_id["rtx-pro-6000-server"]


def test_unpublished_rate_shows_the_estimate_and_a_legend(capsys: pytest.CaptureFixture[str]) -> None:
    rows, rest = table(capsys)
    card = default_catalog().cards["rtx-pro-6000-server"]
    estimate = card.bf16_dense_tflops_estimate
    assert card.bf16_dense_tflops.value is None and estimate is not None and estimate.value
    server = next(row for row in rows if row.startswith("rtx-pro-6000-server "))
    assert f"est. {estimate.value:.1f}" in server and "n/p" not in server
    legend = " ".join(rest)
    assert "est.: BF16 rate not published by NVIDIA" in legend and "UNCONFIRMED estimate" in legend
    assert "--json" in legend  # where the sources are
