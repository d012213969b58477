"""The `signalint` command line: one module per command."""
