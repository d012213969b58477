"""TypeScript project references: Signalint against native `tsc -b`, one run.

    .venv/bin/python bench/bench_references.py [--files 80] [--runs 5]

Generates a references project (4 composite packages of `--files` files
each: `core`; `util` and `model` reference `core`; `app` references both;
a root with its own `src/` and references to all four; a few type errors in
`app` and the root) with only tsc enabled, then measures:
1. a warm, unchanged `signalint check`: how many engine processes it starts
   (counted by a logging `node_modules/.bin/tsc` in a copy of the project);
2. a one-file edit in `util` followed by `check_files` on that file in a
   running `signalint-mcp`, against native incremental `tsc -b` (warm, its
   outputs in the project's own tree) after the same edit, and the same
   edit followed by `check_project`;
3. a cold `signalint check --no-cache` against native `tsc -b` from clean.
Medians of `--runs`. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_incremental import SIGNALINT, Server, run, timed
from signalint.engines.resolve import managed_dir

TSC = managed_dir() / "node_modules" / ".bin" / "tsc"
PACKAGES = {"core": [], "util": ["core"], "model": ["core"], "app": ["util", "model"]}
OPTIONS = {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": True,
    "skipLibCheck": True,
    "types": [],
}
FILE = """import {{ {prev_name} }} from "./{prev}";
{imports}
export const {name}: number = {prev_name} + {index};

export function compute{index}(input: number): string {{
  return `${{input + {name}}}`;
}}
"""
EDITS = [
    "export const edited{i}: number = {i};\n",
    "export const edited{i}: number = {i} + 1;\nexport const more{i} = (): number => 1;\n",
]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(root: Path, files: int) -> Path:
    """Write the references project under `root`."""
    _write(root / "package.json", json.dumps({"name": "refs", "private": True}) + "\n")
    _write(
        root / "signalint.config.json",
        json.dumps({"engines": {"oxlint": False, "tsc": True, "biome": False, "eslint": False}}),
    )
    for package, deps in PACKAGES.items():
        config = {
            "compilerOptions": {**OPTIONS, "composite": True, "outDir": "dist", "rootDir": "src"},
            "include": ["src"],
            "references": [{"path": f"../{d}"} for d in deps],
        }
        _write(root / "packages" / package / "tsconfig.json", json.dumps(config, indent=2))
        _sources(root / "packages" / package / "src", package, files, deps)
    root_config = {
        "compilerOptions": {**OPTIONS, "noEmit": True},
        "include": ["src"],
        "references": [{"path": f"packages/{p}"} for p in PACKAGES],
    }
    _write(root / "tsconfig.json", json.dumps(root_config, indent=2))
    _sources(root / "src", "root", max(files // 4, 2), ["app"], depth=1)
    return root


def _sources(src: Path, package: str, files: int, deps: list[str], depth: int = 2) -> None:
    up = "../" * (depth + (0 if package == "root" else 1))
    for index in range(files):
        name = f"{package}{index}"
        if index == 0:
            imports = "".join(
                f'import {{ {d}0 }} from "{up}packages/{d}/src/f0";\nexport const use{d} = {d}0;\n'
                if package == "root"
                else f'import {{ {d}0 }} from "../../{d}/src/f0";\nexport const use{d} = {d}0;\n'
                for d in deps
            )
            text = f"{imports}export const {name}: number = 0;\n"
        else:
            text = FILE.format(
                prev=f"f{index - 1}",
                prev_name=f"{package}{index - 1}",
                name=name,
                index=index,
                imports="",
            )
        if package in ("app", "root") and index % 20 == 1:
            text += f'export const wrong{index}: number = "planted";\n'
        _write(src / f"f{index}.ts", text)


def count_warm_spawns(project: Path, workdir: Path) -> int:
    """Engine processes started by a warm, unchanged CLI check."""
    copy = workdir / "counting"
    shutil.copytree(project, copy)
    log = workdir / "tsc.log"
    wrapper = copy / "node_modules" / ".bin" / "tsc"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f'#!/usr/bin/env bash\necho "$*" >> "{log}"\nexec "{TSC}" "$@"\n')
    wrapper.chmod(0o755)
    run([str(SIGNALINT), "check"], copy)
    run([str(SIGNALINT), "check"], copy)  # a result touched just before a run is not stored
    before = len(log.read_text().splitlines())
    run([str(SIGNALINT), "check"], copy)
    return len(log.read_text().splitlines()) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=80)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        ours = generate(work / "ours", args.files)
        native = work / "native"
        shutil.copytree(ours, native)
        build = [str(TSC), "-b", "--pretty", "false"]
        spawns = count_warm_spawns(ours, work)

        cold_ours, cold_native = [], []
        for _ in range(args.runs):
            cold_ours.append(timed(lambda: run([str(SIGNALINT), "check", "--no-cache"], ours)))
            run([str(TSC), "-b", "--clean"], native)
            cold_native.append(timed(lambda: run(build, native)))

        target = "packages/util/src/f0.ts"
        original = (ours / target).read_text()
        server = Server(ours)
        server.call("check_project", {})
        run(build, native)  # warm native outputs and build info
        edit_files, edit_project, edit_native = [], [], []
        for index in range(args.runs):
            text = original + EDITS[index % 2].format(i=index)
            (ours / target).write_text(text)
            (native / target).write_text(text)
            edit_files.append(timed(lambda: server.call("check_files", {"files": [target]})))
            edit_native.append(timed(lambda: run(build, native)))
        for index in range(args.runs):
            text = original + EDITS[index % 2].format(i=index + 7)
            (ours / target).write_text(text)
            edit_project.append(timed(lambda: server.call("check_project", {})))
        server.close()
        total_files = sum(
            1 for f in ours.rglob("*.ts") if not {"node_modules", ".signalint"} & set(f.parts)
        )

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 3)

    report = {
        "packages": len(PACKAGES),
        "source_files": total_files,
        "warm_unchanged_engine_processes": spawns,
        "edit_check_files_server_s": median(edit_files),
        "edit_native_tsc_b_incremental_s": median(edit_native),
        "edit_ratio": round(median(edit_files) / median(edit_native), 2),
        "edit_check_project_server_s": median(edit_project),
        "cold_no_cache_check_s": median(cold_ours),
        "cold_native_tsc_b_s": median(cold_native),
        "cold_ratio": round(median(cold_ours) / median(cold_native), 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
