"""A second machine on a shared result store (Redis), against the local cache, same run.

    .venv/bin/python bench/bench_remote.py [--files 3000] [--more 20000] [--runs 5]

Needs `redis-server` (Debian's package). A synthetic strict TypeScript
project (synth.py; tsc, Oxlint and Biome) is checked on machine A, which
fills a Redis on a free loopback port. Machine B is a copy at another
absolute path with its own, empty state directory. Reported, median of
`--runs`, interleaved:

- native cold `tsc` (T), our cold check without any cache, our warm local
  check on A, and B's first check from the shared store (its state wiped
  before every run), with B's remote hits, misses and round trips;
- B after a one-file edit on its side: which engines ran, on which files;
- a store that is down (nothing listens) or hung (accepts, never answers):
  a warm check on A with it configured, against A with no remote cache, and
  B's first check (it must read) with it, against B with none;
- round trips and B's wall for `--more` files (one run each).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth import generate
from signalint.engines.resolve import managed_dir

BIN = managed_dir() / "node_modules" / ".bin"
SIGNALINT = Path(sys.executable).with_name("signalint")
KEY = "bench-signing-key-bench-signing-key-0123456789"
ENGINES = {"oxlint": True, "tsc": True, "biome": True, "eslint": False}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    args += ["--appendonly", "no", "--dir", str(workdir)]
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, f"redis://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    raise SystemExit("redis-server did not start")


def project(root: Path, files: int) -> Path:
    generate(root, files)
    (root / "signalint.config.json").write_text(json.dumps({"engines": ENGINES}) + "\n")
    return root


def check(root: Path, url: str | None, *extra: str) -> tuple[float, dict[str, Any]]:
    env = {**os.environ, "SIGNALINT_REMOTE_CACHE_KEY": KEY}
    env.pop("SIGNALINT_REMOTE_CACHE", None)
    if url is not None:
        env["SIGNALINT_REMOTE_CACHE"] = url
    started = time.perf_counter()
    done = subprocess.run(
        [str(SIGNALINT), "check", "--format", "json", *extra],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    return wall, json.loads(done.stdout)


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def interleaved(runs: int, **steps: Callable[[], float]) -> dict[str, float]:
    walls: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(runs):
        for name, step in steps.items():
            walls[name].append(step())
    return {name: statistics.median(values) for name, values in walls.items()}


def wiped(root: Path) -> Path:
    shutil.rmtree(root / ".signalint", ignore_errors=True)
    return root


def started_engines(root: Path, url: str) -> list[str]:
    """The engine commands a check started, with their file arguments (strace)."""
    trace = root.parent / "trace.txt"
    env = {**os.environ, "SIGNALINT_REMOTE_CACHE_KEY": KEY, "SIGNALINT_REMOTE_CACHE": url}
    argv = ["strace", "-f", "-qq", "-s", "300", "-e", "trace=execve", "-o", str(trace)]
    argv += [str(SIGNALINT), "check", "--format", "json"]
    subprocess.run(argv, cwd=root, env=env, capture_output=True)
    found = []
    for line in trace.read_text().splitlines():
        if line.endswith(") = 0") and "/.bin/" in line and '"node"' not in line:
            words = line.split('["', 1)[1].split('"], ', 1)[0].split('", "')
            sources = [w for w in words if w.startswith("src/")]
            found.append(" ".join([Path(words[0]).name, *sources]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--more", type=int, default=20000, help="files for the round-trip count")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        redis, url = start_redis(base)
        try:
            a = project(base / "a" / "checkout", args.files)
            b = base / "b" / "checkout"
            _, filled = check(a, url)  # machine A fills the store
            shutil.copytree(a, b, ignore=shutil.ignore_patterns(".signalint"))
            _, first_b = check(wiped(b), url)
            tsc = [str(BIN / "tsc"), "-p", "tsconfig.json", "--noEmit", "--pretty", "false"]
            figures = interleaved(
                args.runs,
                native_tsc=lambda: timed(tsc, a),
                cold=lambda: check(a, None, "--no-cache")[0],
                warm_a=lambda: check(a, url)[0],
                second_machine=lambda: check(wiped(b), url)[0],
            )
            dead = f"redis://127.0.0.1:{free_port()}"
            hung_listener = socket.socket()
            hung_listener.bind(("127.0.0.1", 0))
            hung_listener.listen(64)
            hung = f"redis://127.0.0.1:{hung_listener.getsockname()[1]}"
            faults = interleaved(
                args.runs,
                warm_local_only=lambda: check(a, None)[0],
                warm_store_down=lambda: check(a, dead)[0],
                warm_store_hung=lambda: check(a, hung)[0],
            )
            # B must read (its state wiped): the store's budget is paid once.
            cold_faults = interleaved(
                args.runs,
                b_local_only=lambda: check(wiped(b), None)[0],
                b_store_down=lambda: check(wiped(b), dead)[0],
                b_store_hung=lambda: check(wiped(b), hung)[0],
            )
            hung_listener.close()
            edited = b / "src" / "file01500.ts" if args.files > 1500 else b / "src" / "file00001.ts"
            edited.write_text(edited.read_text() + "\nexport const edited = 1;\n")
            os.utime(edited, (time.time() - 60, time.time() - 60))
            wiped(b)
            engines_after_edit = started_engines(b, url) if shutil.which("strace") else []
            redis.send_signal(signal.SIGTERM)
            redis.wait()
            redis, url = start_redis(base)
            big_a = project(base / "big-a" / "checkout", args.more)
            big_b = base / "big-b" / "checkout"
            wall_fill, big_filled = check(big_a, url)
            shutil.copytree(big_a, big_b, ignore=shutil.ignore_patterns(".signalint"))
            wall_big_b, big_second = check(big_b, url)
        finally:
            redis.terminate()
            redis.wait()
    t = figures["native_tsc"]
    print(f"## {args.files} TypeScript files (tsc, Oxlint, Biome), median of {args.runs}\n")
    print("| run | wall s | x native cold tsc |\n| --- | --- | --- |")
    for name in ("native_tsc", "cold", "warm_a", "second_machine"):
        print(f"| {name} | {figures[name]:.2f} | {figures[name] / t:.2f} |")
    goal = max(0.3 * figures["cold"], 1.5 * figures["warm_a"])
    print(f"\nsecond machine goal max(0.3 x cold, 1.5 x warm) = {goal:.2f} s")
    print(f"A's first check (fill): {filled['remoteCache']}")
    print(f"B's first check: {first_b['remoteCache']}, issues equal: "
          f"{first_b['fingerprint'] == filled['fingerprint']}")  # fmt: skip
    print(f"after a one-file edit, B started: {engines_after_edit}")
    print("\n| store | warm check on A, s | added |\n| --- | --- | --- |")
    base_wall = faults["warm_local_only"]
    for name in ("warm_local_only", "warm_store_down", "warm_store_hung"):
        print(f"| {name} | {faults[name]:.2f} | {faults[name] - base_wall:+.2f} |")
    print("\n| store | B's first check, s | added |\n| --- | --- | --- |")
    base_wall = cold_faults["b_local_only"]
    for name in ("b_local_only", "b_store_down", "b_store_hung"):
        print(f"| {name} | {cold_faults[name]:.2f} | {cold_faults[name] - base_wall:+.2f} |")
    print(f"\n## {args.more} files, one run each\n")
    print(f"A fill: {wall_fill:.2f} s, {big_filled['remoteCache']}")
    print(f"B from the store: {wall_big_b:.2f} s, {big_second['remoteCache']}, equal: "
          f"{big_second['fingerprint'] == big_filled['fingerprint']}")  # fmt: skip


if __name__ == "__main__":
    main()
