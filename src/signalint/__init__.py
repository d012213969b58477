"""Signalint: a local diagnostics hub for coding agents."""

from __future__ import annotations

# The single source of the version (pyproject reads it through hatch), kept
# static so that start-up does not pay for importlib.metadata.
__version__ = "0.1.0"

SCHEMA_VERSION = "1.4"
