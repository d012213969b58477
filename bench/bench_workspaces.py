"""A pnpm workspace: Signalint per package against native per-package tsc, one run.

    .venv/bin/python bench/bench_workspaces.py [--packages 20] [--files 150] [--runs 3]

Generates a pnpm workspace of `--packages` packages of `--files` TypeScript
files each (3,000 by default): package N needs package N // 2 (and N - 1
for every third one) through `workspace:*`, linked in node_modules as pnpm
does, each with its own tsconfig.json; a few planted type errors. Oxlint
and tsc are enabled, `monorepoMode` is `auto`. Measured (medians of
`--runs`, the CLI with process start, JSON to /dev/null):

1. cold: `signalint check` with the state directory wiped, against native
   `tsc -p <package> --noEmit` for every package in topological order
   plus `oxlint` on every file (the linters run beside tsc in ours);
2. warm unchanged: `signalint check` again; also `check_project` in a
   running `signalint-mcp`;
3. a leaf edit: which packages' tsc re-ran (the JSON summary's `cached`);
4. `--new-from-rev HEAD~1` after committing a one-file change in a leaf:
   the first run (old tree written, the changed package checked at the
   old revision) and a repeat, against a plain warm check and native tsc
   on that one package.

Figures are printed, never asserted.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_incremental import SIGNALINT, Server
from signalint.engines.resolve import managed_dir
from signalint.pipeline.workspaces import discover

BIN = managed_dir() / "node_modules" / ".bin"
OPTIONS = {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": True,
    "skipLibCheck": True,
    "noEmit": True,
    "types": [],
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def needs(index: int) -> list[int]:
    if index == 0:
        return []
    found = {index // 2}
    if index % 3 == 0:
        found.add(index - 1)
    return sorted(found)


def generate(root: Path, packages: int, files: int) -> Path:
    _write(root / "package.json", json.dumps({"name": "bench-ws", "private": True}))
    _write(root / "pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n")
    _write(root / ".gitignore", "node_modules/\n.signalint/\n")
    config = {
        "monorepoMode": "auto",
        "engines": {"oxlint": True, "tsc": True, "biome": False, "eslint": False},
    }
    _write(root / "signalint.config.json", json.dumps(config))
    for index in range(packages):
        name = f"p{index:02d}"
        base = root / "packages" / name
        deps = {f"@bench/p{d:02d}": "workspace:*" for d in needs(index)}
        manifest = {"name": f"@bench/{name}", "version": "1.0.0", "types": "src/index.ts"}
        _write(base / "package.json", json.dumps({**manifest, "dependencies": deps}))
        _write(base / "tsconfig.json", json.dumps({"compilerOptions": OPTIONS, "include": ["src"]}))
        for dep in needs(index):
            link = base / "node_modules" / "@bench" / f"p{dep:02d}"
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(f"../../../p{dep:02d}", target_is_directory=True)
        imports = "".join(
            f'import {{ p{d:02d}_0 }} from "@bench/p{d:02d}";\nexport const use{d} = p{d:02d}_0;\n'
            for d in needs(index)
        )
        _write(base / "src" / "index.ts", f'export {{ {name}_0 }} from "./f0";\n')
        for number in range(files - 1):
            if number == 0:
                text = f"{imports}export const {name}_0: number = 0;\n"
            else:
                text = (
                    f'import {{ {name}_{number - 1} }} from "./f{number - 1}";\n'
                    f"export const {name}_{number}: number = {name}_{number - 1} + 1;\n"
                    f"export function show{number}(value: number): string {{\n"
                    f"  return `${{value + {name}_{number}}}`;\n}}\n"
                )
            if number % 50 == 7:
                text += f'export const wrong{number}: number = "planted";\n'
            _write(base / "src" / f"f{number}.ts", text)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "generated")
    return root


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@b", *args],
        check=True,
        capture_output=True,
    )


def timed(argv: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, done.stdout


def native(root: Path) -> float:
    """Per-package tsc in topological order, then oxlint on every file."""
    started = time.perf_counter()
    for package in discover(root).packages:
        argv = [str(BIN / "tsc"), "-p", package.path, "--noEmit", "--pretty", "false"]
        subprocess.run(argv, cwd=root, capture_output=True, check=False)
    subprocess.run(
        [str(BIN / "oxlint"), "--format", "json", "packages"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - started


def rerun(stdout: str) -> list[str]:
    """Packages whose tsc ran (not served from the cache) in a JSON answer."""
    packages = json.loads(stdout)["workspace"]["packages"]
    return [p["name"] for p in packages if not p["engines"]["tsc"].get("cached")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=20)
    parser.add_argument("--files", type=int, default=150)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    check = [str(SIGNALINT), "check", "--format", "json"]
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "ws", args.packages, args.files)
        total = sum(1 for _ in (root / "packages").rglob("*.ts"))
        cold, natives = [], []
        for _ in range(args.runs):
            shutil.rmtree(root / ".signalint", ignore_errors=True)
            cold.append(timed(check, root)[0])
            natives.append(native(root))
        timed(check, root)  # results touched just before a run are not stored
        warm = [timed(check, root)[0] for _ in range(args.runs)]
        server = Server(root)
        server.call("check_project", {})
        warm_server = []
        for _ in range(args.runs):
            started = time.perf_counter()
            server.call("check_project", {})
            warm_server.append(time.perf_counter() - started)
        server.close()

        leaf = f"p{args.packages - 1:02d}"
        edited = root / "packages" / leaf / "src" / "f3.ts"
        edited.write_text(edited.read_text() + "export const leafEdit = 1;\n")
        leaf_s, out = timed(check, root)
        leaf_reran = rerun(out)

        edited.write_text(edited.read_text() + 'export const fresh: number = "new";\n')
        _git(root, "commit", "-qam", "one new error in a leaf")
        timed(check, root)
        warm_after = statistics.median(timed(check, root)[0] for _ in range(args.runs))
        rev = [*check, "--new-from-rev", "HEAD~1"]
        first_s, out = timed(rev, root)
        found = json.loads(out)["baseline"]
        repeat = statistics.median(timed(rev, root)[0] for _ in range(args.runs))
        one_package = statistics.median(
            timed(
                [str(BIN / "tsc"), "-p", f"packages/{leaf}", "--noEmit", "--pretty", "false"], root
            )[0]
            for _ in range(args.runs)
        )

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 3)

    report = {
        "packages": args.packages,
        "ts_files": total,
        "cold_check_s": median(cold),
        "native_topological_tsc_plus_oxlint_s": median(natives),
        "cold_ratio": round(median(cold) / median(natives), 2),
        "warm_unchanged_cli_s": median(warm),
        "warm_unchanged_server_s": median(warm_server),
        "leaf_edit_check_s": round(leaf_s, 3),
        "leaf_edit_tsc_reran": leaf_reran,
        "warm_check_after_commit_s": round(warm_after, 3),
        "native_tsc_one_package_s": round(one_package, 3),
        "new_from_rev_first_s": round(first_s, 3),
        "new_from_rev_repeat_s": round(repeat, 3),
        "new_from_rev_budget_s": round(1.2 * warm_after + one_package, 3),
        "new_from_rev_new_unchanged": [found["new"], found["unchanged"]],
        "new_from_rev_checked_at_rev": found["checkedAtRev"],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
