"""Incremental checks at scale, measured against the native engines in one run.

    .venv/bin/python bench/bench_incremental.py [--files 3000] [--big 20000] [--runs 5]

On a generated strict TypeScript project (bench/synth.py; oxlint + tsc):
1. warm unchanged `signalint check` through the CLI (process start included);
2. warm unchanged `check_project` inside a running `signalint-mcp`;
3. a one-file edit followed by `check_files` on that file (in the server),
   against native `tsc --incremental` (warm build info) plus `oxlint` on that
   file, run one after the other, after the same edit;
4. a cold check of a `--big`-file project: wall time and the peak resident
   memory of the signalint process itself (engines are separate processes).
Medians of `--runs`. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_server import INIT, receive, send, spawn
from bench.synth import generate
from signalint.engines.resolve import managed_dir

BIN = managed_dir() / "node_modules" / ".bin"
SIGNALINT = Path(sys.executable).with_name("signalint")
EDITS = [
    "export const value{i}: number = {i};\n",
    "export const value{i}: number = 'edited {i}';\nconst unused{i} = 1;\n",
]


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def run(argv: list[str], cwd: Path) -> None:
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


class Server:
    """A running signalint-mcp, driven with raw JSON-RPC lines."""

    def __init__(self, cwd: Path) -> None:
        self.proc = spawn(cwd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        send(self.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        receive(self.stdout, 1)
        send(self.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.next_id = 10

    def call(self, name: str, arguments: dict[str, object]) -> dict[str, object]:
        self.next_id += 1
        params = {"name": name, "arguments": arguments}
        send(
            self.stdin,
            {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params},
        )
        reply = receive(self.stdout, self.next_id)
        result = reply["result"]
        assert isinstance(result, dict) and not result.get("isError"), reply
        return result

    def close(self) -> None:
        self.stdin.close()
        self.proc.wait(timeout=60)


def peak_memory_check(root: Path) -> tuple[float, float]:
    """Wall time and peak RSS (MiB) of an in-process CLI check in a fresh interpreter."""
    code = (
        "import resource, sys, time\n"
        "from signalint.cli.main import main\n"
        "t = time.perf_counter()\n"
        "sys.stdout = open('/dev/null', 'w')\n"
        "main(['check', '--no-cache'])\n"
        "sys.stderr.write(f'{time.perf_counter() - t} '"
        " f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    wall, rss = done.stderr.split()[-2:]
    return float(wall), float(rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--big", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "synth", args.files)
        run([str(SIGNALINT), "check"], root)  # fill the cache
        cli = statistics.median(
            timed(lambda: run([str(SIGNALINT), "check"], root)) for _ in range(args.runs)
        )
        server = Server(root)
        server.call("check_project", {})
        in_server = statistics.median(
            timed(lambda: server.call("check_project", {})) for _ in range(args.runs)
        )
        target = f"src/file{args.files // 2:05d}.ts"
        buildinfo = Path(tmp) / "native" / "tsc.tsbuildinfo"
        tsc = [str(BIN / "tsc"), "-p", "tsconfig.json", "--noEmit", "--pretty", "false"]
        tsc += ["--incremental", "--tsBuildInfoFile", str(buildinfo)]
        run(tsc, root)  # warm the native build info
        ours, native = [], []
        for index in range(args.runs):
            text = EDITS[index % 2].format(i=args.files // 2)
            (root / target).write_text(text)
            ours.append(timed(lambda: server.call("check_files", {"files": [target]})))
            native.append(
                timed(lambda: run(tsc, root))
                + timed(lambda: run([str(BIN / "oxlint"), "--format", "json", target], root))
            )
        server.close()
    with tempfile.TemporaryDirectory() as tmp:
        big = generate(Path(tmp) / "big", args.big)
        big_wall, big_rss = peak_memory_check(big)
        big_tsc = timed(lambda: run([str(BIN / "tsc"), "-p", "tsconfig.json", "--noEmit"], big))

    report = {
        "files": args.files,
        "warm_cli_s": round(cli, 3),
        "warm_server_check_project_s": round(in_server, 3),
        "edit_check_files_server_s": round(statistics.median(ours), 3),
        "edit_native_tsc_incremental_plus_oxlint_s": round(statistics.median(native), 3),
        "edit_difference_s": round(statistics.median(ours) - statistics.median(native), 3),
        "big_files": args.big,
        "big_cold_check_s": round(big_wall, 2),
        "big_native_tsc_s": round(big_tsc, 2),
        "big_peak_rss_mib": round(big_rss, 1),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
