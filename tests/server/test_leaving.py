"""The server leaves when its input ends: answers whole, workers gone (`server.leaving`).

The real `signalint-mcp` over raw pipes (the process id is needed). How
long leaving takes is measured in `bench/bench_server.py`, never asserted
here; `wait(timeout=...)` below only keeps a hung server from hanging the
suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from signalint.engines.resolve import managed_dir
from signalint.server.leaving import Leaving

from ..conftest import require_engine
from ..helpers import alive
from .conftest import SERVER, server_env, write_project

HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}
HANG_GUARD_S = 30


def start(root: Path, cache: Path, *, stuck: bool = False) -> subprocess.Popen[bytes]:
    """The server in `root`; `stuck`: one whose `ping` blocks its loop (`stuck_server`)."""
    engines = str(managed_dir())  # before XDG_CACHE_HOME moves the cache home
    env = server_env(XDG_CACHE_HOME=str(cache), SIGNALINT_ENGINES_DIR=engines)
    env["PATH"] = os.environ["PATH"]
    env["HOME"] = os.environ["HOME"]
    command = [str(SERVER)]
    if stuck:
        command = [sys.executable, "-m", "tests.server.stuck_server"]
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return subprocess.Popen(
        command,
        cwd=root,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        assert line, "the server closed stdout before answering"
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


def greet(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO})
    assert "result" in answer(proc.stdout, 1)
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (workers run in their own sessions, still its children)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                children = [int(c) for c in handle.read().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *descendants(child)]
    return found


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, bytes, str]:
    """Close the input, read the rest; the exit code, the rest of stdout and stderr."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.close()
    rest = proc.stdout.read()
    code = proc.wait(timeout=HANG_GUARD_S)
    return code, rest, proc.stderr.read().decode()


@pytest.mark.real
def test_a_server_whose_input_ends_after_the_handshake_exits_without_loading_the_sdk(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "p")
    proc = start(root, tmp_path / "xdg")
    greet(proc)  # answered by the front, from the answers shipped with the package
    code, rest, stderr = finish(proc)
    assert code == 0, stderr
    assert rest == b""
    assert "Traceback" not in stderr


@pytest.mark.real
def test_warm_workers_end_with_the_server(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    proc = start(root, tmp_path / "xdg")
    assert proc.stdout is not None
    greet(proc)
    send(proc, call(2, "check_project", {}))
    checked = answer(proc.stdout, 2)
    assert checked["result"]["structuredContent"]["engines"]["tsc"]["status"] == "ok"
    workers = descendants(proc.pid)
    assert workers, "the check left no warm worker to end"
    code, rest, stderr = finish(proc)
    assert code == 0, stderr
    assert rest == b""
    # Ended and reaped before the server left, grandchildren included: no orphan.
    assert [pid for pid in workers if alive(pid)] == []
    assert "were left" not in stderr


@pytest.mark.real
def test_requests_still_open_when_the_input_ends_get_at_most_one_whole_answer(
    tmp_path: Path,
) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    proc = start(root, tmp_path / "xdg")
    assert proc.stdout is not None
    greet(proc)
    send(proc, call(2, "ping", {}))
    answer(proc.stdout, 2)  # the SDK is loaded
    ids = list(range(10, 16))
    for request_id in ids:
        name = "check_project" if request_id % 2 else "ping"
        send(proc, call(request_id, name, {}))
    code, rest, stderr = finish(proc)
    assert code == 0, stderr
    # What was answered by the deadline came whole ("Connection closed"
    # for a check cut short); nothing twice, nothing half written.
    assert rest == b"" or rest.endswith(b"\n")
    answered = [json.loads(line) for line in rest.decode().splitlines()]
    assert sorted(m["id"] for m in answered) == sorted({m["id"] for m in answered})
    assert {m["id"] for m in answered} <= set(ids)
    for message in answered:
        assert "result" in message or message["error"]["message"] == "Connection closed"


@pytest.mark.real
def test_an_answer_being_written_when_the_input_ends_is_written_whole(tmp_path: Path) -> None:
    """An answer larger than the pipe holds, to a client that reads it only
    after the server's budget has passed: the server finishes the line."""
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    lines = "".join(f"export const v{i}: number = 'text{i}';\n" for i in range(400))
    (root / "src" / "many.ts").write_text(lines)
    proc = start(root, tmp_path / "xdg")
    assert proc.stdout is not None and proc.stdin is not None
    greet(proc)
    send(proc, call(2, "check_project", {}))
    check_id = answer(proc.stdout, 2)["result"]["structuredContent"]["checkId"]
    send(proc, call(3, "list_issues", {"checkId": check_id, "limit": 500}))
    first = proc.stdout.read(1)  # the answer is on its way (and fills the pipe)
    proc.stdin.close()
    # A client that reads late: past the budget (0.2 s), within the
    # line's grace (1 s). A server that left at its deadline would have cut
    # the line, and it would not decode below.
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=0.6)
    rest = first + proc.stdout.read()
    assert proc.wait(timeout=HANG_GUARD_S) == 0
    assert len(rest) > 128 * 1024
    message = json.loads(rest.decode().splitlines()[0])
    assert message["id"] == 3
    assert len(message["result"]["structuredContent"]["issues"]) > 400


@pytest.mark.real
def test_sigterm_ends_the_workers_and_the_server(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    proc = start(root, tmp_path / "xdg")
    assert proc.stdout is not None and proc.stderr is not None
    greet(proc)
    send(proc, call(2, "check_project", {}))
    answer(proc.stdout, 2)
    workers = descendants(proc.pid)
    assert workers
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=HANG_GUARD_S) == 128 + signal.SIGTERM
    assert "SIGTERM" in proc.stderr.read().decode()
    # Killed by group (SIGKILL) before the server left: at most zombies
    # for init to reap, nothing running.
    assert [pid for pid in workers if alive(pid)] == []


@pytest.mark.real
def test_a_server_stuck_in_a_step_is_ended_by_its_watchdog(tmp_path: Path) -> None:
    require_engine("tsc")
    root = write_project(tmp_path / "p")
    proc = start(root, tmp_path / "xdg", stuck=True)
    assert proc.stdout is not None and proc.stderr is not None
    greet(proc)
    send(proc, call(2, "check_project", {}))
    answer(proc.stdout, 2)
    workers = descendants(proc.pid)
    assert workers
    send(proc, call(3, "ping", {}))  # blocks the event loop for 600 s
    while b"blocks the loop" not in proc.stderr.readline():
        pass
    code, rest, stderr = finish(proc)
    assert code == 0
    assert rest == b""  # the stuck call is not answered: nothing half written either
    assert "still busy" in stderr
    assert [pid for pid in workers if alive(pid)] == []


# The pieces, in-process.


class Ended:
    """Stands in for `os._exit` in-process: notes the code, then holds the
    (daemon) thread that called it, as a process that ended would."""

    def __init__(self) -> None:
        self.codes: list[int] = []
        self.event = threading.Event()

    def __call__(self, code: int) -> None:
        self.codes.append(code)
        self.event.set()
        threading.Event().wait()


def test_reading_notes_the_end_of_input_once_and_the_watchdog_ends_at_the_deadline() -> None:
    chunks = [b"a\n", b""]
    end = Ended()
    leaving = Leaving(budget_s=0.05, end=end)
    read = leaving.reading(lambda size: chunks.pop(0))
    assert read(10) == b"a\n"
    assert leaving.ended_at is None
    assert leaving.left() == 0.05  # the whole budget until the input ends
    assert read(10) == b""
    first = leaving.ended_at
    assert first is not None
    leaving.ended()
    assert leaving.ended_at == first
    assert end.event.wait(30)  # the watchdog, at the deadline
    assert end.codes == [0] and leaving.left() == 0


def test_a_hangup_ends_the_input_only_once_what_was_sent_is_read() -> None:
    reader, writer = os.pipe()
    os.write(writer, b'{"jsonrpc": "2.0", "method": "x"}\n')
    os.close(writer)
    end = Ended()
    leaving = Leaving(budget_s=0.01, end=end)
    leaving.watch(reader)
    # The client has hung up, but a line it sent is still unread.
    assert not end.event.wait(0.3)
    assert leaving.ended_at is None
    assert os.read(reader, 4096).endswith(b"\n")
    assert end.event.wait(30)
    assert leaving.ended_at is not None
    os.close(reader)


def test_a_line_is_written_whole_through_short_writes(tmp_path: Path) -> None:
    reader, writer = os.pipe()
    data = b'{"x": "' + b"y" * (512 * 1024) + b'"}\n'
    got = bytearray()

    def drain() -> None:
        while chunk := os.read(reader, 65536):
            got.extend(chunk)

    thread = threading.Thread(target=drain)
    thread.start()
    Leaving().write_line(writer, data)
    os.close(writer)
    thread.join()
    os.close(reader)
    assert bytes(got) == data
