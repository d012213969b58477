"""The one check service: targets, snapshot, history, progress and the filtered-out rule.

These checks run with every engine disabled (nothing to start), so they
exercise the service itself; the engines' side is covered by the CLI and
server tests, which go through the same function.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from signalint.engines.registry import ENGINES
from signalint.engines.runner import Progress
from signalint.features.history import Session, stats
from signalint.kept.snapshot_store import SnapshotStore
from signalint.pipeline.cluster import cluster
from signalint.pipeline.snapshot import Snapshot, SnapshotKind
from signalint.project.paths import PathRefused
from signalint.server.words import tool_words
from signalint.service import check_service as service
from signalint.settings.config import load_config, state_dir
from tests.factories import issue, result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project with files and ignore rules, every engine off."""
    project = tmp_path / "proj"
    (project / "src" / "gen").mkdir(parents=True)
    for name in ("src/a.ts", "src/b.ts", "src/gen/out.ts"):
        (project / name).write_text("export const x = 1;\n")
    config = {"engines": dict.fromkeys(ENGINES, False), "ignore": ["src/gen/**"]}
    (project / "signalint.config.json").write_text(json.dumps(config))
    return project.resolve()


def check(root: Path, paths: Sequence[str] = (), **options: Any) -> service.Checked:
    config = load_config(root, env={})
    kept = {k: options.pop(k) for k in ("context", "store", "history", "words") if k in options}
    request = service.CheckRequest(root, config, paths, locate=service.from_root(root), **options)
    return asyncio.run(service.check(request, service.Services(**kept)))


def test_a_refused_path_carries_its_index_in_the_callers_list(root: Path) -> None:
    with pytest.raises(PathRefused) as refused:
        service.targets_of(["src/a.ts", "src/a.ts", "../elsewhere"], service.from_root(root))
    assert (refused.value.index, refused.value.path) == (2, "../elsewhere")
    assert refused.value.reason == "it escapes the project root"


def test_targets_are_deduplicated_in_order_and_none_is_the_whole_project(root: Path) -> None:
    locate = service.from_root(root)
    assert service.targets_of(["src/b.ts", "src", "src/b.ts"], locate) == ("src/b.ts", "src")
    assert service.targets_of([], locate) == (".",)


def test_command_line_paths_are_relative_to_the_working_directory(root: Path) -> None:
    config = load_config(root, env={})
    locate = service.from_cwd(root, config, cwd=root / "src")
    assert service.targets_of(["a.ts", "."], locate) == ("src/a.ts", "src")
    with pytest.raises(PathRefused) as refused:
        service.targets_of(["a.ts", "gen/out.ts"], locate)
    assert refused.value.index == 1 and "signalint.config.json" in refused.value.reason
    # From outside the root (SIGNALINT_PROJECT_ROOT) paths are taken from the root.
    outside = service.from_cwd(root, config, cwd=root.parent)
    assert service.targets_of(["src/b.ts"], outside) == ("src/b.ts",)


@pytest.mark.parametrize(
    "path", ["src/gen/out.ts", "src/gen", "node_modules/pkg/index.ts", "node_modules/linked"]
)
def test_root_paths_given_the_config_are_refused_as_the_command_line_refuses_them(
    root: Path, path: str
) -> None:
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "index.ts").write_text("export {};\n")
    (root / "node_modules" / "linked").symlink_to(root.parent)  # a link out of the root
    config = load_config(root, env={})
    reasons = []
    for locate in (service.from_cwd(root, config, cwd=root), service.from_root(root, config)):
        with pytest.raises(PathRefused) as refused:
            service.targets_of(["src/a.ts", path], locate)
        assert refused.value.index == 1 and refused.value.path == path
        reasons.append(refused.value.reason)
    assert reasons[0] == reasons[1] and reasons[0].startswith("it is ignored")
    # Without the config (our own walk's paths) only the path itself is judged.
    assert service.targets_of(["src/gen/out.ts"], service.from_root(root)) == ("src/gen/out.ts",)


def test_a_check_is_kept_in_the_store_it_is_given_and_nowhere_else(root: Path) -> None:
    store = SnapshotStore(directory=root / ".signalint" / "snapshots")
    kept = check(root, ["src/a.ts"], kind="files", store=store)
    found = store.get(kept.result.check_id)
    assert found is not None and (found.targets, found.kind) == (("src/a.ts",), "files")
    assert SnapshotStore(directory=root / ".signalint" / "snapshots").get(kept.result.check_id)
    unkept = check(root)
    assert store.get(unkept.result.check_id) is None


def test_a_check_with_history_is_recorded_with_its_metrics(root: Path) -> None:
    history = Session(state_dir(root, env={}))
    checked = check(root, history=history, words=tool_words)
    assert checked.warnings is not None and checked.warnings.loop_warning is None
    recorded = stats(state_dir(root, env={}))
    assert recorded["checks"] == 1 and recorded["latencySamples"] == 1
    assert check(root).warnings is None  # no history given: nothing recorded
    assert stats(state_dir(root, env={}))["checks"] == 1


def test_progress_wraps_the_engine_runs_and_ends_before_the_answer(root: Path) -> None:
    events: list[str] = []

    @asynccontextmanager
    async def recording(engines: Sequence[str]) -> AsyncIterator[Progress]:
        events.append(f"begin {list(engines)}")
        yield lambda engine, stage: events.append(f"{engine} {stage}")
        events.append("end")

    checked = check(root, progress=recording)
    assert events == ["begin []", "end"]
    assert checked.result.code == "nothing_checked"  # no engine on: never clean


@pytest.mark.parametrize(
    ("targets", "kind", "reported"),
    [
        ((".",), "project", None),  # nothing can be outside the whole project
        (("src",), "project", 3),  # a project check of chosen paths
        (("src/a.ts",), "files", 3),
        ((".",), "files", 3),  # a file check always says what it filtered
    ],
)
def test_filtered_out_count_is_reported_by_every_scoped_check(
    targets: tuple[str, ...], kind: SnapshotKind, reported: int | None
) -> None:
    found = [issue()]
    snap = Snapshot(result(found), cluster(found), targets, kind, 3)
    assert snap.reported_filtered_out == reported
    zero = Snapshot(snap.result, snap.clustering, targets, kind, 0)
    assert zero.reported_filtered_out == (None if reported is None else 0)
