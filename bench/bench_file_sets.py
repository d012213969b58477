"""ESLint and Biome over a repository with many files they do not lint.

    .venv/bin/python bench/bench_file_sets.py [--js 1000] [--images 20000] [--text 2000]

A synthetic project: `--js` JavaScript files (one warning each), 200 JSON and
200 Markdown files, `--text` plain-text files and `--images` PNG files. The
ESLint config lints JS and nothing else; Biome lints what it handles (JS,
JSON; Markdown is processed). Reported, seconds, one run each (the state
directory is wiped before the cold runs): the native engine on `.`, our
cold check without cache, our cold check filling the cache, a warm
unchanged check, a warm check after editing one Markdown file (no engine
should start) and after editing one JS file.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from signalint.engines.resolve import managed_dir

BIN = managed_dir() / "node_modules" / ".bin"
SIGNALINT = Path(sys.executable).with_name("signalint")


def generate(root: Path, js: int, images: int, text: int) -> None:
    for sub in ("src", "docs", "data", "img", "notes"):
        (root / sub).mkdir(parents=True)
    for i in range(js):
        (root / "src" / f"m{i}.js").write_text(f"export const v{i} = {i};\nif (v{i} == 1) {{}}\n")
    for i in range(200):
        (root / "data" / f"d{i}.json").write_text(json.dumps({"k": i}) + "\n")
        (root / "docs" / f"p{i}.md").write_text(f"# Page {i}\n\nText.\n")
    for i in range(text):
        (root / "notes" / f"n{i}.txt").write_text(f"note {i}\n")
    png = b"\x89PNG\r\n\x1a\n" + bytes(200)
    for i in range(images):
        (root / "img" / f"i{i}.png").write_bytes(png)
    (root / "package.json").write_text('{"type": "module", "private": true}\n')
    (root / "eslint.config.js").write_text(
        'export default [{ files: ["**/*.js"], rules: { eqeqeq: "warn" } }];\n'
    )
    (root / "biome.json").write_text('{"linter": {"enabled": true}}\n')


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def bench(root: Path, engine: str) -> dict[str, float]:
    settings = {name: name == engine for name in ("oxlint", "tsc", "biome", "eslint")}
    (root / "signalint.config.json").write_text(json.dumps({"engines": settings}))
    native = {
        "eslint": [str(BIN / "eslint"), "--format", "json", "."],
        "biome": [str(BIN / "biome"), "lint", "--reporter=json", "--max-diagnostics=none", "."],
    }[engine]
    check = [str(SIGNALINT), "check", "--format", "json"]
    shutil.rmtree(root / ".signalint", ignore_errors=True)
    row = {"native": timed(native, root), "no_cache": timed([*check, "--no-cache"], root)}
    shutil.rmtree(root / ".signalint", ignore_errors=True)
    row["cold"] = timed(check, root)
    row["warm"] = timed(check, root)
    (root / "docs" / "p0.md").write_text("# Page 0, edited\n")
    row["md_edit"] = timed(check, root)
    (root / "src" / "m0.js").write_text("export const v0 = 0;\n")
    row["js_edit"] = timed(check, root)
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--js", type=int, default=1000)
    parser.add_argument("--images", type=int, default=20000)
    parser.add_argument("--text", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        generate(root, args.js, args.images, args.text)
        print(f"{args.js} JS, 200 JSON, 200 Markdown, {args.text} text, {args.images} PNG files")
        print(
            f"{'engine':<7} "
            + " ".join(
                f"{k:>8}" for k in ("native", "no_cache", "cold", "warm", "md_edit", "js_edit")
            )
        )
        for engine in ("eslint", "biome"):
            row = bench(root, engine)
            print(f"{engine:<7} " + " ".join(f"{v:8.2f}" for v in row.values()))


if __name__ == "__main__":
    main()
