"""Node workers collect their garbage once idle after an answer (`warm/idle_gc.cjs`).

The collector's timing is checked in Node with a counting stand-in for
`gc` (deterministic up to generous waits); the real tier starts the ESLint
worker through a real `WarmPool`, lets it lint a project large enough to
leave garbage, and reads its resident memory from /proc: its peak (the
lint) and once the worker has been idle. Without the collection V8 keeps
what the lint filled (docs/benchmarks-history.md, issue 37: an ESLint worker stayed
at its peak until the session ended).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from signalint.engines.base import EngineContext
from signalint.engines.eslint import adapter
from signalint.engines.resolve import resolve
from signalint.warm import pool as pool_module
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine

pytestmark = pytest.mark.real  # both start Node

COLLECTOR = Path(pool_module.__file__).with_name("idle_gc.cjs")
MIB = 1 << 20

TIMING = """
const { idleCollector, IDLE_MS, DURING_MS, SLACK } = require(process.argv[1]);
const seen = [];
const start = Date.now();
let heap = 1.5 * SLACK;  // past the idle threshold, below the one during an ask
const make = (name) => idleCollector(() => seen.push([name, Date.now() - start]), () => heap);
const idle = make("idle");
idle.idle();
const cancelled = make("cancelled");
cancelled.idle();
setTimeout(() => cancelled.busy(), IDLE_MS / 3);
const again = make("again");
again.idle();
setTimeout(() => again.idle(), IDLE_MS / 2);  // a later answer starts the wait anew
const bare = idleCollector(undefined);
bare.idle();  // no --expose-gc: nothing to call, no error
// After its collections, a heap that has not grown by half again is left alone;
// one that has is collected again.
const steady = make("steady");
steady.idle();
setTimeout(() => steady.idle(), IDLE_MS * 4);
const grows = make("grows");
grows.idle();
setTimeout(() => { heap = 4 * SLACK; grows.idle(); }, IDLE_MS * 4);
// During an ask: collected when the heap grew past the threshold, never when
// it did not; the look stops when the answer is written.
const during = make("during");
during.busy();
setTimeout(() => { heap = 8 * SLACK; }, DURING_MS * 2.5);  // only "during" asks now
setTimeout(() => during.idle(), DURING_MS * 5);
setTimeout(() => { console.log(JSON.stringify({ seen, IDLE_MS, DURING_MS })); }, IDLE_MS * 14);
"""


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not on PATH")
    return found


def test_collects_twice_once_idle_and_a_request_cancels_it() -> None:
    out = subprocess.run(
        [node(), "-e", TIMING, str(COLLECTOR)], capture_output=True, text=True, check=True,
        timeout=60,
    )  # fmt: skip
    data = json.loads(out.stdout)
    idle_ms = data["IDLE_MS"]
    by_name: dict[str, list[int]] = {}
    for name, at in data["seen"]:
        by_name.setdefault(name, []).append(at)
    # Its idle collections never ran (what it collected later was during the
    # ask its `busy` began, once the heap grew).
    assert all(at >= data["DURING_MS"] * 2.5 for at in by_name.get("cancelled", [])), data
    assert len(by_name["idle"]) == 2 and by_name["idle"][0] >= idle_ms - 5
    assert by_name["idle"][1] > by_name["idle"][0]
    assert len(by_name["again"]) == 2
    # Counted from the second answer, not the first.
    assert by_name["again"][0] >= idle_ms // 2 + idle_ms - 5
    assert len(by_name["steady"]) == 2  # the second idle found nothing grown
    assert len(by_name["grows"]) == 4
    # At 1.5 * SLACK (below 64 MiB of growth) nothing during the ask; at 8 *
    # SLACK one collection, and none after it (the floor is 8 * SLACK now);
    # then, the ask having been collected during, the idle pair all the same.
    during = by_name["during"]
    assert len(during) == 3, data
    assert data["DURING_MS"] * 2.5 <= during[0] <= data["DURING_MS"] * 5 + 50
    assert during[1] >= data["DURING_MS"] * 5 + data["IDLE_MS"] - 5


def resident(pid: int, field: str = "VmRSS") -> int:
    """`pid`'s resident bytes now (VmRSS) or at their highest (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} for {pid}")


def worker_pid(word: str) -> int:
    """Our child whose command line names `word` (the worker script)."""
    me = str(os.getpid())
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            argv = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = stat[stat.rindex(")") + 2 :].split()[1]
        if parent == me and any(a.endswith(word.encode()) for a in argv):
            return int(name)
    raise AssertionError(f"no child process runs {word}")


def many_files(root: Path, count: int) -> list[str]:
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"type":"module","private":true}\n')
    rules = {"no-debugger": "error", "eqeqeq": "warn", "prefer-const": "error", "no-var": "error"}
    (root / "eslint.config.js").write_text(f"export default [{{ rules: {json.dumps(rules)} }}];\n")
    body = "".join(
        f"export function f{n}(a, b) {{\n  let s = a + {n};\n"
        f"  if (s == b) {{ return [s, a, b]; }}\n"
        f"  var t = {{ x: s, y: b, z: `${{a}}-{n}` }};\n  return t;\n}}\n"
        for n in range(150)
    )
    names = []
    for index in range(count):
        name = f"src/m{index:04d}.js"
        (root / name).write_text(body)
        names.append(name)
    return names


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_the_eslint_worker_gives_its_garbage_back_once_idle(tmp_path: Path) -> None:
    require_engine("eslint")
    root = tmp_path / "repo"
    files = many_files(root, 150)
    executable = resolve(adapter.ENGINE, root).path
    assert executable is not None
    ctx = EngineContext(root=root, executable=executable, timeout_s=300, state_dir=tmp_path / "s")
    pool = WarmPool(1 << 32, tmp_path / "warm")

    async def scenario() -> tuple[int, int, int]:
        command = adapter.ENGINE.command(ctx, files, None)
        answer = await pool.answer("eslint", ctx, command)
        assert answer is not None and answer.served == "warm"
        assert answer.result is not None and answer.result.exit_code == 1
        pid = worker_pid("eslint_worker.cjs")
        assert "--expose-gc" in Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        # Its peak, not its size now: under load the collection may already
        # have run by the time this reads it.
        after = resident(pid, "VmHWM")
        time.sleep(2.0)  # the loop is blocked: no request reaches the worker meanwhile
        rested = resident(pid)
        # And it still answers, as it did (the same report).
        again = await pool.answer("eslint", ctx, command)
        assert again is not None and again.result is not None
        assert again.result.stdout == answer.result.stdout
        await pool.close()
        return pid, after, rested

    _, after, rested = asyncio.run(scenario())
    print(f"eslint worker: {after / MIB:.1f} MiB at its peak, {rested / MIB:.1f} idle")
    assert rested < after - 40 * MIB, (after / MIB, rested / MIB)
