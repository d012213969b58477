"""One warm pool per project root (issue 38, part 1): the MCP server, the
language server, the daemon's hook path and a CLI check attached to one
project are answered by
one daemon, whose workers are the only ones that run: exactly one per
engine, counted in /proc. All answer the same diagnostics. A daemon killed
with SIGKILL while the MCP server is attached: the next request is answered
correctly, and nothing is left behind; the same with the language server
attached too (its next save is published equal to the cold check).
`SIGNALINT_DAEMON=0` keeps
everything in the MCP server's process.

Real engines (tsc and Oxlint, each kept warm), the real MCP SDK client, the
real `signalint` console script, pygls's client driving `signalint lsp`.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from signalint.daemon import client
from signalint.daemon.place import place
from tests.conftest import require_engine
from tests.helpers import wait_until_dead
from tests.lsp.harness import Editor, sarif_keys

pytestmark = [pytest.mark.real, pytest.mark.anyio]

SIGNALINT = Path(sys.executable).with_name("signalint")
ENGINES = {"oxlint": True, "tsc": True, "biome": False, "eslint": False}
# What names a warm worker's process, per engine (its script).
WORKER_SCRIPTS = {
    "tsc": ("tsc_worker.cjs", "tsc_native_worker.mjs"),
    "oxlint": ("oxlint_worker.mjs",),
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "package.json").write_text('{"name": "pool", "private": true}\n')
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true, "noEmit": true, "skipLibCheck": true,'
        ' "types": []}, "include": ["src"]}\n'
    )
    (root / "src" / "a.ts").write_text("export const n: number = 'text';\nlet unused = 1;\n")
    (root / "src" / "b.ts").write_text('export const s = "x".nope;\ndebugger;\n')
    (root / "signalint.config.json").write_text(json.dumps({"engines": ENGINES}))
    return Path(os.path.realpath(root))


def env_for(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNALINT_")}
    for name in ("SIGNALINT_ENGINES_DIR", "SIGNALINT_WORK_DIR"):
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(extra)
    return env


def processes() -> dict[int, tuple[str, str]]:
    """Every live process: pid -> (its command line, its working directory)."""
    found: dict[int, tuple[str, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
            if stat[stat.rindex(b")") + 2 :].split()[0] == b"Z":
                continue
            line = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            continue
        found[int(name)] = (line, cwd)
    return found


def workers_of(root: Path) -> dict[str, list[int]]:
    """The warm workers running for `root`, per engine (by their script,
    their command line or working directory naming the project)."""
    found: dict[str, list[int]] = {engine: [] for engine in WORKER_SCRIPTS}
    for pid, (line, cwd) in processes().items():
        if str(root) not in line and not cwd.startswith(str(root)):
            continue
        for engine, scripts in WORKER_SCRIPTS.items():
            if any(script in line for script in scripts):
                found[engine].append(pid)
    return found


def all_of(workers: dict[str, list[int]]) -> list[int]:
    return [pid for pids in workers.values() for pid in pids]


def daemons_of(root: Path) -> list[int]:
    return [
        pid
        for pid, (line, _) in processes().items()
        if "signalint.daemon.server" in line and line.rstrip().endswith(str(root))
    ]


def cli(root: Path, *args: str, env: dict[str, str], stdin: str = "") -> Any:
    return subprocess.run(
        [str(SIGNALINT), *args],
        cwd=root,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def diagnostics(issues: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted((i["file"], i["line"], i["rule"]) for i in issues)


def every_issue(payload: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(payload["remainingIssues"])
    for item in payload["clusters"]:
        found += item.get("issues", [])
    return found


def status(root: Path, env: dict[str, str]) -> dict[str, Any]:
    return client.ask(place(root, env), {"op": "status"})


def hook_event(root: Path, file: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / file), "content": ""},
            "tool_response": {"filePath": str(root / file), "success": True},
        }
    )


async def test_mcp_hooks_and_cli_share_one_worker_per_engine(tmp_path: Path) -> None:
    from tests.server.conftest import connect

    require_engine("tsc")
    require_engine("oxlint")
    root = write_project(tmp_path / "p")
    env = env_for()
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1") as mcp:
        checked = (await mcp.call("check_project")).data
        assert checked["engines"]["tsc"].get("served") == "warm", checked["engines"]
        assert "message" not in checked  # answered by the daemon, no fallback
        (root / "src" / "a.ts").write_text("export const n: number = 'text';\nlet unused = 2;\n")
        edited = (await mcp.call("after_edit_check", {"files": ["src/a.ts"]})).data
        assert edited["engines"]["oxlint"].get("served") == "warm", edited["engines"]
        (daemon,) = daemons_of(root)
        # An editor's language server on the same project checks through it.
        editor = Editor(root)
        await editor.start(env=env)
        await editor.settle(first=True)
        # The hook's post-edit check, then a CLI check, through the same daemon.
        hook = cli(root, "hooks", "run", "--runtime", "claude", env=env,
                   stdin=hook_event(root, "src/a.ts"))  # fmt: skip
        assert hook.returncode == 0, hook.stderr
        shown = cli(root, "check", "--format", "json", "--no-cache", env=env)
        assert shown.returncode == 1, shown.stderr
        (root / "src" / "b.ts").write_text('export const s = "x".nope;\ndebugger;\n\n')
        warm_cli = cli(root, "check", "--format", "json", env=env)
        in_process = cli(root, "check", "--format", "json", "--no-daemon", env=env)
        cold_sarif = cli(root, "check", "--format", "sarif", "--no-daemon", env=env)
        again = (await mcp.call("check_project", {})).data
        running = status(root, env)
        workers = workers_of(root)
        # One daemon, one worker per engine, and they are the daemon's.
        assert daemons_of(root) == [daemon] == [running["pid"]]
        assert {e: len(p) for e, p in workers.items()} == {"tsc": 1, "oxlint": 1}, workers
        assert sorted(all_of(workers)) == sorted(w["pid"] for w in running["workers"])
        assert running["counts"]["warmAnswers"] >= 4
        kinds = {c["kind"] for c in running["clients"]}
        assert {"mcp", "lsp"} <= kinds, running["clients"]  # the CLI and the hook have exited
        log = (root / ".signalint" / "daemon.log").read_text()
        assert "'kind': 'hook'" in log and "'kind': 'cli'" in log
        # The same diagnostics from every front end, warm or cold.
        warm = json.loads(warm_cli.stdout)
        cold = json.loads(in_process.stdout)
        assert {e["served"] for e in warm["engines"].values()} == {"warm"}
        assert all("served" not in e or e["served"] == "cold" for e in cold["engines"].values())
        expected = diagnostics(every_issue(cold))
        assert expected and diagnostics(every_issue(warm)) == expected
        assert diagnostics(every_issue(again)) == expected
        assert "src/a.ts" in hook.stdout  # the hook's verdict names the edited file's issues
        for file in ("src/a.ts", "src/b.ts"):
            published = editor.keys(file)
            assert published and published == sarif_keys(cold_sarif.stdout, file), file
        await editor.stop()
    # The MCP server left: the daemon it started ends, with its workers.
    assert wait_until_dead([daemon, *all_of(workers)], 15) == []
    assert not place(root, env).socket.exists()


async def test_a_killed_daemon_is_replaced_and_leaves_nothing_behind(tmp_path: Path) -> None:
    from tests.server.conftest import connect

    require_engine("tsc")
    require_engine("oxlint")
    root = write_project(tmp_path / "p")
    env = env_for()
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1") as mcp:
        first = (await mcp.call("check_project")).data
        (old,) = daemons_of(root)
        old_workers = all_of(workers_of(root))
        assert len(old_workers) == 2
        os.kill(old, signal.SIGKILL)
        assert wait_until_dead([old], 10) == []
        (root / "src" / "a.ts").write_text("export const n: number = 'text';\nlet unused = 3;\n")
        after = (await mcp.call("check_project")).data
        # Answered correctly: the same diagnostics (the edit moved none).
        assert diagnostics(every_issue(after)) == diagnostics(every_issue(first))
        # Restarted once: a new daemon answered, with new workers; the old
        # workers saw their stdin end and exited.
        assert wait_until_dead(old_workers, 15) == []
        (new,) = daemons_of(root)
        assert new != old and "message" not in after
        assert {e: len(p) for e, p in workers_of(root).items()} == {"tsc": 1, "oxlint": 1}
        # The daemon killed again and unable to start: cold, in the server,
        # and the answer and stats say so.
        new_workers = all_of(workers_of(root))
        os.kill(new, signal.SIGKILL)
        assert wait_until_dead([new, *new_workers], 15) == []
        (root / ".signalint" / "daemon.lock").unlink()
        (root / ".signalint" / "daemon.lock").mkdir()  # the next daemon cannot lock
        cold = (await mcp.call("check_project")).data
        assert "this check ran in-process, cold" in cold["message"], cold
        assert diagnostics(every_issue(cold)) == diagnostics(every_issue(first))
        assert all(e.get("served") in (None, "cold") for e in cold["engines"].values())
        assert workers_of(root) == {"tsc": [], "oxlint": []}
        stats = cli(root, "stats", "--json", env=env)
        assert json.loads(stats.stdout)["daemonFallbacks"] == 1, stats.stdout
    assert daemons_of(root) == []
    assert workers_of(root) == {"tsc": [], "oxlint": []}


async def test_signalint_daemon_0_keeps_everything_in_the_server(tmp_path: Path) -> None:
    from tests.server.conftest import connect

    require_engine("tsc")
    root = write_project(tmp_path / "p")
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1", SIGNALINT_DAEMON="0") as mcp:
        checked = (await mcp.call("check_project")).data
        assert daemons_of(root) == []
        assert workers_of(root) == {"tsc": [], "oxlint": []}
        assert not place(root, env_for()).socket.exists()
        assert checked["totalIssues"] >= 2 and "message" not in checked


async def test_a_killed_daemon_under_the_language_and_mcp_servers(tmp_path: Path) -> None:
    """kill -9 of the daemon while an editor's language server and the MCP
    server are both attached: the editor's next save is published equal to
    `signalint check --no-cache`, the MCP server's next check is equal too,
    answered by a daemon started again (or cold, saying so), and nothing is
    left behind once both leave."""
    from tests.server.conftest import connect

    require_engine("tsc")
    require_engine("oxlint")
    root = write_project(tmp_path / "p")
    env = env_for()
    async with connect(root, SIGNALINT_ALLOW_UNINITIALIZED="1") as mcp:
        first = (await mcp.call("check_project")).data
        assert "message" not in first  # the daemon answered
        editor = Editor(root)
        await editor.start(env=env)
        await editor.settle(first=True)
        editor.open("src/a.ts")
        await editor.settle()
        (old,) = daemons_of(root)
        assert {c["kind"] for c in status(root, env)["clients"]} >= {"mcp", "lsp"}
        old_workers = all_of(workers_of(root))
        assert len(old_workers) == 2, old_workers
        before = editor.keys("src/a.ts")
        os.kill(old, signal.SIGKILL)
        assert wait_until_dead([old], 10) == []
        # The editor saves a change that moves its diagnostics (a new error).
        text = "export const n: number = 'text';\nlet unused = 1;\nexport const m: string = 4;\n"
        (root / "src" / "a.ts").write_text(text)
        cold = cli(root, "check", "--format", "sarif", "--no-cache", "--no-daemon", env=env)
        assert cold.returncode == 1, cold.stderr
        expected = {f: sarif_keys(cold.stdout, f) for f in ("src/a.ts", "src/b.ts")}
        assert expected["src/a.ts"] != before and expected["src/b.ts"]
        editor.save("src/a.ts", text)
        deadline = time.monotonic() + 120
        while editor.keys("src/a.ts") != expected["src/a.ts"]:
            assert time.monotonic() < deadline, (editor.keys("src/a.ts"), expected)
            editor.changed.clear()
            try:
                await asyncio.wait_for(editor.changed.wait(), timeout=1)
            except TimeoutError:
                continue
        await editor.settle()
        for file, keys in expected.items():
            assert editor.keys(file) == keys, file
        # The MCP server's next request: the same diagnostics as the cold check.
        after = (await mcp.call("check_project")).data
        cold_json = cli(root, "check", "--format", "json", "--no-cache", "--no-daemon", env=env)
        assert diagnostics(every_issue(after)) == diagnostics(
            every_issue(json.loads(cold_json.stdout))
        )
        # Answered by one daemon started again (its old workers gone), or
        # cold in the server, which then says so.
        assert wait_until_dead(old_workers, 15) == []
        running = daemons_of(root)
        if "message" in after:
            assert "this check ran in-process, cold" in after["message"], after
        else:
            (new,) = running
            assert new != old
            assert {e: len(p) for e, p in workers_of(root).items()} == {"tsc": 1, "oxlint": 1}
            kinds = {c["kind"] for c in status(root, env)["clients"]}
            assert {"mcp", "lsp"} <= kinds, kinds
        remaining = [*running, *all_of(workers_of(root))]
        await editor.stop()
    # Both left: no daemon, no worker, no socket.
    assert wait_until_dead(remaining, 15) == []
    assert daemons_of(root) == []
    assert workers_of(root) == {"tsc": [], "oxlint": []}
    assert not place(root, env).socket.exists()
