"""Warm engines (issue 19): edits answered by kept-warm workers, against the
native engines run cold in the same run.

    .venv/bin/python bench/bench_warm.py [--files 3000] [--python-files 800]
        [--runs 5] [--only ts|python]

TypeScript: bench/synth.py's strict project with its own TypeScript 6.0.3,
ESLint 10.15.0 and typescript-eslint 8.74.0 (its recommended rules) in its
`node_modules` (installed once into ~/.cache/signalint/bench-ts, copied in),
plus Oxlint; T is native cold `tsc -p tsconfig.json --noEmit`.
Python: bench/synth_python.py's package (Ruff, mypy strict, Pyright); T is
the slowest of the three native engines run cold.

For each project, in a running `signalint-mcp` after one `check_project`
(which starts the workers):

1. a one-file body edit, then `after_edit_check` of that file;
2. an exported type or a widely imported signature changed, then
   `check_project` (the last one's fingerprint against a cold
   `signalint check --no-cache` of the same content): the median of the
   first `--runs` after the workers started, and of as many more after
   them (the language servers' first re-checks are slower); each is also
   divided by a cold run of the slowest native engine on the same content
   right after it, and the median of those pairs printed, since the
   machine's speed drifts between T's runs and these;
3. with `signalint daemon start`: `signalint check FILE` after an edit, the
   changed file's own `signalint check FILE` after an exported change, and
   the post-edit hook (`hooks run --runtime claude`) after an edit (21
   timed after 5 that are not);
4. the resident memory of the server's workers (its descendants).

Medians of `--runs`, as ratios to T. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.bench_hooks import hook
from bench.bench_incremental import Server
from bench.synth import generate as generate_ts
from bench.synth_python import generate as generate_python
from signalint.engines.resolve import managed_dir

SIGNALINT = Path(sys.executable).with_name("signalint")
MANAGED = managed_dir()
NPM_HOME = Path.home() / ".cache" / "signalint" / "bench-ts"
# Post-edit hooks timed (a median of 9 moved by 20 ms between runs), after
# hooks not timed while the workers' code is still being compiled.
HOOK_SAMPLES, HOOK_WARM_UP = 21, 5
NPM_PACKAGES = ("typescript@6.0.3", "eslint@10.15.0", "typescript-eslint@8.74.0")
ESLINT_CONFIG = """import tseslint from "typescript-eslint";

export default tseslint.config({
  files: ["src/**/*.ts"],
  extends: [tseslint.configs.recommended],
});
"""


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def quiet(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    return done.stdout


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def node_modules() -> Path:
    """The TypeScript project's own packages, installed once."""
    modules = NPM_HOME / "node_modules"
    if not (modules / "typescript-eslint").is_dir():
        NPM_HOME.mkdir(parents=True, exist_ok=True)
        (NPM_HOME / "package.json").write_text('{"name": "bench-ts", "private": true}\n')
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--save-exact", *NPM_PACKAGES],
            cwd=NPM_HOME, check=True, capture_output=True,
        )  # fmt: skip
    return modules


def ts_project(root: Path, files: int) -> Path:
    generate_ts(root, files)
    shutil.copytree(node_modules(), root / "node_modules", symlinks=True)
    (root / "package.json").write_text(
        json.dumps({"name": "synth", "private": True, "type": "module"}) + "\n"
    )
    (root / "eslint.config.mjs").write_text(ESLINT_CONFIG)
    engines = {"oxlint": True, "tsc": True, "biome": False, "eslint": True}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}) + "\n")
    return root


def cold_fingerprint(root: Path) -> tuple[str, int]:
    """A cold `--no-cache` check of `root` in a copy (its own state, no
    daemon): the fingerprint and the issue count."""
    env = dict(os.environ, SIGNALINT_DAEMON="0")
    out = quiet([str(SIGNALINT), "check", "--no-cache", "--format", "json"], root, env)
    data = json.loads(out)
    return str(data["fingerprint"]), int(data["totalIssues"])


def descendants_rss(pid: int) -> int:
    """Resident bytes of every process below `pid` (its workers)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        parents[int(name)] = int(fields[1])
        rss[int(name)] = int(fields[21]) * page
    below = {pid}
    grew = True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in below and child not in below:
                below.add(child)
                grew = True
    below.discard(pid)
    return sum(rss.get(p, 0) for p in below)


class Edits:
    """Alternating contents of one file, each ending in a comment of its own
    turn: every run changes it to content no earlier run saw (so no sample
    is answered from the result cache)."""

    def __init__(self, path: Path, texts: list[str], comment: str) -> None:
        self.path, self.texts, self.comment, self.turn = path, texts, comment, 0

    def next(self) -> None:
        self.turn += 1
        text = self.texts[self.turn % len(self.texts)]
        self.path.write_text(f"{text}\n{self.comment} edit {self.turn}\n")


def bench_project(
    label: str,
    root: Path,
    native: dict[str, list[str]],
    body: Edits,
    exported: Edits,
    runs: int,
) -> None:
    times: dict[str, float] = {}
    for name, argv in native.items():
        times[name] = median([timed(lambda: quiet(argv, root)) for _ in range(runs)])  # noqa: B023
    t = max(times.values())
    slowest = max(times, key=lambda n: times[n])
    print(f"\n## {label}")
    for name, value in times.items():
        print(f"native cold {name:8} {value:7.2f} s")
    print(f"T = {slowest} {t:.2f} s")

    server = Server(root)
    try:
        first = timed(lambda: server.call("check_project", {}))
        print(f"first check_project in the server (workers start): {first:6.2f} s")
        rel = str(body.path.relative_to(root))
        samples = []
        served: set[str] = set()
        for _ in range(runs):
            body.next()
            started = time.perf_counter()
            answer = server.call("after_edit_check", {"files": [rel]})
            samples.append(time.perf_counter() - started)
            content = answer.get("structuredContent", {})
            assert isinstance(content, dict)
            for entry in content.get("engines", {}).values():
                served.add(str(entry.get("served", "cache")))
        edit = median(samples)
        print(f"1. edit -> after_edit_check   {edit:6.2f} s  = {edit / t:.3f} T  (goal 0.1)"
              f"  served {sorted(served)}")  # fmt: skip
        samples = []
        paired: list[float] = []  # each sample over a cold native run of the same content
        for _ in range(2 * runs):  # the first `runs` after the start, then as many more
            exported.next()
            started = time.perf_counter()
            answer = server.call("check_project", {})
            samples.append(time.perf_counter() - started)
            paired.append(samples[-1] / timed(lambda: quiet(native[slowest], root)))
        # The last warm answer against a cold check of the same content.
        content = answer["structuredContent"]
        assert isinstance(content, dict)
        fingerprint, total = cold_fingerprint(root)
        equal = content["fingerprint"] == fingerprint and content["totalIssues"] == total
        whole, later = median(samples[:runs]), median(samples[runs:])
        print(f"2. exported change -> check_project {whole:6.2f} s = {whole / t:.3f} T"
              f" (goal 0.35); the {runs} after them {later:6.2f} s = {later / t:.3f} T;"
              f" equal to cold --no-cache: {equal}")  # fmt: skip
        print(f"   each: {' '.join(f'{x:.2f}' for x in samples)} s")
        print(f"   paired with a cold {slowest} run right after each (the machine's speed drifts"
              f" between T and these): {median(paired[:runs]):.3f} T; the {runs} after them"
              f" {median(paired[runs:]):.3f} T")  # fmt: skip
        rss = descendants_rss(server.proc.pid)
        print(f"4. workers' resident memory (server's descendants): {rss / 2**20:.0f} MiB")
    finally:
        server.close()

    daemon = subprocess.run(
        [str(SIGNALINT), "daemon", "start"], cwd=root, capture_output=True, text=True, check=False
    )
    if daemon.returncode != 0:
        print(f"3. daemon: not available ({(daemon.stderr or daemon.stdout).strip()[:200]})")
        return
    try:
        quiet([str(SIGNALINT), "check"], root)  # workers start
        samples = []
        for _ in range(runs):
            body.next()
            samples.append(timed(lambda: quiet([str(SIGNALINT), "check", rel], root)))
        cli = median(samples)
        print(
            f"3. daemon: edit -> `signalint check FILE` {cli:6.2f} s = {cli / t:.3f} T (goal 0.15)"
        )
        # The widely imported file's own check after its exported change:
        # the workers answer for that file alone (README, "Warm engines").
        hub = str(exported.path.relative_to(root))
        samples = []
        for _ in range(runs):
            exported.next()
            samples.append(timed(lambda: quiet([str(SIGNALINT), "check", hub], root)))
        own = median(samples)
        print(f"3. daemon: exported change -> `signalint check` of that file {own:6.2f} s"
              f" = {own / t:.3f} T")  # fmt: skip
        for _ in range(HOOK_WARM_UP):  # the workers' code is compiled by the first asks
            body.next()
            hook(root, rel)
        hooks = []
        for _ in range(max(runs, HOOK_SAMPLES)):
            body.next()
            hooks.append(hook(root, rel))
        print(f"3. daemon: edit -> post-edit hook median {median(hooks):.0f} ms of {len(hooks)}"
              f" after {HOOK_WARM_UP} (goal 150 ms)")  # fmt: skip
        status = quiet([str(SIGNALINT), "daemon", "status", "--format", "json"], root)
        print(f"   daemon status: {status.strip()[:600]}")
    finally:
        quiet([str(SIGNALINT), "daemon", "stop"], root)


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--python-files", type=int, default=800)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=("ts", "python"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-warm-") as tmp:
        base = Path(tmp)
        if args.only in (None, "ts"):
            root = ts_project(base / "ts", args.files)
            bin_ = root / "node_modules" / ".bin"
            native = {"tsc": [str(bin_ / "tsc"), "-p", "tsconfig.json", "--noEmit"]}
            leaf = root / "src" / f"file{args.files - 1:05d}.ts"
            text = leaf.read_text()
            body = Edits(leaf, [text, text.replace("input * 2", "input * 3")], "//")
            # file00010's export changes type: file00011's use of it breaks.
            hub = root / "src" / "file00010.ts"
            hub_text = hub.read_text()
            changed = hub_text.replace(
                "export const value10: number", "export const value10: string"
            ).replace("= value9 + 10;", "= String(value9 + 10);")
            bench_project("TypeScript", root, native, body, Edits(hub, [hub_text, changed], "//"),
                          args.runs)  # fmt: skip
        if args.only in (None, "python"):
            root = generate_python(base / "py", args.python_files)
            python_bin = MANAGED / "python" / "bin"
            native = {
                "ruff": [str(python_bin / "ruff"), "check", "--no-cache", "."],
                "mypy": [str(python_bin / "mypy"), "--no-incremental", "--cache-dir", os.devnull],
                "pyright": [str(MANAGED / "node_modules" / ".bin" / "pyright")],
            }
            leaf = root / "pkg" / f"mod{args.python_files - 2:05d}.py"
            text = leaf.read_text()
            body = Edits(leaf, [text, text + "\nEXTRA: int = 1\n"], "#")
            hub = root / "pkg" / "mod00010.py"
            hub_text = hub.read_text()
            changed = hub_text.replace("def compute10(value: int) -> int:",
                                       "def compute10(value: int) -> str:")  # fmt: skip
            exported = Edits(hub, [hub_text, changed], "#")
            bench_project("Python", root, native, body, exported, args.runs)


if __name__ == "__main__":
    main()
