"""The live buffer (D8) and the live view, as values: no process is started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signalint.features.live import CapacityError, Cleared, LiveBuffer, batch_snapshot, view
from signalint.ingest import Batch
from signalint.model import Issue, Scope
from signalint.server import live_schemas


def issue(file: str, line: int, rule: str = "R1", engine: str = "ls", message: str = "m") -> Issue:
    return Issue(engine, file, line, 1, rule, "error", message)


def batch(source: str, *issues: Issue, files: tuple[str, ...] = ()) -> Batch:
    named = tuple(dict.fromkeys([*files, *(i.file for i in issues)]))
    return Batch(source, issues, named)


def test_a_batch_replaces_only_its_own_sources_set_for_the_files_it_names() -> None:
    buffer = LiveBuffer(capacity=10)
    buffer.apply(batch("a", issue("x.py", 1, engine="a"), issue("y.py", 1, engine="a")))
    buffer.apply(batch("b", issue("x.py", 1, engine="b", rule="B")))
    applied = buffer.apply(batch("a", issue("x.py", 2, engine="a")))
    assert applied.replaced == ("x.py",) and applied.cleared == ()
    held = {(s.source, s.file): [i.line for i in s.issues] for s in buffer.sets()}
    assert held == {("a", "y.py"): [1], ("b", "x.py"): [1], ("a", "x.py"): [2]}
    cleared = buffer.apply(batch("a", files=("y.py",)))
    assert cleared.cleared == ("y.py",) and len(buffer) == 2


def test_a_set_is_cleared_by_any_name_its_batch_was_sent_with_and_the_sets_are_counted() -> None:
    def filled() -> LiveBuffer:
        buffer = LiveBuffer(capacity=10)
        # source "lsp-a" with serverName "server-a": keyed by the server's name.
        sent = ("lsp-a",)
        buffer.apply(batch("server-a", issue("x.py", 1), issue("x.py", 2), issue("y.py", 1)), sent)
        buffer.apply(batch("server-b", issue("x.py", 3)), ("lsp-a",))
        buffer.apply(batch("ruff", issue("x.py", 4)), ("lsp",))
        return buffer

    def left(buffer: LiveBuffer) -> list[tuple[str, str]]:
        return [(s.source, s.file) for s in buffer.sets()]

    for names, sets, issues, remaining in [
        (("lsp-a",), 3, 4, [("ruff", "x.py")]),
        (("server-a",), 2, 3, [("server-b", "x.py"), ("ruff", "x.py")]),
        (
            ("lsp-a", "server-b"),
            1,
            1,
            [("server-a", "x.py"), ("server-a", "y.py"), ("ruff", "x.py")],
        ),
        (("lsp",), 1, 1, [("server-a", "x.py"), ("server-a", "y.py"), ("server-b", "x.py")]),
        (
            ("nobody",),
            0,
            0,
            [("server-a", "x.py"), ("server-a", "y.py"), ("server-b", "x.py"), ("ruff", "x.py")],
        ),
        ((), 4, 5, []),
    ]:
        buffer = filled()
        assert buffer.clear(names) == Cleared(sets, issues), names
        assert left(buffer) == remaining, names
        assert len(buffer) == sum(len(s.issues) for s in buffer.sets())
    buffer = filled()
    assert buffer.clear(["lsp-a"], files=["x.py"]) == Cleared(2, 3)
    assert left(buffer) == [("server-a", "y.py"), ("ruff", "x.py")]
    assert buffer.names() == ["lsp", "lsp-a", "ruff", "server-a"]


def test_eviction_removes_the_least_recently_reported_sets_whole() -> None:
    buffer = LiveBuffer(capacity=3)
    buffer.apply(batch("a", issue("x.py", 1), issue("x.py", 2)))
    buffer.apply(batch("a", issue("y.py", 1)))
    applied = buffer.apply(batch("a", issue("z.py", 1)))
    assert [(s.file, len(s.issues)) for s in applied.evicted] == [("x.py", 2)]
    assert applied.evicted_entries == 2 and len(buffer) == 2
    with pytest.raises(CapacityError, match=r"4 diagnostics .* at most 3"):
        buffer.apply(batch("a", *(issue("w.py", n) for n in range(1, 5))))
    assert len(buffer) == 2  # unchanged


def test_a_check_newer_than_a_live_set_supersedes_it_and_an_older_one_does_not() -> None:
    now = [100.0]
    buffer = LiveBuffer(clock=lambda: now[0])
    buffer.apply(batch("ls", issue("a.ts", 1, rule="2322", message="Type mismatch.")))
    checked = (issue("a.ts", 1, rule="TS2322", engine="tsc", message="Type mismatch."),)
    older = view(buffer, [("c1", 50.0, Scope(("a.ts",)), checked)])
    assert [(i.engine, i.also_reported_by) for i in older.issues] == [("tsc", ("ls",))]
    assert older.merged == 1 and older.superseded == 0
    newer = view(buffer, [("c2", 150.0, Scope(("a.ts",)), checked)])
    assert newer.superseded == 1 and newer.files_superseded == ("a.ts",)
    assert [(i.engine, i.also_reported_by) for i in newer.issues] == [("tsc", ())]
    elsewhere = view(buffer, [("c3", 150.0, Scope(("b.ts",)), ())])
    assert [i.engine for i in elsewhere.issues] == ["ls"]  # the check did not cover a.ts


def test_each_files_check_issues_come_from_the_newest_check_that_covered_it() -> None:
    project = ("p", 10.0, Scope(), (issue("a.ts", 1, engine="tsc"), issue("b.ts", 1, engine="tsc")))
    fixed_a = ("f", 20.0, Scope(("a.ts",)), ())
    merged = view(LiveBuffer(), [fixed_a, project])
    assert [(i.file, i.engine) for i in merged.issues] == [("b.ts", "tsc")]
    assert merged.check_ids == ("f", "p")


def test_a_batch_snapshot_covers_exactly_the_files_it_named(tmp_path: Path) -> None:
    snap = batch_snapshot(batch("ls", issue("a.ts", 1), files=("b.ts",)), str(tmp_path))
    assert snap.kind == "lsp" and snap.targets == ("b.ts", "a.ts")
    assert snap.result.outcomes["ls"].files_checked == 2
    assert snap.result.status == "issues_found"


def test_the_live_answer_schemas_declare_their_payload_types() -> None:
    cases: list[tuple[dict[str, Any], Any]] = [
        (live_schemas.INGEST_OUTPUT, live_schemas.IngestAnswer),
        (live_schemas.LIVE_OUTPUT, live_schemas.LiveAnswer),
        (live_schemas.CLEAR_OUTPUT, live_schemas.ClearAnswer),
    ]
    for schema, shape in cases:
        keys = set(shape.__required_keys__) | set(shape.__optional_keys__)
        assert set(schema["properties"]) == keys | {"status", "code", "message", "field"}
        success, _refused = schema["anyOf"]
        assert set(success["required"]) == set(shape.__required_keys__)
