"""What Signalint keeps is invisible to the project's own tools (real tier).

A project whose Pyright, mypy, tsc and ESLint are configured with an
`exclude` of their own (which, for the tools that have one, replaces their
default exclusion of hidden directories), run by the developer as the
project's CI would, must read the same files and report the same
diagnostics before and after every Signalint mode: a cold check, a kept-warm
one through the daemon, `--new-from-rev` (which copies an old revision's
tree, with the project's `.venv` and `node_modules` linked in), shards and
`--no-cache`. tsc's references make Signalint's check run in build mode,
whose wrapper configs link node_modules and emit declarations.

Which tool walks a hidden directory depends on the tool and its version:
ESLint 9 lints dot directories (at 1fad700 it linted the old revision's
copy in `.signalint/baseline/trees/` after `--new-from-rev`: 2 files became
4); mypy never enters one; tsc's `**` does not match one; Pyright 1.1.414
keeps its `**/.*` exclusion even beside an `exclude` of the project's (older
releases replaced it, as in the Python repository of issue 37).

Run with the state directory at its default (`.signalint/`) and with
`SIGNALINT_STATE_DIR` naming a directory that is not hidden, which every one
of these tools walks: whatever Signalint keeps there must hold no source
file and no link to one (at 1fad700, after a cold check and
`--new-from-rev`: Pyright 1 file to 2, tsc 2 to 6, ESLint 2 to 4, and mypy
refused the copy's duplicate modules).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint import answers
from signalint.project import work_dir as work
from tests.conftest import require_engine
from tests.helpers import git

pytestmark = pytest.mark.real

SIGNALINT = Path(sys.executable).parent / "signalint"
SOURCE_SUFFIXES = (".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_FOUND_SOURCE = re.compile(r"Found source:\s+BuildSource\(path='(?P<path>[^']+)'")

FILES = {
    ".gitignore": ".venv/\nnode_modules/\n.signalint/\nsigstate/\ndist/\n",
    "signalint.config.json": json.dumps(
        {
            "engines": {
                "oxlint": False,
                "biome": False,
                "ruff": False,
                "tsc": True,
                "eslint": True,
                "mypy": True,
                "pyright": True,
            }
        }
    ),
    # Each tool's own exclude: none of them names a hidden directory.
    "pyrightconfig.json": json.dumps({"exclude": ["dist", ".venv", "node_modules"]}),
    "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n\n[tool.mypy]\nexclude = "^dist/"\n',
    "eslint.config.js": (
        'export default [{ files: ["**/*.js"], ignores: ["dist/**"],'
        ' rules: { "no-var": "error" } }];\n'
    ),
    "tsconfig.json": json.dumps(
        {
            "compilerOptions": {"composite": True, "strict": True, "types": ["fake"]},
            "exclude": ["dist", "lib"],
            "references": [{"path": "./lib"}],
        }
    ),
    "lib/tsconfig.json": json.dumps(
        {"compilerOptions": {"composite": True, "strict": True}, "include": ["src"]}
    ),
    "lib/src/util.ts": "export const half = (n: number): number => n / 2;\n",
    "app/main.py": "def answer() -> int:\n    return 42\n",
    "web/a.ts": "export const count: number = fakeGlobal;\n",
    "web/b.js": "var kept = 1;\nexport default kept;\n",
    "node_modules/@types/fake/index.d.ts": "declare const fakeGlobal: number;\n",
    "node_modules/@types/fake/package.json": json.dumps(
        {"name": "@types/fake", "version": "1.0.0", "types": "index.d.ts"}
    ),
}
# The second commit, so that `--new-from-rev HEAD~1` copies another tree.
EDITS = {
    "app/main.py": 'def answer() -> int:\n    return "forty-two"\n',
    "web/a.ts": 'export const count: number = fakeGlobal;\nexport const bad: number = "x";\n',
    "web/b.js": "var kept = 1;\nvar more = 2;\nexport default kept + more;\n",
}


def _run(argv: list[str], root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def project_tools(root: Path, env: dict[str, str], cache: Path) -> dict[str, Any]:
    """What the project's own tools read and say, as the developer runs them."""
    seen: dict[str, Any] = {}
    pyright = _run([str(require_engine("pyright")), "--outputjson"], root, env)
    report = json.loads(pyright.stdout)
    seen["pyright"] = (
        report["summary"]["filesAnalyzed"],
        sorted(
            (d["file"], d["range"]["start"]["line"], d.get("rule", ""))
            for d in report["generalDiagnostics"]
        ),
    )
    mypy = _run(
        [str(require_engine("mypy")), "--verbose", "--cache-dir", str(cache), "."], root, env
    )
    seen["mypy"] = (
        sorted(m["path"] for m in _FOUND_SOURCE.finditer(mypy.stderr)),
        sorted(line for line in mypy.stdout.splitlines() if ": " in line),
    )
    tsc = str(require_engine("tsc"))
    listed = _run([tsc, "-p", "tsconfig.json", "--listFilesOnly"], root, env)
    checked = _run([tsc, "-p", "tsconfig.json", "--noEmit", "--pretty", "false"], root, env)
    seen["tsc"] = (
        sorted(line for line in listed.stdout.splitlines() if str(root) in line),
        sorted(checked.stdout.splitlines()),
    )
    eslint = _run([str(require_engine("eslint")), "-f", "json", "."], root, env)
    seen["eslint"] = sorted(
        (r["filePath"], sorted((m["line"], m.get("ruleId") or "") for m in r["messages"]))
        for r in json.loads(eslint.stdout)
    )
    return seen


def signalint(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = _run([str(SIGNALINT), *args], root, env)
    assert done.returncode in (0, 1), done.stderr
    return done


def _sources_and_links(directory: Path) -> list[str]:
    """Every link, and every file a tool would read as code, under `directory`."""
    found = []
    for current, dirs, files in os.walk(directory):
        for name in [*dirs, *files]:
            path = os.path.join(current, name)
            if os.path.islink(path) or (name in files and name.endswith(SOURCE_SUFFIXES)):
                found.append(os.path.relpath(path, directory))
    return found


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "project"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # A real virtual environment: the old tree links it in.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the project")
    for rel, text in EDITS.items():
        (root / rel).write_text(text)
    git(root, "commit", "-qam", "new problems")
    yield root


@pytest.mark.parametrize("state", [".signalint", "sigstate"])
def test_every_mode_leaves_the_projects_own_tools_unchanged(
    project: Path, tmp_path: Path, state: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SIGNALINT_PROJECT_ROOT"}
    env.pop("SIGNALINT_DAEMON", None)
    if state != ".signalint":
        env["SIGNALINT_STATE_DIR"] = state  # not hidden: every tool walks it
    else:
        env.pop("SIGNALINT_STATE_DIR", None)
    cache = tmp_path / "mypy-cache"
    before = project_tools(project, env, cache)
    # The fixture's problems are seen: each tool's answer can change.
    assert before["pyright"][0] == 1 and before["pyright"][1]
    assert before["mypy"][0] == ["./app/main.py"] and before["mypy"][1]
    assert before["tsc"][1] and any(line.endswith("web/a.ts") for line in before["tsc"][0])
    assert [path for path, _ in before["eslint"]] == [
        str(project / "eslint.config.js"),
        str(project / "web" / "b.js"),
    ]

    def unchanged(mode: str) -> None:
        assert project_tools(project, env, cache) == before, f"after {mode}"
        kept = project / state
        assert kept.is_dir(), f"after {mode}"
        assert _sources_and_links(kept) == [], f"after {mode}"

    cold = signalint(project, env, "check", "--no-daemon")
    assert '"tsc"' in cold.stdout
    unchanged("a cold check")
    signalint(project, env, "check", "--no-daemon", "--no-cache")
    unchanged("a check with --no-cache")
    signalint(project, env, "check", "--no-daemon", "--new-from-rev", "HEAD~1")
    unchanged("a check with --new-from-rev")
    for shard in ("1/2", "2/2"):
        signalint(project, env, "check", "--no-daemon", "--shard", shard)
    unchanged("the checks of each shard")
    signalint(project, env, "daemon", "start")
    try:
        signalint(project, env, "check")
        source = project / "app" / "main.py"
        text = source.read_text()
        source.write_text(text + "# an edit\n")
        signalint(project, env, "check")  # kept warm
        source.write_text(text)
        signalint(project, env, "check", "--new-from-rev", "HEAD~1")
    finally:
        signalint(project, env, "daemon", "stop")
    unchanged("the daemon's checks")
    # What holds copies and wrappers is outside the project.
    home = work.for_project(project, env)
    assert home.is_dir() and not home.is_relative_to(project)
    assert any(home.glob("trees/*/app/main.py"))
    assert any(home.glob("tsc/build/**/lib/tsconfig.json"))


def _biome_paths(root: Path, env: dict[str, str]) -> list[tuple[str, str]]:
    """(file, category) of each diagnostic of the project's `biome check .`."""
    done = _run(
        [
            str(require_engine("biome")),
            "check",
            ".",
            "--reporter",
            "json",
            "--max-diagnostics=none",
        ],
        root,
        env,
    )
    report = json.loads(done.stdout)
    return sorted(
        (str((d.get("location") or {}).get("path") or ""), str(d.get("category") or ""))
        for d in report["diagnostics"]
    )


def test_biome_check_without_vcs_reads_nothing_signalint_keeps(tmp_path: Path) -> None:
    """A Biome project without VCS integration (so no ignore file applies, as
    resend-node's biome.jsonc) formats every JSON file it walks, the dot
    directories included: at 6efaf16 the check's kept answer and snapshots
    (`.signalint/answers/*.json`, `.signalint/snapshots/*.json`) gave the
    developer's `biome check .` three format errors (real-world tier,
    resend-node, 2026-12-07)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "biome.json").write_text(
        json.dumps({"formatter": {"indentStyle": "space", "lineWidth": 80}})
    )
    (root / "package.json").write_text(json.dumps({"name": "p", "version": "0.0.0"}) + "\n")
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": {"oxlint": False, "tsc": False, "eslint": False, "biome": True}})
        + "\n"
    )
    (root / "src").mkdir()
    (root / "src" / "a.js").write_text("debugger;\nexport const a = 1;\n")
    unset = ("SIGNALINT_PROJECT_ROOT", "SIGNALINT_STATE_DIR")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["SIGNALINT_DAEMON"] = "0"
    before = _biome_paths(root, env)
    assert ("src/a.js", "lint/suspicious/noDebugger") in before  # Biome runs and reports
    legacy = root / ".signalint" / "answers" / "0123abcd.json"  # an earlier release's answer
    legacy.parent.mkdir(parents=True)
    legacy.write_text('{"format": 2}')
    for _ in range(3):  # cold, cached (the answer is kept), answered from the kept answer
        signalint(root, env, "check")
        # An answer is kept only once what it read has settled: on a fast
        # machine the next check would otherwise start within that time.
        time.sleep(answers.SETTLE_NS / 1e9 + 0.2)
    kept = [p.relative_to(root).as_posix() for p in (root / ".signalint").rglob("*") if p.is_file()]
    assert any(p.startswith(".signalint/snapshots/") for p in kept), kept
    assert any(p.startswith(".signalint/answers/") and p.endswith(".answer") for p in kept), kept
    assert not legacy.exists()
    assert _biome_paths(root, env) == before
