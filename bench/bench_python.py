"""A Python project: cold and warm `signalint check` against Ruff, mypy and Pyright alone.

    .venv/bin/python bench/bench_python.py [--files 600] [--runs 5]

On a generated project (bench/synth_python.py: Ruff, mypy strict and Pyright
configured in pyproject.toml, diagnostics of each), in one run, medians of
`--runs`:

- each native engine alone, cold, as Signalint resolves it (the managed
  copies: the project has no virtual environment): `ruff check
  --output-format json --no-fix`, `mypy -O json` and `pyright --outputjson`,
  their caches (Ruff's, mypy's) in a directory emptied before every run;
- `signalint check --no-cache --format json` (CLI, process start included,
  output to /dev/null), the state directory deleted before every run;
- warm unchanged `signalint check --format json` (CLI, wall time) after a
  check that filled the cache;
- the engine processes a warm check starts (under `strace -f -e
  trace=execve`, untimed, when strace is installed).

Printed: the times, the diagnostics each engine reported natively and in
Signalint's SARIF (which must agree), cold / slowest native (issue 8 goal:
at most 1.15) and the warm time (goal: at most 0.25 s). Figures are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth_python import generate
from signalint.engines.registry import ENGINES as REGISTRY
from signalint.engines.resolve import managed_dir, resolve

SIGNALINT = Path(sys.executable).with_name("signalint")
_EXECVE = re.compile(r'execve\("([^"]+)"')
ENGINES = ("ruff", "mypy", "pyright")
# Where `signalint engines install` puts each engine (pip engines in the
# managed virtual environment, Pyright's npm package in the npm prefix).
MANAGED = {
    "ruff": Path("python") / "bin" / "ruff",
    "mypy": Path("python") / "bin" / "mypy",
    "pyright": Path("node_modules") / ".bin" / "pyright",
}


def executable(engine: str, root: Path) -> Path:
    """The executable Signalint runs for `engine` in `root`."""
    registered = REGISTRY.get(engine)
    if registered is not None:
        found = resolve(registered, root).path
    else:  # a Signalint without the engine: its managed place
        found = managed_dir() / MANAGED[engine]
    if found is None or not found.exists():
        raise SystemExit(f"no {engine}: run `signalint engines install {' '.join(ENGINES)}`")
    return found


def native_commands(root: Path, state: Path) -> dict[str, list[str]]:
    """The native runs, asked for the output formats Signalint asks for,
    caches in `state` (never in the project)."""
    return {
        "ruff": [
            str(executable("ruff", root)),
            "check",
            "--output-format",
            "json",
            "--no-fix",
            "--cache-dir",
            str(state / "ruff"),
        ],
        "mypy": [str(executable("mypy", root)), "-O", "json", "--cache-dir", str(state / "mypy")],
        "pyright": [str(executable("pyright", root)), "--outputjson"],
    }


def count_native(engine: str, stdout: str) -> int:
    if engine == "ruff":
        return len(json.loads(stdout))
    if engine == "mypy":
        return sum(1 for line in stdout.splitlines() if line.startswith("{"))
    return len(json.loads(stdout)["generalDiagnostics"])


def capture(argv: list[str], cwd: Path) -> str:
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
    ).stdout


def timed(argv: list[str], cwd: Path, before: Callable[[], None] | None = None) -> float:
    if before is not None:
        before()
    started = time.perf_counter()
    subprocess.run(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def median(
    argv: list[str], cwd: Path, runs: int, before: Callable[[], None] | None = None
) -> float:
    return statistics.median(timed(argv, cwd, before) for _ in range(runs))


def sarif_counts(root: Path) -> Counter[str]:
    """Results per engine in Signalint's SARIF (a warm check: cheap)."""
    log = json.loads(capture([str(SIGNALINT), "check", "--format", "sarif"], root))
    counts: Counter[str] = Counter()
    for run in log.get("runs") or []:
        engine = str(run["tool"]["driver"]["name"])
        for result in run.get("results") or []:
            counts[engine] += 1
            for other in (result.get("properties") or {}).get("alsoReportedBy") or []:
                counts[str(other)] += 1
    return counts


def warm_spawns(root: Path) -> str:
    """The engine executables a warm unchanged check starts (strace), or why unknown."""
    strace = shutil.which("strace")
    if strace is None:
        return "unknown (no strace)"
    with tempfile.NamedTemporaryFile(suffix=".trace") as trace:
        subprocess.run(
            [
                *(strace, "-f", "-qq", "-e", "trace=execve", "-e", "signal=none"),
                *("-o", trace.name, str(SIGNALINT), "check", "--format", "json"),
            ],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        text = Path(trace.name).read_text(errors="replace")
    started: Counter[str] = Counter()
    for line in text.splitlines():
        executed = _EXECVE.search(line)
        if executed and line.rstrip().endswith("= 0") and Path(executed[1]).name in ENGINES:
            started[Path(executed[1]).name] += 1
    return ", ".join(f"{name} x{n}" for name, n in sorted(started.items())) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.files < 2 or args.runs < 1:
        parser.error("--files takes at least 2, --runs at least 1")

    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / f"synthpy{args.files}", args.files)
        state = Path(tmp) / "native-state"
        commands = native_commands(root, state)

        def wipe_native() -> None:
            shutil.rmtree(state, ignore_errors=True)

        def wipe_ours() -> None:
            shutil.rmtree(root / ".signalint", ignore_errors=True)

        versions = {
            engine: capture([argv[0], "--version"], root).strip().splitlines()[-1]
            for engine, argv in commands.items()
        }
        native: dict[str, float] = {}
        found: dict[str, int] = {}
        for engine, argv in commands.items():
            wipe_native()
            found[engine] = count_native(engine, capture(argv, root))
            native[engine] = median(argv, root, args.runs, wipe_native)
        cold = median(
            [str(SIGNALINT), "check", "--no-cache", "--format", "json"], root, args.runs, wipe_ours
        )
        wipe_ours()
        check = [str(SIGNALINT), "check", "--format", "json"]
        for _ in range(2):  # fill the cache (the second stores what the first ran)
            timed(check, root)
        warm = median(check, root, args.runs)
        ours = sarif_counts(root)
        spawned = warm_spawns(root)

    slowest = max(native, key=lambda engine: native[engine])
    print(f"{args.files} files, medians of {args.runs}")
    print(f"{'engine':<8} {'version':<28} {'alone s':>8} {'native':>7} {'signalint':>10}")
    for engine in ENGINES:
        print(
            f"{engine:<8} {versions[engine]:<28} {native[engine]:>8.3f} "
            f"{found[engine]:>7} {ours.get(engine, 0):>10}"
        )
    print(f"cold `signalint check --no-cache`: {cold:.3f} s")
    print(f"cold / slowest native ({slowest}): {cold / native[slowest]:.2f} (goal <= 1.15)")
    print(f"warm unchanged `signalint check` (CLI): {warm:.3f} s (goal <= 0.25 s)")
    print(f"engine processes a warm check started: {spawned}")


if __name__ == "__main__":
    main()
