"""Why a warm worker failed, where a user reads it (`warm/failures.py`): one
bounded line per failure through `logging`, said once and then counted,
and per engine the cold fallbacks it caused, which the session history
records for `signalint stats`. The real test starts the real ESLint worker
on real Node against an ESLint package that cannot load (tests/warm/broken_eslint.py)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from signalint.warm.failures import REASON_LIMIT, Failures, reason, stderr_since

NODE_ERROR = """Error: injected: cannot load
    at Object.<anonymous> (/p/node_modules/eslint/lib/api.js:1:7)
    at Module._compile (node:internal/modules/cjs/loader:1364:14)
Require stack:
- /p/node_modules/eslint/lib/api.js
"""


def test_a_reason_is_one_bounded_line_without_stack_frames(tmp_path: Path) -> None:
    said = reason(f"the ESLint worker did not start: {NODE_ERROR}", "")
    assert said == "the ESLint worker did not start: Error: injected: cannot load"
    log = tmp_path / "eslint.log"
    log.write_text("an older worker's warning\n")
    mark = log.stat().st_size
    with log.open("a") as f:
        f.write('Traceback (most recent call last):\n  File "w.py", line 3\nValueError: bad\n')
    tail = stderr_since(log, mark)
    assert tail == "ValueError: bad"
    assert reason("the worker closed its output", tail) == (
        "the worker closed its output (stderr: ValueError: bad)"
    )
    assert reason("said: ValueError: bad", tail) == "said: ValueError: bad"  # not twice
    long = reason("x" * 5000, "y" * 5000)
    assert len(long) == REASON_LIMIT and long.endswith("…") and "\n" not in long
    assert stderr_since(tmp_path / "missing.log", 0) == ""


def test_the_same_failure_is_logged_once_then_counted(caplog: pytest.LogCaptureFixture) -> None:
    failures = Failures()
    root = Path("/p")
    with caplog.at_level(logging.WARNING, logger="signalint.warm"):
        for _ in range(12):
            failures.failed("eslint", root, "it broke")
        failures.fell_back("eslint")
        failures.failed("eslint", root, "it broke otherwise")
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "warm eslint worker failed for /p: it broke",
        "warm eslint worker failed for /p again (10 times so far): it broke",
        "warm eslint worker failed for /p: it broke otherwise",
    ]
    entry = failures.as_json()["eslint"]
    assert (entry["failures"], entry["fallbacks"]) == (13, 1)
    assert entry["lastReason"] == "it broke otherwise"
    assert failures.fallbacks_by_engine() == {"eslint": 1}


@pytest.mark.real
def test_an_in_process_pool_logs_a_real_worker_s_failure_and_stats_show_it(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from signalint.cache.context import Context
    from signalint.cli.main import main
    from signalint.features.history import Session, stats
    from signalint.server.words import tool_words
    from signalint.service import check_service as service
    from signalint.settings.config import load_config, state_dir
    from signalint.warm.pool import WarmPool
    from tests.warm.broken_eslint import INJECTED, broken_eslint_project, edit

    root = broken_eslint_project(tmp_path)
    config = load_config(root)
    state = state_dir(root, {})
    served = []

    async def checks() -> None:
        pool = WarmPool(1 << 30, tmp_path / "logs")  # the real drivers
        history = Session(state)
        for n in range(2):
            edit(root, n)  # so that ESLint runs (a cache hit runs nothing)
            checked = await service.check(
                service.CheckRequest(root, config),
                service.Services(Context(warm=pool), history=history, words=tool_words),
            )
            served.append(checked.result.outcomes["eslint"].served)
        await pool.close()

    with caplog.at_level(logging.WARNING, logger="signalint.warm"):
        asyncio.run(checks())
    assert served == ["fallback", "fallback"]
    logged = [r for r in caplog.records if r.name == "signalint.warm"]
    # Four failures (a start and its restart, per check), one line.
    assert [r.getMessage() for r in logged] == [
        f"warm eslint worker failed for {root}: the ESLint worker did not start: Error: {INJECTED}"
    ]
    assert logged[0].levelno == logging.WARNING
    data = stats(state)
    assert data["warmFallbacks"] == 2
    assert data["warmFailures"] == {
        "eslint": {
            "fallbacks": 2,
            "lastReason": f"the ESLint worker did not start: Error: {INJECTED}",
        }
    }
    monkeypatch.chdir(root)
    for name in ("SIGNALINT_PROJECT_ROOT", "SIGNALINT_STATE_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert main(["stats"]) == 0
    shown = capsys.readouterr().out
    assert "Warm engines:           0 warm answers, 2 fallbacks, 0 restarts" in shown
    reason = f"the ESLint worker did not start: Error: {INJECTED}"
    assert f"  eslint fell back:     2 times; last: {reason}\n" in shown
