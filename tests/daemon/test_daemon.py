"""The daemon (`signalint.daemon`, `signalint daemon start|status|stop`) and
the CLI's forwarding to it.

Quick tests talk to a listener written here (the client's decisions: what
it forwards, which sockets it refuses, what it loads); real ones start the
daemon (`python -m signalint.daemon.server`, or the same with the fake warm
driver of `tests/warm/fake_driver.py` installed) and run real Ruff through it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signalint.cli.main import main
from signalint.daemon import client, values, wire
from signalint.daemon.place import SOCKET_LIMIT, place, stamp
from signalint.daemon.place import state_dir as light_state_dir
from signalint.formats.commands import command_words
from signalint.kept.snapshot_store import SnapshotStore
from signalint.project.paths import PathRefused
from signalint.service import check_service as service
from signalint.settings.config import state_dir
from tests import factories
from tests.conftest import REPO, require_engine
from tests.helpers import alive, wait_until_dead
from tests.typescripts import install_typescript, typescript

SIGNALINT = Path(sys.executable).with_name("signalint")
ENGINES_OFF = {"oxlint": False, "tsc": False, "biome": False, "eslint": False}
RUFF_ONLY = {"engines": {**ENGINES_OFF, "ruff": True, "mypy": False, "pyright": False}}


def write_project(root: Path, settings: dict[str, Any] | None = None) -> Path:
    """A Python project with Ruff findings, and settings (Ruff only by default)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    (root / "a.py").write_text("import os\nx = 1\n")
    (root / "b.py").write_text("import sys\n\n\ndef f() -> int:\n    return 1\n")
    (root / "signalint.config.json").write_text(json.dumps(settings or RUFF_ONLY))
    return Path(os.path.realpath(root))


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SIGNALINT_") or k == "SIGNALINT_WORK_DIR"
    }
    env.update(extra)
    return env


# --- a listener standing in for the daemon (quick) -------------------------


class Listener:
    """A Unix socket at a project's daemon place that records what it is sent
    and answers `reply` (the daemon's side of `daemon.wire`)."""

    def __init__(
        self,
        path: Path,
        replies: list[dict[str, Any]],
        mode: int = 0o600,
        frames: list[dict[str, Any]] | None = None,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(os.fspath(path))
        os.chmod(path, mode)
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.replies = replies
        self.frames = frames or []
        self.received: list[dict[str, Any]] = []
        self.accepted = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            with conn:
                conn.settimeout(5)
                message = wire.receive(conn)
                self.received.append(message)
                reply = self.replies.pop(0) if self.replies else {"stopping": True}
                if message.get("op") == "check":
                    for frame in self.frames:
                        wire.send(conn, frame)
                wire.send(conn, reply)

    def close(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write_project(tmp_path / "p")
    monkeypatch.chdir(root)
    for name in ("SIGNALINT_PROJECT_ROOT", "SIGNALINT_STATE_DIR", "SIGNALINT_DAEMON"):
        monkeypatch.delenv(name, raising=False)
    return root


@contextlib.contextmanager
def listening(
    root: Path,
    *replies: dict[str, Any],
    mode: int = 0o600,
    frames: list[dict[str, Any]] | None = None,
) -> Iterator[Listener]:
    listener = Listener(place(root, os.environ).socket, list(replies), mode, frames)
    try:
        yield listener
    finally:
        listener.close()


def hand_checked(check_id: str = "c1") -> service.Checked:
    """A finished check as the daemon answers it (hand-built)."""
    from signalint.pipeline.check_run import CheckRun

    snap = factories.snapshot([factories.issue("a.py", engine="ruff")], check_id=check_id)
    return service.Checked(CheckRun(snap.result, 0, 1), snap, 12.0)


def ruff_request(root: Path, *paths: str) -> service.CheckRequest:
    from signalint.settings.config import load_config

    config = load_config(root)
    return service.CheckRequest(root, config, paths, locate=service.from_cwd(root, config))


def run_client(request: service.CheckRequest, **options: Any) -> Any:
    import asyncio

    store = SnapshotStore(10, 3600)
    checked = asyncio.run(client.check(request, service.Services(store=store), **options))
    return checked, store


def test_a_check_through_the_daemon_sends_the_request_value_and_keeps_the_answer(
    project: Path,
) -> None:
    answer = {"checked": values.pack_answer(hand_checked())}
    with listening(project, {"pid": 1, "stamp": stamp()}, answer) as daemon:
        checked, store = run_client(ruff_request(project, "a.py"), kind="cli")
    hello, asked = daemon.received
    assert hello["op"] == "hello" and asked["op"] == "check"
    assert asked["client"] == {"kind": "cli", "pid": os.getpid()} and asked["stamp"] == stamp()
    request = values.unpack_request(asked["request"])
    # Located here: the daemon gets project-relative targets, no function.
    assert request.paths == ("a.py",) and request.locate is None and request.root == project
    assert checked.snapshot.check_id == "c1" and checked.daemon_note is None
    assert store.get("c1") is not None  # kept in the asking process (D19)


def test_a_refused_path_is_refused_here_with_its_index_and_nothing_is_sent(
    project: Path,
) -> None:
    with (
        listening(project, {"pid": 1, "stamp": stamp()}) as daemon,
        pytest.raises(PathRefused) as refused,
    ):
        run_client(ruff_request(project, "a.py", "../outside.py"), kind="cli")
    assert refused.value.index == 1
    assert [m["op"] for m in daemon.received] == ["hello"]


def test_the_daemon_s_progress_frames_reach_the_request_s_progress(project: Path) -> None:
    import dataclasses
    from contextlib import asynccontextmanager

    seen: list[tuple[str, str]] = []

    @asynccontextmanager
    async def progress(engines: Any) -> Any:
        yield lambda engine, stage: seen.append((engine, stage))

    frames = [{"progress": ["ruff", "start"]}, {"progress": ["ruff", "done"]}]
    answer = {"checked": values.pack_answer(hand_checked())}
    with listening(project, {"pid": 1, "stamp": stamp()}, answer, frames=frames):
        request = dataclasses.replace(ruff_request(project), progress=progress)
        run_client(request, kind="mcp")
    assert seen == [("ruff", "start"), ("ruff", "done")]


def test_an_error_the_check_raised_is_raised_here(project: Path) -> None:
    from signalint.pipeline.changes import GitError

    answer = {"raised": values.pack_error(GitError("no such revision: nope"))}
    with (
        listening(project, {"pid": 1, "stamp": stamp()}, answer),
        pytest.raises(GitError, match="no such revision"),
    ):
        run_client(ruff_request(project), kind="mcp")


@pytest.mark.real  # the check runs Ruff in-process
@pytest.mark.parametrize("options", [{"use_daemon": False}, {"kind": "cli", "start": True}])
def test_no_daemon_or_signalint_daemon_0_do_not_touch_the_socket(
    project: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]
) -> None:
    if "use_daemon" not in options:
        monkeypatch.setenv("SIGNALINT_DAEMON", "0")
    with listening(project) as daemon:
        checked, _ = run_client(ruff_request(project), **options)
    assert daemon.accepted == 0
    assert checked.result.issues and checked.daemon_note is None


@pytest.mark.real  # the check runs Ruff in-process
def test_a_socket_others_may_use_is_refused_unasked_and_said(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with listening(project, mode=0o666) as daemon:
        checked, _ = run_client(ruff_request(project), kind="cli")
    assert daemon.accepted == 0 and checked.result.issues
    assert "mode 0666; a daemon's socket has mode 0600" in capsys.readouterr().err


@pytest.mark.real  # the check runs Ruff in-process
def test_a_stale_socket_without_start_checks_in_process_silently(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = place(project, os.environ).socket
    path.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))  # bound, never listening: what a killed daemon leaves
    os.chmod(path, 0o600)
    dead.close()
    checked, _ = run_client(ruff_request(project), kind="cli")
    assert checked.result.issues and checked.daemon_note is None
    assert capsys.readouterr().err == ""


@pytest.mark.real  # the check runs Ruff in-process
def test_a_daemon_running_other_code_is_asked_to_stop_and_the_check_runs_in_process(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with listening(project, {"pid": 1, "stamp": "other"}, {"stopping": True}) as daemon:
        checked, _ = run_client(ruff_request(project), kind="cli")
    assert [r["op"] for r in daemon.received] == ["hello", "stop"]
    assert checked.result.issues
    assert "runs other code (Signalint was reinstalled)" in capsys.readouterr().err


@pytest.mark.real  # the check runs Ruff in-process
def test_a_daemon_that_fails_twice_is_said_in_the_answer_and_the_check_runs_cold(
    project: Path,
) -> None:
    # It says hello, then answers the check with nothing readable, twice.
    hello_ = {"pid": 1, "stamp": stamp()}
    with listening(project, hello_, {"what": 1}, hello_, {"what": 2}) as daemon:
        checked, _ = run_client(ruff_request(project), kind="mcp")
    assert [r["op"] for r in daemon.received] == ["hello", "check", "hello", "check"]
    assert checked.result.issues and checked.daemon_note is not None
    assert "this check ran in-process, cold" in checked.daemon_note
    payload = checked.payload(words=command_words)
    assert checked.daemon_note in payload["message"]


def test_a_long_state_directory_puts_the_socket_in_a_private_runtime_directory(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    # A short runtime directory, as /run/user/<uid> is: `tmp_path` itself
    # may be too long for a socket (xdist adds `popen-gw0/` to it).
    run = Path(tempfile.mkdtemp(prefix="signalint-run-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(run))
    env = {"XDG_RUNTIME_DIR": str(run)}
    where = place(deep, env)
    assert len(os.fsencode(deep / ".signalint" / "daemon.sock")) > SOCKET_LIMIT
    assert where.socket.parent == run / "signalint"
    assert len(os.fsencode(where.socket)) <= SOCKET_LIMIT
    assert where.note is not None and "too long for a Unix socket" in where.note
    assert (where.socket.parent.stat().st_mode & 0o777) == 0o700
    assert where.lock.parent == deep / ".signalint"
    # Another state directory, another socket; the same one, the same socket.
    assert place(deep / "x", env).socket != where.socket == place(deep, env).socket
    # A runtime directory others may enter is refused.
    (run / "signalint").chmod(0o755)
    with pytest.raises(Exception, match="mode 0700"):
        place(deep, env)


@pytest.mark.parametrize("override", ["", "state", "/tmp/elsewhere", "~/x"])
def test_the_client_finds_the_state_directory_as_the_configuration_does(
    tmp_path: Path, override: str
) -> None:
    env = {"SIGNALINT_STATE_DIR": override} if override else {}
    assert light_state_dir(tmp_path, env) == state_dir(tmp_path, env)


def test_bad_daemon_arguments_give_clear_errors(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["daemon", "restart"]) == 2
    assert "No such command 'restart'" in capsys.readouterr().err
    assert main(["daemon", "status", "--format", "xml"]) == 2
    assert "'xml' is not one of 'text', 'json'" in capsys.readouterr().err
    assert main(["daemon", "start", "now"]) == 2
    assert "unexpected extra argument" in capsys.readouterr().err.lower()
    monkeypatch.setenv("SIGNALINT_DAEMON", "0")
    assert main(["daemon", "start"]) == 1
    assert "SIGNALINT_DAEMON=0 disables the daemon" in capsys.readouterr().err


def test_status_and_stop_without_a_daemon(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["daemon", "status"]) == 1
    assert f"no daemon runs for {project}" in capsys.readouterr().out
    assert main(["daemon", "status", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"running": False, "root": str(project)}
    assert main(["daemon", "stop"]) == 0
    assert f"no daemon runs for {project}" in capsys.readouterr().out


# --- the daemon itself (real) ----------------------------------------------

BOOT = """
import sys
sys.path.insert(0, {repo!r})
from tests.warm import fake_driver
fake_driver.install()
from signalint.daemon.server import main
main([{root!r}])
"""


def run_cli(root: Path, *args: str, env: dict[str, str] | None = None, stdin: str = "") -> Any:
    return subprocess.run(
        [str(SIGNALINT), *args],
        cwd=root,
        env=env or clean_env(),
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def hello(root: Path, **env: str) -> dict[str, Any] | None:
    try:
        return client.ask(place(root, clean_env(**env)), {"op": "hello"})
    except (OSError, wire.WireError, client.Refused):
        return None


def status(root: Path) -> dict[str, Any]:
    return client.ask(place(root, clean_env()), {"op": "status"})


@contextlib.contextmanager
def fake_daemon(root: Path, **env: str) -> Iterator[int]:
    """The daemon with the fake warm driver serving Ruff; yields its pid."""
    log = (root / "daemon-test.log").open("ab")
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT.format(repo=str(REPO), root=str(root))],
        cwd=root,
        env=clean_env(**env),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while hello(root, **env) is None:
            assert proc.poll() is None, (root / "daemon-test.log").read_text()
            assert time.monotonic() < deadline, "the daemon did not answer"
            time.sleep(0.05)
        yield proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        log.close()


def stop_daemon(root: Path) -> None:
    run_cli(root, "daemon", "stop")


def group_members(pgid: int) -> list[int]:
    """Live processes of process group `pgid` (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat_ = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        fields = stat_[stat_.rindex(b")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != b"Z":
            found.append(int(name))
    return found


def comparable(output: str) -> Any:
    """A `check --format json` payload without what differs between two runs
    of one check (its id, quoted in nextStep) nor how each engine was
    answered (`served`: warm through a daemon with workers, else cold)."""
    payload = json.loads(output)
    check_id = payload.pop("checkId")
    payload["nextStep"] = payload["nextStep"].replace(check_id, "ID")
    for outcome in payload.get("engines", {}).values():
        outcome.pop("served", None)
    return payload


@pytest.mark.real
def test_start_status_stop(tmp_path: Path) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    started = run_cli(root, "daemon", "start")
    assert started.returncode == 0, started.stderr
    assert f"daemon started for {root} (pid " in started.stdout
    try:
        where = place(root, clean_env())
        assert (where.socket.stat().st_mode & 0o777) == 0o600
        again = run_cli(root, "daemon", "start")
        assert again.returncode == 0 and "a daemon already runs for" in again.stdout
        pid = hello(root)["pid"]  # type: ignore[index]
        assert f"(pid {pid})" in again.stdout

        text = run_cli(root, "daemon", "status")
        assert text.returncode == 0, text.stderr
        assert f"pid {pid}" in text.stdout and f"root:     {root}" in text.stdout
        assert "workers:  none running" in text.stdout  # no driver serves Ruff on main
        data = json.loads(run_cli(root, "daemon", "status", "--format", "json").stdout)
        assert data["pid"] == pid and data["root"] == str(root) and data["running"] is True
        assert data["requests"] == 0 and data["idleStopS"] == 1800
        assert set(data["counts"]) == {"warmAnswers", "workersStarted", "restarts", "fallbacks"}

        checked = run_cli(root, "check", "--format", "json")
        assert checked.returncode == 1 and json.loads(checked.stdout)["totalIssues"] > 0
        assert status(root)["requests"] == 1
        bypass = run_cli(root, "check", "--format", "json", "--no-daemon")
        assert bypass.returncode == 1 and comparable(bypass.stdout) == comparable(checked.stdout)
        off = run_cli(root, "check", env=clean_env(SIGNALINT_DAEMON="0"))
        assert off.returncode == 1
        assert status(root)["requests"] == 1
    finally:
        stopped = run_cli(root, "daemon", "stop")
    assert stopped.returncode == 0 and f"(pid {pid})" in stopped.stdout
    assert wait_until_dead([pid], 10) == []
    assert not where.socket.exists()
    gone = run_cli(root, "daemon", "status")
    assert gone.returncode == 1 and "no daemon runs" in gone.stdout


@pytest.mark.real
def test_start_keeps_a_daemon_a_front_end_started_on_demand(tmp_path: Path) -> None:
    """`daemon start` while a daemon a front end started on demand (the
    language server's, the MCP server's) still runs: that daemon is the one
    asked for, and stays after its last client left. It said "a daemon
    already runs" and the daemon stopped 2 s after its client (real-world
    tier, leaflet: the kept-warm step's checks ran in-process, no worker)."""
    from signalint.daemon.launch import launch

    require_engine("ruff")
    root = write_project(tmp_path / "p")
    where = place(root, clean_env())
    front_end = subprocess.Popen(["sleep", "2"])  # an attached client, until it ends
    try:
        pid = launch(root, where, 60.0, on_demand=True)["pid"]
        client.ask(where, {"op": "hello", "client": {"kind": "lsp", "pid": front_end.pid}})
        started = run_cli(root, "daemon", "start")
        assert started.returncode == 0, started.stderr
        assert f"a daemon already runs for {root} (pid {pid})" in started.stdout
        assert "it stays until" in started.stdout
        front_end.wait(10)
        time.sleep(4)  # past the on-demand daemon's grace once its last client left
        assert hello(root) is not None and hello(root)["pid"] == pid  # type: ignore[index]
    finally:
        front_end.kill()
        stop_daemon(root)
    assert wait_until_dead([pid], 10) == []


TYPES = "export type Shape = {{ size: {size}; name: string }};\n"
USER = (
    'import type {{ Shape }} from "./types";\n'
    'export const s{n}: Shape = {{ size: 1, name: "x" }};\n'
)


@pytest.mark.real
def test_a_check_of_a_file_through_the_daemon_is_answered_for_that_file_alone(
    tmp_path: Path,
) -> None:
    # An exported type changed breaks both users; `check src/a.ts` through
    # the daemon asks its tsc worker for that file alone: the same issues as
    # a cold check of it, and the answer says it could not count the rest.
    typescript(5)
    root = tmp_path / "p"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    install_typescript(root, 5)
    engines = {**ENGINES_OFF, "tsc": True, "ruff": False, "mypy": False, "pyright": False}
    (root / "signalint.config.json").write_text(json.dumps({"engines": engines}))
    options = {"strict": True, "module": "esnext", "moduleResolution": "bundler"}
    config = {"compilerOptions": options, "include": ["src"]}
    (root / "tsconfig.json").write_text(json.dumps(config))
    (root / "src" / "types.ts").write_text(TYPES.format(size="number"))
    for n, name in enumerate(("a", "b")):
        (root / "src" / f"{name}.ts").write_text(USER.format(n=n))
    assert run_cli(root, "daemon", "start").returncode == 0
    try:
        whole = run_cli(root, "check", "--format", "json")
        assert json.loads(whole.stdout)["engines"]["tsc"]["served"] == "warm", whole.stdout
        (root / "src" / "types.ts").write_text(TYPES.format(size="string"))
        warm = json.loads(run_cli(root, "check", "--format", "json", "src/a.ts").stdout)
        assert status(root)["counts"]["warmAnswers"] == 2
    finally:
        stop_daemon(root)
    cold_args = ("check", "--format", "json", "--no-daemon", "--no-cache", "src/a.ts")
    cold = json.loads(run_cli(root, *cold_args).stdout)
    assert warm["engines"]["tsc"] == {**cold["engines"]["tsc"], "served": "warm", "scoped": True}
    assert (warm["totalIssues"], warm["fingerprint"]) == (cold["totalIssues"], cold["fingerprint"])
    assert warm["totalIssues"] == 1
    assert cold["filteredOutIssueCount"] == 1 and "filteredOutIssueCount" not in warm
    assert "tsc (kept warm) checked the requested paths alone" in warm["nextStep"]


@pytest.mark.real
def test_start_keeps_a_log_past_its_bound_as_the_previous_one(tmp_path: Path) -> None:
    from signalint.daemon.launch import LOG_LIMIT_BYTES

    root = write_project(tmp_path / "p")
    where = place(root, clean_env())
    where.log.parent.mkdir(parents=True, exist_ok=True)
    where.log.write_text("x" * (LOG_LIMIT_BYTES + 1))
    started = run_cli(root, "daemon", "start")
    try:
        assert started.returncode == 0, started.stderr
        previous = where.log.with_name(where.log.name + ".1")
        assert previous.stat().st_size == LOG_LIMIT_BYTES + 1
        assert where.log.stat().st_size < 4096
    finally:
        run_cli(root, "daemon", "stop")


@pytest.mark.real
@pytest.mark.parametrize("output_format", ["json", "text", "sarif", "github"])
def test_a_check_through_the_daemon_prints_what_it_prints_in_process(
    tmp_path: Path, output_format: str
) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    args = ("check", "--format", output_format)
    alone = run_cli(root, *args, "--no-daemon")
    shutil.rmtree(root / ".signalint")  # the same start: no cache, no snapshots
    with fake_daemon(root):
        through = run_cli(root, *args)
        assert status(root)["requests"] == 1
    assert through.returncode == alone.returncode == 1
    assert through.stderr == alone.stderr
    if output_format == "json":
        assert comparable(through.stdout) == comparable(alone.stdout)
        # Ruff was answered by the (fake) warm worker, as cold would have.
        assert json.loads(through.stdout)["engines"]["ruff"]["served"] == "warm"
        assert "served" not in json.loads(alone.stdout)["engines"]["ruff"]  # cold
    elif output_format == "sarif":
        check_id = re.compile(r'"signalintCheckId": "[0-9a-f]+"')
        assert check_id.sub("", through.stdout) == check_id.sub("", alone.stdout)
    else:
        strip = (lambda s: s) if output_format == "github" else _without_ids
        assert strip(through.stdout) == strip(alone.stdout)


def _without_ids(text: str) -> str:
    return re.sub(r"\b[0-9a-f]{16}\b", "ID", text)


@pytest.mark.real
def test_the_post_edit_hook_through_the_daemon_answers_as_in_process(tmp_path: Path) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    event = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / "a.py")},
    }
    args = ("hooks", "run", "--runtime", "claude")
    alone = run_cli(root, *args, "--no-daemon", stdin=json.dumps(event))
    shutil.rmtree(root / ".signalint")  # the same start: no cache, no issues seen before
    with fake_daemon(root):
        through = run_cli(root, *args, stdin=json.dumps(event))
        assert status(root)["requests"] == 1
    assert through.returncode == alone.returncode == 0, through.stderr
    assert "additionalContext" in through.stdout
    assert _without_ids(through.stdout) == _without_ids(alone.stdout)


@pytest.mark.real
def test_a_kept_answer_is_replayed_before_the_daemon_is_asked(tmp_path: Path) -> None:
    # The client replays a kept answer itself (`answers`), so the daemon is
    # asked only for checks that need engines.
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    args = ("check", "--format", "json")
    with fake_daemon(root):
        run_cli(root, *args)  # makes the state directory: not kept
        time.sleep(2.1)  # nothing written within 2 s of a check is trusted
        kept = run_cli(root, *args)
        asked = status(root)["requests"]
        again = run_cli(root, *args)
        assert status(root)["requests"] == asked  # replayed, the daemon not asked
    assert again.returncode == kept.returncode == 1
    assert (again.stdout, again.stderr) == (kept.stdout, kept.stderr)
    (root / "a.py").write_text("x = 1\n")  # an edit (its unused import gone): not replayed
    with fake_daemon(root):
        edited = run_cli(root, *args)
    assert json.loads(edited.stdout)["totalIssues"] < json.loads(kept.stdout)["totalIssues"]


@pytest.mark.real
def test_the_daemon_stops_after_its_idle_time(tmp_path: Path) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p", {**RUFF_ONLY, "daemon": {"idleMinutes": 0.03}})
    assert run_cli(root, "daemon", "start").returncode == 0
    pid = hello(root)["pid"]  # type: ignore[index]
    assert status(root)["idleStopS"] == pytest.approx(1.8)
    # A check restarts the idle time; status requests do not.
    assert run_cli(root, "check").returncode == 1
    assert wait_until_dead([pid], 20) == []
    assert not place(root, clean_env()).socket.exists()
    assert "stopping" in (root / ".signalint" / "daemon.log").read_text()


def _workers(root: Path) -> list[int]:
    checked = run_cli(root, "check", "--format", "json")
    assert json.loads(checked.stdout)["engines"]["ruff"]["served"] == "warm"
    found = [w["pid"] for w in status(root)["workers"]]
    assert found and all(alive(p) for p in found)
    return found


@pytest.mark.real
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_signalled_or_killed_daemon_leaves_no_worker_behind(tmp_path: Path, signum: int) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    with fake_daemon(root) as pid:
        workers = _workers(root)
        info = status(root)
        assert info["counts"]["warmAnswers"] == 1 and info["workers"][0]["answers"] == 1
        assert info["workers"][0]["version"] == "fake 1.0"
        assert info["workers"][0]["rssBytes"] > 0
        shown = run_cli(root, "daemon", "status").stdout
        assert f"worker:   ruff fake 1.0  pid {workers[0]}  " in shown
        assert (
            "0 restarts  1 answer\n" in shown
            and "warm:     1 warm answer, 1 worker started" in shown
        )
        os.kill(pid, signum)
        assert wait_until_dead([pid], 15) == []
        # Killed: the workers see their stdin end and exit by themselves.
        assert wait_until_dead(workers, 15) == []
        assert all(group_members(w) == [] for w in workers)
    where = place(root, clean_env())
    if signum == signal.SIGKILL:
        assert where.socket.exists()  # stale: nobody serves it
    else:
        assert not where.socket.exists()


@pytest.mark.real
def test_a_stale_socket_falls_back_in_process_and_start_works(tmp_path: Path) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    with fake_daemon(root) as pid:
        os.kill(pid, signal.SIGKILL)
        assert wait_until_dead([pid], 15) == []
    assert place(root, clean_env()).socket.exists()
    checked = run_cli(root, "check", "--format", "json")
    assert checked.returncode == 1 and checked.stderr == ""
    assert "served" not in json.loads(checked.stdout)["engines"]["ruff"]  # cold
    started = run_cli(root, "daemon", "start")
    assert started.returncode == 0 and "daemon started" in started.stdout, started.stderr
    try:
        assert run_cli(root, "check").returncode == 1
        assert status(root)["requests"] == 1
    finally:
        stop_daemon(root)


@pytest.mark.real
def test_the_daemon_refuses_a_request_of_other_code_and_stops_when_asked(tmp_path: Path) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    with fake_daemon(root) as pid:
        where = place(root, clean_env())
        answer = client.ask(where, {"op": "check", "stamp": "other", "request": "x"})
        assert answer == {"stale": True}
        # An op the daemon has no command for, and a request value that is not one.
        assert client.ask(where, {"op": "run"}) == {"error": "unknown request 'run'"}
        bad = client.ask(where, {"op": "check", "stamp": stamp(), "request": "bm90IGEgcGlja2xl"})
        assert bad["error"].startswith("request: not a packed CheckRequest")
        assert status(root)["requests"] == 0
        assert client.ask(where, {"op": "stop"})["stopping"] is True
        assert wait_until_dead([pid], 15) == []


@pytest.mark.real
def test_start_says_why_the_daemon_could_not_start(tmp_path: Path) -> None:
    import fcntl

    root = write_project(tmp_path / "p")
    where = place(root, clean_env())
    where.state.mkdir(parents=True)
    with where.lock.open("a") as held:  # a daemon that holds the project but does not answer
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        started = run_cli(root, "daemon", "start")
    assert started.returncode == 1
    assert "the daemon could not start (exit 3)" in started.stderr
    assert f"a daemon already runs for {root}" in started.stderr


def test_start_refuses_what_is_not_a_socket_at_the_socket_s_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = place(project, os.environ)
    where.socket.mkdir(parents=True)
    assert main(["daemon", "start"]) == 1
    assert f"not using the daemon: {where.socket} is not a socket" in capsys.readouterr().err


# --- stats: warm answers, fallbacks and restarts (real Ruff, fake workers) --


@pytest.mark.real
def test_stats_count_warm_answers_fallbacks_and_restarts_of_recorded_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from signalint.cache.context import Context
    from signalint.features.history import Session, stats
    from signalint.server.words import tool_words
    from signalint.service import check_service as service
    from signalint.settings.config import load_config
    from signalint.warm.pool import WarmPool
    from tests.warm import fake_driver

    require_engine("ruff")
    root = write_project(tmp_path / "p")
    config = load_config(root)
    state = state_dir(root, {})
    served: list[str | None] = []

    async def checks() -> None:
        good = WarmPool(1 << 30, tmp_path / "logs", drivers=fake_driver.drivers())
        broken = WarmPool(1 << 30, tmp_path / "logs", drivers=fake_driver.drivers(broken=True))
        history = Session(state)
        # Each check edits a.py first, so Ruff runs (a cache hit runs nothing).
        for n, pool in enumerate((good, None, broken, good)):
            (root / "a.py").write_text(f"import os\nx = {n}\n")
            checked = await service.check(
                service.CheckRequest(root, config),
                service.Services(Context(warm=pool), history=history, words=tool_words),
            )
            served.append(checked.result.outcomes["ruff"].served)
        await good.close()
        await broken.close()

    asyncio.run(checks())
    assert served == ["warm", "cold", "fallback", "warm"]
    data = stats(state)
    assert data["checks"] == 4
    # The broken worker was restarted once, then the cold path answered.
    assert (data["warmAnswers"], data["warmFallbacks"], data["warmRestarts"]) == (2, 1, 1)
    monkeypatch.chdir(root)
    monkeypatch.delenv("SIGNALINT_PROJECT_ROOT", raising=False)
    monkeypatch.delenv("SIGNALINT_STATE_DIR", raising=False)
    assert main(["stats"]) == 0
    said = "Warm engines:           2 warm answers, 1 fallback, 1 restart, 0 daemon fallbacks\n"
    assert said in capsys.readouterr().out


# --- real engines kept warm by the daemon (once their drivers are registered)

# Engine -> (fixture under tests/fixtures/engines, a source file to edit, a comment).
REAL_WARM = {
    "tsc": ("tsc/project", "src/a.ts", "// edited\n"),
    "eslint": ("eslint", "src/a.js", "// edited\n"),
    "mypy": ("mypy", "app/util.py", "# edited\n"),
    "pyright": ("pyright", "src/app/core.py", "# edited\n"),
}


@pytest.mark.real
@pytest.mark.parametrize("engine", sorted(REAL_WARM))
def test_a_real_engine_kept_warm_by_the_daemon_answers_as_in_process(
    tmp_path: Path, engine: str
) -> None:
    from signalint.warm.registry import drivers

    if engine not in drivers():
        pytest.skip(f"no warm driver for {engine} is registered yet")
    require_engine(engine)
    fixture, edited, comment = REAL_WARM[engine]
    root = tmp_path / engine
    shutil.copytree(REPO / "tests" / "fixtures" / "engines" / fixture, root)
    engines = dict.fromkeys(("oxlint", "tsc", "biome", "eslint", "ruff", "mypy", "pyright"), False)
    (root / "signalint.config.json").write_text(json.dumps({"engines": {**engines, engine: True}}))
    (root / ".git").mkdir(exist_ok=True)
    root = Path(os.path.realpath(root))

    def both() -> tuple[Any, Any]:
        """The check in-process (cold) and through the daemon, from the same start."""
        alone = run_cli(root, "check", "--format", "json", "--no-daemon")
        for name in ("cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"):
            (root / ".signalint" / name).unlink(missing_ok=True)
        through = run_cli(root, "check", "--format", "json")
        assert through.returncode == alone.returncode, through.stderr
        assert json.loads(through.stdout)["engines"][engine]["served"] == "warm"
        assert "served" not in json.loads(alone.stdout)["engines"][engine]  # cold
        return comparable(through.stdout), comparable(alone.stdout)

    assert run_cli(root, "daemon", "start").returncode == 0
    try:
        through, alone = both()
        assert through == alone
        (root / edited).write_text((root / edited).read_text() + comment)
        through, alone = both()
        assert through == alone
        workers = [w["pid"] for w in status(root)["workers"]]
        assert [w["engine"] for w in status(root)["workers"]] == [engine]
    finally:
        stop_daemon(root)
    assert wait_until_dead(workers, 15) == []


NOBODY = 65534
KNOCK = """
import json, socket, struct, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
body = json.dumps({"op": "status"}).encode()
try:
    sock.sendall(struct.pack(">I", len(body)) + body)
    print("answered" if sock.recv(4) else "closed")
except OSError:  # closed before the request was even sent
    print("closed")
"""


@pytest.mark.real
@pytest.mark.skipif(os.getuid() != 0, reason="needs root to connect as another user")
def test_the_daemon_does_not_answer_another_user_even_through_an_open_socket(
    tmp_path: Path,
) -> None:
    require_engine("ruff")
    root = write_project(tmp_path / "p")
    shared = Path(tempfile.mkdtemp(prefix="signalint-peer-", dir="/tmp"))
    try:
        shared.chmod(0o755)  # another user may reach the socket's directory
        with fake_daemon(root, SIGNALINT_STATE_DIR=str(shared)):
            sock = shared / "daemon.sock"
            sock.chmod(0o666)  # and the socket itself: only SO_PEERCRED stands
            # An interpreter the other user may run (ours may sit under /root).
            python = shutil.which("python3", path="/usr/bin:/bin")
            if python is None:
                pytest.skip("no system python3 for another user")
            knock = subprocess.run(
                [python, "-I", "-c", KNOCK, str(sock)],
                user=NOBODY,
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
            )
            assert knock.stdout.strip() == "closed", knock.stderr
            said = (root / "daemon-test.log").read_text()
            assert f"refused a connection from user {NOBODY}" in said
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.real
def test_start_replaces_a_daemon_that_runs_other_code(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], **_OUT)
    old = {"pid": int(gone.stdout), "root": str(project), "stamp": "other"}
    with listening(project, old, {"stopping": True}) as daemon:
        started = run_cli(project, "daemon", "start")
    try:
        assert started.returncode == 0, started.stderr
        assert "it runs other code (Signalint reinstalled)" in started.stdout
        assert "daemon started for" in started.stdout
        assert [r["op"] for r in daemon.received][:2] == ["hello", "stop"]
        assert set(r["op"] for r in daemon.received[2:]) <= {"hello"}
        assert hello(project) is not None
    finally:
        stop_daemon(project)
        assert hello(project) is None


_OUT: dict[str, Any] = {"capture_output": True, "text": True, "check": True}
