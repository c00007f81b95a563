"""Run the tracer in a subprocess, with a time limit, a memory limit, progress and cancellation.

The worker (``python -m configurator.trace.worker``, the only code that imports torch) reads one request JSON
object on stdin, writes ``progress <fraction> <words>`` lines on stderr and one result JSON object on stdout,
and exits 0 (also for a clean "cannot trace this"). Nothing here imports torch: the GUI, the CLI and the sheet
stay as light as before, and a crash, a hang or a runaway allocation of the tracer costs its process only.

Which worker runs:
- ``CONFIGURATOR_TRACE_WORKER``: a whole command line, run with the environment as it is (tests point it at a
  stub that speaks the protocol; a developer at a worker in another checkout);
- else ``CONFIGURATOR_TRACE_PYTHON`` (a Python with the ``trace`` extra, e.g. another venv) or this Python,
  with ``-m configurator.trace.worker``; this configurator's package folder is put first on its PYTHONPATH so
  the worker is this version's.

The memory limit is an address-space limit (``RLIMIT_AS``) set by a one-line launcher that then ``exec``s the
worker (a ``preexec_fn`` is not safe in a process with threads, as the window is); the time limit and Cancel
kill the worker's whole process group.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.metadata as metadata
import json
import os
import platform
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from configurator import __version__
from configurator.catalog.units import GB
from configurator.trace.cache import TraceCache
from configurator.trace.protocol import LIBRARIES, SCHEMA, TraceRequest, TraceResult, parse_progress

ENV_WORKER = "CONFIGURATOR_TRACE_WORKER"
ENV_PYTHON = "CONFIGURATOR_TRACE_PYTHON"
ENV_TIMEOUT = "CONFIGURATOR_TRACE_TIMEOUT_S"
ENV_MEMORY = "CONFIGURATOR_TRACE_MEMORY_GB"
INSTALL_HINT = "pip install 'gpu-build-configurator[trace]'"

# A 7-8B trace takes 5-8 s and about 1 GB of host memory (shared/reference/tracing.md, "Figures seen"); the
# limits leave room for a 405B config, and both can be raised by the environment variables above. The
# address-space limit counts mapped libraries too (torch's maps a few GB it never touches), hence 16 GB.
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MEMORY_GB = 16.0
MAX_RESULT_BYTES = 10_000_000

_REQUIRED = ("torch", "transformers", "peft", "accelerate")
_MISSING_MODULE = re.compile(r"No module named '([A-Za-z0-9_.]+)'")

ProgressFn = Callable[[float, str], None]


class TraceError(Exception):
    """The trace gave no result; the message is a sentence for the user."""


class MissingExtra(TraceError):
    pass


class TraceTimeout(TraceError):
    pass


class TraceCancelled(TraceError):
    pass


class WorkerFailed(TraceError):
    """The worker crashed (non-zero exit), was killed, or answered something that is not its result."""


@dataclass(frozen=True)
class WorkerCommand:
    argv: list[str]
    python: str  # the interpreter that runs the worker (for the version probe and the limits' launcher)
    custom: bool = False  # named by CONFIGURATOR_TRACE_WORKER: no extra check before it runs

    def describe(self) -> str:
        return shlex.join(self.argv)


def worker_command(python: str | None = None) -> WorkerCommand:
    """The worker's command line (see the module's docstring for the environment variables)."""
    custom = os.environ.get(ENV_WORKER)
    if custom:
        argv = shlex.split(custom)
        return WorkerCommand(argv, argv[0], custom=True)
    chosen = python or os.environ.get(ENV_PYTHON)
    if not chosen:
        if getattr(sys, "frozen", False):  # the desktop bundle: its executable is the app, not a Python
            raise MissingExtra(f"the desktop app carries no Python for the tracer: install the trace extra in one "
                               f"({INSTALL_HINT}) and name it in {ENV_PYTHON}")  # fmt: skip
        chosen = sys.executable
    return WorkerCommand([chosen, "-m", "configurator.trace.worker"], chosen)


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[2])  # the folder that holds the configurator package


def _env(command: WorkerCommand | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # this configurator's worker, whichever Python runs it (a desktop bundle's modules are in its archive: the
    # tracer's Python brings its own configurator with the extra)
    if (command is None or not command.custom) and not getattr(sys, "frozen", False):
        paths = [_package_root(), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["PYTHONUNBUFFERED"] = "1"  # progress lines arrive as they are written
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


# ---- versions ------------------------------------------------------------------------------------------

_PROBE = (
    "import json, platform, importlib.metadata as m\n"
    "def v(n):\n"
    "    try:\n        return m.version(n)\n"
    "    except m.PackageNotFoundError:\n        return None\n"
    f"print(json.dumps({{'python': platform.python_version(), **{{n: v(n) for n in {list(LIBRARIES)!r}}}}}))\n"
)
_probed: dict[tuple[str, str], dict[str, str | None]] = {}


def _same_python(python: str) -> bool:
    if getattr(sys, "frozen", False):
        return False
    # not realpath: a venv's bin/python is a symlink to its base interpreter, so two venvs (this one without the
    # extra, a trace venv with it) resolve to the same file; the venv is the path as named (its pyvenv.cfg beside)
    with contextlib.suppress(OSError):
        return os.path.abspath(python) == os.path.abspath(sys.executable) or python == sys.executable
    return False


def environment_versions(command: WorkerCommand | None = None,
                         cancel: threading.Event | None = None) -> dict[str, str | None]:  # fmt: skip
    """The library versions the worker's Python would trace with (read from package metadata, nothing
    imported), plus this configurator's: the cache's key, and the check that the extra is installed. ``cancel``
    set while another Python is asked stops it at once (TraceCancelled): a cold start on a network disk can take
    the probe's whole minute."""
    command = command or worker_command()
    key = (command.python, os.environ.get("PYTHONPATH", ""))
    if key not in _probed:
        if _same_python(command.python):
            found: dict[str, str | None] = {"python": platform.python_version()}
            for name in LIBRARIES:
                try:
                    found[name] = metadata.version(name)
                except metadata.PackageNotFoundError:
                    found[name] = None
        else:
            try:
                rc, stdout = _probe(command, cancel)
                found = json.loads(stdout.strip().splitlines()[-1]) if rc == 0 else {}
            except (OSError, subprocess.SubprocessError, ValueError, IndexError):
                found = {}
            if not found and not command.custom:
                raise MissingExtra(f"cannot run the tracer's Python {command.python!r} (set {ENV_PYTHON} to a "
                                   f"Python with the trace extra: {INSTALL_HINT})")  # fmt: skip
        _probed[key] = found
    extra = {"worker": command.describe()} if command.custom else {}  # a custom worker's results are its own
    return {**_probed[key], **extra, "configurator": __version__}


PROBE_TIMEOUT_S = 60


def _probe(command: WorkerCommand, cancel: threading.Event | None) -> tuple[int, str]:
    """Run the version probe in the worker's Python, in a process group of its own so that a cancel (or the minute
    running out) kills it and whatever it started: (exit status, its output)."""
    proc = subprocess.Popen([command.python, "-c", _PROBE], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=_env(command),
                            start_new_session=os.name == "posix")  # fmt: skip
    out = bytearray()

    def read() -> None:
        assert proc.stdout is not None
        while chunk := proc.stdout.read(65536):
            out.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                raise TraceCancelled("the trace was cancelled")
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(command.python, PROBE_TIMEOUT_S)
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            _kill(proc)
        reader.join(timeout=5)
        if proc.stdout is not None:
            with contextlib.suppress(OSError):
                proc.stdout.close()
    return proc.returncode, out.decode("utf-8", errors="replace")


def missing_libraries(versions: dict[str, str | None], request: TraceRequest | None = None) -> list[str]:
    """The libraries a trace of ``request`` needs that the worker's Python lacks."""
    needed = list(_REQUIRED)
    if request is not None and (request.method == "qlora" or request.optimizer == "adamw-8bit"):
        needed.append("bitsandbytes")
    return [n for n in needed if not versions.get(n)]


def missing_extra_message(missing: list[str], python: str) -> str:
    where = "" if _same_python(python) else f" (in {python})"
    return (
        f"the tracer needs {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} not installed"
        f"{where}; install the trace extra: {INSTALL_HINT} (or set {ENV_PYTHON} to a Python that has it)"
    )


# ---- running -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TraceOutcome:
    result: TraceResult
    cached: bool
    versions: dict[str, str | None]
    saved_at: str | None = None  # when a cached result was traced
    stderr_tail: list[str] = field(default_factory=list)


def _limits() -> tuple[float, float]:
    def number(name: str, default: float) -> float:
        try:
            value = float(os.environ.get(name, default))
        except ValueError:
            return default
        return value if value > 0 else default

    return number(ENV_TIMEOUT, DEFAULT_TIMEOUT_S), number(ENV_MEMORY, DEFAULT_MEMORY_GB)


# Sets the address-space limit, then becomes the worker (exec keeps the pid and the process group).
_LAUNCH = ("import os, resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_AS, (n, n)); "
           "os.execvp(sys.argv[2], sys.argv[2:])")  # fmt: skip


def _launch_argv(command: WorkerCommand, memory_bytes: int | None) -> list[str]:
    if memory_bytes is None or os.name != "posix":
        return list(command.argv)
    launcher = sys.executable if not getattr(sys, "frozen", False) else command.python
    return [launcher, "-c", _LAUNCH, str(memory_bytes), *command.argv]


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _failure(rc: int, tail: list[str], memory_gb: float) -> TraceError:
    text = "\n".join(tail)
    missing = [m for m in _MISSING_MODULE.findall(text) if m.split(".")[0] in LIBRARIES]
    if missing:
        names = list(dict.fromkeys(m.split(".")[0] for m in missing))
        return MissingExtra(f"the tracer needs {', '.join(names)}, which the worker's Python cannot import; "
                            f"install the trace extra: {INSTALL_HINT}")  # fmt: skip
    if "No module named 'configurator.trace.worker'" in text or "No module named configurator.trace.worker" in text:
        return MissingExtra("this configurator has no tracer worker (configurator.trace.worker); install the "
                            f"trace extra: {INSTALL_HINT}")  # fmt: skip
    if "MemoryError" in text or "Cannot allocate memory" in text or "std::bad_alloc" in text:
        return WorkerFailed(f"the tracer ran out of its {memory_gb:g} GB memory limit; raise it with "
                            f"{ENV_MEMORY}")  # fmt: skip
    if rc < 0:
        name = signal.Signals(-rc).name if -rc in {s.value for s in signal.Signals} else str(-rc)
        return WorkerFailed(f"the tracer was killed by {name}" + (f": {tail[-1]}" if tail else ""))
    last = next((line for line in reversed(tail) if line.strip()), "no message")
    return WorkerFailed(f"the tracer crashed (exit {rc}): {last[:300]}")


def _parse_result(out: bytes) -> TraceResult:
    text = out.decode("utf-8", errors="replace").strip()
    candidates = [text] + [line for line in reversed(text.splitlines()) if line.lstrip().startswith("{")]
    data = None
    for candidate in candidates:
        try:
            data = json.loads(candidate)
            break
        except ValueError:
            continue
    if not isinstance(data, dict):
        shown = text[:120] or "nothing"
        raise WorkerFailed(f"the tracer's answer is not its result JSON (it wrote {shown!r})")
    if data.get("schema") != SCHEMA:
        raise WorkerFailed(f"the tracer answered schema {data.get('schema')!r}; this configurator reads schema "
                           f"{SCHEMA} (reinstall the trace extra with this version)")  # fmt: skip
    try:
        return TraceResult.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"])
        raise WorkerFailed(f"the tracer's result is malformed at {where}: {err['msg']}") from None


def run_trace(request: TraceRequest, *, command: WorkerCommand | None = None, cache: TraceCache | None = None,
              use_cache: bool = True, on_progress: ProgressFn | None = None,
              cancel: threading.Event | None = None, timeout_s: float | None = None,
              memory_gb: float | None = None) -> TraceOutcome:  # fmt: skip
    """Trace ``request`` (or return the cached result for it and these library versions).

    Raises :class:`MissingExtra`, :class:`TraceTimeout`, :class:`TraceCancelled` or :class:`WorkerFailed`;
    a clean "cannot trace this" comes back as a result with ``ok`` false and ``error`` set.
    """
    command = command or worker_command()
    default_timeout, default_memory = _limits()
    timeout_s = timeout_s or default_timeout
    memory_gb = memory_gb or default_memory
    versions = environment_versions(command, cancel)
    if cache is not None and use_cache:
        hit = cache.get(request, versions)
        if hit is not None:
            if on_progress:
                on_progress(1.0, "cached")
            return TraceOutcome(hit.result, True, versions, hit.saved_at)
    if not command.custom:
        missing = missing_libraries(versions, request)
        if missing:
            raise MissingExtra(missing_extra_message(missing, command.python))
    if cancel is not None and cancel.is_set():
        raise TraceCancelled("the trace was cancelled")
    try:
        proc = subprocess.Popen(_launch_argv(command, int(memory_gb * GB)), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(command),
                                # -m puts the working folder first on sys.path: run where this configurator is
                                cwd=None if command.custom or getattr(sys, "frozen", False) else _package_root(),
                                start_new_session=os.name == "posix")  # fmt: skip
    except OSError as exc:
        raise MissingExtra(f"cannot start the tracer ({command.describe()}): {exc.strerror or exc}; "
                           f"install the trace extra: {INSTALL_HINT}") from None  # fmt: skip
    tail: collections.deque[str] = collections.deque(maxlen=200)
    out = bytearray()

    def feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(OSError):  # a worker that dies first closes the pipe: its exit says why
            proc.stdin.write(json.dumps(request.wire()).encode())
            proc.stdin.close()

    def read_err() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            step = parse_progress(line)
            if step is not None:
                if on_progress:
                    on_progress(*step)
            elif line.strip():
                tail.append(line)

    def read_out() -> None:
        assert proc.stdout is not None
        while chunk := proc.stdout.read(65536):
            if len(out) < MAX_RESULT_BYTES:
                out.extend(chunk)

    threads = [threading.Thread(target=t, daemon=True) for t in (feed, read_err, read_out)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout_s
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                _kill(proc)
                raise TraceCancelled("the trace was cancelled")
            if time.monotonic() > deadline:
                _kill(proc)
                raise TraceTimeout(f"the trace took longer than {timeout_s:g} s and was stopped; raise the limit "
                                   f"with {ENV_TIMEOUT}")  # fmt: skip
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            _kill(proc)
        for t in threads:
            t.join(timeout=5)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
    rc = proc.returncode
    if rc != 0:
        raise _failure(rc, list(tail), memory_gb)
    result = _parse_result(bytes(out))
    if not result.ok and "torch" in result.versions and not result.versions["torch"]:
        # the worker ran but could not import torch: the same answer as the check before it ran
        raise MissingExtra(result.error or missing_extra_message(["torch"], command.python))
    if cache is not None and result.ok:
        cache.put(request, versions, result)
    return TraceOutcome(result, False, versions, None, list(tail)[-20:])
