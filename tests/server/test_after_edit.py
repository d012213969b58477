"""after_edit_check answers what the edit changed, affordably (defect 11).

A project baseline with errors in many other files, then a one-line edit
checked against it: the answer lists what was introduced or resolved and
only counts the baseline issues the file check could not observe, with a
way to list them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import require_engine
from .conftest import connect, write_project

pytestmark = [pytest.mark.real, pytest.mark.anyio]

OTHER_FILES = 25  # two tsc errors each: 50 unobserved baseline issues


async def test_a_one_line_edit_answers_with_a_summary_of_unobserved_issues(
    tmp_path: Path,
) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "project")
    for n in range(OTHER_FILES):
        (root / "src" / f"other{n:02}.ts").write_text(
            f"export const a{n}: number = 'text';\nexport const b{n}: string = 1;\n"
        )
    async with connect(root) as client:
        baseline = (await client.call("check_project")).data
        assert baseline["totalIssues"] == 2 * OTHER_FILES + 2
        (root / "src" / "a.ts").write_text("export const n: number = 1;\n")
        after = await client.call(
            "after_edit_check", {"files": ["src/a.ts"], "baselineCheckId": baseline["checkId"]}
        )
        delta = after.data["delta"]
        assert [(e["file"], e["rule"]) for e in delta["resolved"]] == [("src/a.ts", "TS2322")]
        assert delta["introduced"] == []
        assert delta["counts"]["unobserved"] == 2 * OTHER_FILES + 1  # b.ts too
        assert delta["unobserved"]["byFile"]["src/other00.ts"] == 2
        assert len(delta["unobserved"]["byFile"]) == 20
        assert delta["unobserved"]["moreFiles"] == OTHER_FILES + 1 - 20
        assert delta["unobserved"]["byEngine"] == {"tsc": 2 * OTHER_FILES + 1}
        assert delta["unobserved"]["byReason"] == {"outside_scope": 2 * OTHER_FILES + 1}
        assert f'list_issues (checkId "{baseline["checkId"]}"' in delta["nextStep"]
        size = len(after.text.encode())
        assert size < 2500, f"after_edit_check answered {size} bytes"

        listed = await client.call(
            "list_issues", {"checkId": baseline["checkId"], "file": "src/other00.ts"}
        )
        assert listed.data["total"] == 2
    print(f"after_edit_check answer: {size} bytes; delta {len(json.dumps(delta))} bytes")


ANSWER_BUDGET = 2048  # bytes of compact JSON of structuredContent


async def test_a_one_line_edit_answers_in_at_most_two_kilobytes(tmp_path: Path) -> None:
    # Two files with a tsc error each; the edit adds one more to src/a.ts.
    require_engine("tsc")
    root = write_project(tmp_path / "project")
    async with connect(root) as client:
        baseline = (await client.call("check_project")).data
        with (root / "src" / "a.ts").open("a") as handle:
            handle.write("export const broken: number = 'text';\n")
        after = await client.call(
            "after_edit_check", {"files": ["src/a.ts"], "baselineCheckId": baseline["checkId"]}
        )
    data = after.data
    delta = data["delta"]
    assert [(e["file"], e["rule"]) for e in delta["introduced"]] == [("src/a.ts", "TS2322")]
    assert delta["counts"]["unobserved"] == 1 and data["filteredOutIssueCount"] == 1
    size = len(json.dumps(data, separators=(",", ":")).encode())
    print(f"after_edit_check structuredContent: {size} bytes")
    assert size <= ANSWER_BUDGET, f"after_edit_check answered {size} bytes: {data}"


DEPENDENT_FILES = 8


async def test_an_edit_that_breaks_other_files_names_them_as_dependents(tmp_path: Path) -> None:
    """A changed export breaks its importers: after_edit_check of the edited
    file says so (counts, the first few, the rest listed by check id), and
    only errors the edit introduced, not the ones that were there before."""
    require_engine("tsc")
    root = write_project(tmp_path / "project")
    src = root / "src"
    (src / "shape.ts").write_text("export interface Shape { size: number }\n")
    for n in range(DEPENDENT_FILES):
        (src / f"user{n}.ts").write_text(
            "import type { Shape } from './shape';\n"
            f"export const s{n}: Shape = {{ size: {n} }};\n"
        )
    (src / "old.ts").write_text("export const old: number = 'before';\n")
    async with connect(root) as client:
        await client.call("check_project")
        unrelated = await client.call("after_edit_check", {"files": ["src/shape.ts"]})
        assert "dependents" not in unrelated.data
        (src / "shape.ts").write_text("export interface Shape { size: string }\n")
        after = await client.call("after_edit_check", {"files": ["src/shape.ts"]})
        dependents = after.data["dependents"]
        assert dependents["total"] == DEPENDENT_FILES
        assert dependents["fileCount"] == DEPENDENT_FILES
        shown = dependents["issues"]
        assert len(shown) == 3 and {e["rule"] for e in shown} == {"TS2322"}
        assert all(e["file"].startswith("src/user") for e in shown)
        assert "src/old.ts" not in {e["file"] for e in shown}
        assert f'"{dependents["checkId"]}"' in dependents["nextStep"]
        listed = await client.call("list_issues", {"checkId": dependents["checkId"]})
        assert listed.data["total"] == DEPENDENT_FILES
        assert {i["file"] for i in listed.data["issues"]} == {
            f"src/user{n}.ts" for n in range(DEPENDENT_FILES)
        }
        # Fixed again: nothing broken elsewhere.
        (src / "shape.ts").write_text("export interface Shape { size: number }\n")
        fixed = await client.call("after_edit_check", {"files": ["src/shape.ts"]})
        assert "dependents" not in fixed.data
