"""TypeScript 7 kept warm through its native API (engines/tsc/warm_native.py): after
every step of an edit sequence the warm answer equals a cold `tsc` run on the
same content, byte for byte and as the adapter parses it (D23); a killed
worker is restarted, a garbled one falls back to cold."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from signalint import process
from signalint.cache.context import Context
from signalint.engines.base import EngineContext
from signalint.engines.tsc.adapter import ENGINE, _read
from signalint.engines.tsc.warm_native import NativeTscDriver, NativeTscSession, served_config
from signalint.model import CheckResult, Scope
from signalint.pipeline.check_run import run_check
from signalint.pipeline.request import RunRequest
from signalint.process import Child, Command, ProcessResult
from signalint.settings.config import load_config
from signalint.warm.driver import WorkerFailed
from signalint.warm.pool import WarmPool
from tests.conftest import require_engine
from tests.helpers import wait_until_dead

pytestmark = pytest.mark.real  # starts the real tsc and its API process

TYPES = [
    "export interface Item { name: string; count: number }\n",
    "export interface Item { name: number; count: number }\n",
    "export interface Item { title: string }\n",
    "export type Item = { name: string; count: number; extra?: Array<{ deep: { x: 1 } }> };\n",
]
UTIL = [
    "import type { Item } from './types.js';\n"
    "export function helper(i: Item): string { return i.name; }\n",
    "import type { Item } from './types.js';\n"
    "export function helperRenamed(i: Item): string { return String(i.name); }\n",
    "export function helper(i: { name: string }): number { return i.name; }\n",
    "export function helper(: ) {\n",  # a syntax error
]
EXTRA = [
    "import { helper } from './util.js';\nexport const e = helper({ name: 'x', count: 1 });\n",
    "export const é: number = 'ü'; // 日本\n",
    "import 'lib-x';\nexport const n: number = 1;\n",
    "const unused = 1;\nexport {};\n",
    "export const t: number = await Promise.resolve(1);\n",  # an error in CommonJS only
    "import { s } from '../shared/s.js';\nexport const t: number = s;\n",  # outside `include`
    "import { é } from './extra1.js';\nexport const z: string = é;\n",  # maybe not there yet
]
BASES = [
    {"strict": True},
    {"strict": False, "noUnusedLocals": True},
    {"strict": True, "exactOptionalPropertyTypes": True},
]


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_project(root: Path) -> None:
    _write(root, "package.json", '{"name": "warm-tsc7", "private": true, "type": "module"}\n')
    _write(root, "tsconfig.base.json", json.dumps({"compilerOptions": BASES[0]}) + "\n")
    _write(
        root,
        "tsconfig.json",
        json.dumps(
            {
                "extends": "./tsconfig.base.json",
                "compilerOptions": {
                    "noEmit": True,
                    "module": "nodenext",
                    "target": "es2022",
                    "types": [],
                },
                "include": ["src"],
            }
        )
        + "\n",
    )
    _write(
        root,
        "signalint.config.json",
        '{"engines": {"oxlint": false, "tsc": true, "biome": false, "eslint": false}}\n',
    )
    _write(root, "src/types.ts", TYPES[0])
    _write(root, "src/util.ts", UTIL[0])
    _write(
        root,
        "src/main.ts",
        "import { helper } from './util.js';\nimport type { Item } from './types.js';\n"
        "const item: Item = { name: 'a', count: 1 };\nexport const out: string = helper(item);\n",
    )


def apply(root: Path, op: tuple[str, int]) -> None:
    kind, n = op
    if kind == "type":  # an exported type: dependents break or heal
        _write(root, "src/types.ts", TYPES[n % len(TYPES)])
    elif kind == "export":  # a renamed export, a changed signature, a syntax error
        _write(root, "src/util.ts", UTIL[n % len(UTIL)])
    elif kind == "add":
        _write(root, f"src/extra{n % 3}.ts", EXTRA[n % len(EXTRA)])
    elif kind == "delete":
        target = ["src/util.ts", "src/extra0.ts", "src/extra1.ts", "src/types.ts"][n % 4]
        (root / target).unlink(missing_ok=True)
    elif kind == "config":
        _write(root, "tsconfig.base.json", json.dumps({"compilerOptions": BASES[n % 3]}))
    elif kind == "package":  # npm install / uninstall outside `include`
        package = root / "node_modules" / "lib-x"
        if package.exists():
            shutil.rmtree(package)
        else:
            _write(root, "node_modules/lib-x/package.json", '{"name": "lib-x", "types": "x.d.ts"}')
            _write(root, "node_modules/lib-x/x.d.ts", "export declare const x: number;\n")
    elif kind == "shared":  # a module outside `include` that an import looks for
        shared = root / "shared" / "s.ts"
        if shared.exists():
            shared.unlink()
        else:
            _write(root, "shared/s.ts", "export const s = 'x';\n")
    elif kind == "format":  # the package's module format: read from package.json
        manifest = root / "package.json"
        data = json.loads(manifest.read_text())
        data["type"] = "commonjs" if data.get("type") == "module" else "module"
        manifest.write_text(json.dumps(data))
    elif kind == "behind":
        # Same size, same modification time: only the content tells.
        path = root / "src/main.ts"
        if not path.exists():
            return
        stat = path.stat()
        text = path.read_text(encoding="utf-8")
        swapped = text.replace("'a'", "1 ") if "'a'" in text else text.replace("1 ", "'a'", 1)
        path.write_text(swapped, encoding="utf-8")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _changes_base(steps: list[tuple[str, int]], index: int) -> bool:
    """Whether config step `index` writes other content than the base holds
    (the first write always does: `make_project` ends the file in a newline)."""
    before = next((s[1] % 3 for s in reversed(steps[:index]) if s[0] == "config"), None)
    return before is None or before != steps[index][1] % 3


def engine_context(root: Path) -> EngineContext:
    return EngineContext(root, require_engine("tsc"), 120.0, root / ".state")


def cold(ctx: EngineContext) -> ProcessResult:
    return asyncio.run(process.run(ENGINE.command(ctx, [], None)))


def parsed(result: ProcessResult, ctx: EngineContext) -> tuple[object, ...]:
    issues = Counter(
        (d.file, d.line, d.col, d.rule, d.severity, "\n".join(d.message))
        for d in _read(result.stdout, ctx)
    )
    program = ENGINE.program([result], ctx, None, frozenset())
    return issues, Counter(program.inputs), program.gap, result.exit_code


class Warm:
    """A pool with the native driver on one event loop (as a server has)."""

    def __init__(self, log_dir: Path, driver: NativeTscDriver | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.pool = WarmPool(1 << 31, log_dir, {"tsc": driver or NativeTscDriver()})

    def ask(self, ctx: EngineContext) -> ProcessResult | None:
        command = ENGINE.command(ctx, [], None)
        answer = self.loop.run_until_complete(self.pool.answer("tsc", ctx, command))
        assert answer is not None, "the driver did not serve the command"
        return answer.result

    def close(self) -> None:
        self.loop.run_until_complete(self.pool.close())
        self.loop.close()


@pytest.fixture
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warm]:
    pool = Warm(tmp_path_factory.mktemp("warm-logs"))
    yield pool
    pool.close()


def assert_equal(ctx: EngineContext, warm: ProcessResult | None, step: object) -> None:
    assert warm is not None, f"no warm answer after {step}"
    reference = cold(ctx)
    assert parsed(warm, ctx) == parsed(reference, ctx), f"after {step}"
    assert (warm.stdout, warm.exit_code) == (reference.stdout, reference.exit_code), step


STEPS = st.tuples(
    st.sampled_from(
        ["type", "export", "add", "delete", "config", "package", "format", "shared", "behind"]
    ),
    st.integers(0, 5),
)


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, min_size=3, max_size=7))
@example(steps=[("type", 1), ("export", 1), ("add", 0), ("delete", 0), ("export", 0)])
@example(steps=[("behind", 0), ("config", 1), ("add", 2), ("package", 0), ("package", 0)])
@example(steps=[("export", 3), ("type", 2), ("delete", 3), ("add", 1), ("config", 2)])
@example(steps=[("add", 4), ("format", 0), ("format", 0)])
@example(steps=[("add", 5), ("shared", 0), ("shared", 0), ("shared", 0)])
# A module created after an unrelated edit, inside and outside `include`.
@example(steps=[("add", 5), ("type", 1), ("shared", 0)])
@example(steps=[("add", 6), ("type", 1), ("add", 1)])
def test_warm_answers_equal_cold_runs_after_every_edit(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    root = tmp_path_factory.mktemp("tsc7")
    make_project(root)
    ctx = engine_context(root)
    warm = Warm(root / ".logs")
    try:
        assert_equal(ctx, warm.ask(ctx), "start")
        for step in steps:
            apply(root, step)
            assert_equal(ctx, warm.ask(ctx), step)
        counts = warm.pool.counts
    finally:
        warm.close()
    assert counts.fallbacks == 0 and counts.warm == len(steps) + 1
    # Only a config edit restarts the worker (its state changed).
    assert counts.started == 1 + sum(
        1 for i, s in enumerate(steps) if s[0] == "config" and _changes_base(steps, i)
    )


def test_a_settled_file_edited_behind_the_worker_is_seen(tmp_path: Path) -> None:
    # The worker reuses a file's hash while its stat is unchanged, once the
    # file was older than the racy window when hashed: the files here are
    # (the project settles first). Same size, modification time put back:
    # only the change time tells, and it does.
    make_project(tmp_path)
    time.sleep(2.2)
    ctx = engine_context(tmp_path)
    warm = Warm(tmp_path / ".logs")
    try:
        assert_equal(ctx, warm.ask(ctx), "start")
        assert_equal(ctx, warm.ask(ctx), "unchanged")
        path = tmp_path / "src/main.ts"
        for before, after in (("'a'", "111"), ("111", "'a'")):
            stat = path.stat()
            path.write_text(path.read_text().replace(before, after))
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            assert path.stat().st_size == stat.st_size
            assert_equal(ctx, warm.ask(ctx), f"{before} -> {after}")
        assert warm.pool.counts.started == 1 and warm.pool.counts.fallbacks == 0
    finally:
        warm.close()


# Projects with one kind of diagnostic each: config file -> options, files.
KINDS: dict[str, tuple[dict[str, object] | None, dict[str, str]]] = {
    "chains-and-js": (
        {"compilerOptions": {"strict": True, "allowJs": True, "checkJs": True, "noEmit": True}},
        {
            "a.ts": "interface A { x: { y: { z: number }[] } }\ndeclare function g(a: A): void;\n"
            "g({ x: { y: [{ z: 'no' }] } });\nconst f: (a: string) => void = (a: number) => {};\n",
            "b.js": "/** @type {number} */ const q = 's'; unknownThing();\n",
        },
    ),
    "unicode-crlf-syntax": (
        {"compilerOptions": {"strict": True}},
        {"a.ts": "const é = 'ü';\r\nconst b: string = 1; // 日本\r\nlet c = ;\r\n"},
    ),
    "unknown-option-and-missing-types": (
        {"compilerOptions": {"strict": True, "bogus": 1, "types": ["nope"]}},
        {"a.ts": "export const a: number = 'x';\n"},
    ),
    "missing-extends": (
        {"extends": "./missing.json", "compilerOptions": {"strict": True}},
        {"a.ts": "export const a: number = 'x';\n"},
    ),
    "config-syntax": (None, {"a.ts": "export const a: number = 'x';\n"}),
    "declarations": (
        {"compilerOptions": {"declaration": True, "isolatedDeclarations": True, "noEmit": True}},
        {"a.ts": "export function f() { return 1; }\nexport const x = [1].map((a) => a);\n"},
    ),
    "no-default-library": ({"compilerOptions": {"noLib": True}}, {"a.ts": "export const a = [1];"}),
    "no-inputs": ({"include": ["src"]}, {"other.txt": "nothing to compile\n"}),
    "missing-file": ({"files": ["nope.ts", "a.ts"]}, {"a.ts": "export const a: number = 1;\n"}),
    "file-order": (
        {"compilerOptions": {"strict": True}},
        {
            f"src/{name}.ts": "export const x: number = 's';\n"
            for name in ("a-b", "a/b", "a", "B/c", "b", "Ab", "a_b")
        },
    ),
    "tsx-and-directives": (
        {"compilerOptions": {"strict": True, "jsx": "react-jsx"}},
        {"a.tsx": "export const a = <div/>;\n// @ts-expect-error\nexport const b = 1;\n"},
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_of_diagnostic_is_printed_as_tsc_prints_it(tmp_path: Path, kind: str) -> None:
    config, files = KINDS[kind]
    text = '{"compilerOptions": {"strict": true,\n' if config is None else json.dumps(config)
    _write(tmp_path, "tsconfig.json", text)
    for name, content in files.items():
        _write(tmp_path, name, content)
    ctx = engine_context(tmp_path)
    if kind in ("config-syntax", "missing-extends"):
        # A config chain that cannot be read could say anything: cold runs.
        # The worker itself (asked directly) would still answer as tsc does.
        assert NativeTscDriver().key(ctx, ENGINE.command(ctx, [], None)) is None
        assert_equal(ctx, asyncio.run(ask_directly(ctx)), kind)
        return
    warm = Warm(tmp_path / ".logs")
    try:
        assert_equal(ctx, warm.ask(ctx), kind)
        assert warm.pool.counts.warm == 1
    finally:
        warm.close()


async def ask_directly(ctx: EngineContext) -> ProcessResult:
    command = ENGINE.command(ctx, [], None)
    session = await NativeTscDriver().open(ctx, command, ctx.root / ".logs" / "tsc.log")
    try:
        return await session.ask(command)
    finally:
        await session.close()


def test_the_driver_serves_typescript_7_project_mode_only(tmp_path: Path) -> None:
    make_project(tmp_path)
    ctx = engine_context(tmp_path)
    driver = NativeTscDriver()
    command = ENGINE.command(ctx, [], None)
    key = driver.key(ctx, command)
    assert key is not None and served_config(command) == "tsconfig.json"
    # The config chain's content is the worker's state.
    _write(tmp_path, "tsconfig.base.json", json.dumps({"compilerOptions": BASES[1]}))
    changed = driver.key(ctx, command)
    assert changed is not None and changed.slot == key.slot and changed.state != key.state
    # Build mode (references) runs cold.
    _write(tmp_path, "pkg/tsconfig.json", '{"compilerOptions": {"composite": true}}')
    _write(tmp_path, "pkg/a.ts", "export const a = 1;\n")
    data = json.loads((tmp_path / "tsconfig.json").read_text())
    data["references"] = [{"path": "./pkg"}]
    _write(tmp_path, "tsconfig.json", json.dumps(data))
    assert driver.key(ctx, ENGINE.command(ctx, [], None)) is None


def test_a_typescript_5_install_is_not_served(tmp_path: Path) -> None:
    ts5 = Path.home() / ".cache/signalint/ts5/node_modules/.bin/tsc"
    if not ts5.exists():
        pytest.skip("no TypeScript 5 install")
    make_project(tmp_path)
    ctx = EngineContext(tmp_path, ts5, 60.0, tmp_path / ".state")
    assert NativeTscDriver().key(ctx, ENGINE.command(ctx, [], None)) is None


def observed(result: CheckResult) -> tuple[object, ...]:
    outcome = result.outcomes["tsc"]
    issues = Counter((i.file, i.line, i.col, i.rule, i.severity, i.message) for i in result.issues)
    return outcome.status, outcome.message, outcome.coverage_gap, issues


def check(root: Path, context: Context | None, files: tuple[str, ...] = ()) -> CheckResult:
    """A check (warm with a pool in `context`, else cold), of `files` alone
    as the CLI's `check FILE` asks when given."""
    scope = Scope(files) if files else Scope()
    config = load_config(root)
    request = RunRequest(root, config, scope, use_cache=context is not None, files_only=True)
    return asyncio.run(run_check(request, context)).result


def test_checks_through_a_warm_pool_equal_cold_checks(tmp_path: Path) -> None:
    make_project(tmp_path)
    context = Context(warm=WarmPool(1 << 31, tmp_path / "logs"))
    try:
        served = []
        for step in [("none", 0), ("type", 1), ("add", 1), ("behind", 0), ("delete", 0)]:
            apply(tmp_path, step)
            warm = check(tmp_path, context)
            served.append(warm.outcomes["tsc"].served)
            assert observed(warm) == observed(check(tmp_path, None)), step
        assert served == ["warm"] * 5
    finally:
        assert context.warm is not None
        asyncio.run(context.warm.close())


def test_a_check_of_a_file_is_answered_for_that_file_alone(tmp_path: Path) -> None:
    # The shared type changes under every user: a check of one user (as the
    # CLI's `check FILE` asks) answers for it alone, as a cold check of it
    # does; the whole check after it still sees every user.
    make_project(tmp_path)
    context = Context(warm=WarmPool(1 << 31, tmp_path / "logs"))
    try:
        check(tmp_path, context)
        # ("export", 3) is a syntax error: no semantic diagnostic is reported.
        for step in [("type", 1), ("add", 1), ("export", 3), ("type", 2), ("export", 2)]:
            apply(tmp_path, step)
            scoped = check(tmp_path, context, ("src/util.ts",))
            outcome = scoped.outcomes["tsc"]
            assert outcome.served == "warm" and outcome.scoped, step
            assert outcome.files_checked == 1
            assert observed(scoped) == observed(check(tmp_path, None, ("src/util.ts",))), step
            assert {i.file for i in scoped.issues} <= {"src/util.ts"}
            whole = check(tmp_path, context)
            assert not whole.outcomes["tsc"].scoped
            assert observed(whole) == observed(check(tmp_path, None)), step
    finally:
        assert context.warm is not None
        asyncio.run(context.warm.close())


def test_a_killed_worker_is_restarted_and_still_equal(tmp_path: Path, warm: Warm) -> None:
    make_project(tmp_path)
    ctx = engine_context(tmp_path)
    assert_equal(ctx, warm.ask(ctx), "start")
    (worker,) = warm.pool.workers()
    os.killpg(worker.pid, signal.SIGKILL)
    apply(tmp_path, ("type", 1))
    assert_equal(ctx, warm.ask(ctx), "after the kill")
    assert warm.pool.counts.restarts == 1 and warm.pool.counts.fallbacks == 0


class GarbledSession(NativeTscSession):
    async def ask(self, command: Command) -> ProcessResult:
        self.child.stdin.write(b"{}\n")  # the worker answers, then we read noise
        await self.child.stdin.drain()
        await self.child.stdout.readline()
        raise WorkerFailed("unreadable answer: 'garbage'")


class GarbledDriver(NativeTscDriver):
    """The real worker whose answers cannot be read (fault injection)."""

    async def open(self, ctx: EngineContext, command: Command, log: Path) -> NativeTscSession:
        session = await super().open(ctx, command, log)
        assert isinstance(session.child, Child)
        return GarbledSession(session.child, session.label)


def test_a_garbled_worker_falls_back_to_cold_and_the_check_is_equal(tmp_path: Path) -> None:
    make_project(tmp_path)
    apply(tmp_path, ("type", 2))
    pool = WarmPool(1 << 31, tmp_path / "logs", {"tsc": GarbledDriver()})
    try:
        warm = check(tmp_path, Context(warm=pool))
    finally:
        asyncio.run(pool.close())
    assert warm.outcomes["tsc"].served == "fallback"
    assert pool.counts.fallbacks == 1 and pool.counts.warm == 0
    assert observed(warm) == observed(check(tmp_path, None))
    assert warm.issues, "the fixture has errors: the comparison proves something"


def _group(pgid: int) -> list[int]:
    members = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rindex(b")") + 2 :].split()[2]) == pgid:
                members.append(int(name))
    return members


def test_the_worker_and_its_compiler_exit_when_stdin_ends(tmp_path: Path) -> None:
    make_project(tmp_path)
    ctx = engine_context(tmp_path)

    async def scenario() -> list[int]:
        command = ENGINE.command(ctx, [], None)
        session = await NativeTscDriver().open(ctx, command, tmp_path / "tsc.log")
        await session.ask(command)
        members = _group(session.child.pid)
        session.child.stdin.close()  # what a killed parent leaves
        for _ in range(200):
            if not session.child.alive:
                break
            await asyncio.sleep(0.05)
        return members

    members = asyncio.run(scenario())
    assert len(members) >= 2, "node and the compiler's API process"
    assert wait_until_dead(members, timeout_s=10) == []
