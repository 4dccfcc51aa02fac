"""The only code that knows pytest: options and collection (``plugin``), the
per-run session (``session``), items (``items``) and results → verdicts (``outcomes``)."""
