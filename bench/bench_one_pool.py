"""Memory of the front ends attached to one project against the engines'
warm workers alone (issue 38: one warm pool per project root).

    .venv/bin/python bench/bench_one_pool.py [--files 1000] [--edits 3]
        [--interval 0.05]

The project: bench/bench_warm.py's strict TypeScript project (bench/synth.py,
`--files` modules) with its own TypeScript 6.0.3, ESLint 10.15.0 and
typescript-eslint's recommended rules, plus the managed Oxlint.

The MCP server (`signalint-mcp`, raw JSON-RPC) runs `check_project`, which
starts the project's daemon on demand (the daemon owns the warm workers).
The language server (`signalint lsp`, raw LSP on its pipes) opens the leaf
module and waits for its diagnostics, checked on disk through the same
daemon. Then `--edits` one-file edits, each followed by the MCP server's
`after_edit_check` and the language server's `didSave` (its diagnostics
awaited); the post-edit hook (`signalint hooks run`, a Claude Code event
for the same file) and a CLI check (`signalint check`) run through the
same daemon; a last `check_project`, then a quiet second (the steady state).
Only saved files are checked: an unsaved buffer is checked in a shadow
copy whose workers are the language server's own (docs/architecture.md,
"The language server"), another pool this bench does not open.

A sampler reads /proc every `--interval` seconds for every process of
the MCP server's tree (the daemon is its child, the workers the daemon's),
the language server's, the hook's and the CLI's: resident memory (RSS,
and the kernel's high-water mark VmHWM) and, from /proc/PID/smaps_rollup,
the proportional set size (PSS: a page shared by n processes counts 1/n
in each, so a PSS sum counts the interpreter, Node's binary and the
shared libraries once; an RSS sum counts them once per process).

Printed: every process with its peak and its steady (end) RSS and PSS, the
number of workers per engine (one pool: one each), and the ratios

    (MCP server + language server + daemon + hook) + workers
    --------------------------------------------------------
                     workers alone

for the peaks of RSS (each process's own peak, summed: an upper bound of
any moment's sum), the steady RSS and the steady PSS, then the same with
the CLI check added. The goal is <= 1.1. Figures are printed, never
asserted. The hook's and the CLI's peaks are GNU time's (`time -f %M`, the
command's own rusage): the rusage this process would read of a child it
started counts this process's address space, which the child replaced at
`exec` (about 50 MiB, which the first figures of this bench quoted as theirs).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.bench_incremental import Server
from bench.bench_lsp_figures import Wire
from bench.bench_memory import MIB, WORKERS, label, parents, resident
from bench.bench_warm import Edits, ts_project

GOAL = 1.1
SIGNALINT = Path(sys.executable).with_name("signalint")
ROLES = ("mcp server", "language server", "daemon", "hook", "cli", "worker", "other")


def pss(pid: int) -> int:
    """The proportional set size of `pid` in bytes (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


@dataclass
class Seen:
    pid: int
    role: str
    label: str
    peak_rss: int = 0
    peak_pss: int = 0
    rss: int = 0  # the last sample
    pss: int = 0


@dataclass
class Sampler:
    """Samples the processes of several trees (module docstring)."""

    interval: float
    roots: dict[int, str] = field(default_factory=dict)  # pid -> its role
    seen: dict[int, Seen] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def add(self, pid: int, role: str) -> None:
        with self._lock:
            self.roots[pid] = role
        self.sample()

    def start(self) -> Sampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def tree(self) -> dict[int, str]:
        """pid -> the role of its root, for every live process of the trees."""
        with self._lock:
            roots = dict(self.roots)
        by_parent: dict[int, list[int]] = {}
        for child, parent in parents().items():
            by_parent.setdefault(parent, []).append(child)
        found: dict[int, str] = {}
        for root, kind in roots.items():
            found[root] = kind
            # A command's tree (GNU time and the command) is the command's.
            inherited = kind if kind in ("hook", "cli") else ""
            queue = [root]
            while queue:
                for child in by_parent.get(queue.pop(), ()):
                    if child not in found:
                        found[child] = inherited
                        queue.append(child)
        return found

    def sample(self) -> None:
        for pid, kind in self.tree().items():
            rss, hwm = resident(pid)
            if rss == 0:
                continue
            size = pss(pid)
            with self._lock:
                proc = self.seen.get(pid)
                if proc is None or proc.label.startswith("other: "):
                    shown = label(pid, -1)
                    proc = self.seen[pid] = self.seen.get(pid) or Seen(pid, "", shown)
                    proc.label = shown
                    proc.role = kind or role_of(pid, shown)
                proc.peak_rss = max(proc.peak_rss, rss, hwm)
                proc.peak_pss = max(proc.peak_pss, size)
                proc.rss, proc.pss = rss, size

    def live(self) -> list[Seen]:
        alive = self.tree()
        return [proc for pid, proc in self.seen.items() if pid in alive]


def role_of(pid: int, shown: str) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        argv = ""
    if "signalint.daemon.server" in argv:
        return "daemon"
    if shown in WORKERS.values() or shown.startswith("tsc 7"):
        return "worker"
    return "other"


def run_sampled(
    sampler: Sampler, kind: str, argv: list[str], cwd: Path, stdin: str = ""
) -> tuple[int, Seen]:
    """(exit code, what was seen of it) of a command run to its end: its
    peak RSS as GNU time measures it (its own rusage), its PSS as sampled
    while it ran.

    Not the rusage this process reads of its child: a child's `ru_maxrss`
    counts the high-water mark of the address space it replaced at `exec`,
    which after `fork`/`vfork` is this benchmark's own (about 50 MiB; every
    command this process ran "peaked" there, `/bin/true` included). GNU
    time, small, forks the command and reads its rusage; without it the
    sampled `VmHWM` stands (it may miss the last 50 ms)."""
    timed = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    with tempfile.NamedTemporaryFile("r", suffix=".maxrss") as out:
        wrapper = [timed, "-f", "%M", "-o", out.name] if timed else []
        proc = subprocess.Popen(
            [*wrapper, *argv], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        sampler.add(proc.pid, kind)
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        proc.wait()
        measured = out.read().strip().splitlines()
    with sampler._lock:
        del sampler.roots[proc.pid]
        mine = [p for pid, p in list(sampler.seen.items()) if p.role == kind]
        for p in mine:
            del sampler.seen[p.pid]
    # The command itself: the largest process of its tree (GNU time is ~2 MiB).
    seen = max(mine, key=lambda p: p.peak_rss, default=Seen(proc.pid, kind, kind))
    seen.role = kind
    if measured and measured[-1].isdigit():
        seen.peak_rss = max(seen.peak_rss, int(measured[-1]) * 1024)
    return proc.returncode, seen


def mib(value: float) -> str:
    return f"{value / MIB:7.1f}"


def ratio_line(name: str, parts: dict[str, int], workers: int) -> None:
    front = sum(parts.values())
    shown = " + ".join(f"{value / MIB:.0f}" for value in parts.values())
    ratio = (front + workers) / workers if workers else float("nan")
    print(
        f"  {name}: ({shown} + {workers / MIB:.0f}) / {workers / MIB:.0f} = "
        f"{(front + workers) / MIB:.0f} / {workers / MIB:.0f} = {ratio:.2f}"
    )


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
        # Each edit adds or takes away a type error, so that every save
        # changes the file's diagnostics (the language server publishes
        # only what changed).
        broken = f"{text}\nexport const planted: number = 'text';\n"
        leaf = Edits(leaf_path, [text, broken], "//")
        rel = str(leaf_path.relative_to(root))
        print(f"# one pool: {args.files}-module TypeScript project, oxlint + tsc + eslint")
        sampler = Sampler(args.interval)
        server = Server(root)
        editor: Wire | None = None
        try:
            time.sleep(1.0)  # the SDK loads on a thread behind the answered handshake
            sampler.add(server.proc.pid, "mcp server")
            sampler.start()
            server.call("check_project", {})
            editor = Wire(root)
            sampler.add(editor.process.pid, "language server")
            uri = editor.open(leaf_path, "typescript")
            editor.published(uri)
            editor.drain(1.0)  # what the first check published besides
            # The daemon the hook and the CLI use: the MCP server's (one pool),
            # or, on a build whose servers keep their own pools, one started here.
            started = subprocess.run(
                [str(SIGNALINT), "daemon", "start"], cwd=root, capture_output=True, text=True
            )
            daemon = int(started.stdout.split("pid ")[1].split(")")[0].split(";")[0])
            if daemon not in sampler.tree():
                sampler.add(daemon, "daemon")
            for _ in range(args.edits):
                leaf.next()
                server.call("after_edit_check", {"files": [rel]})
                editor.send({"method": "textDocument/didSave",
                             "params": {"textDocument": {"uri": uri}}})  # fmt: skip
                editor.published(uri)
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
            hook_code, hook_seen = run_sampled(sampler, "hook", hook, root, event)
            leaf.next()
            cli_code, cli_seen = run_sampled(sampler, "cli", [str(SIGNALINT), "check", rel], root)
            server.call("check_project", {})
            time.sleep(1.0)  # the steady state: each server's idle tidy has run
            sampler.sample()
            sampler.stop()
            kept = sampler.live()
            if daemon in sampler.roots:
                subprocess.run([str(SIGNALINT), "daemon", "stop"], cwd=root, capture_output=True)
        finally:
            sampler.stop()
            if editor is not None:
                editor.stop()
            server.close()
        kept += [hook_seen, cli_seen]
        print("\n## every process: peak RSS, steady RSS, peak PSS, steady PSS (MiB)")
        print("   (the hook's and the CLI's peak RSS as GNU time reads it; both end before")
        print("   the steady state, in which their peaks stand)")
        by_role: dict[str, list[Seen]] = {}
        for proc in sorted(kept, key=lambda p: (ROLES.index(p.role), -p.peak_rss)):
            by_role.setdefault(proc.role, []).append(proc)
            shown = proc.role if proc.role != "worker" else proc.label
            print(
                f"  {mib(proc.peak_rss)} {mib(proc.rss)} {mib(proc.peak_pss)} {mib(proc.pss)}"
                f"  {shown} (pid {proc.pid})"
            )
        counts: dict[str, int] = {}
        for proc in by_role.get("worker", []):
            counts[proc.label] = counts.get(proc.label, 0) + 1
        print("\n## workers per engine (one pool: one each)")
        for name, n in sorted(counts.items()):
            print(f"  {n}  {name}")
        print(f"\n## exits: hook {hook_code}, cli {cli_code}")

        def total(kind: str, attr: str) -> int:
            return sum(getattr(p, attr) for p in by_role.get(kind, []))

        fronts = ("mcp server", "language server", "daemon", "hook")
        print(f"\n## ratio: ({' + '.join(fronts)} + workers) / workers (goal <= {GOAL})")
        # The hook ended before the steady state: its peak stands in it.
        for name, attr, hook_attr in (
            ("peak RSS  ", "peak_rss", "peak_rss"),
            ("steady RSS", "rss", "peak_rss"),
            ("peak PSS  ", "peak_pss", "peak_pss"),
            ("steady PSS", "pss", "peak_pss"),
        ):
            parts = {k: total(k, hook_attr if k == "hook" else attr) for k in fronts}
            ratio_line(name, parts, total("worker", attr))
        print(f"\n## the same with the CLI check: ({' + '.join(fronts)} + cli + workers) / workers")
        for name, attr in (("peak RSS  ", "peak_rss"), ("peak PSS  ", "peak_pss")):
            parts = {k: total(k, attr) for k in (*fronts, "cli")}
            ratio_line(name, parts, total("worker", attr))
        others = by_role.get("other", [])
        if others:
            print(f"\n## not counted (other processes of the trees): {len(others)}")


if __name__ == "__main__":
    main()
