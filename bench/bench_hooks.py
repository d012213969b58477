"""The post-edit hook on one edited file of a 600-file project, process start included.

    .venv/bin/python bench/bench_hooks.py [--files 600] [--runs 15] [--daemon | --daemon-only]
        [--edit export|body|break] [--typescript 7|6|5]

A synthetic strict TypeScript project (synth.py) with the engines `init`
enables for it (Oxlint and tsc). One cold check fills the cache; then each
run pipes a recorded Claude Code `PostToolUse` payload naming one file into
`signalint hooks run --runtime claude` and waits for its JSON answer:

- unchanged, checked: the file is unchanged since the last check (every
  engine answers from the cache); each event names another session, so no
  run is answered from a kept answer;
- unchanged, kept answer: the same event again once what it read has
  settled (2 s): answered from the kept answer (`answers.py`);
- edited: the file's content changed before the run (the edited file is a
  cache miss; tsc re-checks its program). `--edit` says how: `export` (the
  default) adds an exported constant (the module's exported shape changes:
  its importer is checked again, and stays clean), `body` changes a
  function's body (the shape stays: no other file is affected), `break`
  changes the type of the constant the next file imports (that importer
  gets a new error, which the hook names first, and the next run repairs it).

Medians and the slowest run are printed in milliseconds, with `signalint
--version` start-up for scale. The goal for an unchanged file is 150 ms
in-process.

With `--daemon` the three series run again through the project's daemon
(`signalint daemon start`; the hook is forwarded to it), after the
in-process ones; the goal through the daemon is a 100 ms median.
`--daemon-only` skips the in-process series. `--typescript 5|6` makes the
TypeScript scripts/setup installs for the tests the project's own (its
warm worker is the JavaScript compiler API's; 7, the managed default, is
served by the native API's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile_bytecode
from bench.synth import generate

SIGNALINT = Path(sys.executable).with_name("signalint")


def edit(original: str, how: str, tag: str, n: int) -> str:
    """The file's content for the `n`th edit (`--edit`, module docstring)."""
    if how == "body":
        return original.replace("input * 2", f"input * {n + 3}", 1)
    if how == "break":
        if n % 2 == 1:
            return original + f"\n// {tag}{n}\n"
        # Each broken content new: a content seen before is a cache hit.
        return re.sub(
            r"export const (value\d+): number = ",
            rf'export const \1: string = "{tag}{n}" + ',
            original,
            count=1,
        )
    return original + f"\nexport const {tag}{n}: number = {n};\n"


def series(
    root: Path, rel: str, runs: int, tag: str, *extra: str, how: str = "export"
) -> tuple[list[float], list[float], list[float]]:
    """`runs` hooks on the unchanged file answered by a check (each event
    from another session, so none is a kept answer's), `runs` answered from
    the kept answer (the same event again, once what was read has settled),
    then `runs` each after an edit of the file (`tag` keeps each series'
    edits apart: a content seen before would be a cache hit)."""
    hook(root, rel, *extra)
    checked = [hook(root, rel, *extra, session=f"{tag}{n}") for n in range(runs)]
    time.sleep(2.2)  # what a kept answer read must have settled (answers.SETTLE_NS)
    hook(root, rel, *extra)
    kept = [hook(root, rel, *extra) for _ in range(runs)]
    path = root / rel
    original = path.read_text()
    edited: list[float] = []
    for n in range(runs):
        path.write_text(edit(original, how, tag, n))
        edited.append(hook(root, rel, *extra))
    path.write_text(original)
    return checked, kept, edited


def hook(root: Path, rel: str, *extra: str, session: str = "bench") -> float:
    event = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / rel), "old_string": "a", "new_string": "b"},
    }
    started = time.perf_counter()
    done = subprocess.run(
        [str(SIGNALINT), "hooks", "run", "--runtime", "claude", *extra],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0 or "additionalContext" not in done.stdout:
        raise SystemExit(f"hook failed: {done.returncode} {done.stdout[:200]} {done.stderr[:400]}")
    return elapsed


def own_typescript(root: Path, major: int) -> None:
    """Make scripts/setup's TypeScript `major` the project's own tsc (hard links)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "signalint"
    package = cache / ("lsp" if major == 6 else "ts5") / "node_modules" / "typescript"
    if not package.is_dir():
        raise SystemExit(f"TypeScript {major} is not installed at {package}: run scripts/setup")

    def link(source: str, target: str) -> None:
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)

    shutil.copytree(package, root / "node_modules" / "typescript", copy_function=link)
    (root / "node_modules" / ".bin").mkdir()
    (root / "node_modules" / ".bin" / "tsc").symlink_to("../typescript/bin/tsc")


def summary(samples: list[float]) -> str:
    return f"median {statistics.median(samples):7.1f} ms   max {max(samples):7.1f} ms"


def main() -> None:
    compile_bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--daemon", action="store_true", help="also through the daemon")
    parser.add_argument("--edit", choices=("export", "body", "break"), default="export")
    parser.add_argument("--daemon-only", action="store_true", help="skip the in-process series")
    parser.add_argument(
        "--typescript",
        type=int,
        choices=(5, 6, 7),
        default=7,
        help="the project's TypeScript (5 and 6 from scripts/setup's test packages; 7 managed)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "synth", args.files)
        engines = {"oxlint": True, "tsc": True, "biome": False, "eslint": False}
        engines.update(ruff=False, mypy=False, pyright=False)
        (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
        rel = f"src/file{args.files // 2:05d}.ts"
        if args.typescript != 7:
            own_typescript(root, args.typescript)
        subprocess.run(
            [str(SIGNALINT), "check"], cwd=root, capture_output=True, check=False
        )  # cold: fill the cache
        alone = None
        if not args.daemon_only:
            alone = series(root, rel, args.runs, "alone", "--no-daemon", how=args.edit)
        if args.daemon or args.daemon_only:
            subprocess.run([str(SIGNALINT), "daemon", "start"], cwd=root, check=True)
            try:
                through = series(root, rel, args.runs, "daemon", how=args.edit)
            finally:
                subprocess.run([str(SIGNALINT), "daemon", "stop"], cwd=root, check=False)
        started = time.perf_counter()
        for _ in range(args.runs):
            subprocess.run([str(SIGNALINT), "--version"], capture_output=True, check=False)
        version_ms = (time.perf_counter() - started) * 1000 / args.runs
    print(
        f"post-edit hook, {args.files}-file TypeScript project (oxlint + tsc), "
        f"{args.runs} runs, edit: {args.edit}, TypeScript {args.typescript}"
    )
    labels = ("unchanged, checked", "unchanged, kept answer", "edited")
    for label, samples in zip(labels, alone or (), strict=False):
        print(f"  {label + ':':<32} {summary(samples)}")
    if args.daemon or args.daemon_only:
        for label, samples in zip(labels, through, strict=True):
            print(f"  {'daemon, ' + label + ':':<32} {summary(samples)}")
    print(f"  signalint --version:     mean {version_ms:7.1f} ms")


if __name__ == "__main__":
    main()
