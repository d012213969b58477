"""`python -m signalint.cli` runs the CLI (used by tests and for debugging)."""

from signalint.cli.main import entry

entry()
