"""Memory of the front ends attached to one project against the engines'
warm workers alone (issue 38: one warm pool per project root).

    .venv/bin/python bench/bench_one_pool.py [--files 1000] [--edits 3]
        [--interval 0.05]

The project: bench/bench_warm.py's strict TypeScript project (bench/synth.py,
`--files` modules) with its own TypeScript 6.0.3, ESLint 10.15.0 and
typescript-eslint's recommended rules, plus the managed Oxlint.

The MCP server (`signalint-mcp`, raw JSON-RPC) runs `check_project`, which
starts the project's daemon on demand (the daemon owns the warm workers),
then `--edits` one-file edits each followed by `after_edit_check`; the
post-edit hook (`signalint hooks run`, a Claude Code event for the same
file) and a CLI check (`signalint check`) run through the same daemon.
A sampler reads /proc every `--interval` seconds: the resident memory of
the server's process tree (the daemon is its child, the workers the
daemon's). Printed: every process of the tree at the end with its peak,
the number of workers per engine (one pool: one each), the hook's and the
CLI's peak (their rusage), and the ratio

    (server + daemon + hook, peaks) + workers (sum of their peaks)
    ---------------------------------------------------------------
                   workers alone (sum of their peaks)

whose goal is <= 1.1. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.bench_incremental import Server
from bench.bench_memory import MIB, WORKERS, Proc, Sampler, descendants, label, mib, sampled
from bench.bench_warm import Edits, ts_project

GOAL = 1.1
SIGNALINT = Path(sys.executable).with_name("signalint")


def role(proc: Proc, server: int) -> str:
    if proc.pid == server:
        return "server"
    try:
        argv = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        argv = ""
    if "signalint.daemon.server" in argv or proc.label.startswith("daemon"):
        return "daemon"
    if proc.label in WORKERS.values() or proc.label.startswith("tsc 7"):
        return "worker"
    return "other"


def peak_of(argv: list[str], cwd: Path, stdin: str = "") -> tuple[int, int]:
    """(exit code, peak resident bytes) of a command run to its end (its rusage)."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--interval", type=float, default=0.05)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-one-pool-") as tmp:
        root = ts_project(Path(tmp) / "ts", args.files)
        leaf_path = root / "src" / f"file{args.files - 1:05d}.ts"
        text = leaf_path.read_text()
        leaf = Edits(leaf_path, [text, text.replace("input * 2", "input * 3")], "//")
        rel = str(leaf_path.relative_to(root))
        print(f"# one pool: {args.files}-module TypeScript project, oxlint + tsc + eslint")
        server = Server(root)
        try:
            time.sleep(1.0)  # the SDK loads on a thread behind the answered handshake
            with sampled(server.proc.pid, args.interval) as sampler:
                server.call("check_project", {})
                # The daemon the hook and the CLI use: the server's (one pool),
                # or, on a build whose server keeps its own pool, one started here.
                started = subprocess.run(
                    [str(SIGNALINT), "daemon", "start"], cwd=root, capture_output=True, text=True
                )
                daemon = int(started.stdout.split("pid ")[1].split(")")[0].split(";")[0])
                apart: Sampler | None = None
                if daemon not in descendants(server.proc.pid):
                    apart = Sampler(daemon, args.interval).start()
                for _ in range(args.edits):
                    leaf.next()
                    server.call("after_edit_check", {"files": [rel]})
                leaf.next()
                event = json.dumps(
                    {
                        "session_id": "bench",
                        "cwd": str(root),
                        "hook_event_name": "PostToolUse",
                        "tool_name": "Write",
                        "tool_input": {"file_path": str(leaf_path), "content": ""},
                        "tool_response": {"filePath": str(leaf_path), "success": True},
                    }
                )
                hook = [str(SIGNALINT), "hooks", "run", "--runtime", "claude"]
                hook_code, hook_peak = peak_of(hook, root, event)
                leaf.next()
                cli_code, cli_peak = peak_of([str(SIGNALINT), "check", rel], root)
                server.call("check_project", {})
                time.sleep(args.interval * 4)
            kept = sampler.live()
            pid = server.proc.pid
            roles_now = {proc.pid: (role(proc, pid), label(proc.pid, pid)) for proc in kept}
            if apart is not None:
                apart.stop()
                for proc in apart.live():
                    roles_now[proc.pid] = (role(proc, pid), label(proc.pid, daemon))
                    kept.append(proc)
                subprocess.run([str(SIGNALINT), "daemon", "stop"], cwd=root, capture_output=True)
        finally:
            server.close()
        print("\n## the server's tree at the end (peak over the sequence)")
        roles: dict[str, list[Proc]] = {}
        for proc in sorted(kept, key=lambda p: -p.peak):
            kind, shown = roles_now[proc.pid]
            roles.setdefault(kind, []).append(proc)
            shown = "daemon" if kind == "daemon" else shown
            print(f"  {mib(proc.peak)}  {shown} (pid {proc.pid})")
        counts: dict[str, int] = {}
        for proc in roles.get("worker", []):
            counts[proc.label] = counts.get(proc.label, 0) + 1
        print("\n## workers per engine (one pool: one each)")
        for name, n in sorted(counts.items()):
            print(f"  {n}  {name}")
        print(f"\n## the hook (exit {hook_code}) and the CLI check (exit {cli_code}), peaks")
        print(f"  hook  {mib(hook_peak)}\n  cli   {mib(cli_peak)}")
        workers = sum(p.peak for p in roles.get("worker", []))
        front = sum(p.peak for p in roles.get("server", []) + roles.get("daemon", []))
        print("\n## ratio")
        ratio = (front + hook_peak + workers) / workers if workers else float("nan")
        print(
            f"(server + daemon + hook + workers) / workers = "
            f"({front / MIB:.0f} + {hook_peak / MIB:.0f} + {workers / MIB:.0f}) / "
            f"{workers / MIB:.0f} = {ratio:.2f}  (goal <= {GOAL})"
        )
        total = front + hook_peak + workers
        print(f"all of it: {total / MIB:.0f} MiB; per engine, the largest worker's peak:")
        largest: dict[str, int] = {}
        for proc in roles.get("worker", []):
            largest[proc.label] = max(largest.get(proc.label, 0), proc.peak)
        one_pool = sum(largest.values())
        print(
            f"all of it / one pool's workers = {total / MIB:.0f} / {one_pool / MIB:.0f} = "
            f"{total / one_pool if one_pool else float('nan'):.2f}"
        )
        print(f"the server's tree's peak (one sample's sum) = {sampler.tree_peak / MIB:.0f} MiB")


if __name__ == "__main__":
    main()
