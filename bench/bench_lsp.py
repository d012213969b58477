"""`signalint lsp` latency: start to `initialize` answered, keystroke to diagnostics.

    .venv/bin/python bench/bench_lsp.py [--runs 5] [--keys 5]

1. Start to initialize: spawn the console script `signalint lsp` in a copy
   of examples/demo, write one `initialize`, time until its answer is read
   (median of `--runs`); beside it a bare interpreter (`python -c pass`,
   spawn to exit) in the same run, alternating, and the difference.
2. Keystroke to diagnostics: one server on a copy of the demo, its first
   check done, `src/user.ts` open; then `--keys` times a `didChange` of a
   new unsaved text, timed until the `publishDiagnostics` of that version
   that every buffer engine answered (tsc's 0.1 s debounce included), and
   until the first of that version (the linters', naming tsc as pending,
   without a debounce). Beside it, in the
   same run, the buffer engines' own cold runs on the same file (oxlint,
   Biome, ESLint, one after the other, as a plain linter run would on save),
   and a cold `tsc -p tsconfig.json --noEmit` of the project (tsc checks
   the buffer too), and the ratios.

Numbers are reported, never asserted (docs/architecture.md, "Tests and benchmarks").
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
SIGNALINT = Path(sys.executable).with_name("signalint")
sys.path.insert(0, str(REPO))

from signalint.engines.resolve import managed_dir  # noqa: E402

ENGINES_BIN = managed_dir() / "node_modules" / ".bin"


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdin.flush()


def read(stdout: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stdout.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line == b"\r\n":
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    value: dict[str, Any] = json.loads(stdout.read(length))
    return value


def start(root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(SIGNALINT), "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def initialize(process: subprocess.Popen[bytes], root: Path) -> None:
    assert process.stdin is not None and process.stdout is not None
    send(process.stdin, {"id": 1, "method": "initialize",
                         "params": {"capabilities": {}, "rootUri": root.as_uri()}})  # fmt: skip
    while read(process.stdout).get("id") != 1:
        pass


def stop(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None and process.stdout is not None
    send(process.stdin, {"id": "end", "method": "shutdown"})
    while read(process.stdout).get("id") != "end":
        pass
    send(process.stdin, {"method": "exit"})
    process.wait(timeout=30)


def start_to_initialize(root: Path, runs: int) -> None:
    server: list[float] = []
    bare: list[float] = []
    for _ in range(runs + 1):  # the first pair warms the page cache
        began = time.perf_counter()
        process = start(root)
        initialize(process, root)
        server.append(time.perf_counter() - began)
        stop(process)
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - began)
    s, b = statistics.median(server[1:]), statistics.median(bare[1:])
    print(f"start -> initialize answered: {s * 1000:.0f} ms (min {min(server[1:]) * 1000:.0f}, "
          f"max {max(server[1:]) * 1000:.0f}); bare interpreter {b * 1000:.0f} ms; "
          f"difference {(s - b) * 1000:+.0f} ms")  # fmt: skip


def keystrokes(root: Path, keys: int) -> None:
    process = start(root)
    assert process.stdin is not None and process.stdout is not None
    initialize(process, root)
    send(process.stdin, {"method": "initialized", "params": {}})
    file = root / "src" / "user.ts"
    uri = file.as_uri()
    text = file.read_text()
    send(process.stdin, {"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "typescript", "version": 1, "text": text}}})  # fmt: skip
    while True:  # the first check's publication of the open file
        message = read(process.stdout)
        if (
            message.get("method") == "textDocument/publishDiagnostics"
            and message["params"]["uri"] == uri
            and message["params"].get("version") == 1
        ):
            break
    times: list[float] = []
    early: list[float] = []  # the linters' publication, before tsc's
    native: list[float] = []
    typed: list[float] = []  # tsc cold on the project (it checks the buffer too)
    for n in range(2, keys + 3):
        changed = text + f"\nvar k{n} = {n} == 1;\n"
        began = time.perf_counter()
        send(process.stdin, {"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": n},
            "contentChanges": [{"text": changed}]}})  # fmt: skip
        first: float | None = None
        while True:
            message = read(process.stdout)
            params = message.get("params", {})
            if (message.get("method") == "textDocument/publishDiagnostics"
                    and params["uri"] == uri and params.get("version") == n):  # fmt: skip
                first = time.perf_counter() - began if first is None else first
                if not any(d.get("data", {}).get("pending") for d in params["diagnostics"]
                           if d.get("code") == "unsaved"):  # fmt: skip
                    break
        times.append(time.perf_counter() - began)
        early.append(first)
        file.write_text(changed)
        began = time.perf_counter()
        for argv in (
            [str(ENGINES_BIN / "oxlint"), "src/user.ts"],
            [str(ENGINES_BIN / "biome"), "lint", "src/user.ts"],
            [str(ENGINES_BIN / "eslint"), "src/user.ts"],
        ):
            subprocess.run(argv, cwd=root, capture_output=True, check=False)
        native.append(time.perf_counter() - began)
        began = time.perf_counter()
        subprocess.run(
            [str(ENGINES_BIN / "tsc"), "-p", "tsconfig.json", "--noEmit"],
            cwd=root, capture_output=True, check=False,
        )  # fmt: skip
        typed.append(time.perf_counter() - began)
        file.write_text(text)
    stop(process)
    k, c = statistics.median(times[1:]), statistics.median(native[1:])
    t = statistics.median(typed[1:])
    print(f"keystroke -> diagnostics published (src/user.ts, demo): {k * 1000:.0f} ms "
          f"(min {min(times[1:]) * 1000:.0f}, max {max(times[1:]) * 1000:.0f}); "
          f"oxlint + biome + eslint cold on the file: {c * 1000:.0f} ms; "
          f"ratio {k / c:.2f}; tsc cold on the project: {t * 1000:.0f} ms; "
          f"ratio {k / t:.2f}")  # fmt: skip
    e = statistics.median(early[1:])
    print(f"the linters' part first: {e * 1000:.0f} ms (min {min(early[1:]) * 1000:.0f}, "
          f"max {max(early[1:]) * 1000:.0f}); ratio to their cold runs {e / c:.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keys", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="signalint-bench-lsp-") as directory:
        root = Path(directory) / "demo"
        shutil.copytree(REPO / "examples" / "demo", root,
                        ignore=shutil.ignore_patterns(".signalint", "node_modules"))  # fmt: skip
        start_to_initialize(root, args.runs)
        keystrokes(root, args.keys)


if __name__ == "__main__":
    main()
