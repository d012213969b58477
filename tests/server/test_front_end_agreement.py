"""The CLI and the MCP server check through one service, so their answers agree.

The project has one TypeScript error in src/a.ts and one in src/b.ts; tsc
reports on its whole program, so a check of src/a.ts filters the other one
out. `signalint check --format json` and `check_project` must say the same
about it (D6: what a check does not show, it counts), and so must the
stored snapshot, read back with `signalint show` and get_diagnostic_snapshot.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main

from ..conftest import require_engine
from .conftest import connect, write_project

pytestmark = pytest.mark.real

FILTERED_KEYS = ("filteredOutIssueCount", "filteredOutCount", "filteredOut")


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    main(list(argv))
    payload = json.loads(capsys.readouterr().out)
    assert isinstance(payload, dict)
    return payload


def filtered(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: payload[key] for key in FILTERED_KEYS if key in payload}


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (["src/a.ts"], {"filteredOutIssueCount": 1}),  # one key: no filteredOutCount alias
        (["src"], {"filteredOutIssueCount": 0}),  # scoped, nothing hidden
        ([], {}),  # the whole project: nothing can be outside it
    ],
    ids=["one-file", "directory", "whole-project"],
)
def test_cli_json_and_check_project_agree_on_the_filtered_out_count(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    paths: list[str],
    expected: dict[str, int],
) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "proj").resolve()
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    monkeypatch.delenv("SIGNALINT_COMPACT", raising=False)

    from_cli = cli_json(capsys, "check", "--format", "json", *paths)
    assert filtered(from_cli) == expected
    assert "check_project" not in from_cli.get("nextStep", "")  # the CLI names commands
    shown = cli_json(capsys, "show", from_cli["checkId"], "--format", "json")
    assert shown.get("filteredOutIssueCount") == expected.get("filteredOutIssueCount")

    from_mcp, stored = asyncio.run(ask_server(root, paths))
    assert filtered(from_mcp) == filtered(from_cli) == expected
    assert from_mcp["totalIssues"] == from_cli["totalIssues"]
    if expected.get("filteredOutIssueCount"):
        assert "`signalint check` without paths" in from_cli["nextStep"]
        assert "check_project without paths" in from_mcp["nextStep"]
    assert stored.get("filteredOutIssueCount") == expected.get("filteredOutIssueCount")


async def ask_server(root: Path, paths: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """check_project of `paths`, then get_diagnostic_snapshot of its checkId."""
    async with connect(root) as client:
        answer = await client.call("check_project", {"paths": paths} if paths else {})
        assert not answer.error, answer.data
        stored = await client.call("get_diagnostic_snapshot", {"checkId": answer.data["checkId"]})
        return answer.data, stored.data


IGNORED = [
    ("node_modules/pkg/index.ts", "never checks node_modules/"),
    ("node_modules/linked/index.ts", "never checks node_modules/"),  # a link out of the root
    ("node_modules", "never checks node_modules/"),
    ("dist/out.ts", "pattern 'dist/**' of `ignore` in signalint.config.json"),
]


def test_an_ignored_path_is_refused_in_the_same_words_by_the_cli_and_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    only_tsc = {"oxlint": False, "tsc": True, "biome": False, "eslint": False}
    root = write_project(tmp_path / "proj", config={"engines": only_tsc, "ignore": ["dist/**"]})
    root = root.resolve()
    for rel in ("node_modules/pkg/index.ts", "dist/out.ts"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("export const n: number = 'text';\n")
    outside = tmp_path / "linked"
    outside.mkdir()
    (outside / "index.ts").write_text("export {};\n")
    (root / "node_modules" / "linked").symlink_to(outside)
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)

    from_cli: list[str] = []
    for path, words in IGNORED:
        code = main(["check", path])
        captured = capsys.readouterr()
        assert code == 2 and captured.out == "", (path, captured)
        line = captured.err.strip()
        assert line.startswith(f"signalint: path {path!r} refused: it is ignored"), line
        assert words in line and "outside" not in line
        from_cli.append(line.split(" refused: ", 1)[1])

    from_mcp = asyncio.run(refusals(root, [path for path, _ in IGNORED]))
    for (path, _), cli_reason, (tool, data) in zip(IGNORED, from_cli, from_mcp, strict=True):
        assert data["code"] == "path_refused" and data["field"] == "files[0]", (tool, data)
        assert data["message"] == f"files[0]: path refused: {cli_reason}", (tool, path)


async def refusals(root: Path, paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """check_files of each path (then after_edit_check and check_project of the
    first), each expected to be refused; the server keeps serving."""
    answers: list[tuple[str, dict[str, Any]]] = []
    async with connect(root) as client:
        for path in paths:
            answer = await client.call("check_files", {"files": [path]})
            assert answer.error, (path, answer.data)
            answers.append(("check_files", answer.data))
        for tool, field in (("after_edit_check", "files"), ("check_project", "paths")):
            answer = await client.call(tool, {field: [paths[0]]})
            assert answer.error and answer.data["field"] == f"{field}[0]", answer.data
            assert answer.data["message"].endswith(answers[0][1]["message"].split(": ", 1)[1])
        assert not (await client.call("ping")).error
    return answers
