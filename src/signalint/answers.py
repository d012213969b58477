"""Stored answers: a check of an unchanged project answered from one file.

Two commands keep their answers: `signalint check` run with its cache (no
`--no-cache`, `--changed`, `--new-from-rev`, `--new-from-merge-base` or
`--shard`), and `signalint hooks run` answering a post-edit event whose
answer the same event would give again (every engine answered and nothing
new was reported, so the hook's memory of what it reported stays as it
is; a stop event counts its blocks and is never kept). Such a command
records the paths it read while it ran
(`recording`, fed by `note`): every file whose content keyed a result (the
cache's file digests: sources, engine configs, a program's inputs inside and
outside the project), every directory the walk listed with its `.gitignore`,
the ignore files above it, the settings homes, and what engine resolution
looked at (the `.bin` directories searched, the executable found and the
manifest naming its version). After printing, it keeps the answer
(`keep`): its stdout, stderr and exit code, with the stat of each path read
(size, mtime, ctime and inode; a path that did not exist must still not;
the stat taken when it was read where the reader took one, `noted`, else
one taken then),
in `<state>/answers/<key>.answer` (JSON under a suffix no linter or
formatter claims: a project's `biome check .` without VCS integration walks
the state directory and formats every `.json` file it finds; an earlier
release's `<key>.json` files are removed when answers are trimmed). The
key names the command: its arguments,
the hook event it read (a hook's standard input), the working directory,
the environment variables that change what a check does, the interpreter,
whether stdout is a terminal, and our code (the daemon's stamp).

The next run of the same command (`replay`: in the console script before
click or the check pipeline is imported, or in the project's daemon when
the command is forwarded to it) stats every recorded path, the most
recently written first; when
each is as recorded, and the retained check the answer names is still
kept (its snapshot file there and younger than its time to live: expiry
or eviction would leave an id `signalint show` cannot expand), it writes
the kept answer and exits with its code: the same output, `checkId`
included. Any difference, a missing or unreadable index, and it runs as
usual (and keeps a new one).

Trust in a stat is the rule of our file digests (`cache/local_store.py`): an
answer is kept only when no path it read was written within 2 s before the
check started or while it ran, since a timestamp may not move for a write
that close; any later write moves ctime. At most `KEEP` answers are kept per
state directory (the oldest go).

This module is read by the console script before anything heavy, so it uses
the standard library and the daemon's light modules only.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from signalint.daemon.place import event_cwd, payload, project_root, stamp, state_dir

FORMAT = 2
KEEP = 32
DIRECTORY = "answers"
SUFFIX = ".answer"
# What releases before the suffix above wrote; removed by `_trim` and `forget`.
LEGACY_SUFFIX = ".json"
SETTLE_NS = 2_000_000_000
# Options after which a check's answer depends on more than the files it read.
UNKEPT = (
    "--no-cache",
    "--changed",
    "--new-from-rev",
    "--new-from-merge-base",
    "--shard",
    # The report goes to a file: a replay would print it instead.
    "--output-file",
)
# Environment variables that change what a check runs or prints (besides
# SIGNALINT_*): where engines are found, and their own settings.
_ENV = frozenset(
    [
        "PATH",
        "HOME",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYTHONPATH",
        "PYTHONHOME",
        "NODE_OPTIONS",
        "NODE_PATH",
        "MYPYPATH",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "NO_COLOR",
        "FORCE_COLOR",
        "TERM",
    ]
)


class Recording:
    """What the command being recorded read (`note`) and the retained checks
    its answer names (`retain`): each snapshot file with its time to live."""

    __slots__ = ("keepable", "read", "retained", "seen", "started_ns")

    def __init__(self) -> None:
        # When the command started: a path written since cannot be trusted.
        self.started_ns = time.time_ns()
        # False when the answer depends on more than what was read (`unkept`).
        self.keepable = True
        self.read: set[str] = set()
        self.retained: dict[str, float] = {}
        # The stat a path had when the command read it, where the reader had
        # one (`noted`): the first one taken.
        self.seen: dict[str, list[int] | None] = {}


# The commands being recorded (none: not recording).
_reading: list[Recording] = []
# The arguments of the command this process runs (`cli.main` sets them).
invocation: list[str] | None = None
# What a terminal's progress line writes: redraws, never part of an answer.
_REDRAW = "\r\x1b[K"


def note(paths: Iterable[str]) -> None:
    """Count absolute `paths` among what the check being recorded read."""
    if _reading:
        _reading[-1].read.update(paths)


def noted(paths: Sequence[str], stats: Sequence[os.stat_result | None]) -> None:
    """`note` absolute `paths` with the stat each had when it was read (None:
    missing), so `keep` need not stat them again. The first stat of a path
    counts: it is the one no later than what the answer says of the file
    (a write after it shows in the stat `replay` compares; a write while the
    command ran makes the answer unkept, `keep`)."""
    if not _reading:
        return
    recorded = _reading[-1]
    recorded.read.update(paths)
    seen = recorded.seen
    for path, st in zip(paths, stats, strict=True):
        if path not in seen:
            seen[path] = None if st is None else _stat_of(st)


def unkept() -> None:
    """The answer being recorded may not be kept: it depends on files the
    command did not note (a kept-warm engine answered for some files only,
    from a program whose other inputs were not read here)."""
    if _reading:
        _reading[-1].keepable = False


def retain(snapshot: str, ttl_s: float) -> None:
    """The answer being recorded names the check kept in the file `snapshot`
    for `ttl_s` seconds from its modification time: a replay needs it there."""
    if _reading:
        _reading[-1].retained[snapshot] = ttl_s


def is_recording() -> bool:
    """Whether a command's reads are being recorded in this process."""
    return bool(_reading)


def merge(read: Iterable[str], seen: Mapping[str, list[int] | None], keepable: bool) -> None:
    """Count what another process read for this command (the project's
    daemon answering its check, `daemon.client.check`) as read here."""
    if not _reading:
        return
    recorded = _reading[-1]
    recorded.read.update(read)
    for path, stat in seen.items():
        recorded.seen.setdefault(path, stat)
    if not keepable:
        recorded.keepable = False


@contextlib.contextmanager
def recording() -> Iterator[Recording]:
    """Record, for this block, what `note` and `retain` are given."""
    recorded = Recording()
    _reading.append(recorded)
    try:
        yield recorded
    finally:
        _reading.remove(recorded)


class _Tee:
    """A text stream that writes through and remembers what it wrote."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.said: list[str] = []

    def write(self, text: str) -> int:
        if not text.startswith(_REDRAW):
            self.said.append(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Said:
    """What a command wrote to stdout and stderr (`captured`)."""

    def __init__(self, out: _Tee, err: _Tee) -> None:
        self._out, self._err = out, err

    @property
    def stdout(self) -> str:
        return "".join(self._out.said)

    @property
    def stderr(self) -> str:
        return "".join(self._err.said)


@contextlib.contextmanager
def captured() -> Iterator[Said]:
    """Write through stdout and stderr, remembering what is written."""
    saved = sys.stdout, sys.stderr
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        yield Said(out, err)
    finally:
        sys.stdout, sys.stderr = saved


def kept_command(args: Sequence[str]) -> str | None:
    """ "check" or "hooks run" when `args` run one whose answer may be kept
    and replayed, else None."""
    words = list(args)
    if any(w in ("--help", "-h") for w in words):
        return None
    if words[:2] == ["hooks", "run"]:
        return "hooks run"
    if words[:1] != ["check"]:
        return None
    options = [w.split("=", 1)[0] for w in words]
    # `-o FILE` (`--output-file`), alone or among other short flags.
    short_o = any(w.startswith("-") and not w.startswith("--") and "o" in w for w in words)
    return None if short_o or any(o in UNKEPT for o in options) else "check"


def read_event() -> str:
    """A hook's standard input, as `hooks run` reads it; standard input is
    replaced by the same bytes, so whatever runs next reads them again."""
    raw = sys.stdin.buffer.read()
    encoding = sys.stdin.encoding or "utf-8"
    text = io.TextIOWrapper(io.BytesIO(raw), encoding=encoding).read()
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding=encoding)
    return text


def replay_invocation(args: Sequence[str], env: Mapping[str, str]) -> int | None:
    """`replay` for the invocation `args` in the working directory, under
    `env`: a hook's event is read from standard input (which is replaced by
    the same bytes) unless `--payload` gives it; None when nothing is kept."""
    kept = kept_command(args)
    if kept is None:
        return None
    root_from, event = os.getcwd(), ""
    if kept == "hooks run":
        given = payload(args)
        event = read_event() if given is None else ""
        root_from = event_cwd(event.encode() if given is None else given) or root_from
    root = project_root(env, root_from)
    return None if root is None else replay(root, args, env, event)


def _key(args: Sequence[str], event: str, env: Mapping[str, str]) -> str:
    chosen = {k: v for k, v in env.items() if k in _ENV or k.startswith("SIGNALINT_")}
    said = [FORMAT, stamp(), sys.executable, list(args), event, os.getcwd()]
    said += [sorted(chosen.items()), sys.stdout.isatty()]
    return hashlib.blake2b(json.dumps(said).encode(), digest_size=16).hexdigest()


def _stat_of(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _stat(path: str) -> list[int] | None:
    try:
        return _stat_of(os.stat(path))
    except OSError:
        return None


def _latest_first(item: tuple[str, list[int] | None]) -> tuple[int, str]:
    path, seen = item
    return (0 if seen is None else -max(seen[1], seen[2]), path)


def _place(root: Path, env: Mapping[str, str], key: str) -> Path:
    return state_dir(root, env) / DIRECTORY / f"{key}{SUFFIX}"


def replay(root: Path, args: Sequence[str], env: Mapping[str, str], event: str = "") -> int | None:
    """Write the kept answer of `args` (a hook's: to `event`) and return its
    exit code, or None when there is none or anything it read has changed
    (module docstring)."""
    if kept_command(args) is None:
        return None
    key = _key(args, event, env)
    try:
        data = json.loads(_place(root, env, key).read_bytes())
        paths, out, err, code = data["paths"], data["stdout"], data["stderr"], data["exit"]
        retained = data["retained"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if data.get("format") != FORMAT or not isinstance(code, int):
        return None
    if not isinstance(paths, dict) or not isinstance(retained, dict):
        return None
    for path, seen in paths.items():
        if _stat(path) != seen:
            return None
    now = time.time()
    for snapshot, ttl_s in retained.items():
        kept = _stat(snapshot)  # expired or evicted: `show` would not find the check
        if kept is None or kept[1] / 1e9 <= now - float(ttl_s):
            return None
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    sys.stderr.flush()
    return code


def keeping(work: Callable[[], tuple[int, Path | None]], event: str = "") -> int:
    """Run `work` (a command returning its exit code, and the project root
    whose state keeps its answer or None when the answer may not be kept),
    recording what it reads and says, then keep its answer; returns the code.
    A command `kept_command` refuses runs as it is."""
    args = invocation
    if args is None or kept_command(args) is None:
        return work()[0]
    with recording() as recorded, captured() as said:
        code, root = work()
    if root is not None:
        answer = (said.stdout, said.stderr, code)
        keep(root, args, os.environ, recorded, answer, event)
    return code


def keep(
    root: Path,
    args: Sequence[str],
    env: Mapping[str, str],
    recorded: Recording,
    answer: tuple[str, str, int],
    event: str = "",
) -> bool:
    """Keep `answer` (stdout, stderr, exit code) of `args` (a hook's: to
    `event`) for `replay`, with the stat of every path `recorded` read and
    the retained checks it names; False when a path was written too
    recently to be trusted (since the recording started: nothing is kept)."""
    if kept_command(args) is None or not recorded.read or not recorded.keepable:
        return False
    trusted_before = min(recorded.started_ns, time.time_ns()) - SETTLE_NS
    paths: dict[str, list[int] | None] = {}
    taken = recorded.seen
    for path in recorded.read:
        seen = paths[path] = taken[path] if path in taken else _stat(path)
        if seen is not None and max(seen[1], seen[2]) >= trusted_before:
            return False
    # The most recently written first: a replay stops at the first path that
    # differs, most often one of the files being edited.
    paths = dict(sorted(paths.items(), key=_latest_first))
    key = _key(args, event, env)
    place = _place(root, env, key)
    stdout, stderr, code = answer
    body = {"format": FORMAT, "paths": paths, "retained": recorded.retained}
    body.update(stdout=stdout, stderr=stderr, exit=code)
    try:
        from signalint.files import write_atomic  # not on a replay's path

        write_atomic(place, json.dumps(body).encode("utf-8"), mode=0o644)
        _trim(place.parent)
    except OSError:
        return False
    return True


def forget(root: Path, env: Mapping[str, str]) -> int:
    """Remove every kept answer of `root`; how many there were."""
    directory = state_dir(root, env) / DIRECTORY
    removed = 0
    for kept in directory.glob(f"*{SUFFIX}"):
        with contextlib.suppress(OSError):
            kept.unlink()
            removed += 1
    _remove_legacy(directory)
    return removed


def _trim(directory: Path) -> None:
    """Keep the `KEEP` most recently written answers."""
    _remove_legacy(directory)
    kept = []
    for entry in directory.glob(f"*{SUFFIX}"):
        with contextlib.suppress(OSError):
            kept.append((entry.stat().st_mtime_ns, entry))
    for _, entry in sorted(kept, reverse=True)[KEEP:]:
        with contextlib.suppress(OSError):
            entry.unlink()


def _remove_legacy(directory: Path) -> None:
    """Remove the answers an earlier release kept as `.json` files."""
    for entry in directory.glob(f"*{LEGACY_SUFFIX}"):
        with contextlib.suppress(OSError):
            entry.unlink()
