"""A front end whose check the project's daemon answers is a thin client
(issue 38, one pool): it never loads the warm pool or the shadow copy
(`FORBIDDEN`), which only the daemon, an in-process fallback or an unsaved
buffer's check need (docs/architecture.md, "The daemon").

Each front end runs as the console script would run it, in a process that
writes the modules it holds when it exits: the language server (pygls's
client: open, save, close), the post-edit hook and a CLI check, all three
answered by one daemon (its log names each client). The same language
server checking an unsaved buffer does load them (its shadow copy has its
own workers): the control that shows the record sees what it must not.

Real engines: Oxlint, kept warm by the daemon.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from signalint.daemon import client
from signalint.daemon.place import place
from tests.conftest import require_engine
from tests.daemon.test_one_pool import env_for, hook_event
from tests.helpers import RECORDING
from tests.lsp.harness import Editor

SIGNALINT = Path(sys.executable).with_name("signalint")
# What a daemon-served front end must not import: the warm pool and its
# engine drivers, the shadow copy a buffer is checked in.
FORBIDDEN = ("signalint.warm", "signalint.pipeline.shadow")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write_project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "package.json").write_text('{"name": "thin", "private": true}\n')
    (root / "src" / "a.ts").write_text("let unused = 1;\ndebugger;\n")
    engines = {"oxlint": True, "tsc": False, "biome": False, "eslint": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    return Path(os.path.realpath(root))


def recording_script(where: Path) -> Path:
    """An executable that runs `signalint` recording its modules at exit."""
    script = where / "signalint-recording"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -c '{RECORDING}' \"$@\"\n")
    script.chmod(0o755)
    return script


def forbidden_in(record: Path) -> list[str]:
    held = record.read_text().split()
    assert "signalint.daemon.client" in held, "the record is not of a front end that checked"
    return [m for m in held if m.startswith(FORBIDDEN)]


def test_consecutive_answers_share_their_equal_issues() -> None:
    """Two answers unpickled one after another (`values.unpack_answer`):
    an issue of the second equal to one of the first is that object; a
    changed one is new; nothing is shared outside a reading."""
    import dataclasses
    import pickle

    from signalint.model import Issue, UnpickledIssues

    same = Issue("tsc", "src/a.ts", 3, 4, "TS2322", "error", "not assignable", end_line=3)
    moved = Issue("oxlint", "src/b.ts", 1, 1, "no-debugger", "warning", "debugger")
    first = pickle.dumps([same, moved, same])
    second = pickle.dumps([same, dataclasses.replace(moved, line=2)])
    memo = UnpickledIssues()
    with memo.reading():
        one = pickle.loads(first)
    with memo.reading():
        two = pickle.loads(second)
    assert one == [same, moved, same] and two[1].line == 2
    assert two[0] is one[0] is one[2] and two[0] is not same
    assert two[1] is not one[1] and two[1].issue_id != one[1].issue_id
    assert pickle.loads(first)[0] is not one[0]  # outside a reading


@pytest.mark.real
@pytest.mark.anyio
async def test_front_ends_served_by_the_daemon_never_import_the_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_engine("oxlint")
    root = write_project(tmp_path / "p")
    exe = recording_script(tmp_path)
    env = env_for()
    started = subprocess.run(
        [str(SIGNALINT), "daemon", "start"], cwd=root, env=env, capture_output=True, text=True
    )
    assert started.returncode == 0, started.stderr
    try:
        # The language server: open, save (a check of the disk), close.
        lsp_record = tmp_path / "lsp.txt"
        editor = Editor(root)
        await editor.start(exe=exe, env={**env, "SIGNALINT_TEST_MODULES": str(lsp_record)})
        await editor.settle(first=True)
        editor.open("src/a.ts")
        editor.save("src/a.ts", "let unused = 2;\ndebugger;\ndebugger;\n")
        await editor.until("src/a.ts", unsaved=False)
        assert len(editor.keys("src/a.ts")) == 3  # the save's check was published
        editor.close("src/a.ts")
        await editor.stop()
        # The post-edit hook and a CLI check.
        records = {}
        for name, args, stdin in (
            ("hook", ["hooks", "run", "--runtime", "claude"], hook_event(root, "src/a.ts")),
            ("cli", ["check", "--no-cache"], ""),
        ):
            records[name] = tmp_path / f"{name}.txt"
            done = subprocess.run(
                [str(exe), *args], cwd=root, input=stdin, capture_output=True, text=True,
                env={**env, "SIGNALINT_TEST_MODULES": str(records[name])}, timeout=120,
            )  # fmt: skip
            assert done.returncode in (0, 1, 2), done.stderr
            assert "in-process" not in done.stderr, done.stderr
        # All three were answered by the daemon (the language server twice:
        # its first check and the save's).
        log = (root / ".signalint" / "daemon.log").read_text()
        for kind in ("lsp", "hook", "cli"):
            assert f"'kind': '{kind}'" in log, (kind, log)
        status = client.ask(place(root, env), {"op": "status"})
        assert status["requests"] >= 4, status
        assert forbidden_in(lsp_record) == []
        assert forbidden_in(records["hook"]) == []
        assert forbidden_in(records["cli"]) == []
        # Two answers of the daemon read here: the second's issues are the first's.
        from signalint.service import check_service as service
        from signalint.settings.config import load_config

        # This process asks with the environment the front ends had (an
        # earlier test of a whole-suite run may leave a variable of ours).
        for name in [n for n in os.environ if n.startswith("SIGNALINT_")]:
            monkeypatch.delenv(name)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        request = service.CheckRequest(root, load_config(root))
        one = await client.check(request, kind="other", start=False)
        two = await client.check(request, kind="other", start=False)
        asked = client.ask(place(root, env), {"op": "status"})["requests"]
        assert asked == status["requests"] + 2, (asked, status, one.daemon_note)
        assert one.daemon_note is None
        assert len(one.result.issues) == 3
        assert all(a is b for a, b in zip(one.result.issues, two.result.issues, strict=True))

        # The control: an unsaved buffer is checked in the language server's
        # own shadow copy, so it loads both, and the record shows them.
        control = tmp_path / "control.txt"
        editor = Editor(root)
        await editor.start(exe=exe, env={**env, "SIGNALINT_TEST_MODULES": str(control)})
        await editor.settle(first=True)
        editor.open("src/a.ts")
        editor.edit("src/a.ts", "let unused = 3;\n")
        await editor.until("src/a.ts", unsaved=False)
        assert len(editor.keys("src/a.ts")) == 1
        await editor.stop()
        found = forbidden_in(control)
        assert any(m.startswith("signalint.warm") for m in found), found
        assert "signalint.pipeline.shadow" in found, found
    finally:
        subprocess.run([str(SIGNALINT), "daemon", "stop"], cwd=root, env=env, capture_output=True)


@pytest.mark.anyio
async def test_the_daemon_forgets_clients_that_ended(tmp_path: Path) -> None:
    """Each hook and CLI run is a client of its own: past `MAX_CLIENTS`,
    the daemon forgets those whose process has ended, so a long-lived
    daemon's list does not grow with every run."""
    import io

    from signalint.daemon import server

    root = write_project(tmp_path / "p")
    daemon = server.Daemon(root, place(root, env_for()), None, io.StringIO())
    ended = subprocess.Popen(["true"])
    ended.wait()
    for n in range(server.MAX_CLIENTS):
        daemon.seen({"client": {"kind": "hook", "pid": ended.pid}}, 1)
        daemon.seen({"client": {"kind": "cli", "pid": 10_000_000 + n}}, 1)
    daemon.seen({"client": {"kind": "mcp", "pid": os.getpid()}}, 1)
    assert len(daemon.clients) <= server.MAX_CLIENTS
    assert ("mcp", os.getpid()) in daemon.clients
    assert [c["kind"] for c in daemon.attached()] == ["mcp"]
    if daemon.pool is not None:
        await daemon.pool.close()
