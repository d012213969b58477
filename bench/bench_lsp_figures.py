"""Issue 38's figures for `signalint lsp` on large generated projects.

    .venv/bin/python bench/bench_lsp_figures.py [--files 3000] [--python-files 800]
        [--runs 3] [--only ts|python] [--parts a,c,d,linters]

`--parts` runs only those figures (a: keystrokes, c: the save, d: the
unsaved change (TypeScript), linters: the linters alone); T is measured
always.

One `signalint lsp` on stdio (its messages read on a thread, each stamped
as it arrives), checking through the project's daemon as an editor's does.

TypeScript: bench/synth.py's strict project of `--files` modules (each
imports the one before), with its own TypeScript 6.0.3 in `node_modules`
(bench/bench_warm.py's packages); Oxlint and tsc enabled. T is a cold
native `tsc -p tsconfig.json --noEmit`, the median of `--runs` in this run.

(a) keystroke -> diagnostics published for the edited file: the leaf module
    open, a `didChange` adding a new type error, timed until
    `publishDiagnostics` of that version (the server's 0.15 s debounce
    included). The buffer is checked by Oxlint and tsc in the shadow copy;
    the first keystroke starts the copy's workers (reported apart), the
    next `--runs` are the figure. Then the same with tsc turned off in
    Signalint's settings (a fresh server): the linters alone.
(c) save of an exported-type change -> dependents' diagnostics published:
    `value{K}` of the middle module turned from number into string (and
    back, alternately), written and `didSave` sent, timed until the next
    module's (its one importer's) diagnostics are published changed;
    against `tsc --watch --noEmit`'s own answer to the same changes (the
    file written until its "Found N errors" line, its own debounce
    included), run alone before the server starts, and against T.

Python: bench/synth_python.py's package of `--python-files` modules; Ruff
and Pyright enabled (mypy off: it answers on save, not on a keystroke,
and its cold first check would only load the machine). T is a cold
native `pyright` of the project. (b) as (a): the leaf module's buffer
checked by Ruff and Pyright, then by Ruff alone. (c) as above: the middle
module's `VALUE{K}` turned from int into str and back, its importer's
diagnostics awaited; against `pyright --watch`'s own answer (until the
"Watching for file changes" line after its summary).

Medians of `--runs`, printed with the load average; never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.bench_warm import node_modules
from bench.synth import generate as generate_ts
from bench.synth_python import generate as generate_python
from signalint.engines.resolve import managed_dir
from signalint.lsp.server import LINT_DEBOUNCE_S, PROGRAM_DEBOUNCE_S

SIGNALINT = Path(sys.executable).with_name("signalint")
MANAGED = managed_dir()


class Wire:
    """`signalint lsp` on pipes; every message it writes, with its arrival time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_DAEMON"}
        self.process = subprocess.Popen(
            [str(SIGNALINT), "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send({"id": 1, "method": "initialize",
                   "params": {"capabilities": {}, "rootUri": root.as_uri()}})  # fmt: skip
        self.until(lambda m: m.get("id") == 1)
        self.send({"method": "initialized", "params": {}})

    def _read(self) -> None:
        out: IO[bytes] | None = self.process.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.inbox.put((time.perf_counter(), json.loads(out.read(length))))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def until(self, test: Any, limit_s: float = 900) -> tuple[float, dict[str, Any]]:
        """The first message from now on that passes `test`, and when it came."""
        deadline = time.monotonic() + limit_s
        while True:
            at, message = self.inbox.get(timeout=max(0.1, deadline - time.monotonic()))
            if test(message):
                return at, message

    def published(
        self, uri: str, version: int | None = None, limit_s: float = 900
    ) -> tuple[float, list[dict[str, Any]]]:
        def test(m: dict[str, Any]) -> bool:
            params = m.get("params", {})
            return (
                m.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and (version is None or params.get("version") == version)
            )

        at, message = self.until(test, limit_s)
        return at, list(message["params"]["diagnostics"])

    def drain(self, quiet_s: float = 2.0) -> int:
        """Read until nothing comes for `quiet_s`; how many came."""
        count = 0
        while True:
            try:
                self.inbox.get(timeout=quiet_s)
            except queue.Empty:
                return count
            count += 1

    def open(self, file: Path, language: str) -> str:
        uri = file.as_uri()
        item = {"uri": uri, "languageId": language, "version": 1, "text": file.read_text()}
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
        return uri

    def change(self, uri: str, version: int, text: str) -> float:
        began = time.perf_counter()
        self.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]}})  # fmt: skip
        return began

    def stop(self) -> None:
        self.send({"id": "end", "method": "shutdown"})
        self.until(lambda m: m.get("id") == "end", 120)
        self.send({"method": "exit"})
        self.process.wait(timeout=60)


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def cold(argv: list[str], root: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, cwd=root, capture_output=True, check=False)
        times.append(time.perf_counter() - began)
    return median(times)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} on {os.cpu_count()} cores"


def set_engines(root: Path, engines: dict[str, bool]) -> None:
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}) + "\n")


def _pending(diagnostics: list[dict[str, Any]]) -> list[str]:
    """The engines the unsaved notice names as still checking the buffer."""
    for d in diagnostics:
        if d.get("code") == "unsaved":
            return list(d.get("data", {}).get("pending", []))
    return []


def keystrokes(
    root: Path, file: Path, language: str, extra: str, runs: int, label: str
) -> tuple[float, list[float]]:
    """A fresh server, its first check done, `file` open: the first
    keystroke's time and the next `runs`' (seconds), until the publication
    of that version that every buffer engine answered; beside it, until
    the first publication of that version (the linters', naming the type
    checker as pending)."""
    wire = Wire(root)
    try:
        uri = wire.open(file, language)
        wire.published(uri, 1)  # its diagnostics from the first check
        wire.drain()
        text = file.read_text()
        times: list[float] = []
        early: list[float] = []
        for n in range(2, runs + 3):
            began = wire.change(uri, n, text + extra.format(n=n))
            at, diagnostics = wire.published(uri, n)
            early.append(at - began)
            while _pending(diagnostics):
                at, diagnostics = wire.published(uri, n)
            times.append(at - began)
            line = len(text.splitlines()) + 1  # the added line (after an empty one)
            assert any(d["range"]["start"]["line"] == line for d in diagnostics), diagnostics
            wire.drain(0.5)
        first, rest = times[0], times[1:]
        print(f"   {label}: first keystroke (the copy's workers start) {first * 1000:.0f} ms;"
              f" then median {median(rest) * 1000:.0f} ms"
              f" ({', '.join(f'{x * 1000:.0f}' for x in rest)}), the type checker's"
              f" {PROGRAM_DEBOUNCE_S * 1000:.0f} ms debounce included; {load()}")  # fmt: skip
        print(f"   the linters' part first (same keystrokes): median"
              f" {median(early[1:]) * 1000:.0f} ms"
              f" ({', '.join(f'{x * 1000:.0f}' for x in early[1:])}) (goal <= 100 ms)")  # fmt: skip
        return first, rest
    finally:
        wire.stop()


def unsaved_dependent(
    root: Path, hub: Path, dependent: Path, texts: list[str], runs: int
) -> list[float]:
    """`hub` open, changed unsaved between `texts` (an exported type's
    change and back): until `dependent`'s diagnostics are published
    changed, before any save."""
    wire = Wire(root)
    try:
        dep_uri = dependent.as_uri()
        uri = wire.open(hub, "typescript")
        wire.published(uri, 1)
        wire.drain()
        times: list[float] = []
        previous: list[dict[str, Any]] | None = None
        for n in range(runs + 1):  # the first change makes the copy: the warm-up
            began = wire.change(uri, n + 2, texts[(n + 1) % 2])
            while True:
                at, message = wire.until(
                    lambda m: (
                        m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == dep_uri
                    )
                )
                if message["params"]["diagnostics"] != previous:
                    break
            previous = message["params"]["diagnostics"]
            times.append(at - began)
            wire.drain(1.0)
        print(f"   (the first change, which makes the copy: {times[0]:.2f} s)")
        return times[1:]
    finally:
        wire.stop()


def keystroke_figure(
    root: Path, typed: tuple[Path, str], language: str, part: str, label: str, runs: int,
    t: float,
) -> None:  # fmt: skip
    """(a) / (b): `typed` is the leaf file and the line typed into it."""
    print(f"{part} keystroke -> diagnostics published for the edited file ({label})")
    _, rest = keystrokes(root, typed[0], language, typed[1], runs, label)
    print(f"   = {median(rest) / t:.3f} T (goal <= 0.1 T)")


def keystrokes_linters(root: Path, file: Path, language: str, extra: str, runs: int) -> None:
    wire = Wire(root)
    try:
        uri = wire.open(file, language)
        wire.published(uri, 1)
        wire.drain()
        text = file.read_text()
        times: list[float] = []
        for n in range(2, runs + 3):
            began = wire.change(uri, n, text + extra.format(n=n))
            at, _ = wire.published(uri, n)
            times.append(at - began)
        rest = times[1:]
        print(f"   linters alone: first {times[0] * 1000:.0f} ms; then median"
              f" {median(rest) * 1000:.0f} ms ({', '.join(f'{x * 1000:.0f}' for x in rest)})"
              f" (goal <= 100 ms; debounce {LINT_DEBOUNCE_S * 1000:.0f} ms); {load()}")  # fmt: skip
    finally:
        wire.stop()


def watch_answers(
    argv: list[str], done: Callable[[str], bool], root: Path, hub: Path, texts: list[str],
    runs: int,
) -> list[float]:  # fmt: skip
    """An engine's own watch mode (`argv`): its answer to each change of
    `hub`, written until its next line that `done` accepts (the end of a
    check's report)."""
    process = subprocess.Popen(
        argv, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: queue.Queue[tuple[float, str]] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put((time.perf_counter(), line))

    threading.Thread(target=read, daemon=True).start()

    def found(limit_s: float = 600) -> float:
        deadline = time.monotonic() + limit_s
        while True:
            at, line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if done(line):
                return at

    try:
        found()
        time.sleep(1)
        times = []
        for n in range(runs):
            began = time.perf_counter()
            hub.write_text(texts[(n + 1) % 2])
            times.append(found() - began)
            time.sleep(1)
        return times
    finally:
        process.terminate()
        process.wait(timeout=30)
        hub.write_text(texts[0])


def tsc_watch(root: Path, hub: Path, texts: list[str], runs: int) -> list[float]:
    """`tsc --watch`'s own answer to each change of `hub` (until its next
    "Found N errors. Watching for file changes." line)."""
    tsc = root / "node_modules" / ".bin" / "tsc"
    argv = [str(tsc), "-p", "tsconfig.json", "--noEmit", "--watch", "--preserveWatchOutput"]
    return watch_answers(
        argv, lambda line: "Watching for file changes" in line and "Found" in line,
        root, hub, texts, runs,
    )  # fmt: skip


def pyright_watch(root: Path, hub: Path, texts: list[str], runs: int) -> list[float]:
    """`pyright --watch`'s own answer to each change of `hub` (until the
    "Watching for file changes..." line after its summary)."""
    pyright = MANAGED / "node_modules" / ".bin" / "pyright"
    return watch_answers(
        [str(pyright), "--watch"], lambda line: line.startswith("Watching for file changes"),
        root, hub, texts, runs,
    )  # fmt: skip


def exported_change(
    root: Path, hub: Path, dependent: Path, texts: list[str], runs: int, language: str
) -> list[float]:
    """Save of `hub` alternating between `texts`: until `dependent`'s
    diagnostics are published changed."""
    wire = Wire(root)
    try:
        dep_uri = dependent.as_uri()
        uri = wire.open(hub, language)
        wire.published(uri, 1)
        wire.drain()
        times: list[float] = []
        firsts: list[float] = []
        counts: list[tuple[int, int]] = []
        previous: list[dict[str, Any]] | None = None
        for n in range(runs + 1):  # the first save is the warm-up
            text = texts[(n + 1) % 2]
            began = time.perf_counter()
            hub.write_text(text)
            wire.send({"method": "textDocument/didSave",
                       "params": {"textDocument": {"uri": uri}}})  # fmt: skip
            first_at: float | None = None
            count = 0
            while True:
                at, message = wire.until(
                    lambda m: m.get("method") == "textDocument/publishDiagnostics"
                )
                first_at = at if first_at is None else first_at
                count += 1
                params = message["params"]
                if params["uri"] == dep_uri and params["diagnostics"] != previous:
                    break
            previous = params["diagnostics"]
            times.append(at - began)
            firsts.append(first_at - began)
            counts.append((count, count + wire.drain()))
        print(f"   (the first save after the server's start: {times[0]:.2f} s)")
        print(f"   save -> the first file published: median {median(firsts[1:]):.2f} s"
              f" ({', '.join(f'{x:.2f}' for x in firsts[1:])}); the importer's was publication"
              f" {counts[-1][0]} of {counts[-1][1]} after each check")  # fmt: skip
        return times[1:]
    finally:
        wire.stop()
        hub.write_text(texts[0])


def typescript(base: Path, files: int, runs: int, parts: frozenset[str]) -> None:
    root = generate_ts(base / "ts", files)
    shutil.copytree(node_modules(), root / "node_modules", symlinks=True)
    tsc = root / "node_modules" / ".bin" / "tsc"
    print(f"\n## TypeScript, {files} modules ({load()})")
    t = cold([str(tsc), "-p", "tsconfig.json", "--noEmit"], root, runs)
    print(f"T = cold native tsc --noEmit: {t:.2f} s (median of {runs})")
    leaf = root / "src" / f"file{files - 1:05d}.ts"
    extra = '\nexport const extra{n}: number = "k{n}";\n'
    if "a" in parts:
        keystroke_figure(root, (leaf, extra), "typescript", "(a)", "Oxlint + tsc", runs, t)
    middle = files // 2
    hub = root / "src" / f"file{middle:05d}.ts"
    dependent = root / "src" / f"file{middle + 1:05d}.ts"
    original = hub.read_text()
    changed = original.replace(
        f"export const value{middle}: number", f"export const value{middle}: string"
    ).replace(f"= value{middle - 1} + {middle};", f"= String(value{middle - 1} + {middle});")
    assert changed != original
    if parts & {"c", "d"}:
        saved(root, (hub, dependent), [original, changed], runs, t, parts)
    if "linters" in parts:
        set_engines(root, {"oxlint": True, "tsc": False, "biome": False, "eslint": False})
        keystrokes_linters(root, leaf, "typescript", extra, runs)


@dataclass(frozen=True)
class Watch:
    """The engine's own watch mode that (c) is compared with, and the
    language of the files the server is told of."""

    name: str
    answers: Callable[[Path, Path, list[str], int], list[float]]
    language: str


TSC_WATCH = Watch("tsc --watch", tsc_watch, "typescript")
PYRIGHT_WATCH = Watch("pyright --watch", pyright_watch, "python")


def saved(
    root: Path, files: tuple[Path, Path], texts: list[str], runs: int, t: float,
    parts: frozenset[str], watch: Watch = TSC_WATCH,
) -> None:  # fmt: skip
    """(c) and (d): `files` are the hub and its importer."""
    hub, dependent = files
    print(f"(c) save of an exported-type change ({hub.relative_to(root)}) -> its importer's"
          f" diagnostics published")  # fmt: skip
    own = watch.answers(root, hub, texts, runs)
    w = median(own)
    print(f"   {watch.name}'s own answer: median {w:.2f} s"
          f" ({', '.join(f'{x:.2f}' for x in own)}) = {w / t:.3f} T; {load()}")  # fmt: skip
    if "c" in parts:
        saves = exported_change(root, hub, dependent, texts, runs, watch.language)
        s = median(saves)
        print(f"   signalint lsp: median {s:.2f} s ({', '.join(f'{x:.2f}' for x in saves)})"
              f" = {s / t:.3f} T (goal <= 0.35 T where the change reaches few files)"
              f" = {s / w:.2f} x {watch.name} (goal <= 1); {load()}")  # fmt: skip
    if "d" not in parts:
        return
    print("(d) the same change typed unsaved -> its importer's diagnostics published")
    unsaved = unsaved_dependent(root, hub, dependent, texts, runs)
    u = median(unsaved)
    print(f"   signalint lsp: median {u:.2f} s ({', '.join(f'{x:.2f}' for x in unsaved)})"
          f" = {u / t:.3f} T = {u / w:.2f} x {watch.name}'s answer to the save;"
          f" {load()}")  # fmt: skip


def python(base: Path, files: int, runs: int, parts: frozenset[str]) -> None:
    root = generate_python(base / "py", files)
    engines = {"oxlint": False, "tsc": False, "biome": False, "eslint": False,
               "ruff": True, "mypy": False, "pyright": True}  # fmt: skip
    set_engines(root, engines)
    pyright = MANAGED / "node_modules" / ".bin" / "pyright"
    print(f"\n## Python, {files} modules ({load()})")
    t = cold([str(pyright)], root, runs)
    print(f"T = cold native pyright: {t:.2f} s (median of {runs})")
    leaf = root / "pkg" / f"mod{files - 2:05d}.py"
    extra = '\nEXTRA{n}: int = "k{n}"\n'
    if "a" in parts:
        keystroke_figure(root, (leaf, extra), "python", "(b)", "Ruff + Pyright", runs, t)
    middle = files // 2
    hub = root / "pkg" / f"mod{middle:05d}.py"
    dependent = root / "pkg" / f"mod{middle + 1:05d}.py"
    original = hub.read_text()
    changed = original.replace(
        f"VALUE{middle}: int = VALUE{middle - 1} + {middle}",
        f"VALUE{middle}: str = str(VALUE{middle - 1} + {middle})",
    )
    assert changed != original
    if "c" in parts:
        saved(root, (hub, dependent), [original, changed], runs, t, parts - {"d"}, PYRIGHT_WATCH)
    if "linters" in parts:
        set_engines(root, {**engines, "pyright": False})
        keystrokes_linters(root, leaf, "python", "\nimport os as os{n}\n", runs)


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--python-files", type=int, default=800)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", choices=("ts", "python"))
    parser.add_argument("--parts", default="a,c,d,linters")
    args = parser.parse_args()
    parts = frozenset(args.parts.split(","))
    if not parts <= {"a", "c", "d", "linters"}:
        parser.error(f"--parts: {args.parts!r}: accepted: a, c, d, linters (comma-separated)")
    with tempfile.TemporaryDirectory(prefix="bench-lsp-figures-") as tmp:
        if args.only in (None, "ts"):
            typescript(Path(tmp), args.files, args.runs, parts)
        if args.only in (None, "python"):
            python(Path(tmp), args.python_files, args.runs, parts)


if __name__ == "__main__":
    main()
