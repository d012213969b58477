"""The pre-commit hook with the real `pre-commit` framework (pinned in the
test extra) on a throwaway git repository, as docs/ci.md#pre-commit
documents it: blocked with the issue shown, passing once fixed, passing
over ignored files and files no enabled engine checks, `--all-files`
giving what `signalint check` gives. pre-commit's own cache stays in the
test's temporary directory (PRE_COMMIT_HOME)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from signalint.daemon import client
from signalint.daemon.place import place
from signalint.engines import resolve
from tests.conftest import REPO, require_engine
from tests.source_clone import committed_clone

VENV_BIN = Path(sys.executable).parent
PRE_COMMIT = VENV_BIN / "pre-commit"
# The configuration docs/ci.md shows for the route without a download.
LOCAL_CONFIG = REPO / "examples" / "ci" / "pre-commit-config.local.yaml"

TSCONFIG = """{
  "compilerOptions": {"target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
                      "strict": true, "skipLibCheck": true, "types": []},
  "include": ["src/**/*.ts"]
}
"""
SETTINGS = """{
  "engines": {"oxlint": true, "tsc": true},
  "ignore": ["node_modules/**", "dist/**", ".signalint/**"]
}
"""
# A type error only tsc finds, in a file of the program `src/` makes.
BROKEN = 'import { total } from "./lib";\nexport const shown: string = total([1, 2]);\n'
FIXED = 'import { total } from "./lib";\nexport const shown: string = String(total([1, 2]));\n'
LIB = "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n"


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        HOME=str(tmp_path / "home"),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        # `language: system` finds the installed `signalint` on PATH.
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', os.defpath)}",
        SIGNALINT_DAEMON="0",
        # The managed engines, found under the real HOME before it moves.
        SIGNALINT_ENGINES_DIR=str(resolve.managed_dir()),
    )
    env.pop("SIGNALINT_PROJECT_ROOT", None)
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


def _git(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )


def _project(tmp_path: Path, env: dict[str, str], config: str) -> Path:
    """A git repository with a small TypeScript project and the hook installed."""
    repo = tmp_path / "project"
    (repo / "src").mkdir(parents=True)
    (repo / "package.json").write_text('{"name": "hooked", "private": true, "type": "module"}\n')
    (repo / "tsconfig.json").write_text(TSCONFIG)
    (repo / "signalint.config.json").write_text(SETTINGS)
    (repo / ".gitignore").write_text(".signalint/\n")
    (repo / "src" / "lib.ts").write_text(LIB)
    (repo / ".pre-commit-config.yaml").write_text(config)
    assert _git(repo, env, "init", "-q", "-b", "main").returncode == 0
    _git(repo, env, "add", "-A")
    first = _git(repo, env, "commit", "-q", "--no-verify", "-m", "start")
    assert first.returncode == 0, first.stderr
    installed = subprocess.run(
        [str(PRE_COMMIT), "install"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return repo


def _commit(repo: Path, env: dict[str, str], *files: str) -> subprocess.CompletedProcess[str]:
    added = _git(repo, env, "add", "-f", *files)
    assert added.returncode == 0, added.stderr
    return _git(repo, env, "commit", "-m", "change")


@pytest.fixture
def engines() -> None:
    require_engine("oxlint")
    require_engine("tsc")


@pytest.mark.real
def test_the_documented_local_hook_blocks_passes_and_passes_over(
    tmp_path: Path, engines: None
) -> None:
    env = _env(tmp_path)
    repo = _project(tmp_path, env, LOCAL_CONFIG.read_text())

    # A type error in a staged file: blocked, with tsc's issue shown.
    (repo / "src" / "use.ts").write_text(BROKEN)
    blocked = _commit(repo, env, "src/use.ts")
    shown = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, shown
    assert "src/use.ts:2:" in shown and "TS2322" in shown, shown
    assert _git(repo, env, "rev-list", "--count", "HEAD").stdout.strip() == "1"

    # Fixed: the commit goes through.
    (repo / "src" / "use.ts").write_text(FIXED)
    fixed = _commit(repo, env, "src/use.ts")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr

    # Only a file under an ignored path (`dist/**`): passed over.
    (repo / "dist").mkdir()
    (repo / "dist" / "out.js").write_text("var unused = 1 == 1;\n")
    ignored = _commit(repo, env, "dist/out.js")
    assert ignored.returncode == 0, ignored.stdout + ignored.stderr
    assert "refused" not in ignored.stdout + ignored.stderr

    # A Python file in a project whose engines are all JavaScript ones.
    (repo / "tool.py").write_text("import os\n")
    python = _commit(repo, env, "tool.py")
    assert python.returncode == 0, python.stdout + python.stderr
    assert "Nothing was checked" not in python.stdout + python.stderr

    # An ignored file beside a broken one: still blocked on the broken one,
    # and tsc checks the program `src/use.ts` belongs to (the error is tsc's).
    (repo / "dist" / "more.js").write_text("var x = 1;\n")
    (repo / "src" / "use.ts").write_text(BROKEN)
    both = _commit(repo, env, "dist/more.js", "src/use.ts")
    assert both.returncode != 0
    assert "TS2322" in both.stdout + both.stderr
    assert _git(repo, env, "rev-list", "--count", "HEAD").stdout.strip() == "4"


@pytest.mark.real
def test_the_hook_s_check_runs_in_the_project_s_daemon(tmp_path: Path, engines: None) -> None:
    """With the project's daemon running, the hook's check is handed to it
    (engines kept warm) and still blocks, then passes once fixed."""
    env = _env(tmp_path)
    env.pop("SIGNALINT_DAEMON")
    repo = _project(tmp_path, env, LOCAL_CONFIG.read_text())
    signalint = str(VENV_BIN / "signalint")
    started = subprocess.run(
        [signalint, "daemon", "start"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        (repo / "src" / "use.ts").write_text(BROKEN)
        blocked = _commit(repo, env, "src/use.ts")
        assert blocked.returncode != 0 and "TS2322" in blocked.stdout + blocked.stderr
        (repo / "src" / "use.ts").write_text(FIXED)
        fixed = _commit(repo, env, "src/use.ts")
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        answered = client.ask(place(repo, env), {"op": "status"})
        assert answered["requests"] == 2, answered
    finally:
        subprocess.run([signalint, "daemon", "stop"], cwd=repo, env=env, capture_output=True)


ISSUE_LINE = re.compile(r"^\S+:\d+:\d+\s+(error|warning|info)\s", re.MULTILINE)


def _issue_lines(text: str) -> list[str]:
    """The issue lines of a text report (file:line:col severity engine rule message [id])."""
    return sorted(line for line in text.splitlines() if ISSUE_LINE.match(line))


@pytest.mark.real
def test_all_files_gives_what_signalint_check_gives(tmp_path: Path, engines: None) -> None:
    env = _env(tmp_path)
    repo = _project(tmp_path, env, LOCAL_CONFIG.read_text())
    (repo / "src" / "use.ts").write_text(BROKEN)
    (repo / "src" / "other.ts").write_text("export const n: number = 'x';\nlet unused = 1;\n")
    (repo / "dist").mkdir()
    (repo / "dist" / "out.js").write_text("var unused = 1 == 1;\n")
    (repo / "tool.py").write_text("import os\n")
    _git(repo, env, "add", "-A")

    hook = subprocess.run(
        [str(PRE_COMMIT), "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True
    )
    direct = subprocess.run(
        [str(VENV_BIN / "signalint"), "check", "--format", "text", "--no-cache"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert direct.returncode == 1, direct.stdout + direct.stderr
    assert hook.returncode == 1, hook.stdout + hook.stderr
    expected = _issue_lines(direct.stdout)
    assert len(expected) >= 3 and any("TS2322" in line for line in expected)
    assert _issue_lines(hook.stdout) == expected


@pytest.mark.real
def test_the_shipped_manifest_from_the_repository_pinned_to_a_commit(
    tmp_path: Path, engines: None
) -> None:
    """The route docs/ci.md gives first: `repo:` this repository, `rev:` a
    commit; pre-commit installs Signalint from it (`language: python`)."""
    env = _env(tmp_path)
    source = tmp_path / "signalint-source"
    rev = committed_clone(source)

    documented = yaml.safe_load((REPO / "examples" / "ci" / "pre-commit-config.yaml").read_text())
    documented["repos"][0]["repo"] = str(source)
    documented["repos"][0]["rev"] = rev
    repo = _project(tmp_path, env, yaml.safe_dump(documented, sort_keys=False))

    (repo / "src" / "use.ts").write_text(BROKEN)
    (repo / "dist").mkdir()
    (repo / "dist" / "out.js").write_text("var x = 1;\n")
    blocked = _commit(repo, env, "src/use.ts", "dist/out.js")
    assert blocked.returncode != 0, blocked.stdout + blocked.stderr
    assert "TS2322" in blocked.stdout + blocked.stderr
    (repo / "src" / "use.ts").write_text(FIXED)
    fixed = _commit(repo, env, "src/use.ts", "dist/out.js")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
