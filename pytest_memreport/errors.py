"""Errors of the user's making that every layer may raise and the pytest layer turns into
usage errors (one line, exit 4)."""


class OptionError(ValueError):
    """A malformed option value; the message says which option and what to give."""
