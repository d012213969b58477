"""The warm pool's guarantees, with a fault-injection worker (tests/warm/fake_worker.py):
restart once then cold, hangs killed, a config change restarts, memory bounded,
no process left behind."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from signalint import process
from signalint.engines.base import EngineContext
from signalint.process import Child, Command, ProcessResult
from signalint.warm import pool as pool_module
from signalint.warm.driver import WorkerFailed, WorkerKey
from signalint.warm.pool import WarmPool
from tests.helpers import alive, wait_until_dead

pytestmark = pytest.mark.real  # starts worker interpreters

WORKER = Path(__file__).with_name("fake_worker.py")


class FakeSession:
    label = "fake 1.0"

    def __init__(self, child: Child) -> None:
        self.child = child

    async def ask(self, command: Command) -> ProcessResult:
        try:  # a worker that died before the ask: a failed pipe, as the real sessions say
            self.child.stdin.write(json.dumps({"argv": list(command.argv)}).encode() + b"\n")
            await self.child.stdin.drain()
            line = await self.child.stdout.readline()
        except OSError as exc:
            raise WorkerFailed(f"the worker's pipe failed: {exc}") from exc
        if not line:
            raise WorkerFailed("the worker closed its output")
        try:
            answer = json.loads(line)
        except ValueError as exc:
            raise WorkerFailed(f"unreadable answer: {line[:80]!r}") from exc
        return ProcessResult(command.argv, answer["exit"], answer["stdout"], "", 0.0)

    async def close(self) -> None:
        await self.child.stop()


class FakeDriver:
    """Serves engine "fake": one worker per root; `options["config"]` is its state."""

    engine = "fake"

    def __init__(self, control: Path) -> None:
        self.control = control
        self.opened = 0

    def key(self, ctx: EngineContext, command: Command) -> WorkerKey | None:
        if "cold" in command.argv:
            return None
        return WorkerKey(str(ctx.root), str(ctx.options.get("config", "")))

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> FakeSession:
        self.opened += 1
        argv = (sys.executable, str(WORKER), str(self.control))
        child = await process.start(Command(argv, ctx.root, 10), stderr_to=log)
        if not isinstance(child, Child):
            raise WorkerFailed(f"could not start: {child.start_error}")
        if not await child.stdout.readline():
            await child.stop()
            raise WorkerFailed("the worker exited at start")
        return FakeSession(child)


@pytest.fixture
def control(tmp_path: Path) -> Path:
    return tmp_path / "mode"


@pytest.fixture
def pool(tmp_path: Path, control: Path) -> Iterator[WarmPool]:
    made = WarmPool(1 << 40, tmp_path / "logs", {"fake": FakeDriver(control)})
    yield made
    made.kill_all()


def ctx(root: Path, **options: object) -> EngineContext:
    return EngineContext(root, Path("/bin/true"), 5.0, root / "state", options)


def command(root: Path, *argv: str, timeout: float = 5.0) -> Command:
    return Command(("fake", *argv), root, timeout)


def test_a_worker_answers_and_is_reused(pool: WarmPool, tmp_path: Path) -> None:
    async def go() -> list[int]:
        pids = []
        for word in ("a", "b", "c"):
            answer = await pool.answer("fake", ctx(tmp_path), command(tmp_path, word))
            assert answer is not None and answer.served == "warm"
            assert answer.result is not None and answer.result.stdout == f"fake {word}"
            pids.append(pool.workers()[0].pid)
        await pool.close()
        return pids

    pids = asyncio.run(go())
    assert len(set(pids)) == 1
    assert pool.counts.warm == 3 and pool.counts.started == 1 and pool.counts.restarts == 0


def test_engines_and_commands_not_served_go_cold(pool: WarmPool, tmp_path: Path) -> None:
    async def go() -> None:
        assert await pool.answer("tsc", ctx(tmp_path), command(tmp_path)) is None
        assert await pool.answer("fake", ctx(tmp_path), command(tmp_path, "cold")) is None

    asyncio.run(go())
    assert pool.workers() == [] and pool.counts.fallbacks == 0


def test_a_crash_restarts_the_worker_once_and_it_answers(
    pool: WarmPool, tmp_path: Path, control: Path
) -> None:
    async def go() -> None:
        await pool.answer("fake", ctx(tmp_path), command(tmp_path, "a"))
        first = pool.workers()[0].pid
        os.kill(first, signal.SIGKILL)
        await asyncio.sleep(0.2)
        answer = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "b"))
        assert answer is not None and answer.served == "warm"
        assert pool.workers()[0].pid != first
        assert pool.workers()[0].restarts == 1
        await pool.close()

    asyncio.run(go())
    assert pool.counts.restarts == 1 and pool.counts.fallbacks == 0


@pytest.mark.parametrize("mode", ["crash", "garbage"])
def test_a_worker_failing_twice_hands_over_to_cold(
    pool: WarmPool, tmp_path: Path, control: Path, mode: str
) -> None:
    async def go() -> None:
        await pool.answer("fake", ctx(tmp_path), command(tmp_path, "a"))
        control.write_text(mode)
        answer = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "b"))
        assert answer is not None and answer.served == "fallback" and answer.result is None
        control.write_text("ok")
        # The next check starts a worker again and is served warm.
        again = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "c"))
        assert again is not None and again.served == "warm"
        await pool.close()

    asyncio.run(go())
    assert pool.counts.fallbacks == 1
    # The first worker, its one restart (which failed too), the next check's.
    assert pool.counts.started == 3 and pool.counts.restarts == 2
    # Why, as `daemon status` shows it (`warm.failures`): the worker's stderr said.
    failed = pool.failures.as_json()["fake"]
    assert (failed["failures"], failed["fallbacks"]) == (2, 1)
    assert (
        failed["lastReason"]
        == {
            "crash": "the worker closed its output (stderr: the fake worker crashed (injected))",
            "garbage": "unreadable answer: b'not json\\n'",
        }[mode]
    )


def test_a_live_answer_comes_only_from_a_running_current_worker(
    pool: WarmPool, tmp_path: Path, control: Path
) -> None:
    # What a check asks while it hashes a program's inputs (`run_live`):
    # never a start, a restart or a fallback; the usual ask does those.
    async def go() -> None:
        def live(word: str, **options: object) -> Awaitable[pool_module.WarmAnswer | None]:
            return pool.answer("fake", ctx(tmp_path, **options), command(tmp_path, word), live=True)

        assert await live("a") is None
        assert pool.workers() == [] and pool.counts.started == 0
        await pool.answer("fake", ctx(tmp_path), command(tmp_path, "a"))
        answer = await live("b")
        assert answer is not None and answer.served == "warm"
        assert answer.result is not None and answer.result.stdout == "fake b"
        first = pool.workers()[0].pid
        assert await live("c", config="changed") is None  # not current: left as it is
        assert [w.pid for w in pool.workers()] == [first]
        control.write_text("garbage")
        assert await live("d") is None  # failed: stopped, not restarted
        assert pool.workers() == []
        control.write_text("ok")
        again = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "e"))
        assert again is not None and again.served == "warm"
        await pool.close()

    asyncio.run(go())
    assert pool.counts.warm == 3 and pool.counts.fallbacks == 0
    assert pool.counts.started == 2 and pool.counts.restarts == 1


def test_a_cancelled_ask_never_hands_its_answer_to_the_next(
    pool: WarmPool, tmp_path: Path, control: Path
) -> None:
    """A check cancelled while its worker answers (a newer keystroke): the
    worker is kept, and the next ask gets its own answer, not the dropped one."""

    async def go() -> tuple[str, int, int]:
        first = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "warm"))
        assert first is not None and first.served == "warm"
        pid = pool.workers()[0].pid
        control.write_text("slow")
        asking = asyncio.ensure_future(
            pool.answer("fake", ctx(tmp_path), command(tmp_path, "dropped"))
        )
        await asyncio.sleep(0.2)
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        control.write_text("ok")
        answer = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "next"))
        assert answer is not None and answer.result is not None
        return answer.result.stdout, pid, pool.workers()[0].pid

    stdout, before, after = asyncio.run(go())
    assert stdout == "fake next"
    assert before == after and pool.counts.restarts == 0


def test_a_hang_is_killed_and_cold_answers(pool: WarmPool, tmp_path: Path, control: Path) -> None:
    async def go() -> int:
        await pool.answer("fake", ctx(tmp_path), command(tmp_path, "a"))
        pid = pool.workers()[0].pid
        control.write_text("hang")
        answer = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "b", timeout=0.5))
        assert answer is not None and answer.served == "fallback"
        assert pool.workers() == []
        return pid

    pid = asyncio.run(go())
    assert not alive(pid)
    assert pool.counts.fallbacks == 1
    assert pool.failures.as_json()["fake"]["lastReason"] == "did not answer within 0.5 s (stopped)"


def test_a_changed_state_restarts_the_worker(pool: WarmPool, tmp_path: Path) -> None:
    async def go() -> tuple[int, int]:
        await pool.answer("fake", ctx(tmp_path, config="1"), command(tmp_path, "a"))
        before = pool.workers()[0].pid
        await pool.answer("fake", ctx(tmp_path, config="2"), command(tmp_path, "b"))
        after = pool.workers()[0].pid
        await pool.close()
        return before, after

    before, after = asyncio.run(go())
    assert before != after and not alive(before)
    assert len(pool.workers()) == 0
    assert pool.counts.restarts == 1


def test_workers_over_the_memory_bound_are_stopped_least_recent_first(
    tmp_path: Path, control: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_module, "BOUND_EVERY_S", 0.3)  # memory is read that often
    pool = WarmPool(150 * 1024 * 1024, tmp_path / "logs", {"fake": FakeDriver(control)})
    roots = [tmp_path / name for name in ("one", "two")]
    for root in roots:
        root.mkdir()

    async def go() -> None:
        await pool.answer("fake", ctx(roots[0]), command(roots[0], "a"))
        await pool.answer("fake", ctx(roots[1]), command(roots[1], "a"))
        assert len(pool.workers()) == 2
        control.write_text("big")
        await asyncio.sleep(0.4)
        # The worker that grows past the bound answers, then is stopped.
        answer = await pool.answer("fake", ctx(roots[1]), command(roots[1], "b"))
        assert answer is not None and answer.served == "warm"
        left = pool.workers()
        assert [w.slot for w in left] in ([], [str(roots[0])])
        await pool.close()

    try:
        asyncio.run(go())
    finally:
        pool.kill_all()
    assert pool.counts.warm == 3


def test_memory_is_read_after_a_first_answer_and_then_once_an_interval(
    tmp_path: Path, control: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool_module, "BOUND_EVERY_S", 0.3)
    # The pool's clock moves only when the test moves it: answers slowed by
    # a loaded machine do not pass the interval by themselves.
    clock = [time.monotonic()]
    monkeypatch.setattr(pool_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    reads: list[set[int]] = []
    groups_rss = process.groups_rss

    def counted(pgids: set[int]) -> dict[int, int]:
        reads.append(pgids)
        return groups_rss(pgids)

    monkeypatch.setattr(process, "groups_rss", counted)
    pool = WarmPool(1 << 40, tmp_path / "logs", {"fake": FakeDriver(control)})
    root = tmp_path / "one"
    root.mkdir()

    async def go() -> None:
        for word in ("a", "b", "c"):
            await pool.answer("fake", ctx(root), command(root, word))
        assert len(reads) == 1  # the first answer only
        clock[0] += 0.4
        await pool.answer("fake", ctx(root), command(root, "d"))
        assert len(reads) == 2
        await pool.close()

    try:
        asyncio.run(go())
    finally:
        pool.kill_all()


def test_kill_all_ends_every_worker_and_what_it_started(pool: WarmPool, tmp_path: Path) -> None:
    roots = [tmp_path / name for name in ("one", "two")]
    for root in roots:
        root.mkdir()

    async def go() -> list[int]:
        for root in roots:
            await pool.answer("fake", ctx(root), command(root, "a"))
        return [w.pid for w in pool.workers()]

    pids = asyncio.run(go())
    assert len(pids) == 2 and all(alive(p) for p in pids)
    pool.kill_all()
    assert wait_until_dead(pids) == []


def test_a_pool_asked_from_another_loop_starts_afresh(pool: WarmPool, tmp_path: Path) -> None:
    async def once() -> int:
        answer = await pool.answer("fake", ctx(tmp_path), command(tmp_path, "a"))
        assert answer is not None and answer.served == "warm"
        return pool.workers()[0].pid

    first = asyncio.run(once())
    second = asyncio.run(once())
    assert first != second and wait_until_dead([first]) == []  # killed, not waited for
    pool.kill_all()


def test_a_worker_exits_when_its_parent_dies(tmp_path: Path, control: Path) -> None:
    """A parent killed outright leaves its workers end of file on stdin."""
    script = f"""
import asyncio, sys
sys.path.insert(0, {str(Path(__file__).parents[2])!r})
from tests.warm.test_pool import FakeDriver, ctx, command
from signalint.warm.pool import WarmPool
from pathlib import Path
root = Path({str(tmp_path)!r})
pool = WarmPool(1 << 40, root / "logs", {{"fake": FakeDriver(Path({str(control)!r}))}})
async def go():
    await pool.answer("fake", ctx(root), command(root, "a"))
    print(pool.workers()[0].pid, flush=True)
    await asyncio.sleep(3600)
asyncio.run(go())
"""
    parent = process.run_blocking(Command((sys.executable, "-c", "pass"), tmp_path, 10))
    assert parent.exit_code == 0

    async def go() -> int:
        child = await process.start(Command((sys.executable, "-c", script), tmp_path, 30))
        assert isinstance(child, Child)
        line = await asyncio.wait_for(child.stdout.readline(), timeout=20)
        worker = int(line)
        assert alive(worker)
        os.kill(child.pid, signal.SIGKILL)  # the parent only, not its group
        await child.stop(grace_s=0)
        return worker

    worker = asyncio.run(go())
    assert wait_until_dead([worker]) == []
