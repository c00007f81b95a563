"""Entry point: one request JSON object on stdin, one result JSON object on stdout (exit 0 also for a clean
"cannot trace this"); progress lines ``progress <fraction> <words>`` on stderr."""

from __future__ import annotations

import json
import sys

from configurator.trace.worker.result import failure
from configurator.trace.worker.trace import run_request


def main() -> int:
    raw = sys.stdin.read()
    try:
        request = json.loads(raw)
    except ValueError as exc:
        print(json.dumps(failure(f"the request is not JSON: {exc}")))
        return 0
    result = run_request(request, progress=_progress)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


def _progress(fraction: float, words: str) -> None:
    sys.stderr.write(f"progress {fraction:.3f} {words}\n")
    sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())
