"""The acceptance commands: ``acceptance`` (the figures a built machine must measure), ``verify`` (the shop's
results against them) and ``burnin`` (the kit the shop runs). Registered by :mod:`configurator.cli`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from configurator.catalog.fileio import expand_path
from configurator.catalog.loader import default_catalog

if TYPE_CHECKING:
    from configurator.engine.model.result import Check

COMMANDS = ("acceptance", "verify", "burnin")

# verify's exit status, for a shop's or CI's gate: only 0 accepts the machine. 3 is every command's internal error
# (cli.py), so "incomplete" takes 4. A build with errors exits 1, as size does: its figures cannot be met.
EXIT_FAILED, EXIT_NO_FILES, EXIT_INCOMPLETE = 1, 2, 4
VERIFY_EXIT_CODES = (
    "exit status: 0 every measured figure passed (warnings allowed) and enough was measured; 1 a figure failed, "
    "or the build has errors; 2 no file could be read as a result; 4 incomplete: files were read but a card was "
    "never read by nvidia-smi or fewer than half of the figures were measured (not an acceptance)"
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "acceptance",
        help="print what the built machine must measure (topology, links, memory, "
        "nccl-tests busbw, peaks, step time, power)",
    )
    p.add_argument("build", type=Path)
    p.add_argument("--json", action="store_true", help="print the prediction as JSON")
    p.add_argument(
        "--store-dir",
        type=Path,
        default=None,
        help="data folder with stored measurements (default: the application's data folder)",
    )
    v = sub.add_parser(
        "verify",
        help="check a machine's measured results (files or the burn-in kit's folder)",
        epilog=VERIFY_EXIT_CODES,
    )
    v.add_argument("build", type=Path)
    v.add_argument("results", type=Path, nargs="+", help="result files or the kit's output folder")
    v.add_argument("--json", action="store_true", help="print the report as JSON")
    v.add_argument("--pdf", type=Path, default=None, help="write the acceptance report PDF (with sign-off lines)")
    v.add_argument("--store", action="store_true", help="keep the measured runs in the data folder")
    v.add_argument("--store-dir", type=Path, default=None, help="data folder for --store (default: the app's)")
    v.add_argument("--page", choices=["a4", "letter"], default="a4")
    v.add_argument("--seller", default="", help="the shop's name on the report (none by default)")
    b = sub.add_parser("burnin", help="write the burn-in kit (run.sh, measure.py, README) for a build")
    b.add_argument("build", type=Path)
    b.add_argument("-o", "--output", type=Path, required=True, help="kit folder to write")


def default_store_dir() -> Path:
    """The window's data folder (QStandardPaths AppDataLocation with the app's names)."""
    # start-up time: cli.py loads this module for every command's parser, and size must never load Qt
    from PySide6.QtCore import QCoreApplication, QStandardPaths

    QCoreApplication.setApplicationName("configurator")
    QCoreApplication.setOrganizationName("GPU Build Configurator")
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".local/share/gpu-configurator")


def _load(path: Path):  # type: ignore[no-untyped-def]
    # start-up time: cli.py loads this module for every command's parser; the engine loads in the command
    from configurator.engine import evaluate
    from configurator.engine.model.buildfile import load_build

    build = load_build(path)
    return build, evaluate(build, base_dir=path.parent)


def _stored(store: Path | None, digest: str) -> dict[str, list[str]]:
    # start-up time: as _load (every command's parser loads this module)
    from configurator.engine.acceptance.measured_store import load, stored_lines

    runs, _problems = load(store or default_store_dir(), digest)
    return stored_lines(runs)


def _refuse_errors(path: Path, errors: list[Check], as_json: bool) -> int:
    """A build with errors gets no acceptance figures, kit or verdict: its targets cannot be met (a 154.5 GB job
    on a 102.6 GB card, 2,100 W from a 2,000 W PSU). The errors listed, exit 1 as size exits."""
    head = (
        f"{path}: the build has {len(errors)} error{'s' if len(errors) != 1 else ''}; acceptance figures are set "
        "only for a build that sizes without errors (configurator size lists them)"
    )
    if as_json:
        listed = [{"line": None, "field": e.code, "message": e.message} for e in errors]
        print(json.dumps({"error": {"kind": "build-errors", "message": head, "file": str(path), "problems": listed}},
                         indent=2))  # fmt: skip
    else:
        print("error: " + "\n  ".join([head] + [f"ERROR {e.code}: {e.message}" for e in errors]), file=sys.stderr)
    return EXIT_FAILED


def run(args: argparse.Namespace) -> int:
    # start-up time: as _load (every command's parser loads this module)
    from configurator.engine.acceptance import collect, predict, verify
    from configurator.engine.acceptance.predict import build_digest

    path = expand_path(args.build)
    if args.command == "verify":
        for r in args.results:  # a mistyped path is bad input, said first (as every command says it), not a line
            if not expand_path(r).exists():  # at the foot of twenty unmeasured figures
                raise ValueError(f"{r}: file not found")
    build, result = _load(path)
    if result.errors:
        return _refuse_errors(path, result.errors, getattr(args, "json", False))
    catalog = default_catalog()
    store = expand_path(args.store_dir) if getattr(args, "store_dir", None) else None
    if args.command == "acceptance":
        # start-up time: as _load; the report module for acceptance only
        from configurator.report.acceptance_text import render_prediction

        pred = predict(build, result, catalog, stored=_stored(store, build_digest(build)))
        print(pred.model_dump_json(indent=2) if args.json else render_prediction(pred), end="\n" if args.json else "")
        return 0
    if args.command == "burnin":
        # start-up time: as _load; the kit writer for burnin only
        from configurator.engine.acceptance.kit import write_kit

        pred = predict(build, result, catalog)
        out = expand_path(args.output)
        files = write_kit(out, build, pred, catalog, path.parent)
        print(f"wrote the burn-in kit to {out} ({len(files)} files): copy it to the machine and run `sudo sh run.sh`")
        return 0
    # verify (start-up time: as _load)
    from configurator.report.acceptance_text import render_verify

    pred = predict(build, result, catalog, stored=_stored(store, build_digest(build)))
    measurements = collect([expand_path(r) for r in args.results])
    report = verify(pred, measurements)
    print(report.model_dump_json(indent=2) if args.json else render_verify(report), end="\n" if args.json else "")
    if args.store:
        # start-up time: as _load; the store for --store only
        from configurator.engine.acceptance.measured_store import run_of, save

        saved = save(store or default_store_dir(), run_of(report, measurements))
        print(json.dumps({"stored": str(saved)}) if args.json else f"stored the measured run in {saved}")
    if args.pdf is not None:
        # start-up time: Qt's PDF stack loads with --pdf only
        from configurator.report.acceptance_pdf import export_acceptance_pdf

        pages = export_acceptance_pdf(expand_path(args.pdf), build, report, page=args.page, seller=args.seller)
        print(f"wrote {args.pdf}: {pages} page(s)", file=sys.stderr)
    if not measurements.files and not measurements.kit_report:  # the kit's folder was read: incomplete (4), not 2
        return EXIT_NO_FILES  # nothing readable: say so by the exit status too
    if report.verdict == "fail":
        return EXIT_FAILED
    # a machine nothing was measured on has not passed: a gate reading 0 would accept it
    return EXIT_INCOMPLETE if report.result == "incomplete" else 0
