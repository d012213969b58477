"""`signalint-mcp`: start the stdio MCP server, or hand CLI verbs to `signalint`.

Agent hosts launch `signalint-mcp` with no arguments and talk JSON-RPC over
stdin/stdout. People who type it in a terminal get guidance instead of a
silent process waiting for JSON, and familiar verbs (`signalint-mcp check`,
`signalint-mcp --version`) behave exactly like the `signalint` CLI, which is
what a person typing them expects.

Start-up order matters for the "start to initialize" budget: the SDK import
is most of it. The front (`server.front`) answers `initialize` and
`tools/list` with the answers the SDK gave in an earlier start, or with
those shipped with the package (`server.packaged`), while the SDK loads;
nothing heavy (engines, check pipeline) is imported before the
first tool call.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Verbs forwarded to the CLI, with the spelling the CLI understands.
CLI_VERBS: dict[str, str] = {
    "check": "check",
    "init": "init",
    "doctor": "doctor",
    "stats": "stats",
    "engines": "engines",
    "show": "show",
    "watch": "watch",
    "cache": "cache",
    "hooks": "hooks",
    "fix": "fix",
    "help": "--help",
    "--help": "--help",
    "-h": "--help",
    "--version": "--version",
    "-v": "--version",
}

GUIDANCE = """\
signalint-mcp is a Model Context Protocol server: it speaks JSON-RPC on stdin and
stdout and is meant to be launched by an MCP client (Claude Code, Cursor, Codex CLI,
VS Code, ...), not typed into a terminal.

  Configure your client to run `signalint-mcp` in the project root; see "Agent hosts" in the README.
  To check a project from a terminal, run `signalint check` (or `signalint-mcp check`).
  `signalint-mcp --help` lists the CLI commands.
"""


def select_root(env: Mapping[str, str], cwd: str) -> tuple[Path, str | None]:
    """The canonical project root and, when the override was unusable, a warning.

    Unlike the CLI (which refuses a bad `SIGNALINT_PROJECT_ROOT`), the server
    follows the reference: it warns on stderr and falls back to the working
    directory, because a host cannot show a start-up usage error to anyone.
    """
    from signalint.project.roots import ROOT_VARIABLE, RootError, find_root

    try:
        return find_root(env, cwd), None
    except RootError as exc:
        fallback = {k: v for k, v in env.items() if k != ROOT_VARIABLE}
        return find_root(fallback, cwd), f"ignoring {ROOT_VARIABLE}: {exc.reason}"


def _dispatch_cli(argv: Sequence[str]) -> int:
    from signalint.cli.main import main

    return main([CLI_VERBS[argv[0]], *argv[1:]])


def main(argv: Sequence[str] | None = None) -> int:
    """Run `signalint-mcp` with `argv` (default: the process arguments)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in CLI_VERBS:
        return _dispatch_cli(args)
    if args:
        sys.stderr.write(
            f"signalint-mcp: unknown argument {args[0]!r}; it takes no arguments when "
            "serving MCP over stdio.\n\n" + GUIDANCE
        )
        return 2
    if sys.stdin.isatty():
        sys.stderr.write(GUIDANCE)
        return 2

    root, warning = select_root(os.environ, os.getcwd())
    if warning is not None:
        sys.stderr.write(f"signalint-mcp: warning: {warning}; using the working directory\n")
    sys.stderr.write(f"signalint-mcp: project root {root}\n")
    from signalint.server import front, packaged
    from signalint.server.leaving import Leaving
    from signalint.server.transport import LineReader, claim_stdin, max_bytes_from

    max_request_bytes, bad_limit = max_bytes_from(os.environ)
    if bad_limit is not None:
        sys.stderr.write(f"signalint-mcp: warning: {bad_limit}\n")
    sys.stderr.flush()
    wire, give_back = claim_stdin()
    leaving = Leaving()  # the deadline starts when the input ends
    leaving.watch(wire)
    reader = LineReader(leaving.reading(lambda size: os.read(wire, size)), max_request_bytes)
    cache = front.cache_dir()
    recorded = front.Recorded.load(front.record_key(root), cache)
    packaged.fill(recorded, root)  # what the record lacks, where the shipped answers apply
    loading: list[object] = []  # the thread importing the SDK, once started
    handover = front.first_answers(
        reader,
        recorded,
        lambda data: leaving.write_line(1, data),
        lambda: loading.append(front.load_in_background()),
    )
    if handover.answered:
        sys.stderr.write(
            "signalint-mcp: answered the handshake with the answers recorded at an earlier start"
            " or shipped with Signalint\n"
        )
    if handover.ended:
        # The input ended and the front answered all of it: nothing needs
        # the SDK (still loading on its thread), and no worker ran.
        give_back()
        leaving.leave(0)

    for thread in loading:  # never import the SDK on two threads at once
        join = getattr(thread, "join", None)
        if join is not None:
            join()
    from signalint.server.sdk_packages import defer

    defer()  # where the front started no import (idempotent)
    from signalint.server.app import Start, serve

    start = Start(handover, recorded, cache, give_back, leaving)
    return serve(root, max_request_bytes, start)


def entry() -> None:
    """Console-script target declared in pyproject.toml."""
    sys.exit(main())
