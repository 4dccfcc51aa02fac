"""pytest-memreport: make code-analysis reports executable."""

__version__ = "0.1.0"
