"""Regenerate tests/ingest/recorded/ by running the real tools on tests/fixtures/reports/.

Not a test module. Usage (from the repository root):

    .venv/bin/python tests/ingest/record_reports.py

Ruff and mypy come from the managed engines' virtual environment, ESLint
from the managed npm directory (`signalint engines install`), Cargo/Clippy
from PATH or ~/.cargo/bin. Each report is the tool's stdout with the
fixture directory replaced by `<ROOT>` (tests substitute their copy's
path back). golangci-lint is not installable from the registries this
project uses (it needs a newer Go toolchain than Debian's), so its report
(`golangci.json`) is written by hand from golangci-lint's documented JSON
format (`--output.json.path stdout`: `{"Issues": [...], "Report": {...}}`)
and is not regenerated here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "reports"
RECORDED = HERE / "recorded"
ROOT = "<ROOT>"
ENGINES = Path(os.environ.get("SIGNALINT_ENGINES_DIR", Path.home() / ".cache/signalint/engines"))


def _run(argv: list[str], cwd: Path) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if not done.stdout.strip():
        sys.exit(f"{argv[0]} printed nothing (exit {done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def _save(name: str, text: str, root: Path) -> None:
    portable = text.replace(str(root), ROOT)
    (RECORDED / name).write_text(portable)
    print(f"recorded {name} ({len(portable)} bytes)")


def main() -> None:
    RECORDED.mkdir(exist_ok=True)
    python_bin = ENGINES / "python" / "bin"
    with tempfile.TemporaryDirectory() as temp:
        root = Path(os.path.realpath(temp)) / "reports"
        shutil.copytree(FIXTURES, root)
        py = root / "py"
        ruff = [str(python_bin / "ruff"), "check", "--no-cache", "--output-format"]
        _save("ruff.json", _run([*ruff, "json", "app.py"], py), root)
        _save("ruff.sarif", _run([*ruff, "sarif", "app.py"], py), root)
        mypy = [str(python_bin / "mypy"), "-O", "json", "--no-incremental", "--strict", "app.py"]
        _save("mypy.jsonl", _run(mypy, py), root)
        eslint = [str(ENGINES / "node_modules" / ".bin" / "eslint"), "--format", "json", "app.js"]
        _save("eslint.json", _run(eslint, root / "js"), root)
        cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
        clippy = [cargo, "clippy", "--message-format", "json", "--quiet"]
        env_target = root / "rust" / "target"
        _save("clippy.jsonl", _run([*clippy, "--target-dir", str(env_target)], root / "rust"), root)


if __name__ == "__main__":
    main()
