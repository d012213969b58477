"""The per-process Context: memos that are always safe to drop, and background writes."""

from __future__ import annotations

import asyncio
import threading

from signalint.cache.context import Context
from signalint.model import Issue, Reported
from tests.factories import issue


def test_a_background_write_started_as_the_check_returns_still_happens() -> None:
    done = threading.Event()
    context = Context()

    async def check() -> None:
        # Scheduled as the check's coroutine returns: it runs in the loop's
        # last round, after which asyncio.run cancels every pending task.
        asyncio.get_running_loop().call_soon(context.in_background, done.set)

    asyncio.run(check())
    assert done.is_set()


def test_an_identical_kept_list_reuses_its_merge_and_a_new_one_does_not() -> None:
    calls: list[int] = []
    context = Context()
    first = (issue(), issue(file="src/b.ts"))

    def merge(kept: tuple[Issue, ...]) -> tuple[tuple[Issue, ...], str]:
        calls.append(len(kept))
        return kept, f"fp{len(calls)}"

    assert context.merged(first, merge)[1] == "fp1"
    assert context.merged(tuple(first), merge)[1] == "fp1"
    equal_but_new = (issue(), issue(file="src/b.ts"))  # equal values, other objects
    assert context.merged(equal_but_new, merge)[1] == "fp2"
    assert calls == [2, 2]


def test_an_issue_memo_gives_the_same_issue_for_the_same_diagnostic() -> None:
    memo = Context().issue_memo
    first = memo.issue(Reported("tsc", "src/a.ts", 3, 7, "TS2322", "error", "Type 'x' is bad."))
    again = memo.issue(Reported("tsc", "src/a.ts", 3, 7, "TS2322", "error", "Type 'x' is bad."))
    other = memo.issue(Reported("tsc", "src/a.ts", 3, 7, "TS2322", "warning", "Type 'x' is bad."))
    assert again is first
    assert other is not first and other.severity == "warning"
    assert (
        first.issue_id
        == issue(
            engine="tsc", file="src/a.ts", line=3, col=7, rule="TS2322", message="Type 'x' is bad."
        ).issue_id
    )
