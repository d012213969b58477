"""An edit's ripple: what it broke, repaired or moved in the files that depend
on the checked ones, and how a delta and a verdict count it."""

from __future__ import annotations

import json

from signalint.features.delta import Elsewhere, compare
from signalint.model import Issue
from signalint.pipeline.ripple import Ripple, block, ripple, told
from signalint.pipeline.snapshot import Snapshot
from signalint.server.words import tool_words
from tests.factories import issue, snapshot

ASSIGN = "Type 'string' is not assignable to type 'number'."


def ts(file: str, line: int = 2, message: str = ASSIGN, **fields: object) -> Issue:
    return issue(file=file, line=line, rule="TS2322", message=message, engine="tsc", **fields)


def current(issues: list[Issue] | None = None) -> Snapshot:
    """A check of the edited file alone."""
    return snapshot(issues or [], check_id="now", targets=("src/shape.ts",), engines={"tsc": "ok"})


def test_new_errors_elsewhere_are_broken_gone_ones_repaired_and_warnings_do_not_ripple() -> None:
    broken = ts("src/use1.ts")
    fixed = ts("src/use2.ts")
    warning = ts("src/use3.ts", severity="warning")
    found = ripple([broken, warning], [fixed], [broken, warning, ts("src/far.ts")], ["tsc"])
    assert found.broken == (broken,) and found.repaired == (fixed,) and found.moved == ()
    assert found.files == {"src/use1.ts", "src/use2.ts"}
    # What the engines report now in the touched files only.
    assert found.present == (broken,)
    assert found.now == (broken,) and bool(found)


def test_an_error_at_another_place_in_the_same_file_moved() -> None:
    before, after = ts("src/use.ts", line=2), ts("src/use.ts", line=3)
    found = ripple([after], [before], [after], ["tsc"])
    assert found.broken == found.repaired == ()
    assert found.moved == ((before, after),)
    assert found.now == (after,)
    text = told(found, "dep", tool_words)
    assert text.startswith("The edit moved 1 error in src/use.ts")
    assert "not fixed" in text and "fix it first" in text


def test_nothing_changed_elsewhere_is_an_empty_ripple() -> None:
    found = ripple([], [], [ts("src/far.ts")], ["tsc"])
    assert not found and found.present == () and told(found, "", tool_words) == ""


def test_the_verdict_names_the_broken_files_first_most_errors_first_and_counts_the_rest() -> None:
    broken = [ts(f"src/use{n}.ts") for n in range(5)] + [ts("src/use4.ts", line=9)]
    fixed = [ts("src/old.ts")]
    text = told(ripple(broken, fixed, broken, ["tsc"]), "dep", tool_words)
    files = "src/use4.ts, src/use0.ts, src/use1.ts and 2 more"
    assert text.startswith(f"The edit broke 6 errors in 5 other files ({files})")
    assert 'list_issues (checkId "dep")' in text
    assert text.endswith("It repaired 1 error in 1 other file (src/old.ts).")


def test_only_repairs_are_said_without_anything_to_fix() -> None:
    text = told(ripple([], [ts("src/use.ts")], [], ["tsc"]), "", tool_words)
    assert text == "The edit repaired 1 error in 1 other file (src/use.ts)."


def test_the_block_shows_the_first_few_and_counts_the_rest_with_the_step_that_lists_them() -> None:
    broken = [ts(f"src/use{n:02}.ts") for n in range(50)]
    kept = snapshot(broken, check_id="dep", targets=tuple(i.file for i in broken))
    found = block(ripple(broken, [], broken, ["tsc"]), kept, 3, tool_words)
    assert (found["total"], found["broken"], found["moved"], found["repaired"]) == (50, 50, 0, 0)
    assert found["fileCount"] == 50
    assert [e["file"] for e in found["issues"]] == ["src/use00.ts", "src/use01.ts", "src/use02.ts"]
    assert found["issues"][0]["issueId"] == kept.short_id(broken[0])
    assert found["checkId"] == "dep"
    assert found.get("nextStep") == '47 more errors; list them with list_issues (checkId "dep").'
    assert len(json.dumps(found, separators=(",", ":"))) < 900


def _elsewhere(found: Ripple, check_id: str = "dep") -> Elsewhere:
    return Elsewhere(found, check_id, 0)


def test_errors_broken_in_dependents_count_in_the_delta_listed_by_their_own_check() -> None:
    baseline = snapshot([], check_id="base", engines={"tsc": "ok"})
    broken = [ts("src/use1.ts"), ts("src/use2.ts")]
    delta = compare(
        baseline,
        current(),
        summarize=True,
        words=tool_words,
        elsewhere=_elsewhere(ripple(broken, [], broken, ["tsc"])),
    )
    assert (delta["errorsIntroduced"], delta["errorsResolved"], delta["netDelta"]) == (2, 0, 2)
    assert delta["counts"]["introduced"] == 2
    # Listed in the dependents block, not here: counted, and said how to list.
    assert delta["introduced"] == [] and delta["truncated"] is True
    assert delta["nextStep"].startswith(
        "2 issues were introduced in 2 other files: fix them first (list them with list_issues "
        '(checkId "dep")).'
    )
    assert "Clean" not in delta["nextStep"]


def test_a_repaired_dependent_is_resolved_not_unobserved() -> None:
    was = ts("src/use.ts")
    baseline = snapshot([was], check_id="base", engines={"tsc": "ok"})
    delta = compare(
        baseline,
        current(),
        summarize=True,
        words=tool_words,
        elsewhere=_elsewhere(ripple([], [was], [], ["tsc"]), ""),
    )
    assert (delta["errorsIntroduced"], delta["errorsResolved"], delta["netDelta"]) == (0, 1, -1)
    assert delta["counts"]["unobserved"] == 0
    assert delta["nextStep"].startswith("1 issue resolved in other files.")


def test_a_moved_dependent_error_persists_and_is_said_to_have_moved() -> None:
    before, after = ts("src/use.ts", line=2), ts("src/use.ts", line=3)
    baseline = snapshot([before], check_id="base", engines={"tsc": "ok"})
    delta = compare(
        baseline,
        current(),
        summarize=True,
        words=tool_words,
        elsewhere=_elsewhere(ripple([after], [before], [after], ["tsc"])),
    )
    assert (delta["errorsIntroduced"], delta["errorsResolved"], delta["netDelta"]) == (0, 0, 0)
    assert delta["counts"]["persisting"] == 1 and delta["counts"]["unobserved"] == 0
    assert "1 error in other files only moved" in delta["nextStep"]
    assert "Clean" not in delta["nextStep"]


def test_where_the_baseline_did_not_look_the_previous_run_stands_in() -> None:
    # A baseline of the edited file alone never saw the dependents.
    baseline = snapshot([], check_id="base", targets=("src/shape.ts",), engines={"tsc": "ok"})
    broken, fixed = ts("src/use1.ts"), ts("src/use2.ts")
    before, after = ts("src/use3.ts", line=2), ts("src/use3.ts", line=5)
    found = ripple([broken, after], [fixed, before], [broken, after], ["tsc"])
    delta = compare(
        baseline, current(), summarize=True, words=tool_words, elsewhere=_elsewhere(found)
    )
    assert (delta["errorsIntroduced"], delta["errorsResolved"]) == (1, 1)
    assert delta["counts"]["newlyObserved"] == 0 and delta["counts"]["persisting"] == 1


def test_the_listed_dependents_come_before_the_edited_files_issues() -> None:
    baseline = snapshot([], check_id="base", engines={"tsc": "ok"})
    here = ts("src/shape.ts", line=1)
    broken = [ts("src/use1.ts"), ts("src/use2.ts")]
    delta = compare(
        baseline,
        current([here]),
        summarize=True,
        words=tool_words,
        elsewhere=Elsewhere(ripple(broken, [], broken, ["tsc"]), "dep", 1),
    )
    assert [e["file"] for e in delta["introduced"]] == ["src/use1.ts", "src/shape.ts"]
    assert delta["errorsIntroduced"] == 3 and delta["truncated"] is True


def test_without_a_ripple_the_delta_is_unchanged() -> None:
    baseline = snapshot([ts("src/use.ts")], check_id="base", engines={"tsc": "ok"})
    plain = compare(baseline, current(), summarize=True, words=tool_words)
    empty = compare(
        baseline, current(), summarize=True, words=tool_words, elsewhere=_elsewhere(Ripple())
    )
    assert plain == empty
    assert plain["counts"]["unobserved"] == 1 and plain["truncated"] is False
