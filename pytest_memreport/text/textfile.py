"""Deciding what a blob's bytes are: text (and in which encoding), binary, or too large.

Every reader of target files (git objects or the working tree) goes through
:func:`decode`, so a binary file, an over-size blob or a Latin-1 file gets the
same clear outcome wherever it is read.
"""

from __future__ import annotations

from dataclasses import dataclass

#: default size limit for a target file, overridable with ``--memreport-max-file-size``
DEFAULT_MAX_BYTES = 5 * 1024 * 1024

#: how much of a file is sniffed for NUL bytes (git's own heuristic looks at 8000)
_SNIFF = 8000


@dataclass(frozen=True, slots=True)
class TextFile:
    """A target file's content as matching sees it.

    ``status`` is ``text``, ``binary`` or ``too-large``; ``text`` is set only
    for ``text``. Line endings are normalised to ``\\n`` (CRLF files match like
    LF files); ``note`` says when a fallback encoding was used.
    """

    path: str
    oid: str
    status: str
    text: str | None = None
    encoding: str = "utf-8"
    size: int = 0
    note: str | None = None

    @property
    def is_text(self) -> bool:
        return self.status == "text"

    def describe(self) -> str:
        """A short phrase for messages about a non-text file."""
        if self.status == "binary":
            return f"{self.path} is a binary file ({self.size} bytes)"
        if self.status == "too-large":
            return f"{self.path} is {self.size} bytes, over the size limit (raise it with --memreport-max-file-size)"
        return self.path


def decode(path: str, oid: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> TextFile:
    """Turn raw bytes into a :class:`TextFile`."""
    size = len(data)
    if size > max_bytes:
        return TextFile(path, oid, "too-large", size=size)
    if b"\0" in data[:_SNIFF]:
        return TextFile(path, oid, "binary", size=size)
    note = None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        # Latin-1 never fails, so quotes in the ASCII part of a legacy file still match.
        text = data.decode("latin-1")
        encoding = "latin-1"
        note = f"{path} is not valid UTF-8; read as Latin-1"
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return TextFile(path, oid, "text", text=text, encoding=encoding, size=size, note=note)
