"""An edit that breaks the files importing it is not answered clean (issue 37).

A TypeScript project whose modules import one exported function: changing
its return type breaks each importer (TS2322). after_edit_check and
check_files of the edited file count those errors in `status`, the delta
and `nextStep`, name the broken files first, and keep the detail in
`dependents`, within the answer's 2 KB budget however many files broke. A
fix that repairs a dependent counts as resolved; an edit that only moves a
dependent's error says so. Real tsc, real server.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from signalint.wording import count

from ..conftest import require_engine
from .conftest import connect

pytestmark = [pytest.mark.real, pytest.mark.anyio]

ANSWER_BUDGET = 2048  # bytes of compact JSON of structuredContent
GOOD = "export function size(): number {\n  return 1;\n}\n"
BAD = 'export function size(): string {\n  return "1";\n}\n'


def settle() -> None:
    """Let the files written age past a check's settle window, and the
    server's program record (written behind its answer) land."""
    time.sleep(0.6)


def ts_project(root: Path, dependents: int, shape: str = GOOD) -> Path:
    """`src/shape.ts` exporting `size`, and `dependents` modules using it as a number."""
    src = root / "src"
    src.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "ripple", "private": true}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": true,'
        ' "types": []}, "include": ["src"]}\n'
    )
    engines = {"oxlint": False, "tsc": True, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (src / "shape.ts").write_text(shape)
    for n in range(dependents):
        (src / f"use{n:02}.ts").write_text(
            f"import {{ size }} from './shape';\nexport const v{n}: number = size();\n"
        )
    settle()
    return root


def size_of(data: Any) -> int:
    return len(json.dumps(data, separators=(",", ":")).encode())


@pytest.mark.parametrize("broken", [1, 3, 50])
async def test_an_edit_breaking_dependents_is_not_clean_and_stays_in_budget(
    tmp_path: Path, broken: int
) -> None:
    require_engine("tsc")
    root = ts_project(tmp_path / "project", broken)
    async with connect(root) as client:
        baseline = (await client.call("check_project")).data
        assert baseline["status"] == "clean"
        settle()
        (root / "src" / "shape.ts").write_text(BAD)
        after = await client.call(
            "after_edit_check", {"files": ["src/shape.ts"], "baselineCheckId": baseline["checkId"]}
        )
        data = after.data
        assert data["status"] == "issues_found"
        assert data["totalIssues"] == 0  # the edited file itself is fine
        delta = data["delta"]
        assert delta["errorsIntroduced"] == broken and delta["netDelta"] == broken
        assert delta["counts"]["introduced"] == broken and delta["errorsResolved"] == 0
        assert delta["nextStep"].startswith(
            f"{count(broken, 'issue', 'was')} introduced in {count(broken, 'other file')}"
        )
        lead = f"The edit broke {count(broken, 'error')} in {count(broken, 'other file')} ("
        assert data["nextStep"].startswith(lead + "src/use00.ts")
        dependents = data["dependents"]
        assert (dependents["total"], dependents["broken"], dependents["fileCount"]) == (
            broken,
            broken,
            broken,
        )
        assert dependents["moved"] == dependents["repaired"] == 0
        assert len(dependents["issues"]) == min(3, broken)
        assert {e["rule"] for e in dependents["issues"]} == {"TS2322"}
        if broken > 3:
            assert dependents["nextStep"].startswith(f"{broken - 3} more errors; list them")
        else:
            assert "nextStep" not in dependents
        size = size_of(data)
        print(f"{broken} broken: after_edit_check structuredContent {size} bytes")
        assert size <= ANSWER_BUDGET, f"{size} bytes: {data}"
        listed = await client.call("list_issues", {"checkId": dependents["checkId"], "limit": 100})
        assert listed.data["total"] == broken
        assert {i["file"] for i in listed.data["issues"]} == {
            f"src/use{n:02}.ts" for n in range(broken)
        }
        shown = dependents["issues"][0]["issueId"]
        detail = await client.call(
            "get_issue_detail", {"checkId": dependents["checkId"], "issueId": shown}
        )
        assert detail.data["issues"][0]["file"] == "src/use00.ts"


@pytest.mark.parametrize(
    ("mode", "compact"), [("both", "0"), ("both", "1"), ("structured", "1"), ("text", "0")]
)
async def test_check_files_of_the_edited_file_never_claims_clean(
    tmp_path: Path, mode: str, compact: str
) -> None:
    """check_files of the edited file alone: its own diagnostics, but a
    broken importer makes it `issues_found`, named first, in every payload
    mode and key style (the client validates each answer's schema), as
    after_edit_check's answer does."""
    require_engine("tsc")
    root = ts_project(tmp_path / "project", 2)
    async with connect(root, SIGNALINT_MCP_PAYLOAD=mode, SIGNALINT_COMPACT=compact) as client:
        baseline = (await client.call("check_project")).data
        settle()
        (root / "src" / "shape.ts").write_text(BAD)
        answer = await client.call("check_files", {"files": ["src/shape.ts"]})
        after = await client.call(
            "after_edit_check", {"files": ["src/shape.ts"], "baselineCheckId": baseline["checkId"]}
        )
        assert after.data["status"] == "issues_found"
        assert after.data["delta"]["errorsIntroduced"] == 2
        data = answer.data
        assert data["status"] == "issues_found"
        assert data["total" if compact == "1" else "totalIssues"] == 0
        assert data["nextStep"].startswith(
            "The edit broke 2 errors in 2 other files (src/use00.ts, src/use01.ts): fix them first"
        )
        assert data["dependents"]["broken"] == 2
        if mode == "structured":
            summary = answer.raw.content[1]
            assert getattr(summary, "text", "").startswith("The edit broke 2 errors")
            assert "Clean" not in getattr(summary, "text", "")


async def test_a_fix_that_repairs_a_dependent_is_an_improvement(tmp_path: Path) -> None:
    require_engine("tsc")
    root = ts_project(tmp_path / "project", 1, shape=BAD)
    async with connect(root) as client:
        baseline = (await client.call("check_project")).data
        assert baseline["totalIssues"] == 1  # src/use00.ts
        settle()
        (root / "src" / "shape.ts").write_text(GOOD)
        after = await client.call(
            "after_edit_check", {"files": ["src/shape.ts"], "baselineCheckId": baseline["checkId"]}
        )
    data = after.data
    assert data["status"] == "clean"
    delta = data["delta"]
    assert (delta["errorsIntroduced"], delta["errorsResolved"], delta["netDelta"]) == (0, 1, -1)
    assert [e["file"] for e in delta["resolved"]] == []  # detail in dependents
    assert delta["counts"]["resolved"] == 1 and delta["counts"]["unobserved"] == 0
    assert delta["nextStep"].startswith("1 issue resolved in other files.")
    assert data["dependents"]["repaired"] == 1 and data["dependents"]["total"] == 0
    assert data["nextStep"].startswith("The edit repaired 1 error in 1 other file (src/use00.ts).")


MOVES = (
    "export function a(): {0} {{\n  return {1};\n}}\n"
    "export function b(): {2} {{\n  return {3};\n}}\n"
)


async def test_an_edit_that_only_moves_a_dependents_error_says_so(tmp_path: Path) -> None:
    """`a` returned the wrong type, now `b` does: the importer's one error
    moves from line 2 to line 3, same count, same message."""
    require_engine("tsc")
    root = ts_project(tmp_path / "project", 0, shape=MOVES.format("string", '"1"', "number", 1))
    (root / "src" / "use.ts").write_text(
        "import { a, b } from './shape';\n"
        "export const x: number = a();\n"
        "export const y: number = b();\n"
    )
    settle()
    async with connect(root) as client:
        baseline = (await client.call("check_project")).data
        assert [(i["file"], i["line"]) for i in baseline["remainingIssues"]] == [("src/use.ts", 2)]
        settle()
        (root / "src" / "shape.ts").write_text(MOVES.format("number", 1, "string", '"1"'))
        after = await client.call(
            "after_edit_check", {"files": ["src/shape.ts"], "baselineCheckId": baseline["checkId"]}
        )
    data = after.data
    assert data["status"] == "issues_found"
    assert data["nextStep"].startswith(
        "The edit moved 1 error in src/use.ts (still there, at another place: not fixed)"
    )
    dependents = data["dependents"]
    assert (dependents["moved"], dependents["broken"], dependents["repaired"]) == (1, 0, 0)
    assert [(e["file"], e["line"]) for e in dependents["issues"]] == [("src/use.ts", 3)]
    delta = data["delta"]
    assert (delta["errorsIntroduced"], delta["errorsResolved"], delta["netDelta"]) == (0, 0, 0)
    assert delta["counts"]["persisting"] == 1
    assert "1 error in other files only moved" in delta["nextStep"]


@pytest.mark.parametrize("engine", ["mypy", "pyright"])
async def test_a_python_edit_breaking_an_importer_is_not_clean(tmp_path: Path, engine: str) -> None:
    """The same verdict from Python's whole-program engines."""
    require_engine(engine)
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "ripple"\nversion = "0"\n')
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "ruff", "mypy", "pyright"), False)
    engines[engine] = True
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shape.py").write_text("def size() -> int:\n    return 1\n")
    (root / "pkg" / "use.py").write_text("from pkg.shape import size\n\nv: int = size()\n")
    settle()
    async with connect(root) as client:
        baseline = (await client.call("check_project")).data
        assert baseline["status"] == "clean", baseline
        settle()
        (root / "pkg" / "shape.py").write_text('def size() -> str:\n    return "1"\n')
        after = await client.call(
            "after_edit_check", {"files": ["pkg/shape.py"], "baselineCheckId": baseline["checkId"]}
        )
    data = after.data
    assert data["status"] == "issues_found", data
    assert data["nextStep"].startswith("The edit broke 1 error in 1 other file (pkg/use.py)")
    assert data["delta"]["errorsIntroduced"] == 1
    assert [e["line"] for e in data["dependents"]["issues"]] == [3]
