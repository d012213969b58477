"""The fix-transaction tools over the real server: preview, apply, discard (D9).

Reference shapes and codes (`file_drift_detected`, `baseline_check_unknown`,
`baseline_snapshot_expired`, `rolled_back`...), annotations, the unified
diff, verify on a shadow copy, mode bits, symlink refusal, and recovery of
an interrupted apply at the next server start.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from signalint.kept import fix_journal as journal

from ..conftest import require_engine
from ..faults import KillAt
from .conftest import connect, write_project

pytestmark = [pytest.mark.real, pytest.mark.anyio]

BAD = "export const n: number = 'text';\n"
GOOD = "export const n: number = 1;\n"


def _patch(file: str, old: str, new: str) -> dict[str, str]:
    return {"file": file, "originalContent": old, "patchedContent": new}


async def test_preview_apply_and_discard_follow_the_reference_shapes(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "project")
    (root / "src" / "a.ts").chmod(0o750)
    async with connect(root) as client:
        tools = client.tools
        apply_hints = tools["apply_diagnostic_fix"].annotations
        assert apply_hints is not None
        assert apply_hints.destructive_hint is True and apply_hints.idempotent_hint is False
        assert apply_hints.read_only_hint is False
        baseline = (await client.call("check_project")).data
        preview = await client.call(
            "preview_diagnostic_fix",
            {
                "patches": [
                    _patch("src/a.ts", BAD, GOOD),
                    _patch("src/new/c.ts", "", "export {};\n"),
                ]
            },
        )
        data = preview.data
        assert not preview.error
        assert data["status"] == "pending" and data["filesCount"] == 2
        first = data["patchesPreview"][0]
        assert first["file"] == "src/a.ts"
        assert first["originalLength"] == len(BAD) and first["patchedLength"] == len(GOOD)
        assert "-export const n: number = 'text';" in first["diff"]
        assert "+export const n: number = 1;" in first["diff"]
        assert data["patchesPreview"][1]["newFile"] is True
        assert (root / "src" / "a.ts").read_text() == BAD, "preview writes nothing"
        tx = data["transactionId"]

        refused = await client.call("apply_diagnostic_fix", {"transactionId": tx, "confirm": False})
        assert refused.error and refused.data["code"] == "confirmation_required"
        assert refused.data["filesModified"] == []
        unknown = await client.call(
            "apply_diagnostic_fix",
            {"transactionId": tx, "confirm": True, "baselineCheckId": "nope-not-a-check"},
        )
        assert unknown.error and unknown.data["code"] == "baseline_check_unknown"
        expired_id = "5f5e1000" + "abcd1234"  # a check id of ours, from long ago
        gone = baseline["checkId"][:8] + "00000000"  # made now, never retained
        expired = await client.call(
            "apply_diagnostic_fix", {"transactionId": tx, "confirm": True, "baselineCheckId": gone}
        )
        assert expired.data["code"] == "baseline_snapshot_expired"
        assert expired_id  # far older than the window: unknown, not expired
        old = await client.call(
            "apply_diagnostic_fix",
            {"transactionId": tx, "confirm": True, "baselineCheckId": expired_id},
        )
        assert old.data["code"] == "baseline_check_unknown"
        assert (root / "src" / "a.ts").read_text() == BAD

        applied = await client.call(
            "apply_diagnostic_fix",
            {"transactionId": tx, "confirm": True, "baselineCheckId": baseline["checkId"]},
        )
        result = applied.data
        assert not applied.error, result
        assert result["status"] == "success"
        assert result["filesModified"] == ["src/a.ts", "src/new/c.ts"]
        assert (root / "src" / "a.ts").read_text() == GOOD
        assert stat.S_IMODE((root / "src" / "a.ts").stat().st_mode) == 0o750
        assert (root / "src" / "new" / "c.ts").read_text() == "export {};\n"
        assert [e["rule"] for e in result["delta"]["resolved"]] == ["TS2322"]
        assert result["postCheckId"] != baseline["checkId"]

        again = await client.call("apply_diagnostic_fix", {"transactionId": tx, "confirm": True})
        assert again.error and again.data["status"] == "stale"
        assert again.data["code"] == "transaction_gone"
        discard = await client.call("discard_diagnostic_fix", {"transactionId": tx})
        assert discard.data == {"transactionId": tx, "discarded": False}


async def test_a_file_changed_after_preview_is_drift_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "project")
    async with connect(root) as client:
        preview = await client.call(
            "preview_diagnostic_fix",
            {
                "patches": [
                    _patch("src/a.ts", BAD, GOOD),
                    _patch("src/b.ts", 'export const s = "x".nope;\n', "export const s = 1;\n"),
                ]
            },
        )
        tx = preview.data["transactionId"]
        (root / "src" / "b.ts").write_text("// someone else\n")
        drift = await client.call("apply_diagnostic_fix", {"transactionId": tx, "confirm": True})
        assert drift.error
        assert drift.data["code"] == "file_drift_detected"
        assert drift.data["files"] == ["src/b.ts"] and drift.data["filesModified"] == []
        assert (root / "src" / "a.ts").read_text() == BAD
        stale = await client.call(
            "preview_diagnostic_fix", {"patches": [_patch("src/a.ts", "not what is there", GOOD)]}
        )
        assert stale.data["code"] == "file_drift_detected"
        discard = await client.call("discard_diagnostic_fix", {"transactionId": tx})
        assert discard.data == {"transactionId": tx, "discarded": True}


@pytest.mark.parametrize(
    ("file", "why"),
    [
        ("../outside.ts", "escapes"),
        ("/etc/passwd", "relative"),
        ("link/x.ts", "symlink"),
        ("src/link.ts", "symlink"),
        (".git/config", ".git"),
        ("-rf", "option"),
    ],
)
async def test_paths_outside_through_symlinks_or_in_git_are_refused(
    tmp_path: Path, file: str, why: str
) -> None:
    root = write_project(tmp_path / "project")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "link")
    os.symlink(root / "src" / "a.ts", root / "src" / "link.ts")
    async with connect(root) as client:
        refused = await client.call(
            "preview_diagnostic_fix", {"patches": [_patch(file, "", "x\n")]}
        )
        assert refused.error and refused.data["code"] == "path_refused"
        assert why in refused.data["message"]
        assert refused.data["field"] == "patches[0].file"
    assert not list((tmp_path / "elsewhere").iterdir())


async def test_verify_reports_the_delta_from_a_shadow_copy_without_writing(
    tmp_path: Path,
) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "project")
    async with connect(root) as client:
        preview = await client.call(
            "preview_diagnostic_fix",
            {
                "patches": [_patch("src/a.ts", BAD, GOOD + 'export const m = "x".nope;\n')],
                "verify": True,
            },
        )
        verification = preview.data["verification"]
        assert verification["status"] == "verified", verification
        delta = verification["delta"]
        assert [e["rule"] for e in delta["resolved"]] == ["TS2322"]
        assert [(e["rule"], e["line"]) for e in delta["introduced"]] == [("TS2339", 2)]
        assert (root / "src" / "a.ts").read_text() == BAD


async def test_the_server_undoes_an_interrupted_apply_when_it_starts(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project")
    writes = [
        journal.Write("src/a.ts", GOOD.encode(), BAD.encode()),
        journal.Write("src/n.ts", b"export {};\n", None),
    ]
    pid = os.fork()
    if pid == 0:
        try:  # killed after the first rename
            journal.write_all(root, "tx-killed", writes, checkpoint=KillAt(10))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert (root / "src" / "a.ts").read_text() == GOOD  # half applied
    log = tmp_path / "server.stderr"
    async with connect(root, stderr=log) as client:
        await client.call("ping")
    assert (root / "src" / "a.ts").read_text() == BAD
    assert not (root / "src" / "n.ts").exists()
    assert "interrupted fix transaction tx-killed undone; restored src/a.ts" in log.read_text()


async def test_a_write_that_fails_midway_is_rolled_back_and_consumes_the_preview(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "project")
    # Two files: checkpoint 7 is the second file's temporary file (journal.py).
    async with connect(root, journal_fails_at=7) as client:
        preview = await client.call(
            "preview_diagnostic_fix",
            {"patches": [_patch("src/a.ts", BAD, GOOD), _patch("src/n/c.ts", "", "x\n")]},
        )
        tx = preview.data["transactionId"]
        failed = await client.call("apply_diagnostic_fix", {"transactionId": tx, "confirm": True})
        assert failed.error
        assert failed.data["status"] == "rolled_back"
        assert failed.data["code"] == "transaction_aborted_and_rolled_back"
        assert failed.data["filesModified"] == []
        assert (root / "src" / "a.ts").read_text() == BAD
        assert not (root / "src" / "n").exists()
        again = await client.call("apply_diagnostic_fix", {"transactionId": tx, "confirm": True})
        assert again.data["code"] == "transaction_gone"
