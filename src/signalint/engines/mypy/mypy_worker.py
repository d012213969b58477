"""The kept-warm mypy worker: mypy's daemon server, in-process, over JSON lines.

Run by the interpreter that has the project's own mypy installed (never
imported by Signalint: it needs only the standard library and mypy). It
holds one `mypy.dmypy_server.Server` (mypy's fine-grained incremental
daemon state, the same class `dmypy daemon` serves over its socket) and
answers one request per line on stdin with one JSON line on stdout; it
exits at end of file on stdin. The line protocol is ours (no maintained
library speaks to mypy's daemon state in-process).

A request is `{"args": [...], "cwd": "..."}`: the cold command's argv
after the executable. The answer is one of

- `{"stdout", "exit", "version", "sources", "modules"}`: what the daemon
  printed (the same `-O json` lines a cold run prints), the exit code a
  cold run would have (2 on a blocking error), and the program as a cold
  `--verbose` run logs it: the sources it was asked to check and every
  module of the build with its path;
- `{"cold": reason}`: this request must be answered by a cold run (a
  blocking error, a usage error: what a cold run prints then depends on
  its order of work, which the daemon does not share);
- `{"error": reason}`: the worker cannot answer (it should be replaced).

Freshness by content: before every check each file the daemon watches
(every module of the build) is hashed with mypy's own digest and compared
with what the daemon last saw; a file whose content changed is marked so
that the daemon's stat-based watcher (which trusts a same-second mtime and
an equal size) re-reads it. Sources are found again on every request (new
and deleted files), and new modules behind imports are found by the
daemon itself. A module now found at another path (a stub beside it
removed, a module shadowed) is a change the daemon's update does not
follow: the worker builds anew then. After an update, the project modules
with `type: ignore` comments that it checked are checked again whole, one
module an update (an update re-checks parts of modules, and only a whole
module's check reports its unused ignores).

Errors kept across updates (`KeptErrors`): the daemon forgets every error
at each update and so checks again, after every edit, every part of the
program that had an error (on a program with errors in every module that
is most of an edit's time). The worker instead keeps the errors of the
parts an update did not check (nor their modules) and checks again only
the parts that had errors within the update itself (the daemon forgets
errors between the modules of one update too). Where an error's text
depends on errors elsewhere (a note shown once per run, errors hidden
after import errors), the daemon's own way runs: before an update whose
kept errors hold such a message, and, after an update that made one while
errors were kept, the worker builds anew and the answer is a cold run's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

# This file's directory (Signalint's `engines/mypy/`) is first on the path
# of a script: none of its modules may shadow the real mypy's.
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _HERE]

import mypy.build  # noqa: E402
import mypy.main  # noqa: E402
from mypy.dmypy_server import Server, process_start_options  # noqa: E402
from mypy.errorcodes import IMPORT, IMPORT_NOT_FOUND, IMPORT_UNTYPED  # noqa: E402
from mypy.find_sources import InvalidSourceList  # noqa: E402
from mypy.fswatcher import FileData  # noqa: E402
from mypy.modulefinder import FindModuleCache  # noqa: E402
from mypy.server.update import (  # noqa: E402
    FineGrainedBuildManager,
    sort_messages_preserving_file_order,
)
from mypy.typestate import reset_global_state  # noqa: E402
from mypy.version import __version__  # noqa: E402

# Flags of the cold command the daemon does without: its log is not the
# cold run's (the program is reported from the build graph instead), and
# it keeps no cache.
_DROP = {"--verbose": 0, "-v": 0, "--cache-dir": 1}


def _flags(args: list[str]) -> list[str]:
    out: list[str] = []
    skip = 0
    for arg in args:
        if skip:
            skip -= 1
            continue
        if arg in _DROP:
            skip = _DROP[arg]
            continue
        if arg.startswith("--cache-dir="):
            continue
        out.append(arg)
    return out


_IMPORT_CODES = frozenset({IMPORT, IMPORT_NOT_FOUND, IMPORT_UNTYPED})


def _global(info: Any) -> bool:
    """Whether an error's text or presence depends on other errors of the
    run: a message shown once per run, an error hidden after import
    errors, or an import error (which hides later ones)."""
    return bool(info.only_once or info.hidden or info.code in _IMPORT_CODES)


class _Targets(list[str]):
    """The manager's `processed_targets`, kept across the several updates of
    one increment (each update clears it; mypy reads it only in its tests)."""

    def clear(self) -> None:
        pass

    def reset(self) -> None:
        super().clear()


class KeptErrors:
    """Keeps, across the updates of one fine-grained manager, the errors
    of what an update did not check again (module docstring). Each step
    (`begin`, the daemon's work, `end`) may run several updates."""

    def __init__(self, manager: FineGrainedBuildManager) -> None:
        self.manager = manager
        # Whether the manager's error map holds every current error (not
        # after a blocking error: the daemon's own recovery runs then).
        self.complete = True
        # Set when a step made a message that depends on other errors while
        # errors were kept: the worker must build anew.
        self.spoiled = False
        self.targets = _Targets()
        manager.processed_targets = self.targets
        self._before: dict[str, list[Any]] | None = None
        self._states: dict[str, Any] = {}
        self._messages: list[str] = []
        self._with_errors: set[str] = set()

    def begin(self) -> None:
        """Before a step: note the errors and modules, and have the daemon
        check again only what gets an error within the step."""
        fgm = self.manager
        infos = fgm.manager.errors.error_info_map
        self._before = None
        if not self.complete or any(_global(i) for found in infos.values() for i in found):
            return
        self._before = {path: list(found) for path, found in infos.items()}
        self._states = dict(fgm.graph)
        self._messages = fgm.previous_messages
        self._with_errors = fgm.previous_targets_with_errors
        self.targets.reset()
        fgm.previous_targets_with_errors = set()

    def end(self) -> list[str] | None:
        """After a step: every current error's message, or None when the
        daemon's own messages stand (errors were not kept, or a blocking
        error)."""
        fgm = self.manager
        before, self._before = self._before, None
        if fgm.blocking_error is not None:
            if before is not None:
                fgm.previous_targets_with_errors |= self._with_errors
            self.complete = False
            return None
        if before is None:
            self.complete = True
            return None
        checked = set(self.targets)
        # A module parsed again (edited, added or removed) was checked whole.
        again = {m for m, state in self._states.items() if fgm.graph.get(m) is not state}
        if not checked and not again and len(fgm.graph) == len(self._states):
            # Nothing was checked: the daemon's messages are the last ones.
            fgm.previous_targets_with_errors = self._with_errors
            return None
        errors = fgm.manager.errors
        fresh = errors.error_info_map
        if any(_global(i) for found in fresh.values() for i in found):
            self.spoiled = True
        merged: dict[str, list[Any]] = {}
        for path, found in before.items():
            kept = [
                i
                for i in found
                if i.module not in again and (i.target is None or i.target not in checked)
            ]
            if kept:
                merged[path] = kept
        for path, found in fresh.items():
            merged.setdefault(path, []).extend(found)
        errors.error_info_map = merged
        errors.flushed_files = set()
        messages = sort_messages_preserving_file_order(errors.new_messages(), self._messages)
        fgm.previous_messages = messages.copy()
        fgm.previous_targets_with_errors = errors.targets()
        return messages


class Worker:
    def __init__(self, status_file: str) -> None:
        self.status_file = status_file
        self.server: Server | None = None
        self.flags: list[str] | None = None
        self.kept: KeptErrors | None = None

    def _kept(self, server: Server) -> KeptErrors | None:
        """What keeps errors across the updates of `server`'s manager, once
        it is built."""
        fgm = server.fine_grained_manager
        if fgm is None:
            return None
        if self.kept is None or self.kept.manager is not fgm:
            self.kept = KeptErrors(fgm)
        return self.kept

    def _step(
        self,
        server: Server,
        sources: list[Any],
        work: Callable[[], dict[str, Any]],
    ) -> dict[str, Any]:
        """`work()` (updates of the daemon), keeping errors across it."""
        kept = self._kept(server)
        if kept is None:
            return work()
        kept.begin()
        result = work()
        messages = kept.end()
        if messages is None:
            return result
        return server.increment_output(messages, sources, False, 80)

    def _start(self, flags: list[str]) -> None:
        reset_global_state()
        options = process_start_options(flags, allow_sources=True)
        self.server = Server(options, self.status_file)
        self.flags = flags

    def _refresh(self, server: Server) -> None:
        """Mark every watched file whose content changed since the daemon
        last read it (module docstring)."""
        manager = server.fine_grained_manager
        if manager is None or not hasattr(server, "fswatcher"):
            return
        watcher = server.fswatcher
        fscache = server.fscache
        fscache.flush()
        for path, data in watcher.dump_file_data().items():
            try:
                digest = fscache.hash_digest(path)
            except OSError:
                continue  # gone: the watcher's stat notices it
            if digest != data[2]:
                # An impossible mtime makes the watcher hash the file again.
                watcher.set_file_data(path, FileData(-1.0, data[1], data[2]))
        fscache.flush()

    def _moved(self, server: Server, sources: list[Any]) -> bool:
        """Whether a module of the build is now found at another path (a
        stub beside it removed, a module shadowed or moved), which the
        daemon's update does not follow."""
        fgm = server.fine_grained_manager
        if fgm is None:
            return False
        graph = fgm.graph
        for source in sources:
            state = graph.get(source.module)
            path = state.path if state is not None else None
            if path and source.path and os.path.normpath(path) != os.path.normpath(source.path):
                return True
        finder = FindModuleCache(fgm.manager.search_paths, server.fscache, server.options)
        for module, state in graph.items():
            if state.path and not os.path.exists(state.path):
                found = finder.find_module(module)
                if isinstance(found, str) and os.path.normpath(found) != os.path.normpath(
                    state.path
                ):
                    return True
        return False

    def _ignores(
        self, server: Server, sources: list[Any], result: dict[str, Any]
    ) -> dict[str, Any]:
        """Check again, whole, every project module with `type: ignore`
        comments that an update checked: an update re-checks parts of
        modules, and only a whole module's check says which of its ignores
        are unused (or lack a code), as a cold run does."""
        fgm = server.fine_grained_manager
        if fgm is None or fgm.blocking_error is not None:
            return result
        errors = fgm.manager.errors
        root = os.getcwd() + os.sep
        again = [
            (module, state.path)
            for module, state in fgm.graph.items()
            if state.path
            and errors.ignored_lines.get(state.xpath)
            and state.xpath not in errors.ignored_files
            and os.path.abspath(state.path).startswith(root)
            and "site-packages" not in state.path
        ]
        # One module an update: the daemon forgets every error between the
        # modules of one update, and checks again only the parts with
        # errors, which does not say which ignores are unused.
        for module in again:

            def update(module: tuple[str, str] = module) -> dict[str, Any]:
                return server.increment_output(fgm.update([module], []), sources, False, 80)

            result = self._step(server, sources, update)
        server.flush_caches()
        return result

    def handle(self, request: dict[str, object]) -> dict[str, object]:
        args = request.get("args")
        cwd = request.get("cwd")
        if not isinstance(args, list) or not isinstance(cwd, str):
            return {"error": "bad request"}
        os.chdir(cwd)
        flags = _flags([str(a) for a in args])
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                if self.server is None or flags != self.flags:
                    self._start(flags)
                server = self.server
                assert server is not None
                server.fscache.flush()
                sources, options = mypy.main.process_options(
                    ["-i", *flags],
                    require_targets=True,
                    server_options=True,
                    fscache=server.fscache,
                    program="mypy-daemon",
                    header=argparse.SUPPRESS,
                )
                if not options.compare_stable(server.options_snapshot):
                    return {"error": "the options changed"}
                fgm = server.fine_grained_manager
                if fgm is not None:
                    _, plugins = mypy.build.load_plugins(
                        options, fgm.manager.errors, sys.stdout, extra_plugins=()
                    )
                    if plugins != fgm.manager.plugins_snapshot:
                        return {"error": "a plugin changed"}
                if self._moved(server, sources):
                    # The daemon would keep the module where it was: build anew.
                    self._start(flags)
                    server = self.server
                    assert server is not None
                self._refresh(server)
                increment = server.fine_grained_manager is not None
                result = self._step(
                    server, sources, lambda: server.check(sources, False, False, 80)
                )
                if increment and result.get("status") != 2:
                    result = self._ignores(server, sources, result)
        except SystemExit:
            return {"cold": "usage: " + err.getvalue()[-500:]}
        except InvalidSourceList as exc:
            return {"cold": f"sources: {exc}"}
        manager = server.fine_grained_manager
        status = result.get("status")
        if self.kept is not None and self.kept.spoiled:
            self.server = None  # build anew on the next request
            self.kept = None
            return {"cold": "a message that depends on the whole run's errors"}
        if manager is None or manager.blocking_error is not None or status == 2:
            # The daemon recovers from a blocking error on a later update; a
            # cold run says what mypy prints for it.
            return {"cold": "blocking error"}
        graph = manager.graph
        modules = [[state.xpath, module] for module, state in graph.items() if state.path]
        return {
            "stdout": result.get("out", ""),
            "exit": status,
            "version": __version__,
            "sources": [s.path for s in sources if s.path],
            "modules": modules,
        }


def main() -> int:
    status_file = sys.argv[1] if len(sys.argv) > 1 else os.devnull
    # Our answers go to the saved stdout; anything else printed (mypy,
    # a plugin, a child process) goes to stderr, the worker's log.
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    worker = Worker(status_file)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            answer = worker.handle(request) if isinstance(request, dict) else {"error": "bad"}
        except Exception:
            traceback.print_exc()
            answer = {"error": "worker crashed: " + traceback.format_exc()[-1000:]}
            worker.server = None  # its state cannot be trusted any more
        channel.write(json.dumps(answer) + "\n")
        channel.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
