"""The one owner of every output file the plugin writes (JSON, SARIF, the step summary).

Reporters never open files: they return text, and :func:`write_output` puts it at
its :class:`OutputFile`. Each target is checked by :func:`prepare` when the run is
configured, before any item runs, so a path that cannot be written is a usage
error of one line naming the option, never a traceback after minutes of checks.

What a target may be, and what happens to it:

* a regular file, or nothing yet: written to a temporary file beside it, then
  renamed over it (a reader never sees half a report); a new file gets the user's
  umask (created with mode 0666 like any ``open(..., "w")``), an existing one keeps
  its mode;
* a symlink: followed, and its final target is written as above (the link stays);
* a FIFO or a character device (``/dev/null``, ``/dev/stdout``, a pipe from
  ``>(...)``): written in place, never replaced; a FIFO nobody reads is refused
  instead of hanging the run;
* anything else (a directory, a socket, a block device, a path under a regular
  file, a folder that cannot be written): refused with one line.

With ``append=True`` (GitHub's step summary, which other steps also write to) the
text is appended instead: through a symlink, and into a FIFO, all the same.

Only the standard library is imported: the plugin checks targets in every run
that names one.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..text.render import printable


class OutputError(Exception):
    """An output file that cannot be written; the message is one line naming the option."""


@dataclass(frozen=True)
class OutputFile:
    """Where one output goes: the option that named it (for messages), the path as given,
    what it is (``what``: e.g. ``JSON``, for "wrote JSON to ..."), and whether to append."""

    option: str
    path: Path
    what: str
    append: bool = False

    @property
    def shown(self) -> str:
        """The path as a person may safely read it (control characters escaped)."""
        return printable(str(self.path))

    def problem(self, reason: str) -> OutputError:
        return OutputError(f"{self.option} {self.shown}: {reason}")


def _in_place(mode: int) -> bool:
    """Targets written where they are, never replaced: pipes and character devices."""
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def prepare(option: str, path: str | os.PathLike, what: str, *, append: bool = False) -> OutputFile:
    """Check that ``path`` can take the output of ``option``; raises :class:`OutputError`.

    Nothing is created here: a missing parent folder is created at write time, and
    only its nearest existing ancestor is checked now.
    """
    target = OutputFile(option, Path(path), what, append)
    if str(path) == "":
        raise target.problem("give a file path")
    try:
        st = os.stat(target.path)  # follows symlinks: the link's target is what is written
    except FileNotFoundError:
        if os.path.islink(target.path):
            # A dangling link: its target is created (as "> link" in a shell would).
            _check_parent(target, Path(os.path.realpath(target.path)).parent)
        else:
            _check_parent(target, target.path.parent)
        return target
    except NotADirectoryError:
        raise target.problem("a parent of this path is a file, not a folder; give a path in a folder") from None
    except OSError as exc:
        raise target.problem(f"cannot be reached ({exc.strerror}); give another path") from None
    if stat.S_ISDIR(st.st_mode):
        raise target.problem("is a folder; give a file path, e.g. " + printable(str(target.path / f"memreport.{_suffix(what)}")))
    if _in_place(st.st_mode):
        return target
    if not stat.S_ISREG(st.st_mode):
        raise target.problem("is not a regular file, a FIFO or a character device; give a file path")
    if not os.access(target.path, os.W_OK):
        raise target.problem("is not writable; give a path you can write, or change its permissions")
    # Replacing a regular file renames a new one into its folder.
    if not append:
        _check_parent(target, Path(os.path.realpath(target.path)).parent)
    return target


def _suffix(what: str) -> str:
    return {"JSON": "json", "SARIF": "sarif"}.get(what, "md")


def _check_parent(target: OutputFile, folder: Path) -> None:
    """The nearest existing ancestor of ``folder`` is a folder this process may write into."""
    probe = folder
    while True:
        try:
            st = os.stat(probe)
            break
        except FileNotFoundError:
            if probe.parent == probe:
                raise target.problem("no folder of this path exists; give a path in an existing folder") from None
            probe = probe.parent
        except NotADirectoryError:
            raise target.problem("a parent of this path is a file, not a folder; give a path in a folder") from None
    if not stat.S_ISDIR(st.st_mode):
        raise target.problem(f"{printable(str(probe))} is a file, not a folder; give a path in a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise target.problem(f"folder {printable(str(probe))} is not writable; give a path you can write")


def write_output(target: OutputFile, text: str) -> str:
    """Write ``text`` (UTF-8) to ``target``; returns the line that says so.

    Raises :class:`OutputError` (one line) when the file cannot be written after all
    (a disk full, a FIFO with no reader, a folder removed since :func:`prepare`).
    A half-written temporary file is always removed.
    """
    data = text.encode("utf-8")
    try:
        if target.append:
            _append(target, data)
        else:
            _replace_or_stream(target, data)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise target.problem("is a FIFO that no process is reading; start its reader first") from None
        reason = exc.strerror or str(exc)
        raise target.problem(f"could not be written ({reason})") from None
    verb = "appended" if target.append else "wrote"
    return f"memreport: {verb} {target.what} to {target.shown}"


def _open_in_place(path: Path, flags: int) -> int:
    """Open a FIFO or device for writing without blocking on a FIFO with no reader."""
    fd = os.open(path, flags | os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    # Writes then block as usual (a slow reader must not lose data).
    os.set_blocking(fd, True)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _append(target: OutputFile, data: bytes) -> None:
    try:
        mode = os.stat(target.path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and _in_place(mode):
        fd = _open_in_place(target.path, os.O_APPEND)
    else:
        if mode is None:
            Path(os.path.realpath(target.path)).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _replace_or_stream(target: OutputFile, data: bytes) -> None:
    final = Path(os.path.realpath(target.path))  # through every symlink
    try:
        st = os.stat(final)
    except FileNotFoundError:
        st = None
    if st is not None and _in_place(st.st_mode):
        fd = _open_in_place(final, 0)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        return
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL,
                      "is not a regular file, a FIFO or a character device")
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temporary_beside(final)
    try:
        try:
            _write_all(fd, data)
            if st is not None:  # an existing file keeps its permissions, as open(..., "w") would
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _temporary_beside(final: Path) -> tuple[int, Path]:
    """A new file next to ``final``, created with mode 0666 so that the umask applies
    (``tempfile.mkstemp`` would make it 0600 whatever the user's umask says)."""
    for attempt in range(100):
        tmp = final.parent / f".{final.name}.{os.getpid()}.{attempt}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), tmp
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "no free temporary name beside the output file")
