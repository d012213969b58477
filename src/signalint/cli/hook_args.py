"""`signalint hooks run`'s arguments, read without click.

Hosts start `signalint hooks run --runtime NAME [policy options]` after every
edit, in a fresh process, so what that process imports is paid on every
edit. The console script (`cli.main.entry`) reads the invocation here when
no daemon and no kept answer answers it, and runs the command without
importing click (about 10 ms of the hook's start).

Only well-formed invocations are read here: the options `hooks run` declares
in `cli.hooks` (the same names, values and defaults; a test compares them
with click's parse), as `--name value` or `--name=value`. Anything else
(`--help`, an unknown option or extra argument, a missing or refused value,
a value starting with a dash) returns None, and click then parses the same
words and gives its usual answer or error. Hand-written because it reads
six options and must not load an argument library: argparse and click
cost more than the hook's own work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from signalint.hosts.hook_events import RUNTIMES

DEFAULT_FAIL_ON_PRIORITY = 1
DEFAULT_MAX_BLOCKS = 3

# option -> (parameter, kind): "choice" one of RUNTIMES, "count" an integer
# of at least 1, "text" any string, "flag" takes no value.
OPTIONS: dict[str, tuple[str, str]] = {
    "--runtime": ("runtime", "choice"),
    "--fail-on-priority": ("fail_on_priority", "count"),
    "--allow-partial": ("allow_partial", "flag"),
    "--max-blocks": ("max_blocks", "count"),
    "--payload": ("payload", "text"),
    "--no-daemon": ("no_daemon", "flag"),
}


class RunArgs(NamedTuple):
    """`hooks run`'s parameters, named as click names them."""

    runtime: str
    fail_on_priority: int = DEFAULT_FAIL_ON_PRIORITY
    allow_partial: bool = False
    max_blocks: int = DEFAULT_MAX_BLOCKS
    payload: str | None = None
    no_daemon: bool = False


def _value(kind: str, text: str) -> object | None:
    """`text` read as an option of `kind`, or None when click should judge it."""
    if kind == "choice":
        return text if text in RUNTIMES else None
    if kind == "count":
        try:
            number = int(text)
        except ValueError:
            return None
        return number if number >= 1 else None
    return text


def parse(words: Sequence[str]) -> RunArgs | None:
    """The parameters of `hooks run` given the words after `hooks run`, as
    click would pass them to the command, or None (module docstring)."""
    params: dict[str, object] = {}
    rest = list(words)
    while rest:
        word = rest.pop(0)
        name, equals, given = word.partition("=")
        if name not in OPTIONS:
            return None
        param, kind = OPTIONS[name]
        if kind == "flag":
            if equals:
                return None
            params[param] = True
            continue
        if not equals:
            if not rest:
                return None
            given = rest.pop(0)
        if given.startswith("-"):
            return None
        value = _value(kind, given)
        if value is None:
            return None
        params[param] = value
    return RunArgs(**params) if "runtime" in params else None  # type: ignore[arg-type]


def run_plain(args: Sequence[str]) -> int | None:
    """Run `args` (`hooks run ...`) as click would, without click; None when
    the arguments are for click to read (`parse`)."""
    params = parse(args[2:]) if list(args[:2]) == ["hooks", "run"] else None
    if params is None:
        return None
    from signalint import answers
    from signalint.cli.table import recover_fix_transactions
    from signalint.hosts.hook_run import run_command

    recover_fix_transactions()
    answers.invocation = list(args)
    if params.no_daemon:  # this process checks: no daemon (`daemon.client.check`)
        import os

        os.environ["SIGNALINT_DAEMON"] = "0"
    return run_command(
        params.runtime,
        params.payload,
        params.fail_on_priority,
        params.allow_partial,
        params.max_blocks,
    )


__all__ = [
    "DEFAULT_FAIL_ON_PRIORITY",
    "DEFAULT_MAX_BLOCKS",
    "OPTIONS",
    "RunArgs",
    "parse",
    "run_plain",
]
