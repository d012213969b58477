"""Entry point of the `signalint` CLI.

Subcommands are imported only when invoked, so `signalint --version` and
`--help` stay fast (no engine, cache or MCP code is loaded for them). The
console script (`entry`) first offers `check`, `pre-commit` and `hooks
run` to the project's daemon (`daemon.client`); this module imports click only when a
command runs here (the click group lives in `cli.group`, the command table
in `cli.table`).

`main` is the one place where problems become exit codes: a
`SignalintError` from any command (a configuration that does not load, a
refused path, an unusable root) is printed as one line naming what is at
fault and returns its `exit_code`; anything else unexpected is printed as
one line too (the traceback only with SIGNALINT_DEBUG=1). No command shows
a traceback. Ctrl-C exits 130; SIGTERM and SIGHUP, which the console
script hands to `cli.stop_signals` for every command but `lsp` (and a kept
answer's replay, which starts no engine), exit 143 and 129 (128 + the
signal's number); either way no engine is left running.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

TYPE_CHECKING = False  # `typing` costs the forwarding path milliseconds
if TYPE_CHECKING:
    from typing import Any

    from signalint.cli.group import LazyGroup as LazyGroup
    from signalint.cli.group import cli as cli

DEBUG_VARIABLE = "SIGNALINT_DEBUG"


def __getattr__(name: str) -> Any:
    """`cli` and `LazyGroup` live in `cli.group` (imported on first use)."""
    if name in ("cli", "LazyGroup"):
        from signalint.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok/clean, 1 issues or failure, 2 usage).

    `signalint help [COMMAND]` is `signalint [COMMAND] --help`, as in the reference.
    """
    import click

    from signalint import answers
    from signalint.cli.group import cli
    from signalint.errors import SignalintError

    args = list(argv) if argv is not None else sys.argv[1:]
    if args and args[0] == "help":
        args = [*args[1:2], "--help"]
    answers.invocation = args  # `check` keeps its answer under them
    try:
        result = cli.main(args=args, prog_name="signalint", standalone_mode=False)
    except SignalintError as exc:
        click.echo(f"signalint: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort as exc:  # Ctrl-C, or SIGTERM/SIGHUP (`stop_signals`)
        return _interrupted(exc, "Aborted.")
    except KeyboardInterrupt as exc:
        return _interrupted(exc, "Interrupted.")
    except Exception as exc:  # a bug: say so in one line, not in a traceback
        return internal_error(exc)
    return int(result) if isinstance(result, int) else 0


def _interrupted(exc: BaseException, words: str) -> int:
    """The exit status of a command Ctrl-C (130, saying `words`) or a
    signal (`stop_signals`: 128 + its number) stopped. By then its engines'
    process groups were killed (`process.run` on cancellation; for a
    signal, first of all, by its handler)."""
    from signalint.cli import stop_signals

    stopped = stop_signals.exit_code(exc)
    if stopped is not None:
        return stopped
    sys.stderr.write(f"{words}\n")
    return 130


def internal_error(exc: Exception) -> int:
    """Say in one line that `exc` is a bug of ours (the traceback only with
    SIGNALINT_DEBUG=1); returns the exit code, 1."""
    if os.environ.get(DEBUG_VARIABLE, "") == "1":
        import traceback

        traceback.print_exc()
    sys.stderr.write(
        f"signalint: internal error: {type(exc).__name__}: {exc} (a bug in Signalint; "
        f"{DEBUG_VARIABLE}=1 prints where it happened)\n"
    )
    return 1


def _version_flags() -> tuple[str, ...]:
    from signalint.cli.table import VERSION_FLAGS

    return VERSION_FLAGS


def entry() -> None:
    """The `signalint` console script: an unchanged project's check answers
    from its kept answer (`answers`), decided before click or the check
    pipeline is imported. Else the command runs in-process (its check
    through the project's daemon when one runs, `daemon.client.check`): `hooks run` as
    hosts invoke it without click (`cli.hook_args`), the rest through
    click. A version flag alone is answered with nothing imported."""
    args = sys.argv[1:]
    if len(args) == 1 and args[0] in _version_flags():
        from signalint import __version__

        sys.stdout.write(f"signalint, version {__version__}\n")  # click's words (`main`)
        sys.exit(0)
    if args[:1] == ["lsp"]:  # editors start it: no click, no fix recovery (it applies none)
        from signalint.lsp.run import run_plain

        sys.exit(run_plain(args))
    try:
        code = _command(args)
    except KeyboardInterrupt as exc:  # SIGTERM/SIGHUP outside click (`main` says it inside)
        from signalint.cli import stop_signals

        stopped = stop_signals.exit_code(exc)
        if stopped is None:
            raise
        code = stopped
    sys.exit(code)


def _command(args: list[str]) -> int:
    """The exit code of the command `args` (everything but `lsp`): a kept
    answer (which starts no engine, so it runs before the signal handlers
    are set), else `hooks run` without click or `main`, with SIGTERM and
    SIGHUP handled (`cli.stop_signals`)."""
    if args[:1] in (["check"], ["hooks"]):  # what a kept answer may answer
        from signalint import answers

        code = answers.replay_invocation(args, os.environ)
        if code is not None:
            return code
    from signalint.cli import stop_signals

    stop_signals.install()  # SIGTERM and SIGHUP stop the command and its engines
    code = None
    if args[:2] == ["hooks", "run"]:
        from signalint.cli.hook_args import run_plain  # without click

        try:
            code = run_plain(args)
        except Exception as exc:  # as `main` says it
            code = internal_error(exc)
    if code is None:
        code = main()
    stop_signals.uninstall()  # the command is over: no child runs
    # A signal the command finished before it could raise: stopped all the same.
    return stop_signals.stopped() or code
