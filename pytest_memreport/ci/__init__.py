"""Tools for running pytest-memreport in CI (the GitHub Action's steps); never imported by the plugin."""
