"""`server.prerecord` against servers that misbehave (fault injection: a
fake interpreter stands in for the real server)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from signalint.server import prerecord

# Answers `initialize` at once and `tools/list` after a while; when its
# input ends before that, it stops without answering, as a server whose
# session ends cancels what it was doing.
SLOW = """#!{python}
import json, os, sys, threading, time
def say(message):
    os.write(1, (json.dumps(message) + "\\n").encode())
def later(request_id):
    time.sleep(0.5)
    say({{"jsonrpc": "2.0", "id": request_id, "result": {{"tools": []}}}})
    done.set()
done = threading.Event()
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        say({{"jsonrpc": "2.0", "id": message["id"], "result": {{}}}})
    elif message.get("method") == "tools/list":
        threading.Thread(target=later, args=(message["id"],), daemon=True).start()
if not done.is_set():
    sys.stderr.write("input ended: stopping\\n")
    os._exit(0)
"""

# Answers `initialize`, then stops.
QUITS = """#!{python}
import json, os, sys
message = json.loads(sys.stdin.readline())
answer = {{"jsonrpc": "2.0", "id": message["id"], "result": {{}}}}
os.write(1, (json.dumps(answer) + "\\n").encode())
sys.stderr.write("input ended: stopping\\n")
"""


def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    """A project whose server is the fake `text`."""
    script = tmp_path / "python"
    script.write_text(text.format(python=sys.executable))
    script.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(script))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "p"
    root.mkdir()
    return root


def test_a_server_that_answers_late_is_given_the_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert prerecord.prerecord(fake(tmp_path, monkeypatch, SLOW)) is None


def test_a_server_that_stops_early_is_named_with_its_last_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = prerecord.prerecord(fake(tmp_path, monkeypatch, QUITS))
    assert said == "it answered 1 of 2 requests and exited 0 (input ended: stopping)"
