"""Command line: ``configurator [BUILD.yaml]``, ``size``, ``plan``, ``compare``, ``catalog``, ``export``,
``open-code``, ``nccl-busbw``, ``trace``.

Bad input exits non-zero with file, line and field; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import overload

from configurator import __version__, cli_acceptance
from configurator.catalog.cards import CardSpec, short_card_name
from configurator.catalog.errors import FileError, Problem, shorten
from configurator.catalog.fileio import check_pdf_target, expand_path, regular_or_absent, safe_read_bytes
from configurator.catalog.loader import default_catalog
from configurator.catalog.yamlio import read_text
from configurator.paths import resource

INTERNAL_ERROR = 3  # exit status of a bug (bad input is 2, a build with errors 1)
# configurator trace: 1 the tracer answered "cannot trace this", 2 bad input or a job the tracer cannot express,
# 4 the trace extra is missing, 5 the trace failed (timed out, crashed, answered nonsense)
TRACE_MISSING_EXTRA = 4
TRACE_FAILED = 5


@overload
def _user_path(path: Path) -> Path: ...
@overload
def _user_path(path: Path | None) -> Path | None: ...
def _user_path(path: Path | None) -> Path | None:
    """A path from the command line with ~ expanded (FileError for ~nosuchuser)."""
    return expand_path(path) if path is not None else None


def default_build_path() -> Path:
    return resource("builds", "default.yaml")


def _size(path: Path | None, as_json: bool) -> int:
    # start-up time: a command loads only its own modules (size never imports Qt or pyqtgraph)
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.report.text import render

    path = path or default_build_path()
    build = load_build(path)
    result = evaluate(build, base_dir=path.parent)
    if as_json:
        print(result.model_dump_json(indent=2))
    else:
        print(render(result), end="")
        for hint in _trace_hints(build, path, result):
            print(hint, file=sys.stderr)
    return 1 if result.errors else 0


def _compare(left: Path, right: Path, as_json: bool) -> int:
    """Two builds side by side: the engine's comparison rows (engine/compare.py, as the window's compare dialog)."""
    # start-up time: the engine loads for compare only
    from configurator.engine import evaluate
    from configurator.engine.compare import compare
    from configurator.engine.model.buildfile import load_build
    from configurator.report.compare_text import render_compare

    results = [evaluate(load_build(p), base_dir=p.parent) for p in (left, right)]
    rows = compare(*results)
    if as_json:
        print(json.dumps({"left": str(left), "right": str(right), "rows": [r.as_json() for r in rows]}, indent=2))
    else:
        print(render_compare(results[0].name, results[1].name, rows), end="")
    return 0


def _trace_hints(build: object, path: Path, result: object) -> list[str]:
    """For each job whose config.json the engine cannot size: the trace sizes it (issue 23, deliverable 5)."""
    # start-up time: the tracer's request module loads for size's hints only
    from configurator.trace.request import untraceable_by_engine

    return [f"hint: {line} `configurator trace {path} --job '{name}'` sizes it from Transformers' own code"
            for name, line in untraceable_by_engine(build, default_catalog(), base_dir=path.parent)]  # type: ignore[arg-type]


def _export(path: Path, output: Path, page: str | None, seller: str | None, logo: str | None,
            prices: Path | None = None, customer: str = "") -> int:
    # start-up time: the engine and Qt's PDF stack load for export only
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.present.verdict import plural
    from configurator.report.pdf import default_page, ensure_app, export_pdf
    from configurator.report.sheet import SheetOptions

    start = time.perf_counter()
    logo_path = check_logo(logo) if logo else None  # before the work: a missing logo is an error, not ignored
    build = load_build(path)
    result = evaluate(build, base_dir=path.parent)
    ensure_app()
    options = SheetOptions(page=page or default_page(), base_dir=path.parent, customer=customer)
    if seller:
        options.seller_name = seller
    if logo_path:
        options.seller_logo = str(logo_path)
    if prices:
        # start-up time: the price list reader (about 6 ms) loads with --prices only
        from configurator.catalog.prices import load_price_list

        options.prices = load_price_list(prices)
    pages = export_pdf(output, build, result, options=options)
    print(f"wrote {output}: {plural(pages, 'page')}, {options.page.upper()}, "
          f"{time.perf_counter() - start:.2f} s")
    return 0


def _open_code(code: str, print_only: bool) -> int:
    """The build a sheet's QR code holds: printed as YAML (--print), or opened in the window."""
    # start-up time: the engine loads for open-code only
    from configurator.engine.model.buildcode import decode_build
    from configurator.engine.model.buildfile import build_to_yaml

    build = decode_build(code)
    if print_only:
        print(build_to_yaml(build), end="")
        return 0

    # start-up time: the window's modules (Qt) load only when the code opens in the window
    from configurator.engine.model.buildfile import save_build
    from configurator.ui.shell.app import main as gui_main

    folder = Path(tempfile.mkdtemp(prefix="configurator-code-"))
    path = folder / "build-from-code.yaml"
    save_build(build, path)  # the window opens files; Save As gives it a home of the user's choosing
    return gui_main([str(path)])


def _plan(path: Path, as_json: bool, pdf: Path | None, measured: tuple[list[str], list[str], list[str]]) -> int:
    # start-up time: the planner loads for plan only
    from configurator.engine.planner import load_plan, plan_service
    from configurator.engine.planner.measurements import with_files
    from configurator.present.verdict import plural
    from configurator.report.plan_text import render_plan

    if pdf is not None:  # before the work: a wrong name or a missing folder fails now, not after the plan
        pdf = check_pdf_target(pdf)
    plan = with_files(load_plan(path), *measured)  # a ValueError (a bad measurement file) exits 2 in main
    result = plan_service(plan, base_dir=path.parent)
    print(result.model_dump_json(indent=2) if as_json else render_plan(result), end="\n" if as_json else "")
    if pdf is not None:
        # start-up time: Qt's PDF stack loads with --pdf only
        from configurator.report.plan_sheet import export_plan_pdf

        pages = export_plan_pdf(pdf, result)
        print(f"wrote {pdf}: {plural(pages, 'page')}", file=sys.stderr)
    # a measurement file given on the command line that could not be read or measured nothing: said on stderr,
    # and a nonzero exit, as the user asked for it by name (in the report it is one line among hundreds)
    given = {str(Path(a.partition("=")[2].strip()).expanduser().resolve()) for flags in measured for a in flags}
    unused = [p for p in result.problems if p.code.startswith("MEASUREMENT_") and any(g in p.message for g in given)]
    for p in unused:
        print(f"{p.severity}: {p.message}", file=sys.stderr)
    return 1 if result.errors or unused else 0


def _trace(path: Path, job: str | None, as_json: bool, arch: str | None, use_cache: bool,
           timeout_s: float | None) -> int:
    """Trace the build's jobs (or one) on meta tensors in the worker subprocess; print each beside the estimate."""
    # start-up time: the engine and the tracer load for trace only
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build
    from configurator.trace import runner
    from configurator.trace.cache import TraceCache
    from configurator.trace.protocol import TraceResult
    from configurator.trace.request import TraceRefused, engine_estimate_gb, prepare_trace
    from configurator.trace.words import breakdown_lines, difference_text, traced_line

    build = load_build(path)
    catalog = default_catalog()
    if job is not None and build.job_index(job) is None:
        names = ", ".join(repr(j.name) for j in build.jobs) or "none"
        raise ValueError(f"no job called {job!r} in {path} (its jobs: {names})")
    job_names = [job] if job is not None else [j.name for j in build.jobs]
    if not job_names:
        raise ValueError(f"{path} has no jobs to trace")
    result = evaluate(build, base_dir=path.parent)
    cache = TraceCache()
    progress = sys.stderr.isatty() and not as_json
    records: list[dict[str, object]] = []
    status = 0
    for name in job_names:
        record: dict[str, object] = {"job": name}
        records.append(record)
        estimate = engine_estimate_gb(result, name)
        record["estimate_allocated_gb"] = estimate
        try:
            prepared = prepare_trace(build, name, catalog, base_dir=path.parent, arch=arch)
        except TraceRefused as exc:
            record["error"] = str(exc)
            status = max(status, 2)
            continue
        record["path"] = "analytic" if prepared.analytic else "traced only"
        record["engine_note"] = prepared.analytic_reason
        record["request"] = prepared.request.wire()
        record["notes"] = prepared.notes

        def show(fraction: float, words: str, name: str = name) -> None:
            print(f"\r{name}: {fraction * 100:3.0f} % {words[:50]:50s}", end="", file=sys.stderr, flush=True)

        try:
            outcome = runner.run_trace(prepared.request, cache=cache, use_cache=use_cache,
                                       on_progress=show if progress else None, timeout_s=timeout_s)  # fmt: skip
        except runner.MissingExtra as exc:
            record["error"] = str(exc)
            status = max(status, TRACE_MISSING_EXTRA)
            break  # every other job would say the same
        except runner.TraceError as exc:
            record["error"] = str(exc)
            status = max(status, TRACE_FAILED)
            continue
        finally:
            if progress:
                print("\r" + " " * 80 + "\r", end="", file=sys.stderr, flush=True)
        traced = outcome.result
        record["traced"] = traced.model_dump(mode="json", by_alias=True)
        record["cached"] = outcome.cached
        if outcome.saved_at:
            record["traced_at"] = outcome.saved_at
        if not traced.ok:
            record["error"] = traced.error or "the tracer could not trace this job and gave no reason"
            status = max(status, 1)
        elif estimate is not None:
            record["difference_gb"] = round(estimate - traced.peak_gb, 4)
    if as_json:
        print(json.dumps({"build": str(path), "jobs": records}, indent=2))
        return status
    for record in records:
        print(f"{record['job']}:")
        traced_json = record.get("traced")
        if isinstance(traced_json, dict):
            traced = TraceResult.model_validate(traced_json)
            if traced.ok:
                when = f" (cached, traced {record.get('traced_at', '')})" if record.get("cached") else ""
                print(f"  {traced_line(traced)}{when}")
                print("  at the peak: " + "; ".join(breakdown_lines(traced)))
                recorded = record.get("estimate_allocated_gb")
                print("  " + difference_text(traced.peak_gb, recorded if isinstance(recorded, float) else None))
                if record.get("engine_note"):
                    print(f"  path: traced only; the engine cannot size this config ({record['engine_note']})")
                else:
                    print("  path: the engine's analytic estimate, checked by the trace")
                print(f"  versions: {traced.versions_text()}")
                if traced.attention_kernel:
                    print(f"  attention kernel: {traced.attention_kernel}")
                for note in [*traced.notes, *record.get("notes", [])]:  # type: ignore[misc]
                    print(f"  note: {note}")
                continue
        print(f"  error: {record.get('error')}")
    return status


def check_logo(logo: str) -> Path:
    """The seller logo's path, readable as an SVG or PNG file (at most 5 MB); FileError otherwise."""
    path = expand_path(logo)
    data = safe_read_bytes(path)
    if not (data.startswith(b"\x89PNG\r\n\x1a\n") or b"<svg" in data[:4096]):
        raise FileError(str(path), [Problem("", "not an SVG or PNG image: give the logo as .svg or .png")])
    return path


def name_cell(name: str, width: int) -> str:
    """A card's name in a column ``width`` wide: whole where it fits, else without 'NVIDIA' and 'Blackwell'
    (short_card_name), else cut with an ellipsis; the RTX PRO 6000 names (up to 55 characters) pushed every
    later column of their rows out of line."""
    for text in (name, short_card_name(name, abbreviate=False)):
        if len(text) <= width:
            return f"{text:{width}s}"
    return name[: width - 1] + "…"


def bf16_cell(card: CardSpec) -> str:
    """The BF16 column: the published dense rate; where none is published, the catalog's UNCONFIRMED estimate
    marked 'est.' (what plan, size and sheet use, build assumptions allowing), or 'n/p' with neither."""
    if card.bf16_dense_tflops.value:
        return f"{card.bf16_dense_tflops.value:.1f}"
    estimate = card.bf16_dense_tflops_estimate
    if estimate is not None and estimate.value:
        return f"est. {estimate.value:.1f}"
    return "n/p"


def card_legend(marks: set[str]) -> list[str]:
    """The lines under `catalog cards` that say what its marks mean (only the marks the table shows)."""
    lines = []
    if "est." in marks:
        lines.append("est.: BF16 rate not published by NVIDIA; the catalog's UNCONFIRMED estimate, used by plan, "
                     "size and sheet unless a build's assumptions say compute_rates: published")  # fmt: skip
    if "n/p" in marks:
        lines.append("n/p: BF16 rate not published and no estimate: no compute time for this card")
    lines.append("Full names and every figure's source: configurator catalog cards --json")
    return lines


def _catalog(kind: str, as_json: bool) -> int:
    cat = default_catalog()
    if kind == "cards":
        # start-up time: the engine loads for catalog cards only
        from configurator.engine.lowprecision.checks import supported_recipes

        cards = cat.cards.values()
        if as_json:
            print(json.dumps([c.model_dump(mode="json") for c in cards], indent=2))
            return 0
        print(f"{'id':22s} {'name':42s} {'visible GB':>10s} {'BF16 TFLOPS':>11s} {'TDP W':>6s}  NVLink  MIG  "
              f"{'CC':>4s}  recipes (Transformer Engine)")  # fmt: skip
        marks: set[str] = set()
        for c in cards:
            bf16 = bf16_cell(c)
            marks.update(m for m in ("est.", "n/p") if m in bf16)
            cc = f"{c.compute_capability.value:.1f}" if c.compute_capability.value else "?"
            lp = ", ".join(supported_recipes([c])) or "none (BF16 only)"
            name = name_cell(c.name, 42)
            print(f"{c.id:22s} {name} {c.visible_gb:10.1f} {bf16:>11s} {c.power.tdp_w.value or 0:6.0f}  "
                  f"{'yes' if c.nvlink else 'no ':6s}  {'yes' if c.mig else 'no ':3s}  {cc:>4s}  {lp}")  # fmt: skip
        print()
        for line in card_legend(marks):
            print(line)
    elif kind == "models":
        models = cat.models.values()
        if as_json:
            print(json.dumps([m.model_dump(mode="json") for m in models], indent=2))
            return 0
        print(f"{'id':22s} {'name':44s} {'parameters':>16s}  architecture")
        for m in models:
            print(f"{m.id:22s} {m.name:44s} {m.total_params:16,d}  {m.architecture}")
    else:
        chassis = cat.chassis.values()
        if as_json:
            print(json.dumps([c.model_dump(mode="json") for c in chassis], indent=2))
            return 0
        print(f"{'id':24s} {'name':44s} {'GPUs':>4s} {'CPUs':>4s}  airflow  PSU")
        for ch in chassis:
            psu = f"{ch.psu.units} x {ch.psu.watts_each.value:,.0f} W" if ch.psu.watts_each.value else "unpublished"
            print(f"{ch.id:24s} {ch.name:44s} {len(ch.positions):4d} {ch.cpu_sockets:4d}  {ch.airflow:7s}  {psu}")
    return 0


def _parser() -> argparse.ArgumentParser:
    """The argument parser: one subparser per command (the window takes its own arguments)."""
    parser = argparse.ArgumentParser(
        prog="configurator",
        description=(
            "GPU build configurator for LLM fine-tuning. With no command, opens the window: "
            "configurator [BUILD.yaml] [--demo] [--screenshot FILE.png [--size 1920x1080]]."
        ),
        epilog=(
            "window options: --demo opens the in-store demo (kiosk mode: full screen, guided scenarios); "
            "--screenshot FILE.png renders the window to a PNG and exits (--size WIDTHxHEIGHT). "
            "Each command has its own --help: configurator size --help."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command")
    p_size = sub.add_parser("size", help="size a build file and print the report")
    p_size.add_argument("build", type=Path, nargs="?", help="build YAML (default: the preloaded build)")
    p_size.add_argument("--json", action="store_true", help="print the result model as JSON (an error too: "
                        '{"error": {"kind", "message", "file", "problems"}} on stdout, exit 2)')
    p_cmp = sub.add_parser("compare", help="compare two build files: headroom, step time, fit, stack, power")
    p_cmp.add_argument("left", type=Path, help="build YAML (left)")
    p_cmp.add_argument("right", type=Path, help="build YAML (right)")
    p_cmp.add_argument("--json", action="store_true", help="print the comparison rows as JSON")
    p_plan = sub.add_parser("plan", help="size a fleet for a fine-tuning service from a plan file")
    p_plan.add_argument("plan", type=Path, help="plan YAML (e.g. resources/plans/seed-b-service.yaml)")
    p_plan.add_argument("--json", action="store_true", help="print the plan result as JSON (an error too, as size's)")
    p_plan.add_argument("--pdf", type=Path, default=None, help="also write the plan section as a PDF")
    p_plan.add_argument("--mig-lgip", action="append", default=[], metavar="NODE=FILE",
                        help="nvidia-smi mig -lgip output measured on a node type (repeatable)")
    p_plan.add_argument("--lspci", action="append", default=[], metavar="NODE=FILE",
                        help="lspci -vv output of a node type: each GPU's negotiated PCIe link (repeatable)")
    p_plan.add_argument("--dcgm", action="append", default=[], metavar="NODE:CLASS=FILE",
                        help="DCGM field export (SM_ACTIVE, FB_USED) of a class's job on a node type (repeatable)")
    sub.add_parser("planner", help="open the service planner window: configurator planner [PLAN.yaml]")
    p_cat = sub.add_parser("catalog", help="list the catalog")
    p_cat.add_argument("kind", choices=["cards", "models", "chassis"])
    p_cat.add_argument("--json", action="store_true")
    p_exp = sub.add_parser("export", help="export the build sheet to PDF (headless; no display needed)")
    p_exp.add_argument("build", type=Path)
    p_exp.add_argument("-o", "--output", type=Path, required=True, help="PDF file to write")
    p_exp.add_argument("--page", choices=["a4", "letter"], default=None, help="paper size (default: from the locale)")
    p_exp.add_argument("--seller", default=None, help="seller name for the header")
    p_exp.add_argument("--customer", default="", help="who the quote is for (first page); blank lines when unset")
    p_exp.add_argument("--logo", default=None, help="seller logo (SVG or PNG) for the header")
    p_exp.add_argument("--prices", type=Path, default=None,
                       help="seller's price list (YAML or CSV): adds a priced bill of materials")  # fmt: skip
    p_code = sub.add_parser("open-code", help="open the build a sheet's QR code holds (GBC1:...)")
    p_code.add_argument("code", help="the code text, as a scanner reads it")
    p_code.add_argument("--print", dest="print_only", action="store_true", help="print the build YAML instead")
    p_trace = sub.add_parser("trace", help="trace a job's training step on meta tensors: the exact allocated peak "
                             "(needs the trace extra: pip install 'gpu-build-configurator[trace]')")
    p_trace.add_argument("build", type=Path, help="build YAML")
    p_trace.add_argument("--job", default=None, help="the job to trace (default: every job of the build)")
    p_trace.add_argument("--json", action="store_true", help="print the requests and results as JSON")
    p_trace.add_argument("--arch", default=None, choices=["sm80", "sm89", "sm90", "sm100", "sm120"],
                         help="the card architecture (default: the cards the job runs on)")
    p_trace.add_argument("--no-cache", action="store_true", help="trace again even when a result is cached")
    p_trace.add_argument("--timeout", type=float, default=None, help="seconds per trace (default 600)")
    p_nccl = sub.add_parser("nccl-busbw", help="read an nccl-tests all_reduce_perf output; print its busbw")
    p_nccl.add_argument("file", type=Path, help="the all_reduce_perf output, as it printed it")
    p_nccl.add_argument("--link", choices=["pcie", "nvlink", "nvswitch"], default="pcie",
                        help="the link the run went over (default: pcie); a busbw above what that link can carry "
                             "is refused")  # fmt: skip
    p_nccl.add_argument("--json", action="store_true", help="print the busbw and the calibration entry as JSON")
    p_pin = sub.add_parser("demo-pin", help="is the demo's stored PIN usable? --reset unlocks a locked demo")
    p_pin.add_argument("--reset", action="store_true",
                       help="remove the stored PIN (the shipped default then applies until staff set their own)")
    cli_acceptance.add_parsers(sub)  # acceptance, verify, burnin
    return parser


def _nccl_busbw(path: Path, link: str, as_json: bool = False, link_given: bool = True) -> int:
    """Print an nccl-tests all_reduce_perf output's large-message busbw as a build's calibration entry."""
    # start-up time: the engine loads for nccl-busbw only
    from configurator.engine.time.nccl import large_message_busbw, link_check

    try:
        busbw = large_message_busbw(read_text(path))
        warning = link_check(link, busbw)  # 170.8 GB/s "over PCIe" is an NVLink run given the default link
    except ValueError as exc:  # the file named with the sentence (which names the line)
        raise FileError(str(path), [Problem("busbw", str(exc))]) from None
    source = shorten(path.name, 80)
    if as_json:
        entry = {"link": link, "busbw_gb_s": round(busbw, 1), "source": source}
        print(json.dumps({"busbw_gb_s": busbw, "link": link, "link_given": link_given, "calibration": [entry],
                          "warnings": [warning] if warning else []}, indent=2))  # fmt: skip
        return 0
    said = "" if link_given else " (the default: give --link for another link)"
    print(f"large-message all_reduce busbw: {busbw:.1f} GB/s over {link}{said}\n"
          f"add to the build's assumptions:\n  calibration: [{{link: {link}, busbw_gb_s: {busbw:.1f}, "
          f"source: {json.dumps(source)}}}]")  # fmt: skip
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _demo_pin(reset: bool) -> int:
    """``configurator demo-pin [--reset]``: whether the kiosk's stored PIN is usable; --reset removes it (the
    shipped default then leaves the demo until staff set their own in Preferences). A settings file that is
    not a usable file (a FIFO, a device, a folder, over 1 MB) is moved aside, never opened."""
    # start-up time: the window's settings (Qt) load for demo-pin only
    from configurator.ui.base.settings import (
        DEFAULTS,
        MAX_SETTINGS_BYTES,
        Settings,
        settings_file,
        settings_file_problem,
    )

    path = settings_file()
    problem = settings_file_problem(path)
    if problem is not None:
        if not reset:
            print(f"the demo is locked: the settings file cannot be read ({problem}); "
                  "run configurator demo-pin --reset")  # fmt: skip
            return 1
        aside = path.with_name(f"{path.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
        for unusable, to in ((path, aside), (Path(f"{path}.lock"), Path(f"{aside}.lock"))):
            if os.path.lexists(unusable) and regular_or_absent(unusable, MAX_SETTINGS_BYTES) is not None:
                os.replace(unusable, to)  # a rename: the FIFO, device or folder is never opened
        print(f"moved the unusable settings file aside to {aside}; the other settings start from their defaults")
    settings = Settings()
    stored = settings.stored_problem("demo/pin")
    if not reset:
        print(f"the demo is locked: {stored}; run configurator demo-pin --reset" if stored
              else "the stored demo PIN is usable")  # fmt: skip
        return 1 if stored else 0
    settings.reset("demo/pin")
    print(f"demo PIN reset to the shipped default {DEFAULTS['demo/pin']}: set your own in Preferences")
    return 0


# the first words that run a command (the rest open the window, on a build file or none)
COMMANDS = ("size", "plan", "compare", "planner", "catalog", "export", "open-code", "trace", "nccl-busbw", "demo-pin",
            *cli_acceptance.COMMANDS, "-h", "--help", "--version")  # fmt: skip


def unknown_command(word: str) -> str | None:
    """The one line for a first word that is neither a command nor a build file ('compair', 'sise'); None for one
    the window takes: an option, or anything that names a file or may (a path, a .yaml name, an existing file)."""
    if word.startswith("-") or "/" in word or os.sep in word or "." in word or os.path.lexists(word):
        return None
    import difflib  # start-up time: only a mistyped command pays for it

    names = [c for c in COMMANDS if not c.startswith("-")]
    close = difflib.get_close_matches(word, names, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return (f"unknown command {word!r}{hint}; commands: {', '.join(names)}. "
            "To open a build in the window: configurator BUILD.yaml")  # fmt: skip


def _command(parser: argparse.ArgumentParser, words: list[str]) -> int:
    """Run the command ``words`` name: a window, or one subcommand."""
    if words[:1] == ["planner"]:  # the service planner window (configurator/ui/planner/)
        # start-up time: the planner window's modules (Qt) load for planner only
        from configurator.ui.shell.planner_app import main as planner_main

        return planner_main(words[1:])
    if words and words[0] not in COMMANDS and (problem := unknown_command(words[0])):
        raise ValueError(problem)
    if not words or words[0] not in COMMANDS:
        # No command: the window (configurator [BUILD.yaml] [--screenshot FILE.png --size WxH]); start-up time:
        # Qt and the window's modules load here only, never for a command
        from configurator.ui.shell.app import main as gui_main

        return gui_main(words)
    args = parser.parse_args(words)
    if args.command == "size":
        return _size(_user_path(args.build), args.json)
    if args.command == "compare":
        return _compare(_user_path(args.left), _user_path(args.right), args.json)
    if args.command == "plan":
        return _plan(_user_path(args.plan), args.json, _user_path(args.pdf), (args.mig_lgip, args.lspci, args.dcgm))
    if args.command == "catalog":
        return _catalog(args.kind, args.json)
    if args.command == "export":
        return _export(_user_path(args.build), _user_path(args.output), args.page, args.seller, args.logo,
                       _user_path(args.prices), args.customer)  # fmt: skip
    if args.command == "open-code":
        return _open_code(args.code, args.print_only)
    if args.command == "nccl-busbw":
        given = any(w == "--link" or w.startswith("--link=") for w in words)
        return _nccl_busbw(_user_path(args.file), args.link, args.json, given)
    if args.command == "demo-pin":
        return _demo_pin(args.reset)
    if args.command == "trace":
        return _trace(_user_path(args.build), args.job, args.json, args.arch, not args.no_cache, args.timeout)
    if args.command in cli_acceptance.COMMANDS:
        return cli_acceptance.run(args)
    parser.print_help()
    return 2


def json_error(kind: str, message: str, exc: BaseException | None = None) -> str:
    """The error object a command given --json prints on stdout instead of its result (exit status unchanged: 2
    bad input, 3 a bug): {"error": {"kind": "bad-input" | "internal", "message": one line, "file": the file or
    null, "problems": [{"line": n or null, "field": "jobs[0].method", "message": ...}]}}."""
    problems = exc.problems if isinstance(exc, FileError) else []
    where = exc.path if isinstance(exc, FileError) else None
    listed = [{"line": p.line, "field": p.field, "message": p.message} for p in problems]
    return json.dumps({"error": {"kind": kind, "message": message, "file": where, "problems": listed}}, indent=2)


def main(argv: list[str] | None = None) -> int:
    """The command line's entry point: bad input exits 2 with one line, a bug 3 (INTERNAL_ERROR). A command given
    --json reports either as a JSON object on stdout (json_error), so a script reads one format."""
    parser = _parser()
    words = sys.argv[1:] if argv is None else list(argv)
    as_json = "--json" in words and words[0] in COMMANDS
    try:
        return _command(parser, words)
    except FileError as exc:
        print(json_error("bad-input", exc.summary(), exc) if as_json else f"error: {exc}",
              file=sys.stdout if as_json else sys.stderr)  # fmt: skip
        return 2
    except (ValueError, OSError) as exc:
        text = shorten(str(exc), 500)
        print(json_error("bad-input", text) if as_json else f"error: {text}",
              file=sys.stdout if as_json else sys.stderr)  # fmt: skip
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug, not bad input: one readable line (the traceback on request)
        if os.environ.get("CONFIGURATOR_DEBUG"):
            raise
        text = f"{type(exc).__name__}: {shorten(str(exc), 300)}"
        print(json_error("internal", text) if as_json else f"internal error: {text}\n"
              "This is a bug in the configurator; rerun with CONFIGURATOR_DEBUG=1 for the details.",
              file=sys.stdout if as_json else sys.stderr)  # fmt: skip
        return INTERNAL_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
