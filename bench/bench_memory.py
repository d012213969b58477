"""Memory of the MCP server's process tree against the engines' own (issue 37).

    .venv/bin/python bench/bench_memory.py [--files 3000] [--edits 3]
        [--interval 0.05] [--tracemalloc] [--native-ts] [--steps SECONDS] [--runs N]
    .venv/bin/python bench/bench_memory.py --project DIR --engines tsc,eslint \
        --edit-file src/x.ts [--runs N]

With `--runs N` everything is done N times (a fresh project each time) and
the median and range of each figure close the report: a worker's resident
memory varies by tens of MiB between runs of the same sequence.

The project: bench/bench_warm.py's strict TypeScript project (bench/synth.py,
`--files` modules) with its own TypeScript 6.0.3, ESLint 10.15.0 and
typescript-eslint's recommended rules in its `node_modules`, plus the
managed Oxlint: three engines. With `--native-ts` the project's own
TypeScript is removed, so tsc is the managed TypeScript 7 (its native API
worker and `tsc --api` process).

1. The server: `signalint-mcp` in the project runs `check_project` (the
   workers start), then `--edits` one-file body edits each followed by
   `after_edit_check` of that file, then an exported change of a widely
   imported file followed by `after_edit_check` of it (a dependent breaks),
   then `check_project` (with `--steps`, the server's resident memory and
   peak are printed that many seconds after each answer). Every
   `--interval` seconds a sampler reads /proc: the resident memory of each
   process of the server's tree (the server, each warm worker, any cold
   run) and their sum. A process's peak is the largest of its samples and
   the kernel's own high-water mark (`VmHWM`); the tree's peak is the
   largest sum of one sample (the processes' resident memory at one
   instant, never the sum of each one's own peak), printed with that
   sample's processes and, for each call of the sequence, the largest sum
   during it.
2. The engines' own, on the same project and the same edits: `tsc --watch`
   (its peak over the first build and every edit's rebuild), and, for the
   engines that have no watch or server mode of their own, a cold run's
   peak (`eslint .`, `oxlint`).
3. The ratio tree / (engines' own + 60 MiB), the issue's goal being <= 1.05.
4. The server alone: a bare interpreter, the interpreter with the MCP SDK
   and the modules a check loads, the server right after `initialize`,
   after the sequence, and its peak. With `--tracemalloc`, the sequence is
   run again in a server under `tracemalloc`, which is asked (SIGUSR1)
   for its largest allocations after the sequence.

With `--project`, the sequence (`check_project`, `--edits` edits of
`--edit-file` each followed by `after_edit_check`, one more, `check_project`)
runs on an existing project in place (the real-world tier's clones,
docs/real-world.md), its state in a temporary directory and the edited
file restored; the engines' own are `--engines`' watch modes (`tsc
--watch`, `pyright --watch`) or cold runs (ESLint, Oxlint, Ruff, and mypy,
whose daemon is not measured), from the project's `node_modules/.bin` and
`.venv/bin`.

Figures are printed, never asserted (docs/architecture.md, "Tests and
benchmarks"). Memory figures hold on a loaded machine; no timing is
reported.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.bench_incremental import Server
from bench.bench_server import INIT, receive, send
from bench.bench_warm import Edits, ts_project
from signalint.engines.resolve import managed_dir
from signalint.process import node_stack_flag

MIB = 2**20
PAGE = os.sysconf("SC_PAGE_SIZE")
MANAGED_BIN = managed_dir() / "node_modules" / ".bin"
ALLOWANCE = 60 * MIB  # the allowance for the server itself
GOAL = 1.05
WATCH_TIMEOUT_S = 300.0
# What each of our worker scripts is, by a word of its command line.
WORKERS = {
    "tsc_worker.cjs": "tsc worker (TypeScript compiler API)",
    "tsc_native_worker.mjs": "tsc worker (TypeScript 7 API client)",
    "eslint_worker.cjs": "eslint worker",
    "oxlint_worker.mjs": "oxlint worker",
    "mypy_worker.py": "mypy worker",
    "pyright-langserver": "pyright worker (pyright-langserver)",
    "langserver.index.js": "pyright worker (pyright-langserver)",
}

# The server under tracemalloc: SIGUSR1 writes its largest allocations to
# the file named by BENCH_TRACE_OUT.
TRACED = """
import gc, json, os, signal, sys, threading, tracemalloc, types
tracemalloc.start(int(os.environ.get("BENCH_TRACE_FRAMES", "1")))

SKIP = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
        types.MethodType, types.CodeType, types.FrameType, types.CoroutineType,
        types.GeneratorType, threading.Thread)

def reach(obj, seen):
    # Bytes reachable from obj not counted yet (classes, modules, functions,
    # frames and threads are walls: they are code, not what is remembered).
    total, stack = 0, [obj]
    while stack:
        o = stack.pop()
        if id(o) in seen or isinstance(o, SKIP):
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        stack.extend(gc.get_referents(o))
    return total

def held():
    from signalint.cache.context import Context
    from signalint.server.state import ServerState
    found, seen = [], set()
    frozen = gc.get_freeze_count()
    gc.unfreeze()  # the server froze what it made before serving (runtime.long_lived)
    objects = gc.get_objects()
    if frozen:
        gc.freeze()
    for kind in (Context, ServerState):
        for obj in objects:
            if isinstance(obj, kind):
                seen.add(id(obj))
                for name, value in sorted(vars(obj).items()):
                    if isinstance(value, Context):
                        continue
                    if name == "stores":
                        for inner, part in sorted(vars(value).items()):
                            found.append([f"{kind.__name__}.stores.{inner}", reach(part, seen)])
                        continue
                    found.append([f"{kind.__name__}.{name}", reach(value, seen)])
    return found

def dump(*_):
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)])
    current, peak = tracemalloc.get_traced_memory()
    def top(kind, n):
        return [[str(s.traceback[0]) if kind == "lineno" else s.traceback[0].filename,
                 s.size, s.count] for s in snap.statistics(kind)[:n]]
    chains = []
    if tracemalloc.get_traceback_limit() > 1:
        for stat in snap.statistics("traceback")[:25]:
            frames = [str(f) for f in stat.traceback if "/signalint/" in f.filename]
            chains.append([[str(stat.traceback[0]), *frames[:6]], stat.size, stat.count])
    out = {"current": current, "peak": peak, "chains": chains, "held": held(),
           "modules": sorted(sys.modules), "lines": top("lineno", 30),
           "files": top("filename", 20)}
    path = os.environ["BENCH_TRACE_OUT"]
    with open(path + ".tmp", "w") as f:
        json.dump(out, f)
    os.replace(path + ".tmp", path)

signal.signal(signal.SIGUSR1, dump)
from signalint.server.entry import entry
entry()
"""


@dataclass
class Proc:
    pid: int
    label: str
    peak: int = 0  # bytes
    last: int = 0


@dataclass
class Sampler:
    """Samples the resident memory of `root`'s process tree (module docstring)."""

    root: int
    interval: float
    procs: dict[int, Proc] = field(default_factory=dict)
    tree_peak: int = 0
    at_peak: dict[int, int] = field(default_factory=dict)  # pid -> bytes in the peak sample
    peak_moment: str = ""  # what the sequence was doing at the tree's peak
    moment: str = ""  # what the sequence is doing now (set by the caller)
    # moment -> (the largest sum of one sample during it, that sample by pid)
    by_moment: dict[str, tuple[int, dict[int, int]]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> Sampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.sample()
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self) -> int:
        """One sample; the tree's resident bytes now."""
        tree = descendants(self.root) | {self.root}
        total = 0
        now: dict[int, int] = {}
        for pid in tree:
            rss, hwm = resident(pid)
            if rss == 0:
                continue
            total += rss
            now[pid] = rss
            proc = self.procs.get(pid)
            if proc is None:
                proc = self.procs[pid] = Proc(pid, label(pid, self.root))
            elif proc.label.startswith("other: "):
                # First seen between its fork and its exec: the parent's command line.
                proc.label = label(pid, self.root)
            proc.peak = max(proc.peak, rss, hwm)
            proc.last = rss
        if total > self.tree_peak:
            self.tree_peak, self.at_peak, self.peak_moment = total, now, self.moment
        if total > self.by_moment.get(self.moment, (0, {}))[0]:
            self.by_moment[self.moment] = (total, now)
        return total

    def live(self) -> list[Proc]:
        """The processes of the tree now."""
        tree = descendants(self.root) | {self.root}
        return [p for pid, p in self.procs.items() if pid in tree]


def parents() -> dict[int, int]:
    found: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        found[int(name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    return found


def descendants(pid: int) -> set[int]:
    by_parent: dict[int, list[int]] = {}
    for child, parent in parents().items():
        by_parent.setdefault(parent, []).append(child)
    found: set[int] = set()
    queue = [pid]
    while queue:
        for child in by_parent.get(queue.pop(), ()):
            if child not in found:
                found.add(child)
                queue.append(child)
    return found


def resident(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of `pid` in bytes; zeros when it is gone."""
    rss = hwm = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) * 1024
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return rss, hwm


def label(pid: int, root: int) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return "?"
    argv = [a for a in argv if a]
    if pid == root:
        return "server"
    for word, name in WORKERS.items():
        if any(a.endswith(word) for a in argv):
            return name
    if "--api" in argv:
        return "tsc 7 API process (tsgo --api)"
    if "-m" in argv and "mypy.dmypy" in argv:
        return "mypy daemon"
    shown = " ".join(os.path.basename(a) if i < 2 else a for i, a in enumerate(argv[:4]))
    return f"other: {shown[:70]}"


@contextmanager
def sampled(pid: int, interval: float) -> Iterator[Sampler]:
    sampler = Sampler(pid, interval).start()
    try:
        yield sampler
    finally:
        sampler.stop()


def mib(value: float) -> str:
    return f"{value / MIB:7.1f} MiB"


# --- 1. the server -------------------------------------------------------


def sequence(
    server: Server,
    root: Path,
    leaf: Edits,
    hub: Edits,
    edits: int,
    steps: float = 0.0,
    sampler: Sampler | None = None,
) -> list[str]:
    """The check + after_edit_check sequence; what each answer said. With
    `steps`, the server's memory is printed `steps` seconds after each answer;
    with `sampler`, it is told which call is in flight."""
    said: list[str] = []

    def call(name: str, arguments: dict[str, object]) -> None:
        if sampler is not None:
            sampler.moment = f"call {len(said) + 1} ({name})"
        result = server.call(name, arguments)
        content = result.get("structuredContent")
        assert isinstance(content, dict)
        status, total = content.get("status"), content.get("totalIssues")
        served = sorted(
            {f"{n}:{e.get('served', 'cache')}" for n, e in content.get("engines", {}).items()}
        )
        said.append(f"{name}: {status}, {total} issues, {' '.join(served)}")
        if steps:
            time.sleep(steps)
            rss, hwm = resident(server.proc.pid)
            print(f"   server after {name} + {steps:g} s: {mib(rss)}, peak {mib(hwm)}", flush=True)

    call("check_project", {})
    rel_leaf = str(leaf.path.relative_to(root))
    for _ in range(edits):
        leaf.next()
        call("after_edit_check", {"files": [rel_leaf]})
    hub.next()
    call("after_edit_check", {"files": [str(hub.path.relative_to(root))]})
    call("check_project", {})
    return said


@dataclass
class ServerRun:
    """The server's tree sampled over the sequence."""

    sampler: Sampler
    after_init: int  # the server's resident bytes after `initialize`
    after: int  # and after the sequence
    kept: list[Proc]  # the tree's processes after the sequence
    said: list[str]  # what each answer said


def run_server(
    root: Path, leaf: Edits, hub: Edits, edits: int, interval: float, steps: float = 0.0
) -> ServerRun:
    server = Server(root)
    try:
        time.sleep(1.0)  # the SDK loads on a thread behind the answered handshake
        after_init = resident(server.proc.pid)[0]
        with sampled(server.proc.pid, interval) as sampler:
            said = sequence(server, root, leaf, hub, edits, steps, sampler)
            sampler.moment = "after the sequence"
            time.sleep(interval * 4)
        after = resident(server.proc.pid)[0]
        kept = sampler.live()
    finally:
        server.close()
    return ServerRun(sampler, after_init, after, kept, said)


def traced_server(root: Path, leaf: Edits, hub: Edits, edits: int, out: Path) -> dict[str, object]:
    """The sequence in a server under tracemalloc; its largest allocations after it."""
    env = dict(os.environ, BENCH_TRACE_OUT=str(out))
    proc = subprocess.Popen(
        [sys.executable, "-c", TRACED], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    server = Server.__new__(Server)
    server.proc, server.stdin, server.stdout, server.next_id = proc, proc.stdin, proc.stdout, 10
    send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
    receive(server.stdout, 1)
    send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    try:
        sequence(server, root, leaf, hub, edits)
        proc.send_signal(signal.SIGUSR1)
        for _ in range(6000):  # a snapshot of deep tracebacks takes minutes
            if out.exists():
                break
            time.sleep(0.1)
        data: dict[str, object] = json.loads(out.read_text())
        data["rss"] = resident(proc.pid)[0]
    finally:
        server.close()
    return data


def interpreter_rss(code: str) -> int:
    """The resident bytes of an interpreter after running `code`."""
    probe = f"{code}\nimport sys\nsys.stdout.write(open('/proc/self/status').read())"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


# --- 2. the engines' own --------------------------------------------------


def cold_peak(argv: list[str], root: Path, interval: float) -> int:
    """The peak resident bytes of a cold run's process tree (the largest sum
    of one sample, or the largest process's high-water mark if more)."""
    proc = subprocess.Popen(argv, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with sampled(proc.pid, interval / 5) as sampler:
        proc.wait()
    biggest = max((p.peak for p in sampler.procs.values()), default=0)
    return max(sampler.tree_peak, biggest)


def watch_peak(
    argv: list[str], root: Path, edits: list[Callable[[], None]], interval: float, ready: str
) -> int | None:
    """The peak of a watch mode's tree over its first build and one rebuild
    per edit (each awaited by its `ready` line); None when it never says it."""
    proc = subprocess.Popen(
        argv, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    lines: list[str] = []
    seen = threading.Semaphore(0)

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if ready in line:
                seen.release()

    threading.Thread(target=read, daemon=True).start()

    def waited(what: str) -> bool:
        if seen.acquire(timeout=WATCH_TIMEOUT_S):
            return True
        said = [line.rstrip() for line in lines if " error " not in line][-5:]
        print(f"  ({argv[0]} --watch: no {ready!r} after {what}; it said: {said})", file=sys.stderr)
        return False

    try:
        with sampled(proc.pid, interval) as sampler:
            if not waited("its start"):
                return None
            for turn, edit in enumerate(edits, 1):
                time.sleep(0.5)
                edit()
                if not waited(f"edit {turn}"):
                    return None
            time.sleep(interval * 4)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    biggest = max((p.peak for p in sampler.procs.values()), default=0)
    return max(sampler.tree_peak, biggest)


def engines_own(
    root: Path, leaf: Edits, hub: Edits, edits: int, interval: float, native: bool
) -> dict[str, tuple[str, int]]:
    bin_ = root / "node_modules" / ".bin"
    tsc = MANAGED_BIN / "tsc" if native else bin_ / "tsc"
    found: dict[str, tuple[str, int]] = {}
    steps = [leaf.next] * edits + [hub.next]
    watch = [str(tsc), "-p", "tsconfig.json", "--noEmit", "--watch", "--pretty", "false",
             "--preserveWatchOutput"]  # fmt: skip
    if not native:
        # TypeScript 6's builder recurses once per importer along the import
        # chain: on this project it overflows V8's default stack, as it does
        # in a cold incremental run (engines/tsc/adapter.py `rerun`), so it gets the
        # deeper stack our worker has.
        script = root / "node_modules" / "typescript" / "bin" / "tsc"
        watch = ["node", node_stack_flag(), str(script), *watch[1:]]
    peak = watch_peak(watch, root, steps, interval, "Watching for file changes")
    if peak is not None:
        found["tsc"] = ("tsc --watch, first build and a rebuild per edit", peak)
    else:
        cold = [str(tsc), "-p", "tsconfig.json", "--noEmit"]
        found["tsc"] = ("tsc cold (its watch mode never said it was ready)",
                        cold_peak(cold, root, interval))  # fmt: skip
    found["eslint"] = ("eslint . cold (no watch or server mode)",
                       cold_peak([str(bin_ / "eslint"), "."], root, interval))  # fmt: skip
    # `src`: without a .gitignore, Oxlint would lint node_modules too.
    found["oxlint"] = ("oxlint src cold (no watch or server mode)",
                       cold_peak([str(MANAGED_BIN / "oxlint"), "src"], root, interval))  # fmt: skip
    return found


# --- the report ----------------------------------------------------------


def report_tree(run: ServerRun) -> None:
    sampler = run.sampler
    print("\n## 1. signalint-mcp's process tree over the sequence")
    for line in run.said:
        print(f"   {line}")
    print(f"tree peak (largest sum of one sample): {mib(sampler.tree_peak)},"
          f" during {sampler.peak_moment}; each process in that sample:")  # fmt: skip
    for pid, rss in sorted(sampler.at_peak.items(), key=lambda kv: -kv[1]):
        print(f"  {sampler.procs[pid].label:48} {mib(rss)}")
    print("the tree's largest sum during each call (its processes in that sample):")
    for moment, (total, now) in sampler.by_moment.items():
        parts = ", ".join(
            f"{sampler.procs[pid].label.split(' (')[0]} {rss / MIB:.0f}"
            for pid, rss in sorted(now.items(), key=lambda kv: -kv[1])
        )
        print(f"  {moment:28} {mib(total)}  = {parts}")
    by_label: dict[str, list[Proc]] = {}
    for proc in sampler.procs.values():
        by_label.setdefault(proc.label, []).append(proc)
    print("per process (peak; processes of one kind, each):")
    for name, procs in sorted(by_label.items(), key=lambda kv: -max(p.peak for p in kv[1])):
        peaks = ", ".join(mib(p.peak).strip() for p in sorted(procs, key=lambda p: -p.peak)[:6])
        more = f" (+{len(procs) - 6} more)" if len(procs) > 6 else ""
        print(f"  {name:48} x{len(procs):<3} {peaks}{more}")
    print("processes of the tree after the sequence (the workers kept):")
    for proc in sorted(run.kept, key=lambda p: p.label):
        print(f"  pid {proc.pid:<7} {proc.label:48} now {mib(proc.last)}  peak {mib(proc.peak)}")


def report_traced(data: dict[str, object]) -> None:
    print("\n## 4b. the server under tracemalloc, after the sequence")
    print(
        "what the server's state holds (bytes reachable from each part, counted once,"
        " in this order; sys.getsizeof):"
    )
    rows = data["held"]
    assert isinstance(rows, list)
    for name, size in rows:
        print(f"  {mib(size)}  {name}")
    current, peak, rss = data["current"], data["peak"], data["rss"]
    assert isinstance(current, int) and isinstance(peak, int) and isinstance(rss, int)
    print(f"traced now {mib(current)}, traced peak {mib(peak)}, resident {mib(rss)}"
          " (tracemalloc's own bookkeeping included)")  # fmt: skip
    for title, key in (("by file", "files"), ("by line", "lines"), ("by traceback", "chains")):
        print(f"largest allocations {title}:")
        rows = data[key]
        assert isinstance(rows, list)
        for where, size, count in rows:
            joined = " <- ".join(where) if isinstance(where, list) else where
            short = re.sub(r"\S*(?:site-packages|/src|/lib/python3\.\d+)/", "", joined)
            print(f"  {mib(size)} {count:>9} blocks  {short}")


@dataclass
class Figures:
    """One run's figures, for the summary over `--runs`."""

    tree: int
    own: int
    server: int
    workers: dict[str, int]

    @property
    def bound(self) -> float:
        return GOAL * self.own + ALLOWANCE


def one_run(args: argparse.Namespace, tmp: Path) -> Figures:
    root = ts_project(tmp / "ts", args.files)
    if args.native_ts:
        shutil.rmtree(root / "node_modules" / "typescript")
        for name in ("tsc", "tsserver"):
            (root / "node_modules" / ".bin" / name).unlink(missing_ok=True)
    leaf_path = root / "src" / f"file{args.files - 1:05d}.ts"
    text = leaf_path.read_text()
    leaf = Edits(leaf_path, [text, text.replace("input * 2", "input * 3")], "//")
    hub_path = root / "src" / "file00010.ts"
    hub_text = hub_path.read_text()
    changed = hub_text.replace(
        "export const value10: number", "export const value10: string"
    ).replace("= value9 + 10;", "= String(value9 + 10);")
    hub = Edits(hub_path, [hub_text, changed], "//")

    print(
        f"# memory: {args.files}-module TypeScript project, oxlint + tsc + eslint"
        f" ({'TypeScript 7, managed' if args.native_ts else 'TypeScript 6.0.3, its own'})"
    )
    run = run_server(root, leaf, hub, args.edits, args.interval, args.steps)
    report_tree(run)
    sampler = run.sampler

    print("\n## 2. the engines' own, same project, same edits")
    own = engines_own(root, leaf, hub, args.edits, args.interval, args.native_ts)
    for name, (how, peak) in own.items():
        print(f"  {name:7} {mib(peak)}  {how}")
    total = sum(peak for _, peak in own.values())
    print(f"  sum     {mib(total)}")

    print("\n## 3. ratio")
    ratio = sampler.tree_peak / (total + ALLOWANCE)
    bound = GOAL * total + ALLOWANCE
    print(f"tree peak / (engines' own + 60 MiB) = {sampler.tree_peak / MIB:.0f} /"
          f" ({total / MIB:.0f} + 60) = {ratio:.2f}  (goal <= {GOAL})")  # fmt: skip
    print(f"tree peak against {GOAL} x own + 60 = {bound / MIB:.1f} MiB:"
          f" {(bound - sampler.tree_peak) / MIB:+.1f} MiB of margin")  # fmt: skip

    print("\n## 4. the server alone")
    bare = interpreter_rss("pass")
    loaded = interpreter_rss(
        "import mcp.server.lowlevel, mcp.server.stdio\n"
        "import signalint.server.app, signalint.server.tools, signalint.service.check_service\n"
        "import signalint.pipeline.check_run, signalint.pipeline.report, signalint.warm.registry\n"
        "signalint.warm.registry.drivers()"
    )
    server_peak = max(p.peak for p in sampler.procs.values() if p.label == "server")
    print(f"python -c pass:                                   {mib(bare)}")
    print(f"python + MCP SDK + the modules a check loads:     {mib(loaded)}")
    print(f"server after initialize:                          {mib(run.after_init)}")
    print(f"server after the sequence:                        {mib(run.after)}")
    print(f"server's peak:                                    {mib(server_peak)}")
    if args.tracemalloc:
        data = traced_server(root, leaf, hub, args.edits, tmp / "trace.json")
        report_traced(data)
    workers: dict[str, int] = {}
    for proc in sampler.procs.values():
        if proc.label != "server":
            workers[proc.label] = max(workers.get(proc.label, 0), proc.peak)
    return Figures(sampler.tree_peak, total, server_peak, workers)


# --- a real project (the real-world tier's clones) -------------------------

PY_COMMENT, TS_COMMENT = "#", "//"


def own_project(
    root: Path, engines: list[str], edit: Edits, edits: int, interval: float
) -> dict[str, tuple[str, int]]:
    """The engines' own on `root` (a real project): their watch modes where
    they have one, else a cold run's peak; the same edits as the server's."""
    bin_ = root / "node_modules" / ".bin"
    venv = root / ".venv" / "bin"
    steps = [edit.next] * (edits + 1)
    found: dict[str, tuple[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-memory-caches-") as caches:
        env_cache = {"MYPY_CACHE_DIR": str(Path(caches) / "mypy"),
                     "RUFF_CACHE_DIR": str(Path(caches) / "ruff")}  # fmt: skip
        os.environ.update(env_cache)
        try:
            ready = "Watching for file changes"
            known: dict[str, tuple[str, list[str], bool]] = {
                "tsc": (
                    "tsc --noEmit --watch",
                    [
                        str(bin_ / "tsc"),
                        "--noEmit",
                        "--watch",
                        "--pretty",
                        "false",
                        "--preserveWatchOutput",
                    ],
                    True,
                ),
                "pyright": ("pyright --watch", [str(venv / "pyright"), "--watch"], True),
                "eslint": (
                    "eslint . cold (no watch or server mode)",
                    [str(bin_ / "eslint"), "."],
                    False,
                ),
                "oxlint": (
                    "oxlint cold (no watch or server mode)",
                    [str(MANAGED_BIN / "oxlint")],
                    False,
                ),
                "mypy": (
                    "mypy cold, its cache outside the tree (dmypy not measured)",
                    [str(venv / "mypy")],
                    False,
                ),
                "ruff": (
                    "ruff check cold (no watch or server mode)",
                    [str(venv / "ruff"), "check"],
                    False,
                ),
            }
            for name in engines:
                if name not in known:
                    raise SystemExit(f"--engines: no own run known for {name!r}")
                how, argv, watch = known[name]
                if watch:
                    found[name] = (how, watch_peak(argv, root, steps, interval, ready) or 0)
                else:
                    found[name] = (how, cold_peak(argv, root, interval))
        finally:
            for key in env_cache:
                os.environ.pop(key, None)
    return found


def project_run(args: argparse.Namespace) -> Figures:
    """The sequence on an existing project (`--project`), in place: its state
    in a temporary directory (SIGNALINT_STATE_DIR), the edited file restored."""
    root = Path(args.project).resolve()
    target = root / args.edit_file
    original = target.read_bytes()
    comment = PY_COMMENT if target.suffix == ".py" else TS_COMMENT
    edit = Edits(target, [original.decode()], comment)
    engines = args.engines.split(",")
    print(f"# memory: {root.name}, {' + '.join(engines)}; edited file {args.edit_file}")
    with tempfile.TemporaryDirectory(prefix="bench-memory-state-") as state:
        os.environ["SIGNALINT_STATE_DIR"] = state
        try:
            run = run_server(root, edit, edit, args.edits, args.interval, args.steps)
        finally:
            os.environ.pop("SIGNALINT_STATE_DIR", None)
            target.write_bytes(original)
    report_tree(run)
    print("\n## 2. the engines' own, same project, same edits")
    try:
        own = own_project(root, engines, edit, args.edits, args.interval)
    finally:
        target.write_bytes(original)
    for name, (how, peak) in own.items():
        print(f"  {name:7} {mib(peak)}  {how}")
    total = sum(peak for _, peak in own.values())
    bound = GOAL * total + ALLOWANCE
    tree = run.sampler.tree_peak
    print(f"\n## 3. tree {tree / MIB:.1f} against {GOAL} x own ({total / MIB:.1f}) + 60 ="
          f" {bound / MIB:.1f} MiB: {(bound - tree) / MIB:+.1f} MiB of margin")  # fmt: skip
    server_peak = max(p.peak for p in run.sampler.procs.values() if p.label == "server")
    workers: dict[str, int] = {}
    for proc in run.sampler.procs.values():
        if proc.label != "server":
            workers[proc.label] = max(workers.get(proc.label, 0), proc.peak)
    return Figures(tree, total, server_peak, workers)


def summary(runs: list[Figures]) -> None:
    """Median and range over the runs of each figure."""

    def row(name: str, values: list[float]) -> None:
        got = sorted(values)
        print(f"  {name:48} median {mib(statistics.median(got))}"
              f"  range {got[0] / MIB:.1f}-{got[-1] / MIB:.1f}")  # fmt: skip

    print(f"\n## summary over {len(runs)} runs (each a fresh project, server and engines' own)")
    row("tree's peak (one sample)", [r.tree for r in runs])
    row("server's peak", [r.server for r in runs])
    for name in sorted({n for r in runs for n in r.workers}):
        row(name, [r.workers.get(name, 0) for r in runs])
    row("engines' own (sum)", [r.own for r in runs])
    row("bound, 1.05 x own + 60", [r.bound for r in runs])
    row("margin (bound - tree), per run", [r.bound - r.tree for r in runs])


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--native-ts", action="store_true")
    parser.add_argument("--steps", type=float, default=0.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--project", help="an existing project (checked in place)")
    parser.add_argument("--engines", default="", help="with --project: its engines, a,b")
    parser.add_argument("--edit-file", default="", help="with --project: the file edited")
    args = parser.parse_args()
    if args.project and not (args.engines and args.edit_file):
        parser.error("--project needs --engines and --edit-file")
    runs: list[Figures] = []
    for turn in range(args.runs):
        if args.runs > 1:
            print(f"\n\n# run {turn + 1} of {args.runs}", flush=True)
        if args.project:
            runs.append(project_run(args))
            continue
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
            runs.append(one_run(args, Path(tmp)))
    summary(runs)


if __name__ == "__main__":
    main()
