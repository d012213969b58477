"""`signalint show`: ids printed by one process expand in another (D19).

Every command runs as its own `signalint` process, as a person (or a hook)
would run them one after the other; the engines are the real ones.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_engine

SIGNALINT = Path(sys.executable).parent / "signalint"

pytestmark = pytest.mark.real


def signalint(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SIGNALINT_") or k == "SIGNALINT_WORK_DIR"
    }
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [str(SIGNALINT), *argv], cwd=root, env=env, capture_output=True, text=True, timeout=180
    )


def write_project(root: Path, type_errors: int = 2) -> Path:
    """tsc and oxlint on `type_errors` TS2322 errors and one oxlint warning."""
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "show", "private": true}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": true,'
        ' "types": []}, "include": ["src"]}\n'
    )
    lines = [f"export const n{i}: number = 'text {i}';" for i in range(type_errors)]
    (root / "src" / "a.ts").write_text("\n".join(lines) + "\n")
    (root / "src" / "b.ts").write_text("export function f(): void {\n  debugger;\n}\n")
    engines = {"oxlint": True, "tsc": True, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    return root


def check_json(root: Path) -> dict[str, Any]:
    done = signalint(root, "check", "--format", "json")
    assert done.returncode == 1, done.stderr
    return dict(json.loads(done.stdout))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    require_engine("tsc")
    require_engine("oxlint")
    return write_project(tmp_path / "p")


def test_a_check_id_from_a_cli_check_expands_in_a_new_process(project: Path) -> None:
    checked = check_json(project)
    done = signalint(project, "show", checked["checkId"], "--format", "json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["checkId"] == checked["checkId"]
    for key in ("status", "engines", "totalIssues", "clusters", "remainingIssues"):
        assert summary[key] == checked[key], key

    text = signalint(project, "show", checked["checkId"])
    assert text.returncode == 0
    assert f"Check {checked['checkId']}" in text.stdout
    assert re.search(r"^src/a\.ts:1:\d+  error  tsc  TS2322  ", text.stdout, re.M)


def test_an_issue_id_expands_to_its_full_detail(project: Path) -> None:
    checked = check_json(project)
    (record,) = [r for r in checked["remainingIssues"] if r["file"] == "src/b.ts"]
    done = signalint(project, "show", record["issueId"], "--format", "json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["checkId"] == checked["checkId"] and answer["kind"] == "issue"
    (detail,) = answer["issues"]
    assert detail["shortId"] == record["issueId"] and detail["engine"] == "oxlint"
    assert detail["message"] and detail["docsUrl"].startswith("https://")
    assert detail["endLine"] == 2 and detail["endCol"] > detail["col"]

    text = signalint(project, "show", record["issueId"]).stdout
    assert "src/b.ts:2:3-2:" in text and f"docs: {detail['docsUrl']}" in text
    assert detail["issueId"] in text


def test_the_rest_of_a_large_cluster_is_one_show_away(tmp_path: Path) -> None:
    require_engine("tsc")
    require_engine("oxlint")
    root = write_project(tmp_path / "p", type_errors=13)
    listing = signalint(root, "check", "--format", "text")
    assert listing.returncode == 1, listing.stderr
    more = re.search(r"… and (\d+) more \(signalint show ([0-9a-f]+)\)", listing.stdout)
    assert more is not None, listing.stdout
    assert more.group(1) == "3"
    done = signalint(root, "show", more.group(2), "--format", "json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["kind"] == "cluster" and answer["clusterId"] == more.group(2)
    assert len(answer["issues"]) == 13 and {d["rule"] for d in answer["issues"]} == {"TS2322"}


def test_an_unknown_id_exits_2_and_says_what_to_do(project: Path) -> None:
    check_json(project)
    done = signalint(project, "show", "0000000000000000")
    assert done.returncode == 2 and done.stdout == ""
    assert "'0000000000000000'" in done.stderr and "unknown or expired" in done.stderr
    assert '"snapshots"' in done.stderr and "signalint.config.json" in done.stderr


def test_an_expired_check_id_exits_2(project: Path) -> None:
    checked = check_json(project)
    (saved,) = (project / ".signalint" / "snapshots").glob("*.snapshot")
    an_hour_ago = time.time() - 3600  # beyond the default 30 minutes
    os.utime(saved, (an_hour_ago, an_hour_ago))
    done = signalint(project, "show", checked["checkId"])
    assert done.returncode == 2 and "unknown or expired" in done.stderr


def test_check_pins_the_lookup_to_one_check(project: Path) -> None:
    first = check_json(project)
    second = check_json(project)
    (cluster,) = second["clusters"]
    pinned = signalint(project, "show", cluster["clusterId"], "--check", first["checkId"])
    assert pinned.returncode == 0 and f"(check {first['checkId']})" in pinned.stdout
    newest = signalint(project, "show", cluster["clusterId"])
    assert f"(check {second['checkId']})" in newest.stdout
    missing = signalint(project, "show", "ffffffffffff", "--check", first["checkId"])
    assert missing.returncode == 2 and first["checkId"] in missing.stderr
