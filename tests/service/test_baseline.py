"""`check --new-from-rev`: the check at the revision runs the current check's
engines (D22), borrows the working tree's ignored files, and an engine that
still fails there falls back to the changed-lines rule, said in every format.

The projects here have their engines only in `node_modules/.bin` (wrappers
that log how they were called, then run the pinned binaries), no managed
engines and no engine on PATH: the case where the old tree used to find no
engine at all and every issue came out new.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from signalint.project import work_dir as work
from tests.conftest import require_engine
from tests.helpers import git, write_executable
from tests.typescripts import install_typescript, typescript

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


@pytest.fixture
def only_project_engines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No managed engines and a PATH with node, git and a shell only; the
    pinned binaries are found first (the wrappers run them)."""
    PINNED.update({name: require_engine(name) for name in ("tsc", "eslint", "ruff")})
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


def check_json(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
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


def test_the_check_at_rev_runs_the_ruff_of_the_project_virtual_environment(
    tmp_path: Path,
    only_project_engines: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    log = only_project_engines
    root = tmp_path / "py"
    root.mkdir()
    wrapper = f'echo "$0" >> "{log}"\nexec "{PINNED["ruff"]}" "$@"\n'
    write_executable(root / ".venv" / "bin" / "ruff", wrapper)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "p"\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n'
    )
    engines = {"oxlint": False, "tsc": False, "biome": False, "eslint": False, "ruff": True}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / "app.py").write_text("import os\nx = 1; y = 2\n")
    (root / ".gitignore").write_text(".venv/\n.signalint/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    (root / "app.py").write_text("import os\nimport sys\nx = 1; y = 2\n")
    root = Path(os.path.realpath(root))
    in_project(root)
    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert code == 1
    found = document["baseline"]
    assert isinstance(found, dict)
    assert (found["enginesNotOkAtRev"], found["new"], found["unchanged"]) == ([], 1, 2)
    assert [(i["line"], i["rule"]) for i in document["remainingIssues"]] == [(2, "F401")]
    assert set(log.read_text().split()) == {str(root / ".venv" / "bin" / "ruff")}


GENERATED_CONFIG = """\
import { readFileSync } from "node:fs";

// The rules come from a build step's output, which git ignores.
const rules = JSON.parse(readFileSync(new URL("./generated/rules.json", import.meta.url)));
export default [{ files: ["**/*.js"], rules }];
"""


def test_the_old_tree_borrows_ignored_generated_files_engines_read(
    tmp_path: Path,
    only_project_engines: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    # ESLint's config reads an ignored JSON file, and an ignored declaration
    # file names a type the sources use: without them at REV, ESLint fails
    # there and tsc says "cannot find name" instead of the current TS2322.
    root = typescript_project(tmp_path / "p", only_project_engines)
    (root / "generated").mkdir()
    (root / "generated" / "rules.json").write_text(
        json.dumps({"no-unused-vars": "error", "prefer-const": "error", "no-var": "warn"})
    )
    (root / "src" / "types").mkdir()
    (root / "src" / "types" / "api.d.ts").write_text("type ApiName = string;\n")
    (root / "eslint.config.js").write_text(GENERATED_CONFIG)
    (root / ".gitignore").write_text("node_modules/\n.signalint/\ngenerated/\nsrc/types/\n")
    (root / "src" / "c.ts").write_text("export const name: ApiName = 1;\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "generated files")
    source = root / "src" / "b.js"
    source.write_text(source.read_text() + "var planted = 3;\n")
    in_project(root)

    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert code == 1
    found = document["baseline"]
    assert isinstance(found, dict)
    assert found["enginesNotOkAtRev"] == [] and found["fallback"] == []
    assert (found["borrowedIgnoredFiles"], found["borrowedAllIgnoredFiles"]) == (2, True)
    remaining = document["remainingIssues"]
    assert isinstance(remaining, list)
    # The planted line: `var` (no-var) and an unused variable.
    assert sorted((i["file"], i["line"], i["rule"]) for i in remaining) == [
        ("src/b.js", 4, "no-unused-vars"),
        ("src/b.js", 4, "no-var"),
    ]
    assert found["unchanged"] > 4
    # The copy is outside the project, in its work directory.
    assert not (root / ".signalint" / "baseline").exists()
    trees = work.for_project(root) / "trees"
    (old,) = (p for p in trees.iterdir() if p.is_dir() and not p.name.endswith(".work"))
    # Copies, not links: a generated source's imports resolve in the old tree.
    assert not (old / "generated" / "rules.json").is_symlink()
    # Installed dependencies are links to the working tree's.
    assert (old / "node_modules" / ".bin").is_symlink()
    # A generated file the working tree dropped leaves the old tree too.
    (root / "src" / "types" / "api.d.ts").unlink()
    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert not (old / "src" / "types" / "api.d.ts").exists()
    found = document["baseline"]
    assert isinstance(found, dict)
    assert found["borrowedIgnoredFiles"] == 1


BROKEN_CONFIG = "export default [ { rules: {\n"


def fallback_project(root: Path, log: Path) -> Path:
    """ESLint's config is broken at HEAD and fixed in the working tree, with
    one more ESLint issue on an edited line and one in a new file."""
    root = typescript_project(root, log)
    (root / "eslint.config.js").write_text(BROKEN_CONFIG)
    git(root, "commit", "-qam", "a broken ESLint config")
    (root / "eslint.config.js").write_text(ESLINT_CONFIG)
    source = root / "src" / "b.js"
    source.write_text(source.read_text().replace("let never = 2;", "let never = 2, other = 3;"))
    (root / "src" / "c.js").write_text("var fresh = 1;\n")
    return root


def test_an_engine_failing_at_rev_falls_back_to_the_changed_lines_in_every_format(
    tmp_path: Path,
    only_project_engines: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    root = fallback_project(tmp_path / "p", only_project_engines)
    in_project(root)
    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert code == 1
    found = document["baseline"]
    assert isinstance(found, dict)
    assert found["enginesNotOkAtRev"] == ["eslint"]
    (fallback,) = found["fallback"]
    assert (fallback["engine"], fallback["rule"]) == ("eslint", "changed-lines")
    assert "eslint" in fallback["reason"] and fallback["reason"]
    # New: ESLint's issues on the edited line 2 and in the new file (below).
    assert (found["new"], found["unchanged"], document["totalIssues"]) == (5, 5, 5)

    assert main(["check", "--format", "text", "--new-from-rev", "HEAD"]) == 1
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if "failed at HEAD" in line)
    assert "eslint failed at HEAD" in header and "changed-lines" in header
    assert "lines changed" in header

    assert main(["check", "--format", "sarif", "--new-from-rev", "HEAD"]) == 1
    log = json.loads(capsys.readouterr().out)
    runs = {run["tool"]["driver"]["name"]: run for run in log["runs"]}
    marked = runs["eslint"]["properties"]["signalintBaselineFallback"]
    assert marked["rule"] == "changed-lines" and marked["reason"] == fallback["reason"]
    assert "signalintBaselineFallback" not in runs["tsc"]["properties"]
    states = {
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["ruleId"],
            r["properties"]["signalintBaselineRule"],
        ): r["baselineState"]
        for r in runs["eslint"]["results"]
    }
    assert states == {
        ("src/b.js", 1, "no-var", "changed-lines"): "unchanged",
        ("src/b.js", 1, "no-unused-vars", "changed-lines"): "unchanged",
        ("src/b.js", 2, "prefer-const", "changed-lines"): "new",  # two, one per variable
        ("src/b.js", 2, "no-unused-vars", "changed-lines"): "new",
        ("src/c.js", 1, "no-var", "changed-lines"): "new",
        ("src/c.js", 1, "no-unused-vars", "changed-lines"): "new",
    }
    # tsc ran ok at HEAD: its issues matched as usual, all unchanged.
    assert {r["baselineState"] for r in runs["tsc"]["results"]} == {"unchanged"}


def test_mcp_check_tools_take_the_cli_selections_and_answer_the_same_baseline(
    tmp_path: Path,
    only_project_engines: Path,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
) -> None:
    from tests.server.conftest import connect, text_block

    root = typescript_project(tmp_path / "p", only_project_engines)
    (root / "src" / "other.ts").write_text("export const old: number = true;\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one more file")
    source = root / "src" / "a.ts"

    async def session() -> dict[str, object]:
        # Every answer is validated against its schema; "structured" adds the summary.
        async with connect(root, SIGNALINT_MCP_PAYLOAD="structured") as client:
            nothing = await client.call("check_project", {"changed": True})
            assert nothing.error
            assert (nothing.data["code"], nothing.data["field"]) == ("nothing_changed", "changed")
            source.write_text(source.read_text() + 'export const planted: number = "new";\n')

            answer = await client.call("check_project", {"newFromRev": "HEAD"})
            assert not answer.error
            found = answer.data["baseline"]
            assert (found["rev"], found["new"], found["mergeBase"]) == ("HEAD", 1, False)
            assert found["enginesNotOkAtRev"] == [] and found["fallback"] == []
            assert answer.data["totalIssues"] == 1
            assert [(i["file"], i["line"]) for i in answer.data["remainingIssues"]] == [
                ("src/a.ts", 6)
            ]
            assert "Only new since HEAD: 1 new" in text_block(answer.raw, 1).text

            files = await client.call(
                "check_files", {"files": ["src/a.ts"], "newFromMergeBase": "HEAD"}
            )
            assert (files.data["baseline"]["new"], files.data["baseline"]["mergeBase"]) == (1, True)

            # The changed file, with tsc's whole program (other.ts's issue is old).
            changed = await client.call("check_project", {"changed": True, "newFromRev": "HEAD"})
            assert (changed.data["baseline"]["new"], changed.data["totalIssues"]) == (1, 1)
            assert changed.data["baseline"]["unchanged"] == 4  # tsc's: 3 in a.ts, 1 in other.ts

            refusals: list[tuple[dict[str, Any], str, str]] = [
                (
                    {"newFromRev": "HEAD", "newFromMergeBase": "main"},
                    "newFromMergeBase",
                    "newFromRev and newFromMergeBase cannot be combined",
                ),
                ({"paths": ["src"], "changed": True}, "changed", "paths and changed cannot be"),
                ({"packages": ["x"], "changed": True}, "changed", "packages and changed cannot be"),
                (
                    {"newFromRev": "no-such-branch"},
                    "newFromRev",
                    "not a revision of this repository",
                ),
                ({"newFromMergeBase": "no-such-branch"}, "newFromMergeBase", "no merge base"),
                ({"packages": ["x"]}, "packages", "workspace"),
            ]
            for arguments, field, words in refusals:
                refused = await client.call("check_project", arguments)
                assert refused.error, arguments
                assert refused.data["field"] == field, refused.data
                assert words in refused.data["message"], refused.data
            assert not (await client.call("ping")).error  # still serving

            # A file added since the revision: all its issues are new.
            (root / "src" / "fresh.ts").write_text('export const f: number = "x";\n')
            fresh = await client.call(
                "check_files", {"files": ["src/fresh.ts"], "newFromRev": "HEAD"}
            )
            assert not fresh.error, fresh.data
            assert (fresh.data["baseline"]["new"], fresh.data["baseline"]["checkedAtRev"]) == (
                1,
                [],
            )
            (root / "src" / "fresh.ts").unlink()

        return dict(found)

    found = asyncio.run(session())
    in_project(root)
    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert code == 1
    assert document["baseline"] == found


@pytest.mark.parametrize("major", [5, 7])
def test_a_references_root_with_an_exports_types_entry_is_checked_at_rev(
    tmp_path: Path,
    major: int,
    capsys: pytest.CaptureFixture[str],
    in_project: Callable[[Path], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # apollo-client's shape (docs/real-world.md): a root config naming a
    # types package reached only through an `exports` subpath, and a
    # reference. The build wrappers of the check at REV must resolve it as
    # the current check's do, or tsc is not ok there.
    typescript(major)
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    root = tmp_path / "p"
    pkg = root / "node_modules" / "pkg"
    (pkg / "dist").mkdir(parents=True)
    (pkg / "package.json").write_text(
        json.dumps({"name": "pkg", "exports": {"./expect": {"types": "./dist/expect.d.ts"}}})
    )
    (pkg / "dist" / "expect.d.ts").write_text("declare const expectedValue: number;\n")
    install_typescript(root, major)
    (root / "package.json").write_text('{"name": "p", "private": true, "type": "module"}\n')
    options = {"strict": True, "module": "NodeNext", "moduleResolution": "NodeNext"}
    (root / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {**options, "noEmit": True, "types": ["pkg/expect"]},
                "include": ["src/**/*.ts"],
                "references": [{"path": "./lib"}],
            }
        )
    )
    (root / "lib").mkdir()
    (root / "lib" / "tsconfig.json").write_text(
        json.dumps({"compilerOptions": {**options, "composite": True}, "include": ["*.ts"]})
    )
    (root / "lib" / "util.ts").write_text("export const one = 1;\n")
    (root / "src").mkdir()
    (root / "src" / "index.ts").write_text("export const seen: number = expectedValue;\n")
    engines = {"oxlint": False, "tsc": True, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / ".gitignore").write_text("node_modules/\n.signalint/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fixture")
    source = root / "src" / "index.ts"
    source.write_text(source.read_text() + 'export const planted: number = "s";\n')
    in_project(Path(os.path.realpath(root)))

    code, document = check_json("--new-from-rev", "HEAD", capsys=capsys)
    assert code == 1
    assert document["engines"]["tsc"]["status"] == "ok"
    found = document["baseline"]
    assert isinstance(found, dict)
    assert found["enginesNotOkAtRev"] == [] and found["fallback"] == []
    remaining = document["remainingIssues"]
    assert isinstance(remaining, list)
    assert [(i["file"], i["line"], i["rule"]) for i in remaining] == [("src/index.ts", 2, "TS2322")]
