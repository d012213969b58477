"""`check --new-from-rev`: the check at the revision runs the current check's
engines (D22), borrows the working tree's ignored files, and an engine that
still fails there falls back to the changed-lines rule, said in every format.

The projects here have their engines only in `node_modules/.bin` (wrappers
that log how they were called, then run the pinned binaries), no managed
engines and no engine on PATH: the case where the old tree used to find no
engine at all and every issue came out new.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from signalint.cli.main import main

from .conftest import require_engine
from .helpers import write_executable

pytestmark = [pytest.mark.real, pytest.mark.usefixtures("settled_inputs")]

TS_SOURCE = """\
export const a: number = "one";
export const b: string = 2;
export function f(x: number): string {
  return x;
}
"""
JS_SOURCE = """\
var unused = 1;
let never = 2;
export const kept = never;
"""
ESLINT_CONFIG = """\
export default [
  {
    files: ["**/*.js"],
    rules: { "no-unused-vars": "error", "prefer-const": "error", "no-var": "warn" },
  },
];
"""
PINNED: dict[str, Path] = {}
TSCONFIG = {
    "compilerOptions": {"strict": True, "noEmit": True, "skipLibCheck": True, "types": []},
    "include": ["src/**/*.ts"],
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture
def only_project_engines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No managed engines and a PATH with node, git and a shell only; the
    pinned binaries are found first (the wrappers run them)."""
    PINNED.update({name: require_engine(name) for name in ("tsc", "eslint")})
    empty = tmp_path / "no-managed-engines"
    empty.mkdir()
    monkeypatch.setenv("SIGNALINT_ENGINES_DIR", str(empty))
    tools = tmp_path / "path-bin"
    tools.mkdir()
    for name in ("node", "git", "bash", "sh", "env"):
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"{name} is not installed")
        (tools / name).symlink_to(found)
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    monkeypatch.delenv("SIGNALINT_MONOREPO_MODE", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    return tmp_path / "calls.log"


def project_engine(root: Path, name: str, log: Path) -> Path:
    """`node_modules/.bin/<name>`: a wrapper logging the path it was run by,
    then running the pinned binary."""
    wrapper = f'echo "$0" >> "{log}"\nexec "{PINNED[name]}" "$@"\n'
    return write_executable(root / "node_modules" / ".bin" / name, wrapper)


def typescript_project(root: Path, log: Path, *, eslint: bool = True) -> Path:
    """tsc (and ESLint) in the project's node_modules only; committed."""
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "p", "private": true, "type": "module"}\n')
    (root / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    (root / "src" / "a.ts").write_text(TS_SOURCE)
    engines = {"oxlint": False, "tsc": True, "biome": False, "eslint": eslint}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    if eslint:
        (root / "eslint.config.js").write_text(ESLINT_CONFIG)
        (root / "src" / "b.js").write_text(JS_SOURCE)
        project_engine(root, "eslint", log)
    project_engine(root, "tsc", log)
    (root / ".gitignore").write_text("node_modules/\n.signalint/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    return Path(os.path.realpath(root))


def check_json(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = main(["check", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_the_check_at_rev_runs_the_project_engines_the_current_check_ran(
    tmp_path: Path,
    only_project_engines: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    log = only_project_engines
    root = typescript_project(tmp_path / "p", log)
    source = root / "src" / "a.ts"
    source.write_text(source.read_text() + 'export const planted: number = "new";\n')
    in_project(root)
    code, everything = check_json(capsys=capsys)
    assert code == 1
    engines = everything["engines"]
    assert isinstance(engines, dict)
    assert {n: e["status"] for n, e in engines.items()} == {"tsc": "ok", "eslint": "ok"}
    total = everything["totalIssues"]
    assert isinstance(total, int) and total > 2
    log.unlink()

    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert code == 1
    found = document["baseline"]
    assert isinstance(found, dict)
    assert found["enginesNotOkAtRev"] == []
    assert found["fallback"] == []
    assert (found["new"], found["unchanged"]) == (1, total - 1)
    remaining = document["remainingIssues"]
    assert isinstance(remaining, list)
    assert [(i["file"], i["line"], i["rule"]) for i in remaining] == [("src/a.ts", 6, "TS2322")]
    # Both sides ran the project's own wrappers, by the same path.
    calls = Counter(log.read_text().split())
    assert set(calls) <= {
        str(root / "node_modules" / ".bin" / "tsc"),
        str(root / "node_modules" / ".bin" / "eslint"),
    }
    assert str(root / "node_modules" / ".bin" / "tsc") in calls
