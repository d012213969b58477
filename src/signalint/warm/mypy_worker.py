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
follow: the worker builds anew then. After an update, project modules
with `type: ignore` comments are checked again whole (an update re-checks
parts of modules, and only a whole module's check reports its unused
ignores).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import traceback
from typing import Any

# This file's directory holds Signalint's `mypy.py` driver: it must not
# shadow the real mypy package.
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != _HERE]

import mypy.build  # noqa: E402
import mypy.main  # noqa: E402
from mypy.dmypy_server import Server, process_start_options  # noqa: E402
from mypy.find_sources import InvalidSourceList  # noqa: E402
from mypy.fswatcher import FileData  # noqa: E402
from mypy.modulefinder import FindModuleCache  # noqa: E402
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


class Worker:
    def __init__(self, status_file: str) -> None:
        self.status_file = status_file
        self.server: Server | None = None
        self.flags: list[str] | None = None

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
        comments after an update: an update re-checks parts
        of modules, and only a whole module's check says which of its
        ignores are unused (or lack a code), as a cold run does."""
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
        if not again:
            return result
        messages = fgm.update(again, [])
        server.flush_caches()
        return server.increment_output(messages, sources, False, 80)

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
                result = server.check(sources, False, False, 80)
                if increment and result.get("status") != 2:
                    result = self._ignores(server, sources, result)
        except SystemExit:
            return {"cold": "usage: " + err.getvalue()[-500:]}
        except InvalidSourceList as exc:
            return {"cold": f"sources: {exc}"}
        manager = server.fine_grained_manager
        status = result.get("status")
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
