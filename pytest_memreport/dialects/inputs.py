"""Reading an input file the user named (a report, a claims file): regular files only, size capped.

A FIFO, a device (``/dev/zero``), a socket or a directory is refused with
one line before a byte is read, so a run never hangs on a pipe nobody writes
to nor fills memory from an endless device; the open itself never blocks
(``O_NONBLOCK``, meaningless for a regular file). A file over the cap is
refused too: reports and claims files are text a person wrote.
"""

from __future__ import annotations

import os
import stat

from ..errors import MemreportError

#: the largest report read (reports are hand-written text; the largest real ones are ~1 MB)
MAX_REPORT_BYTES = 64 * 1024 * 1024
#: the largest claims file read
MAX_CLAIMS_BYTES = 8 * 1024 * 1024


class InputRefused(MemreportError):
    """The input is not a regular file, or is too large; ``reason`` says which, without the name."""

    code = "MR103"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words: ``a FIFO (named pipe)``, ``a character device``..."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` (followed if a symlink) is no input file, or ``None`` for a regular file or none at all."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``).

    Raises :class:`InputRefused` for anything but a regular file or a file
    over ``limit`` bytes; ``OSError`` (missing, unreadable) passes through.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputRefused(f"is {kind_of(mode)}, not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputRefused(f"is larger than {limit // (1024 * 1024)} MiB")
    return data
