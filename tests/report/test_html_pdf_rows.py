"""The plan sheet and the acceptance report (report/html_pdf.py) keep each table row whole on a page: a row Qt split
("HGX H100 /" at a page's foot, "7g.80gb" alone under the repeated header on the next, review2 cli 7) starts the next
page whole, the table's header again above it."""

from __future__ import annotations

from pathlib import Path

from configurator.report.pagination import first_split_row, split_tables

ROOT = Path(__file__).resolve().parents[2]


def test_split_tables_cuts_before_a_row_with_the_header_again() -> None:
    html = ("<p>x</p><table style='border:0'><thead><tr><th>H</th></tr></thead><tbody><tr><td>a</td></tr>"
            "<tr><td>b</td></tr><tr><td>a</td></tr></tbody></table><table><tr><th>K</th></tr><tr><td>c</td></tr>"
            "</table>")  # fmt: skip
    cut, parts = split_tables(html, {0: {2}, 1: {0}})
    assert parts == [(0, 0), (0, 2), (1, 0)]
    first, second, third = cut.split("</table>")[:3]
    assert first.endswith("<tr><td>b</td></tr></tbody>") and "page-break" not in first
    assert second == ("<table style='page-break-before:always;border:0'><thead><tr><th>H</th></tr></thead><tbody>"
                      "<tr><td>a</td></tr></tbody>")  # fmt: skip
    assert third == "<table style='page-break-before:always'><tr><th>K</th></tr><tr><td>c</td></tr>"


def _writer(tmp_path: Path):  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPdfWriter

    from configurator.report.pdf import ensure_app, page_layout

    ensure_app()
    writer = QPdfWriter(str(tmp_path / "x.pdf"))
    writer.setResolution(300)
    writer.setPageLayout(page_layout("a4"))
    return writer


def test_the_plan_sheet_splits_no_row(tmp_path: Path) -> None:
    from configurator.engine.planner import load_plan, plan_service
    from configurator.report.html_pdf import laid_out
    from configurator.report.plan_sheet import plan_html

    path = ROOT / "resources" / "plans" / "seed-b-service.yaml"
    html = plan_html(plan_service(load_plan(path), base_dir=path.parent))
    writer = _writer(tmp_path)
    doc, _body = laid_out(writer, html)
    assert first_split_row(doc) is None
    del writer


def test_the_acceptance_report_splits_no_row(tmp_path: Path) -> None:
    from configurator.catalog.loader import default_catalog
    from configurator.engine import evaluate
    from configurator.engine.acceptance import collect, predict, verify
    from configurator.engine.model.buildfile import load_build
    from configurator.report.html_pdf import laid_out
    from configurator.report.sheet_acceptance import verify_html

    path = ROOT / "resources" / "builds" / "seed-70b-lora-8x-h200-nvl.yaml"
    build = load_build(path)
    report = verify(predict(build, evaluate(build, base_dir=path.parent), default_catalog()),
                    collect([ROOT / "tests" / "fixtures" / "acceptance" / "healthy-8gpu"]))  # fmt: skip
    writer = _writer(tmp_path)
    doc, _body = laid_out(writer, verify_html(report, "GBC-X", "3 December 2026", ""),
                          "h1 {font-size: 16pt} h2 {font-size: 12pt} td {font-size: 7pt} th {font-size: 7pt}")
    assert first_split_row(doc) is None
    del writer
