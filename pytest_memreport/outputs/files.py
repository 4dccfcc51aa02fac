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

A replaced file keeps its owner and group as well as its mode (a root run in a
container must not hand a user's file to root); when they cannot be kept (another
user's file, and this process may not give it back), the path is refused.

No output may land on a file the run reads (a report, a claims file, the ini file,
anything in a repository's ``.git`` folder or in a bare repository) or on another
output's file:
:func:`check_apart` compares what the paths reach on disk (through symlinks, hard
links and a folder that ignores case) and refuses the run before anything is
written. FIFOs and devices are exempt among outputs (``/dev/null`` for both JSON
and SARIF replaces nothing).

Only the standard library is imported (:func:`run_inputs` asks the claims loader
where a report's claims file is, when the run has reports): the plugin checks
targets in every run that names one.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import MemreportError
from ..text.render import printable


class OutputError(MemreportError):
    """An output file that cannot be written; the message is one line naming the option."""

    code = "MR501"


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
    if not append and _owned_by_another(st):
        # The file written in its place would be this user's: the owner's file would be lost to them.
        raise target.problem(f"belongs to another user (uid {st.st_uid}), and a rewritten file would be yours; "
                             "give another path, or run as its owner")
    # Replacing a regular file renames a new one into its folder.
    if not append:
        _check_parent(target, Path(os.path.realpath(target.path)).parent)
    return target


def _owned_by_another(st: os.stat_result) -> bool:
    """A file of another user, which this process could not give back to them (not root)."""
    if not hasattr(os, "geteuid"):  # Windows: a replaced file's owner is not ours to keep
        return False
    return st.st_uid != os.geteuid() and os.geteuid() != 0


def run_inputs(reports: Sequence[str | Path], claims: Iterable[str],
               inifile: str | Path | None = None) -> list[tuple[str, Path]]:
    """Every file the run reads that an output must not replace, as ``(what, path)``:
    the reports, each report's own claims file (read whenever it exists), the claims
    files named on the command line, and the ini file."""
    from ..dialects.claims.loading import claims_path_for  # only a run that checks reports asks

    found = [("the report", Path(p)) for p in reports]
    found += [("the claims file", claims_path_for(p)) for p in reports]
    found += [("the claims file", Path(p)) for p in claims]
    if inifile is not None:
        found.append(("the ini file", Path(inifile)))
    return found


def check_apart(targets: list[OutputFile], inputs: list[tuple[str, Path]]) -> None:
    """Refuse (:class:`OutputError`) an output whose file is one the run reads, or another
    output's file: writing it would replace what was read, or lose the other output.

    Paths are compared by what they reach on disk, not by spelling: through symlinks,
    ``..`` and hard links (device and inode), and by name, case-folded where the
    folder ignores case, for a file not there yet. Nothing is created or written."""
    keyed: list[tuple[OutputFile, tuple]] = []
    for target in targets:
        key = _identity(target.path)
        if key[0] == "in place":
            continue  # a FIFO or a device: each output streams into it, nothing is replaced
        if git_folder_of(target.path) is not None:
            # A repository's own folder (a target's objects, refs, config): read, never written.
            raise target.problem(GIT_FOLDER)
        keyed.append((target, key))
    if not keyed:
        return
    reads = _reads_among(inputs, {key for _, key in keyed})
    written: dict[tuple, OutputFile] = {}
    for target, key in keyed:
        if key in reads:
            what, path = reads[key]
            raise target.problem(f"is {what} {printable(str(path))}, which this run reads; "
                                 "give the output a path of its own")
        other = written.setdefault(key, target)
        if other is not target:
            raise target.problem(f"is also where {other.option} writes; give each output a path of its own")


#: why an output is refused inside a repository's own folder
GIT_FOLDER = "is inside a repository's .git folder; give a path outside it"


def git_folder_of(path: str | os.PathLike) -> Path | None:
    """The repository folder ``path`` is in (through symlinks), else ``None``: a folder
    named ``.git``, or one git would take for a repository's own (a bare clone, a
    submodule's or a linked worktree's folder): ``HEAD`` beside ``objects`` and ``refs``,
    or beside a ``commondir``. Read from the disk; no git runs, so every repository is
    found, whichever option or template names it."""
    real = Path(os.path.realpath(path))
    for folder in (real, *real.parents):
        if folder.name == ".git" or _is_git_folder(folder):
            return folder
    return None


def _is_git_folder(folder: Path) -> bool:
    if not os.path.isfile(folder / "HEAD"):
        return False
    return os.path.isfile(folder / "commondir") or (os.path.isdir(folder / "objects") and os.path.isdir(folder / "refs"))


def first_inside(folder: str | os.PathLike, paths: Iterable[tuple[str, Path]]) -> tuple[str, Path] | None:
    """The first of ``paths`` (``(what, path)``, as :func:`run_inputs` gives them) that is
    ``folder`` or lies in it, compared through symlinks; each path's folder is resolved
    once, so a run of thousands of reports in a few folders costs a few ``lstat`` each."""
    root = os.path.realpath(folder)
    prefix = root.rstrip(os.sep) + os.sep
    parents: dict[str, str] = {}
    for what, path in paths:
        parent, name = os.path.split(os.path.abspath(path))
        real_parent = parents.get(parent)
        if real_parent is None:
            real_parent = parents[parent] = os.path.realpath(parent)
        full = os.path.join(real_parent, name)
        if os.path.islink(full):
            full = os.path.realpath(full)
        if full == root or full.startswith(prefix):
            return what, path
    return None


def _reads_among(inputs: list[tuple[str, Path]], keys: set[tuple]) -> dict[tuple, tuple[str, Path]]:
    """The inputs that reach one of the outputs' ``keys``, by key.

    A run may read thousands of reports (and look for a claims file beside each), so
    each input costs one ``stat``: an existing file matches an existing output by its
    device and inode; one not there yet is looked at further only when its name is
    that of an output not there yet either."""
    existing = {key for key in keys if key[0] == "file"}
    new_names = {_new_name(key).casefold() for key in keys if key[0] != "file"}
    found: dict[tuple, tuple[str, Path]] = {}
    for what, path in inputs:
        try:
            st = os.stat(path)
        except OSError:
            if Path(path).name.casefold() in new_names:
                key = _identity(path)
                if key in keys:
                    found.setdefault(key, (what, path))
            continue
        key = ("file", st.st_dev, st.st_ino)
        if key in existing:
            found.setdefault(key, (what, path))
    return found


def _new_name(key: tuple) -> str:
    """The file name in the key of a file not there yet."""
    return key[3] if key[0] == "new" else Path(key[1]).name


def _identity(path: Path) -> tuple:
    """What ``path`` reaches on disk, comparable across spellings: an existing file's
    device and inode; for a file not there yet, its folder's device and inode and its
    name (case-folded when the folder ignores case); for one whose folder is not there
    either, its absolute path with every symlink resolved."""
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None:
        kind = "in place" if _in_place(st.st_mode) else "file"
        return (kind, st.st_dev, st.st_ino)
    real = Path(os.path.realpath(path))
    try:
        folder = os.stat(real.parent)
    except OSError:
        return ("path", str(real))  # its folder is made at write time: the spelling is all there is
    name = real.name.casefold() if _ignores_case(real.parent) else real.name
    return ("new", folder.st_dev, folder.st_ino, name)


def _ignores_case(folder: Path) -> bool:
    """Whether names in ``folder`` are looked up ignoring case (macOS, Windows, a mounted
    FAT disk): its own name, with the case of its letters swapped, reaches it too."""
    probe = folder
    while probe.name and probe.name.swapcase() == probe.name:  # no letters to swap: ask its parent
        probe = probe.parent
    if not probe.name:
        return False
    try:
        return os.path.samefile(probe, probe.with_name(probe.name.swapcase()))
    except OSError:
        return False


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
    replace_file(final, data, st)


def replace_file(final: Path, data: bytes, st: os.stat_result | None = None) -> None:
    """Write ``data`` to a new file beside ``final`` and rename it over ``final`` (a reader
    sees the old file or the new one, never half; a link at ``final`` is replaced, not
    followed). ``st``: the replaced file's, whose owner and mode the new one keeps."""
    fd, tmp = _temporary_beside(final)
    try:
        try:
            _write_all(fd, data)
            if st is not None:  # an existing file keeps its owner and permissions, as open(..., "w") would
                keep_owner(fd, st)
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def keep_owner(fd: int, st: os.stat_result) -> None:
    """Give the new file open at ``fd`` the owner and group of the file it replaces
    (``st``); raises :class:`PermissionError` when this process may not.

    Called before the mode is set: a change of owner clears set-user-ID and set-group-ID bits."""
    if not hasattr(os, "fchown"):  # Windows: no POSIX owner to keep
        return
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) == (st.st_uid, st.st_gid):
        return
    try:
        os.fchown(fd, st.st_uid if mine.st_uid != st.st_uid else -1, st.st_gid)
    except PermissionError:
        raise PermissionError(errno.EPERM, f"its owner (uid {st.st_uid}, gid {st.st_gid}) could not be kept; "
                                           "run as its owner, or give another path") from None


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
