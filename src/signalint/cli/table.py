"""The CLI's command table, its version flags, and what every command runs first.

Read by the console script (`cli.main.entry`) before click is imported,
by the click group (`cli.group`) and by `hooks run` read without click
(`cli.hook_args`); so this module imports nothing heavy, and none of them
imports another for it.
"""

from __future__ import annotations

import os
import sys

# The version flags of the click group (`cli.group`); alone, `entry` answers
# them without click.
VERSION_FLAGS = ("-V", "-v", "--version")

# name -> (module, attribute, one-line help shown by `signalint --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "check": (
        "signalint.cli.check",
        "check",
        "Run the enabled engines and report ranked diagnostics.",
    ),
    "merge": (
        "signalint.cli.merge",
        "merge_command",
        "Join the json or sarif outputs of `check --shard I/N` into the whole check's report.",
    ),
    "pre-commit": (
        "signalint.cli.pre_commit",
        "pre_commit",
        "Check a git hook's files, passing over ignored files and those no engine checks.",
    ),
    "init": (
        "signalint.cli.init",
        "init",
        "Write the settings (signalint.config.json) from detected engine configs.",
    ),
    "engines": (
        "signalint.cli.engines",
        "engines",
        "Install pinned engines or list how each resolves.",
    ),
    "cache": (
        "signalint.cli.cache",
        "cache",
        "Clear or inspect the result cache.",
    ),
    "doctor": (
        "signalint.cli.doctor",
        "doctor",
        "Report root, config, languages, engines and payload mode; exit 1 on problems.",
    ),
    "show": (
        "signalint.cli.show",
        "show",
        "Expand a check, cluster or issue id from any check (CLI, hook or MCP).",
    ),
    "stats": (
        "signalint.cli.stats",
        "stats",
        "Summarize MCP check metrics (latency, cache, payload) from the session log.",
    ),
    "watch": (
        "signalint.cli.watch",
        "watch",
        "Re-check changed files as you edit and print what changed.",
    ),
    "hooks": (
        "signalint.cli.hooks",
        "hooks",
        "Preview, install or run verify-after-edit hooks for an agent host.",
    ),
    "ingest": (
        "signalint.cli.ingest",
        "ingest",
        "Print a Ruff, mypy, Clippy, golangci-lint, ESLint or SARIF report as a check.",
    ),
    "daemon": (
        "signalint.cli.daemon",
        "daemon",
        "Start, inspect or stop the project's daemon (warm engines for check and hooks).",
    ),
    "lsp": (
        "signalint.cli.lsp",
        "lsp",
        "Run the language server: the project's diagnostics in editors and agent hosts.",
    ),
    "fix": (
        "signalint.cli.fix",
        "fix",
        "Apply the engines' safe fixes as one crash-safe transaction (--dry-run: diff only).",
    ),
}


def recover_fix_transactions() -> None:
    """Undo a fix transaction a killed process left half applied (D9), before any command."""
    from signalint.kept.fix_journal import recover_and_report
    from signalint.project.roots import RootError, find_root

    try:
        root = find_root(os.environ, os.getcwd())
    except (RootError, OSError):
        return  # the command itself reports an unusable root

    def say(text: str) -> None:
        sys.stderr.write(f"signalint: {text}\n")

    recover_and_report(root, say)
