"""One check's view of the result store: batched reads and writes, memos, record drafts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from signalint.cache.check_store import CheckStore, Writes
from signalint.cache.entries import ProgramRecord, RecordDraft
from signalint.cache.local_store import ResultCache
from signalint.cache.memory import StoreMemory
from tests.factories import issue


class Counting:
    """The real local store, counting the calls a check makes to it."""

    def __init__(self, local: ResultCache) -> None:
        self.local = local
        self.gets: list[list[str]] = []
        self.puts: list[dict[str, bytes]] = []

    def get_many(self, keys: Sequence[str], group: str = "") -> dict[str, bytes]:
        self.gets.append(list(keys))
        return self.local.get_many(keys)

    def put_many(self, items: Mapping[str, bytes]) -> None:
        self.puts.append(dict(items))
        self.local.put_many(items)


def view(
    state: Path, memory: StoreMemory | None = None, later: list[Callable[[], None]] | None = None
) -> tuple[CheckStore, Counting]:
    local = ResultCache(state)
    tier = Counting(local)
    queued = later if later is not None else []
    store = CheckStore(local, memory or StoreMemory(), queued.append)
    store.results = tier
    return store, tier


def written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_what_a_check_keeps_is_one_write_and_records_go_behind(
    tmp_path: Path, settled_inputs: None
) -> None:
    source = written(tmp_path / "a.ts", "export const a = 1;\n")
    later: list[Callable[[], None]] = []
    store, tier = view(tmp_path / "state", later=later)
    one, two = Writes(), Writes()
    one.entries["k1"] = (issue(),)
    one.marks["m1"] = True
    two.entries["k2"] = None
    two.marks["m2"] = False
    two.records["r"] = RecordDraft((str(source),), [], None, (issue(),), time.time_ns())
    two.values["v"] = b"engine's own"
    store.keep([one, two])
    assert len(tier.puts) == 1 and set(tier.puts[0]) == {"k1", "k2", "m1", "m2"}
    assert len(later) == 1  # the record and the engine's values, behind the answer
    later[0]()
    assert set(tier.puts[1]) == {"r"}
    # The engine's own values describe this machine: the local store only.
    assert store.local.get_many(["v"]) == {"v": b"engine's own"}
    fresh, fresh_tier = view(tmp_path / "state")  # another process
    assert fresh.entries(["k1", "k2"]) == {"k1": (issue(),), "k2": None}
    assert fresh.marks(["m1", "m2", "absent"]) == {"m1": True, "m2": False}
    assert [r.issues for r in fresh.records("r")] == [(issue(),)]
    assert fresh_tier.gets == [["k1", "k2"], ["m1", "m2", "absent"], ["r"]]


def test_entries_decoded_once_are_not_read_again_in_the_process(tmp_path: Path) -> None:
    memory = StoreMemory()
    first, _ = view(tmp_path / "state", memory)
    kept = Writes()
    kept.entries["k"] = (issue(),)
    first.keep([kept])
    second, tier = view(tmp_path / "state", memory)
    assert second.entries(["k", "other"]) == {"k": (issue(),)}
    assert tier.gets == [["other"]]


def test_a_record_whose_input_changed_during_its_run_is_not_kept(
    tmp_path: Path, settled_inputs: None
) -> None:
    steady = written(tmp_path / "a.ts", "export const a = 1;\n")
    edited = tmp_path / "b.ts"
    started = time.time_ns()
    edited.write_text("export const b = 2;\n")  # written after the run started
    later: list[Callable[[], None]] = []
    store, tier = view(tmp_path / "state", later=later)
    drafts = Writes()
    inputs = (str(steady), str(edited))
    drafts.records["touched"] = RecordDraft(inputs, [], None, (), started)
    drafts.records["gone"] = RecordDraft((str(tmp_path / "missing.ts"),), [], None, (), 0)
    drafts.records["kept"] = RecordDraft((str(steady),), [], None, (), started)
    store.keep([drafts])
    for work in later:
        work()
    assert {key for put in tier.puts for key in put} == {"kept"}
    assert store.memory.programs.get("touched") is None
    assert store.memory.programs.get("gone") is None
    record = store.memory.programs.get("kept")
    assert record is not None and set(record.inputs) == {str(steady)}


def test_the_stored_record_is_read_again_only_when_another_process_wrote_it_since(
    tmp_path: Path, settled_inputs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = written(tmp_path / "a.ts", "export const a = 1;\n")
    state = tmp_path / "state"
    memory = StoreMemory()
    local = ResultCache(state)
    ours = CheckStore(local, memory)  # a server's view, one check after another
    first = Writes()
    first.records["r"] = RecordDraft(
        (str(source),), [], None, (issue(rule="ours"),), time.time_ns()
    )
    ours.keep([first])
    reads: list[list[str]] = []
    get_stamped = local.get_stamped

    def counted(keys: Sequence[str]) -> tuple[dict[str, bytes], int | None]:
        reads.append(list(keys))
        return get_stamped(keys)

    monkeypatch.setattr(local, "get_stamped", counted)
    # The remembered record went stale (the caller asks on): the stored row is
    # the one this process wrote, so it is not read and decoded again.
    assert [r.issues[0].rule for r in CheckStore(local, memory).records("r")] == ["ours"]
    assert reads == []
    # Another process (a CLI check beside the server) keeps a newer record.
    theirs = CheckStore(ResultCache(state), StoreMemory())
    second = Writes()
    second.records["r"] = RecordDraft(
        (str(source),), [], None, (issue(rule="theirs"),), time.time_ns()
    )
    theirs.keep([second])
    found = [r.issues[0].rule for r in CheckStore(local, memory).records("r")]
    assert found == ["ours", "theirs"] and reads == [["r"]]
    # Read once, it is not read again while nobody writes it.
    found = [r.issues[0].rule for r in CheckStore(local, memory).records("r")]
    assert found == ["ours"] and reads == [["r"]]


def test_a_record_made_behind_the_answer_is_waited_for_by_the_next_read(
    tmp_path: Path, settled_inputs: None
) -> None:
    source = written(tmp_path / "a.ts", "export const a = 1;\n")
    later: list[Callable[[], None]] = []
    memory = StoreMemory()
    local = ResultCache(tmp_path / "state")
    store = CheckStore(local, memory, later.append)
    writes = Writes()
    writes.records["r"] = RecordDraft((str(source),), [], None, (issue(),), time.time_ns())
    store.keep([writes])
    assert len(later) == 1 and memory.programs.get("r") is None  # made behind the answer
    found: list[list[ProgramRecord]] = []
    reader = threading.Thread(
        target=lambda: found.append(list(CheckStore(local, memory).records("r")))
    )
    reader.start()
    reader.join(0.3)
    assert reader.is_alive()  # the next check's read waits for it ...
    later[0]()
    reader.join(10)
    # ... and finds it first (the stored copy may follow: the read can come
    # between the row's write and this process noting it wrote that row).
    assert len(found) == 1 and [r.issues for r in found[0]][:1] == [(issue(),)]
