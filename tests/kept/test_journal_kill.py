"""Crash safety of fix transactions (D9): `kill -9` at any point, then recovery.

A forked child applies a 20-file transaction (existing files, executable
files, new files in new directories) and is killed with SIGKILL at a
checkpoint chosen by the injected fault (`tests.faults.KillAt`):
before the journal is durable, between files, with a temporary file half
written, before and after each rename, after the commit. The parent then
runs recovery (in-process for most trials, through a real `signalint` start
for some) and checks that every file is entirely old or entirely new, the
transaction as a whole too, and that no original was lost.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.kept import fix_journal as journal
from tests.faults import KillAt

pytestmark = pytest.mark.real  # forks children and starts the real CLI

TRIALS = 200
FILES = 20


def _project(root: Path) -> list[journal.Write]:
    """A project with 20 planned writes: 14 edits (2 executable), 6 new files."""
    root.mkdir()
    (root / "package.json").write_text('{"name": "p"}\n')
    writes = []
    for index in range(FILES):
        if index < 14:
            path = root / "src" / f"f{index}.ts"
            path.parent.mkdir(exist_ok=True)
            original = f"export const v{index} = {index};\n" * 50
            path.write_text(original)
            if index < 2:
                path.chmod(0o755)
            writes.append(
                journal.Write(
                    f"src/f{index}.ts", (original + "// new\n").encode(), original.encode()
                )
            )
        else:
            writes.append(
                journal.Write(f"gen/d{index}/n{index}.ts", f"export {index};\n".encode() * 40, None)
            )
    return writes


def _state(root: Path, writes: list[journal.Write]) -> list[str]:
    """'old' or 'new' per file; anything else is a failure description."""
    states = []
    for write in writes:
        path = root / write.file
        if write.original is None:
            if not path.exists():
                states.append("old")
                continue
            states.append("new" if path.read_bytes() == write.patched else f"mixed {write.file}")
            continue
        data = path.read_bytes() if path.exists() else None
        if data == write.original:
            states.append("old")
        elif data == write.patched:
            states.append("new")
        else:
            states.append(f"mixed {write.file}")
    return states


def _kill_child(root: Path, writes: list[journal.Write], kill_at: int) -> None:
    pid = os.fork()
    if pid == 0:  # the child: apply, killed by the hook
        try:
            journal.write_all(root, "tx-trial", writes, checkpoint=KillAt(kill_at))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    total = journal.checkpoints(len(writes))
    if kill_at <= total:
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def test_kill_9_at_any_point_leaves_every_file_all_old_or_all_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    total = journal.checkpoints(FILES)
    rng = random.Random(11)
    points = [1 + trial % total for trial in range(TRIALS)]  # every point, several times
    rng.shuffle(points)
    outcomes = {"old": 0, "new": 0}
    via_cli = set(rng.sample(range(TRIALS), 4))
    for trial, kill_at in enumerate(points):
        root = tmp_path / f"t{trial}"
        writes = _project(root)
        _kill_child(root, writes, kill_at)
        if trial in via_cli:
            done = subprocess.run(
                [str(Path(sys.executable).parent / "signalint"), "cache", "info"],
                cwd=root, capture_output=True, text=True, check=False,
                env={**os.environ, "SIGNALINT_PROJECT_ROOT": str(root)},
            )  # fmt: skip
            assert (
                "interrupted fix transaction" in done.stderr
                or kill_at <= 3
                or (kill_at > total - 2)
            ), done.stderr
        else:
            journal.recover(root)
        states = _state(root, writes)
        bad = [s for s in states if s not in ("old", "new")]
        assert not bad, (trial, kill_at, bad)
        assert len(set(states)) == 1, (trial, kill_at, states)
        outcomes[states[0]] += 1
        if states[0] == "old":
            for write in writes[:2]:
                assert stat.S_IMODE((root / write.file).stat().st_mode) == 0o755
            assert not (root / "gen").exists(), "new directories are removed on undo"
        leftovers = [p.name for p in root.rglob(f"{journal.TEMP_PREFIX}*")]
        assert not leftovers
        assert not [p for p in journal.journal_dir(root).iterdir() if p.name != ".lock"]
    # Killed after the commit point the transaction stands; before it, it is undone.
    assert outcomes["old"] > 150 and outcomes["new"] > 0, outcomes
    print(f"{TRIALS} kill -9 trials: {outcomes}, 0 mixed, 0 lost originals")


def test_a_completed_transaction_keeps_mode_bits_and_leaves_no_journal(tmp_path: Path) -> None:
    root = tmp_path / "p"
    writes = _project(root)
    journal.write_all(root, "tx-ok", writes)
    assert set(_state(root, writes)) == {"new"}
    assert stat.S_IMODE((root / "src/f0.ts").stat().st_mode) == 0o755
    assert journal.recover(root) == []


def test_kill_9_from_outside_at_random_moments_leaves_every_file_all_old_or_all_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No hook: the parent kills the applying child after a random delay."""
    import time

    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)

    def bigger(writes: list[journal.Write]) -> list[journal.Write]:
        # ~1 MB per file, so a whole apply lasts long enough to be hit midway.
        return [journal.Write(w.file, w.patched * 600, w.original) for w in writes]

    timing = tmp_path / "timing"
    writes = bigger(_project(timing))
    started = time.perf_counter()
    journal.write_all(timing, "tx-timing", writes)
    duration = time.perf_counter() - started
    rng = random.Random(7)
    outcomes = {"old": 0, "new": 0}
    for trial in range(20):
        root = tmp_path / f"r{trial}"
        writes = bigger(_project(root))
        pid = os.fork()
        if pid == 0:
            try:
                journal.write_all(root, "tx-random", writes)
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0, duration * 3))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        journal.recover(root)
        states = _state(root, writes)
        assert not [s for s in states if s not in ("old", "new")], (trial, states)
        assert len(set(states)) == 1, (trial, states)
        outcomes[states[0]] += 1
        assert not list(root.rglob(f"{journal.TEMP_PREFIX}*"))
    print(f"20 external kill -9 trials over {duration * 1000:.0f} ms applies: {outcomes}")
