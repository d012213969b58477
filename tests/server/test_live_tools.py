"""ingest_diagnostics, get_live_diagnostics and clear_live through the real server (D8).

Each test drives a real `signalint-mcp` process with the SDK client; every
answer is validated against the advertised output schema by the client.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from signalint.ingest import MAX_REPORT_BYTES

from ..conftest import require_engine
from .conftest import Client, connect, write_project

pytestmark = [pytest.mark.real, pytest.mark.anyio]


def diag(
    file: str,
    line: int,
    char: int,
    message: str,
    *,
    code: object = "E1",
    severity: object = 1,
    end: tuple[int, int] | None = None,
) -> dict[str, Any]:
    stop = end or (line, char + 1)
    return {
        "file": file,
        "range": {
            "start": {"line": line, "character": char},
            "end": {"line": stop[0], "character": stop[1]},
        },
        "severity": severity,
        "code": code,
        "message": message,
    }


async def live(client: Client, **args: Any) -> list[tuple[str, int, int, str, str]]:
    answer = (await client.call("get_live_diagnostics", args)).data
    assert answer["totalIssues"] == len(answer["issues"])
    return [(i["file"], i["line"], i["col"], i["rule"], i["engine"]) for i in answer["issues"]]


async def test_a_batch_replaces_its_sources_set_for_each_file_and_an_empty_publish_clears_it(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "project")
    uri = (root / "src" / "a.ts").as_uri()
    async with connect(root) as client:
        first = await client.call(
            "ingest_diagnostics",
            {
                "serverName": "ts-ls",
                "diagnostics": [
                    diag("src/a.ts", 0, 6, "first"),
                    diag("src/a.ts", 0, 13, "second", code="E2", severity=2),
                    diag("src/b.ts", 0, 0, "in b"),
                ],
            },
        )
        assert not first.error, first.text
        batch = first.data
        assert batch["snapshotId"] == batch["checkId"]
        assert (batch["totalIssues"], batch["filesReplaced"], batch["bufferedIssues"]) == (3, 2, 3)
        assert await live(client) == [
            ("src/a.ts", 1, 7, "E1", "ts-ls"),
            ("src/a.ts", 1, 14, "E2", "ts-ls"),
            ("src/b.ts", 1, 1, "E1", "ts-ls"),
        ]
        # publishDiagnostics params for a.ts alone: b.ts keeps its set.
        second = await client.call(
            "ingest_diagnostics",
            {
                "serverName": "ts-ls",
                "diagnostics": [
                    {"uri": uri, "diagnostics": [diag("ignored", 0, 13, "second", code="E2")]}
                ],
            },
        )
        assert await live(client) == [
            ("src/a.ts", 1, 14, "E2", "ts-ls"),
            ("src/b.ts", 1, 1, "E1", "ts-ls"),
        ]
        assert await live(client, files=["src/b.ts"]) == [("src/b.ts", 1, 1, "E1", "ts-ls")]
        assert await live(client, severity="warning") == []  # E2 is now an error (severity 1)
        cleared = await client.call(
            "ingest_diagnostics",
            {"serverName": "ts-ls", "diagnostics": [{"uri": uri, "diagnostics": []}]},
        )
        assert (cleared.data["filesCleared"], cleared.data["totalIssues"]) == (1, 0)
        assert await live(client) == [("src/b.ts", 1, 1, "E1", "ts-ls")]

        # Each batch is a retained snapshot: detail, listing and comparison work on it.
        first_id, second_id = batch["checkId"], second.data["checkId"]
        listed = await client.call("list_issues", {"checkId": first_id, "file": "src/a.ts"})
        assert [i["message"] for i in listed.data["issues"]] == ["first", "second"]
        short = listed.data["issues"][0]["shortId"]
        detail = await client.call("get_issue_detail", {"checkId": first_id, "issueId": short})
        assert detail.data["issues"][0]["endCol"] == 8
        snapshot = await client.call("get_diagnostic_snapshot", {"checkId": second_id})
        assert snapshot.data["source"] == "lsp"
        assert snapshot.data["targets"] == ["src/a.ts"]
        delta = await client.call(
            "compare_diagnostics", {"baselineCheckId": first_id, "currentCheckId": second_id}
        )
        counts = delta.data["counts"]
        # "first" is resolved; b.ts, which the second batch did not name, is unobserved.
        assert [e["summary"] for e in delta.data["resolved"]] == ["first"]
        assert (counts["resolved"], counts["unobserved"], counts["introduced"]) == (1, 1, 0)


async def test_sources_stay_apart_and_one_problem_from_two_sources_appears_once(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "project")
    async with connect(root) as client:
        await client.call(
            "ingest_diagnostics",
            {"serverName": "alpha", "diagnostics": [diag("src/a.ts", 0, 0, "Same thing.")]},
        )
        await client.call(
            "ingest_diagnostics",
            {
                "serverName": "beta",
                "diagnostics": [
                    diag("src/a.ts", 0, 0, "Same  thing.", code="other", severity=2),
                    diag("src/a.ts", 0, 4, "Beta only", code="B1"),
                ],
            },
        )
        answer = (await client.call("get_live_diagnostics")).data
        assert answer["sources"] == ["alpha", "beta"]
        assert answer["mergedReportCount"] == 1
        first, second = answer["issues"]
        assert (first["engine"], first["alsoReportedBy"], first["severity"]) == (
            "alpha",
            ["beta"],
            "error",
        )
        assert (second["engine"], second["rule"]) == ("beta", "B1")
        # A later batch of beta replaces only beta's set.
        await client.call(
            "ingest_diagnostics", {"serverName": "beta", "files": ["src/a.ts"], "diagnostics": []}
        )
        assert await live(client) == [("src/a.ts", 1, 1, "E1", "alpha")]
        removed = await client.call("clear_live", {"serverName": "alpha"})
        assert removed.data == {"removed": 1, "removedSets": 1, "bufferedIssues": 0}
        assert await live(client) == []


async def test_clear_live_finds_a_batch_by_either_name_it_was_sent_with(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    sent_as_a = {
        "source": "lsp-a",
        "serverName": "server-a",
        "diagnostics": [
            diag("src/a.ts", 0, 0, "a1"),
            diag("src/a.ts", 0, 4, "a2"),
            diag("src/b.ts", 0, 0, "b1"),
        ],
    }
    async with connect(root) as client:
        await client.call("ingest_diagnostics", sent_as_a)
        await client.call(
            "ingest_diagnostics",
            {"serverName": "server-b", "diagnostics": [diag("src/a.ts", 0, 0, "other")]},
        )
        by_source = await client.call("clear_live", {"source": "lsp-a"})
        assert by_source.data == {"removed": 3, "removedSets": 2, "bufferedIssues": 1}
        assert await live(client) == [("src/a.ts", 1, 1, "E1", "server-b")]

        await client.call("ingest_diagnostics", sent_as_a)
        by_server = await client.call(
            "clear_live", {"serverName": "server-a", "files": ["src/a.ts"]}
        )
        assert by_server.data == {"removed": 2, "removedSets": 1, "bufferedIssues": 2}
        assert await live(client) == [
            ("src/a.ts", 1, 1, "E1", "server-b"),
            ("src/b.ts", 1, 1, "E1", "server-a"),
        ]
        # The name shown as the issues' engine works too, as does the default source "lsp".
        by_engine = await client.call("clear_live", {"source": "server-a"})
        assert (by_engine.data["removed"], by_engine.data["removedSets"]) == (1, 1)

        nothing = await client.call("clear_live", {"source": "nobody"})
        assert (nothing.data["removed"], nothing.data["removedSets"]) == (0, 0)
        assert '"lsp", "server-b"' in nothing.data["nextStep"]
        blank = await client.call("clear_live", {"source": "  "})
        assert blank.error and blank.data["field"] == "source", blank.data
        assert await live(client) == [("src/a.ts", 1, 1, "E1", "server-b")]
        by_default = await client.call("clear_live", {"source": "lsp"})
        assert by_default.data == {"removed": 1, "removedSets": 1, "bufferedIssues": 0}


async def test_positions_are_clamped_utf16_columns_and_bad_input_changes_nothing(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "project")
    (root / "src" / "u.ts").write_text("const s = '😀'; let x = 1;\nshort\n")
    (tmp_path / "outside.ts").write_text("x\n")
    (root / "src" / "link.ts").symlink_to(tmp_path / "outside.ts")
    async with connect(root) as client:
        ok = await client.call(
            "ingest_diagnostics",
            {
                "diagnostics": [
                    # After the emoji (two UTF-16 code units): character 16 -> column 17.
                    diag("src/u.ts", 0, 16, "let x", end=(0, 21)),
                    diag((root / "src" / "u.ts").as_uri(), 1, 99, "past the end of line 2"),
                    diag("src/u.ts", 40, 3, "past the last line"),
                ]
            },
        )
        assert not ok.error, ok.text
        assert await live(client) == [
            ("src/u.ts", 1, 17, "E1", "external-lsp"),
            ("src/u.ts", 2, 6, "E1", "external-lsp"),
            ("src/u.ts", 3, 1, "E1", "external-lsp"),
        ]
        bad_inputs: list[tuple[dict[str, Any], str, str]] = [
            (
                {"diagnostics": [diag("../outside.ts", 0, 0, "x")]},
                "diagnostics[0].file",
                "escapes the project root",
            ),
            (
                {"diagnostics": [diag((tmp_path / "outside.ts").as_uri(), 0, 0, "x")]},
                "diagnostics[0].file",
                "outside the project root",
            ),
            (
                {"diagnostics": [diag("src/link.ts", 0, 0, "x")]},
                "diagnostics[0].file",
                "resolves through a symlink to outside the project root",
            ),
            (
                {"diagnostics": [{"uri": "untitled:Untitled-1", "diagnostics": []}]},
                "diagnostics[0].uri",
                "only file:// URIs",
            ),
            (
                {"format": "ruff", "report": " " * (MAX_REPORT_BYTES + 1)},
                "report",
                "longer than",
            ),
            (
                {"diagnostics": [diag("/etc/passwd", 0, 0, "x")]},
                "diagnostics[0].file",
                "absolute paths are not accepted",
            ),
            (
                {"diagnostics": [diag("src/u.ts", 0, 0, "x"), diag("src/u.ts", -1, 0, "y")]},
                "diagnostics[1].range.start.line",
                "non-negative integer",
            ),
            (
                {"diagnostics": [{"file": "src/u.ts", "range": {"end": {}}, "message": "m"}]},
                "diagnostics[0].range.start",
                "required",
            ),
            (
                {"diagnostics": [diag("src/u.ts", 0, 0, "x", severity=7)]},
                "diagnostics[0].severity",
                "1 (error)",
            ),
            (
                {"diagnostics": [{"file": "src/u.ts", "message": ""}]},
                "diagnostics[0].message",
                "non-empty",
            ),
            ({"format": "ruff", "report": "[{"}, "report", "not JSON"),
            ({"format": "nope", "report": "[]"}, "format", "expected one of"),
            ({"report": "[]"}, "format", "needs its format"),
        ]
        for arguments, field, words in bad_inputs:
            refused = await client.call("ingest_diagnostics", arguments)
            assert refused.error, arguments
            assert refused.data["field"] == field, refused.data
            assert words in refused.data["message"], refused.data
        assert len(await live(client)) == 3  # nothing of a refused batch was used


async def test_a_full_buffer_evicts_the_oldest_sets_and_says_so(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    config = json.loads((root / "signalint.config.json").read_text())
    (root / "signalint.config.json").write_text(json.dumps({**config, "live": {"maxEntries": 3}}))
    async with connect(root) as client:
        await client.call(
            "ingest_diagnostics",
            {"diagnostics": [diag("src/a.ts", 0, 0, "a1"), diag("src/a.ts", 0, 1, "a2")]},
        )
        answer = (
            await client.call(
                "ingest_diagnostics",
                {"diagnostics": [diag("src/b.ts", 0, 0, "b1"), diag("src/b.ts", 0, 1, "b2")]},
            )
        ).data
        assert answer["bufferedIssues"] == 2
        evicted = answer["evicted"]
        assert evicted["issueCount"] == 2
        assert evicted["sets"] == [{"source": "external-lsp", "file": "src/a.ts", "issueCount": 2}]
        assert "evicted" in evicted["message"]
        assert [row[0] for row in await live(client)] == ["src/b.ts", "src/b.ts"]
        too_big = await client.call(
            "ingest_diagnostics", {"diagnostics": [diag("src/a.ts", 0, n, "x") for n in range(4)]}
        )
        assert too_big.error and too_big.data["code"] == "batch_too_large"
        assert "live.maxEntries" in too_big.data["message"]
        assert [row[0] for row in await live(client)] == ["src/b.ts", "src/b.ts"]


async def test_the_live_view_merges_the_newest_check_and_the_newer_information_wins(
    tmp_path: Path,
) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "project")
    config = json.loads((root / "signalint.config.json").read_text())
    (root / "signalint.config.json").write_text(json.dumps({**config, "snapshots": {"max": 2}}))
    async with connect(root) as client:
        check = (await client.call("check_project")).data
        assert check["totalIssues"] == 2
        # A language server reports tsc's a.ts error (as 2322) and one of its own,
        # three times: batches are retained apart, so they never evict the check.
        for _ in range(3):
            await client.call(
                "ingest_diagnostics",
                {
                    "serverName": "typescript-language-server",
                    "diagnostics": [
                        diag("src/a.ts", 0, 13, "Type 'string' is not assignable to type 'number'.",
                             code=2322),
                        diag("src/a.ts", 0, 0, "An editor-only hint", code=6133, severity=4),
                    ],
                },
            )  # fmt: skip
        kept = await client.call("get_diagnostic_snapshot", {"checkId": check["checkId"]})
        assert not kept.error and kept.data["source"] == "project"
        answer = (await client.call("get_live_diagnostics")).data
        assert answer["checkId"] == check["checkId"]
        rows = [
            (i["file"], i["rule"], i["engine"], i.get("alsoReportedBy")) for i in answer["issues"]
        ]
        assert rows == [
            ("src/a.ts", "6133", "typescript-language-server", None),
            ("src/a.ts", "TS2322", "tsc", ["typescript-language-server"]),
            ("src/b.ts", "TS2339", "tsc", None),
        ]
        # A check after the batch covers a.ts again: the older live set is superseded.
        again = (await client.call("check_files", {"files": ["src/a.ts"]})).data
        newer = (await client.call("get_live_diagnostics")).data
        assert newer["checkId"] == again["checkId"]
        # The file check speaks for a.ts; the project check still speaks for b.ts.
        assert newer["checkIds"] == [again["checkId"], check["checkId"]]
        assert newer["supersededIssueCount"] == 2
        assert [(i["file"], i["rule"], i["engine"]) for i in newer["issues"]] == [
            ("src/a.ts", "TS2322", "tsc"),
            ("src/b.ts", "TS2339", "tsc"),
        ]
        assert "left out" in newer["nextStep"]


async def test_a_tools_raw_report_is_ingested_as_it_was_printed(tmp_path: Path) -> None:
    from ..ingest.conftest import FIXTURES, RECORDED

    copy = Path(os.path.realpath(tmp_path)) / "reports"
    shutil.copytree(FIXTURES, copy)
    root = copy / "py"
    ruff = (RECORDED / "ruff.json").read_text().replace("<ROOT>", str(copy))
    mypy = (RECORDED / "mypy.jsonl").read_text()
    async with connect(root) as client:
        first = (await client.call("ingest_diagnostics", {"format": "ruff", "report": ruff})).data
        assert (first["source"], first["totalIssues"]) == ("ruff", 4)
        await client.call(
            "ingest_diagnostics", {"format": "mypy", "report": mypy, "serverName": "mypy-ci"}
        )
        answer = (await client.call("get_live_diagnostics", {"severity": "error"})).data
        assert answer["sources"] == ["mypy-ci", "ruff"]
        assert [(i["line"], i["rule"]) for i in answer["issues"]] == [
            (1, "F401"), (2, "F401"), (6, "E702"), (6, "F841"), (7, "return-value"),
            (10, "arg-type"),
        ]  # fmt: skip
        # A ruff report with the problems fixed clears the file for ruff only.
        await client.call(
            "ingest_diagnostics", {"format": "ruff", "report": "[]", "files": ["app.py"]}
        )
        left = (await client.call("get_live_diagnostics")).data
        assert [i["engine"] for i in left["issues"]] == ["mypy-ci", "mypy-ci"]
