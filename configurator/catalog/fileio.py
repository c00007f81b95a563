"""Reading and writing the user's files safely: one reader and one writer every file path goes through.

Reading (:func:`safe_read_text`): only regular files (a device such as ``/dev/zero``, a FIFO, a socket or a
folder is refused before it is opened for reading), opened non-blocking so a FIFO swapped in at the last
moment cannot hang, and the byte limit is enforced while reading, not trusted from ``st_size``.

Writing (:func:`atomic_write_bytes`, :func:`atomic_replace`): a temporary file in the real target's
folder (through symlinks, so a link stays a link), verified, fsynced, given the target's mode (or the
umask's for a new file) and renamed over the target. A failure leaves the old file as it was. Temporary
files carry :data:`TEMP_TAG` and the writer's process id; ones left by a killed process are removed on
the next save of the same file.

Every failure is a :class:`FileError` naming the file and what is wrong; nothing here imports Qt.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

from configurator.catalog.errors import FileError, Problem

MAX_FILE_BYTES = 5_000_000  # builds, config.json, nccl-tests logs: the largest real ones are under 100 kB
TEMP_TAG = ".configurator-tmp"  # temporary files end with this, so they are recognisably ours
STALE_TEMP_SECONDS = 24 * 3600  # a temp file this old is stale even if its process id was reused
_READ_CHUNK = 1 << 16


def _fail(path: str | os.PathLike[str], message: str) -> FileError:
    return FileError(str(path), [Problem("", message)])


def expand_path(path: str | os.PathLike[str]) -> Path:
    """``~`` and ``~user`` expanded; FileError (not RuntimeError or ValueError) when that cannot be done."""
    text = os.fspath(path)
    if "\x00" in text:
        raise _fail(text.replace("\x00", "\\0"), "the path holds a NUL byte")
    try:
        return Path(text).expanduser()
    except RuntimeError:  # Path('~nosuchuser').expanduser(): "Could not determine home directory."
        user = text.split("/", 1)[0]
        raise _fail(text, f"cannot expand {user!r}: no such user (give the full path)") from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def safe_read_bytes(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; FileError otherwise."""
    p = expand_path(path)
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode):
            raise _fail(p, f"is {_kind(st.st_mode)}, not a file: give a regular file")
        if st.st_size > limit:
            raise _fail(p, f"file is larger than {_limit_text(limit)} ({st.st_size:,} bytes)")
    except FileNotFoundError:
        raise _fail(p, "file not found") from None
    except OSError as exc:
        raise _fail(p, f"cannot read: {exc.strerror or exc}") from None
    # non-blocking and checked again on the descriptor: a FIFO that replaced the file since the stat never hangs
    fd = open_regular(p, verb="read")
    try:
        chunks: list[bytes] = []
        total = 0
        while True:  # the limit holds while reading: a file that grows is cut off, not trusted
            chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _fail(p, f"file is larger than {_limit_text(limit)}")
        return b"".join(chunks)
    except OSError as exc:
        raise _fail(p, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o600, verb: str = "open") -> int:
    """A file descriptor on a regular file, opened non-blocking (a FIFO or device never hangs the open);
    FileError for anything else ("cannot <verb>: ..."). ``flags`` may add ``os.O_CREAT``/``os.O_RDWR`` (lock files)."""
    p = expand_path(path)
    extra = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags | extra, mode)
    except FileNotFoundError:
        raise _fail(p, "file not found") from None
    except IsADirectoryError:
        raise _fail(p, "is a folder, not a file: give a regular file") from None
    except OSError as exc:
        raise _fail(p, f"cannot {verb}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise _fail(p, f"cannot {verb}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _fail(p, f"is {_kind(st.st_mode)}, not a file: give a regular file")
    return fd


def regular_or_absent(path: str | os.PathLike[str], limit: int | None = None) -> str | None:
    """Why ``path`` cannot be read or replaced as a plain file (a FIFO, a device, a folder, over ``limit``
    bytes), or None when it is a regular file or does not exist. Only ``stat``: never opens it."""
    try:
        st = os.stat(expand_path(path))
    except FileNotFoundError:
        return None
    except FileError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not stat.S_ISREG(st.st_mode):
        return f"is {_kind(st.st_mode)}, not a file"
    if limit is not None and st.st_size > limit:
        return f"file is larger than {_limit_text(limit)} ({st.st_size:,} bytes)"
    return None


def safe_read_text(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> str:
    """UTF-8 text (a leading byte-order mark dropped) of a regular file of at most ``limit`` bytes."""
    data = safe_read_bytes(path, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileError(str(expand_path(path)), [Problem("", f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                                                         line)]) from None  # fmt: skip


def _limit_text(limit: int) -> str:
    return f"{limit / 1e6:g} MB" if limit >= 1_000_000 else f"{limit:,} bytes"


# ---- writing -------------------------------------------------------------------------------------------


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process umask, read without changing it where /proc allows. Elsewhere os.umask both sets and reads:
    under a lock, since the sheet is written on a worker thread and another thread must not read the 0o022."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def real_target(path: str | os.PathLike[str]) -> Path:
    """The file a save must replace: symlinks followed (a link to a build stays a link)."""
    p = expand_path(path)
    try:
        return Path(os.path.realpath(p))
    except (OSError, RuntimeError, ValueError):
        return p


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def temp_files_of(target: Path) -> list[Path]:
    """Temporary files this module left beside ``target`` (any process)."""
    prefix = f".{target.name}."
    try:
        return [target.parent / n for n in os.listdir(target.parent or ".") if n.startswith(prefix)
                and n.endswith(TEMP_TAG)]  # fmt: skip
    except OSError:
        return []


def clean_stale_temps(target: Path) -> int:
    """Remove temporary files beside ``target`` whose writer is gone (killed saves); returns how many."""
    removed = 0
    now = time.time()
    for tmp in temp_files_of(target):
        middle = tmp.name[len(f".{target.name}.") : -len(TEMP_TAG)]
        pid_text = middle.split(".", 1)[0]
        pid = int(pid_text) if pid_text.isdigit() else -1
        try:
            old = now - tmp.lstat().st_mtime > STALE_TEMP_SECONDS
        except OSError:
            continue
        if pid == os.getpid() and not old:
            continue  # one of ours, perhaps being written by another thread
        if old or pid < 0 or not _pid_alive(pid):
            with contextlib.suppress(OSError):
                tmp.unlink()
                removed += 1
    return removed


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_replace(path: str | os.PathLike[str], produce: Callable[[Path], None],
                   verify: Callable[[Path], str | None] | None = None, what: str = "the file") -> None:  # fmt: skip
    """Write ``path`` all-or-nothing: ``produce(tmp)`` writes a temporary file, ``verify(tmp)`` returns a
    sentence when it is not sound, then it is fsynced, given the target's mode and renamed over the target.

    The target is the file a symlink points at; an existing target keeps its mode (and, when run as root,
    its owner); a new one gets 0666 less the umask, as any program's new file would.
    """
    shown = expand_path(path)
    target = real_target(shown)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _fail(shown, f"cannot write here: {exc.strerror or exc}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _fail(shown, f"is {_kind(st.st_mode)}: choose a file name")
    folder = target.parent
    clean_stale_temps(target)
    tmp = folder / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_TAG}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        os.close(fd)
    except OSError as exc:
        raise _fail(shown, f"cannot write here: {exc.strerror or exc}") from None
    try:
        produce(tmp)
        problem = verify(tmp) if verify else None
        if problem:
            raise _fail(shown, f"{what} was not written whole ({problem}); the old file is kept")
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
            if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):
                    os.chown(tmp, st.st_uid, st.st_gid)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
        _fsync_dir(folder)
    except FileError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        why = exc.strerror or str(exc)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            why += " (the disk is full)"
        raise _fail(shown, f"cannot save: {why}; the old file is kept") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, what: str = "the file") -> None:
    """Write ``data`` to ``path`` all-or-nothing (see :func:`atomic_replace`); the written size is checked."""

    def produce(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()

    def verify(tmp: Path) -> str | None:
        size = tmp.stat().st_size
        return None if size == len(data) else f"{size:,} of {len(data):,} bytes on disk"

    atomic_replace(path, produce, verify, what)


def atomic_write_text(path: str | os.PathLike[str], text: str, what: str = "the file") -> None:
    atomic_write_bytes(path, text.encode("utf-8"), what)


def pdf_problem(path: Path) -> str | None:
    """Why the file at ``path`` is not a complete PDF (header, cross-reference and %%EOF trailer), or None."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(8)
            fh.seek(max(0, size - 2048))
            tail = fh.read()
    except OSError as exc:
        return f"cannot read it back: {exc.strerror or exc}"
    if size < 200:
        return f"only {size} bytes"
    if not head.startswith(b"%PDF-"):
        return "no PDF header"
    if b"startxref" not in tail or b"%%EOF" not in tail.rstrip()[-8:]:
        return "no PDF trailer (%%EOF): the file is cut short"
    return None


# ---- image targets (screenshots) -------------------------------------------------------------------------

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPG", ".jpeg": "JPG", ".bmp": "BMP"}  # suffix -> Qt's format name
_IMAGE_MAGIC = {"PNG": b"\x89PNG\r\n\x1a\n", "JPG": b"\xff\xd8\xff", "BMP": b"BM"}


def image_problem(path: Path, fmt: str | None = None) -> str | None:
    """Why the file at ``path`` is not an image (of ``fmt``, or of any format written here), or None."""
    try:
        fd = open_regular(path)
    except FileError as exc:
        return exc.problems[0].message if exc.problems else "cannot read it back"
    try:
        head = os.read(fd, 8)
    except OSError as exc:
        return f"cannot read it back: {exc.strerror or exc}"
    finally:
        os.close(fd)
    wanted = [_IMAGE_MAGIC[fmt]] if fmt else list(_IMAGE_MAGIC.values())
    return None if any(head.startswith(m) for m in wanted) else "not an image"


def check_pdf_target(path: str | os.PathLike[str]) -> Path:
    """The path a PDF may be written to, checked before the work that fills it: FileError when its name does not
    end in .pdf (as check_image_target for a screenshot), its folder does not exist, it is not a regular file, or
    it exists and is not a PDF (a report never replaces a plan or a build)."""
    p = expand_path(path)
    if p.suffix.lower() != ".pdf":
        raise _fail(p, f"a PDF is written to a .pdf file; '{p.name}' is not one (choose a name ending in .pdf)")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise _fail(p, f"the folder {folder} does not exist")
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise _fail(p, f"cannot write here: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _fail(p, f"is {_kind(st.st_mode)}: choose a PDF file name")
    if st.st_size:
        with open(p, "rb") as f:
            if not f.read(5).startswith(b"%PDF"):
                raise _fail(p, "exists and is not a PDF: refusing to overwrite it (choose another file name)")
    return p


def check_image_target(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """(the path, its Qt format) a screenshot may be written to; FileError before anything is drawn when it
    is not an image's name (``--screenshot mybuild.yaml``: arguments swapped), not a regular file, or an
    existing file that is not an image (a screenshot never replaces a build, a plan or a document)."""
    p = expand_path(path)
    fmt = IMAGE_FORMATS.get(p.suffix.lower())
    if fmt is None:
        names = ", ".join(IMAGE_FORMATS)
        raise _fail(p, f"a screenshot is written to an image file ({names}); '{p.name}' is not one "
                       "(the build file goes first: configurator BUILD.yaml --screenshot FILE.png)")  # fmt: skip
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return p, fmt
    except OSError as exc:
        raise _fail(p, f"cannot write here: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _fail(p, f"is {_kind(st.st_mode)}: choose an image file name")
    if st.st_size and image_problem(p) is not None:
        raise _fail(p, "exists and is not an image: refusing to overwrite it (choose another file name)")
    return p, fmt
