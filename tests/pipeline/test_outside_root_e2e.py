"""A secret outside the root appears nowhere (issue 37), end to end through the CLI.

One project with every engine enabled links a secret from outside its
root four ways (a nested file, a directory, a chain of links, a file of a
`node_modules` outside the root). Its text must appear in no answer (JSON,
text, SARIF, GitHub; cached and `--no-cache`) and in no file under the
state directory (the result cache, snapshots, kept answers, engine state).
A control with the same text as a real file of the project finds it in
both, so the scan can fail. The MCP answers: tests/server/test_outside_root_mcp.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.cli.main import main
from signalint.settings.config import state_dir
from tests.conftest import require_engine

SECRET = "sk_live_SECRET123"
JS_SECRET = (
    f"API_KEY = {SECRET};\nvar {SECRET}_unused = 1;\nlet other_{SECRET} = {SECRET}_unused == 1;\n"
)
PY_SECRET = f'API_KEY = {SECRET}\nother_{SECRET}: int = "{SECRET}"\n'
FORMATS = ("json", "text", "sarif", "github")
ENGINES = (
    "oxlint",
    "biome",
    "eslint",
    "tsc",
    "ruff",
    "mypy",
    "pyright",
    "basedpyright",
    "ty",
    "pyrefly",
)
# What each Python checker reads its configuration from: one pyproject.toml.
PYPROJECT = """[tool.mypy]
files = ["src"]

[tool.basedpyright]
include = ["src"]

[tool.ty.src]
include = ["src"]

[tool.pyrefly]
project-includes = ["src"]
"""


def make_project(base: Path) -> tuple[Path, Path]:
    """Every engine configured over `src/` (a TypeScript, a JavaScript and a
    Python file, each with an ordinary issue); the outside directory beside it."""
    root, outside = base / "proj", base / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    (root / "src" / "main.ts").write_text("export const a: number = 'text';\n")
    (root / "src" / "util.js").write_text("export const b = 1;\ndebugger;\n")
    (root / "src" / "mod.py").write_text('x: int = "text"\n')
    (root / "signalint.config.json").write_text(
        json.dumps({"engines": dict.fromkeys(ENGINES, True)})
    )
    (root / "package.json").write_text('{"name": "p", "type": "module"}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}\n'
    )
    (root / "biome.json").write_text('{"linter": {"rules": {"recommended": true}}}\n')
    (root / "eslint.config.js").write_text(
        'export default [{ rules: { "no-undef": "error", "no-unused-vars": "error" } }];\n'
    )
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "pyrightconfig.json").write_text('{"include": ["src"]}\n')
    return root, outside


def link_secrets(root: Path, outside: Path) -> None:
    for ext, text in (("ts", JS_SECRET), ("js", JS_SECRET), ("py", PY_SECRET)):
        (outside / f"secret.{ext}").write_text(text)
        (root / "src" / "deep").mkdir(exist_ok=True)
        (root / "src" / "deep" / f"config.{ext}").symlink_to(outside / f"secret.{ext}")
        (outside / f"two.{ext}").symlink_to(outside / f"secret.{ext}")
        (root / "src" / f"one.{ext}").symlink_to(outside / f"two.{ext}")
        (root / "src" / f"chain.{ext}").symlink_to(f"one.{ext}")
        package = outside / "node_modules" / "pkg"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"index.{ext}").write_text(text)
        (root / "src" / f"vendor.{ext}").symlink_to(package / f"index.{ext}")
    (outside / "lib").mkdir()
    (outside / "lib" / "secret.ts").write_text(JS_SECRET)
    (outside / "lib" / "secret.py").write_text(PY_SECRET)
    (root / "src" / "linked").symlink_to(outside / "lib", target_is_directory=True)


def answers(capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    """The check's answer (stdout, stderr) in every format, cached (twice) and cold."""
    said = []
    for argv in (
        *(["check", "--format", f] for f in FORMATS),
        ["check"],
        *(["check", "--no-cache", "--format", f] for f in FORMATS),
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (0, 1), (argv, out, err)
        said.append((out, err))
        if argv[-1] in ("check", "json"):
            # JSON summarizes; its retained check lists every issue.
            assert main(["show", json.loads(out)["checkId"]]) == 0
            said.append(capsys.readouterr())
    return said


def remote_files(root: Path, remote: Path) -> list[Path]:
    """What a check run as its own process (so its writes to the shared
    store finish at exit) put in a shared store in `remote`."""
    env = {
        **os.environ,
        "SIGNALINT_REMOTE_CACHE": f"fs://{remote}",
        "SIGNALINT_REMOTE_CACHE_KEY": "a-test-signing-key-of-at-least-32-bytes",
    }
    # Its own state: nothing is found locally, so everything is written.
    env["SIGNALINT_STATE_DIR"] = str(remote.parent / "remote-state")
    cli = Path(sys.executable).parent / "signalint"
    done = subprocess.run(
        [str(cli), "check", "--format", "sarif"], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr
    files = [p for p in remote.rglob("*") if p.is_file()]
    assert files, "nothing reached the shared store: the scan would prove nothing"
    return files


def state_files(root: Path) -> list[Path]:
    return [p for p in state_dir(root).rglob("*") if p.is_file() and not p.is_symlink()]


def in_state(root: Path) -> list[Path]:
    return [p for p in state_files(root) if SECRET.encode() in p.read_bytes()]


@pytest.mark.real
def test_a_secret_outside_the_root_is_in_no_answer_and_no_state_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ENGINES:
        require_engine(name)
    root, outside = make_project(tmp_path)
    link_secrets(root, outside)
    monkeypatch.chdir(root)
    said = answers(capsys)
    for out, err in said:
        assert SECRET not in out and SECRET not in err
    # The engines still checked the project's own files, and say what they skipped.
    payload = json.loads(said[0][0])
    assert payload["totalIssues"] > 0
    assert "src/linked/" in json.dumps(payload["engines"])
    sarif = json.loads(said[FORMATS.index("sarif") + 1][0])
    assert sarif["runs"]
    assert state_files(root), "the checks kept nothing: the scan would prove nothing"
    assert in_state(root) == []
    shared = remote_files(root, tmp_path / "remote")
    assert [p for p in shared if SECRET.encode() in p.read_bytes()] == []


@pytest.mark.real
def test_control_the_same_text_inside_the_root_is_found_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("tsc", "oxlint", "pyright"):
        require_engine(name)
    root, _ = make_project(tmp_path)
    (root / "src" / "config.ts").write_text(JS_SECRET)
    (root / "src" / "config.py").write_text(PY_SECRET)
    monkeypatch.chdir(root)
    said = answers(capsys)
    # Every answer that lists the issues (JSON summarizes them).
    missing = [i for i, (out, _) in enumerate(said) if SECRET not in out and '"checkId"' not in out]
    assert missing == [], missing
    found = {p.name for p in in_state(root)}
    assert "cache.sqlite" in found or "cache.sqlite-wal" in found
    assert any(p.parent.name == "snapshots" for p in in_state(root))
    shared = remote_files(root, tmp_path / "remote")
    assert [p for p in shared if SECRET.encode() in p.read_bytes()]


@pytest.mark.real
def test_the_old_tree_of_new_from_rev_leaks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link out of the root committed at the revision: the old tree's
    check (`--new-from-rev`) leaves it out as the current one does."""
    require_engine("tsc")
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.ts").write_text(JS_SECRET)
    (root / "package.json").write_text('{"name": "p"}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}\n'
    )
    engines = {name: name == "tsc" for name in ENGINES}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / "src" / "main.ts").write_text("export const a: number = 1;\n")
    (root / "src" / "config.ts").symlink_to(outside / "secret.ts")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "one"]):
        subprocess.run([*git, *argv], cwd=root, check=True)
    (root / "src" / "main.ts").write_text("export const a: number = 'new';\n")
    subprocess.run([*git, "commit", "-qam", "two"], cwd=root, check=True)
    monkeypatch.chdir(root)
    for argv in (
        ["check", "--new-from-rev", "HEAD~1", "--format", "text"],
        ["check", "--new-from-rev", "HEAD~1", "--format", "sarif"],
        ["check", "--new-from-rev", "HEAD~1", "--no-cache", "--format", "text"],
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 1, (out, err)
        assert SECRET not in out and SECRET not in err
        assert "TS2322" in out  # the new error, found against the old tree
        if argv[-1] == "text":
            assert "src/config.ts" in out  # named as not checked
    assert in_state(root) == []
