"""`signalint stats`: aggregates of the check metrics in the session log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from signalint.cli.main import main
from signalint.cli.stats import stats as stats_command
from signalint.features.history import LOG_NAME, Metrics, Session, payload_bytes, stats
from signalint.pipeline.cluster import cluster
from signalint.pipeline.report import check_payload
from signalint.server.words import tool_words
from tests.factories import issue, result

EMPTY: dict[str, Any] = {
    "checks": 0,
    "payloadSamples": 0,
    "averagePayloadReductionPercent": None,
    "cacheHits": 0,
    "cacheMisses": 0,
    "cacheHitRatePercent": None,
    "latencySamples": 0,
    "averageLatencyMs": None,
    "maxLatencyMs": None,
    "loopWarningsTriggered": 0,
    "malformedLinesSkipped": 0,
    "warmAnswers": 0,
    "warmFallbacks": 0,
    "warmRestarts": 0,
    "daemonFallbacks": 0,
    "warmFailures": {},
    "remoteCache": None,
}


def run_cli(root: Path, *args: str) -> Any:
    env = {"SIGNALINT_PROJECT_ROOT": str(root), "SIGNALINT_STATE_DIR": None}
    return CliRunner().invoke(stats_command, list(args), env=env, catch_exceptions=False)


def record(session: Session, n: int, issues: list[Any], **metrics: Any) -> None:
    session.record_check(
        result(issues, check_id=f"c{n}"),
        kind="project",
        targets=["."],
        metrics=Metrics(**metrics).record(),
    )


def test_stats_are_empty_before_any_mcp_check(tmp_path: Path) -> None:
    assert stats(tmp_path / ".signalint") == EMPTY
    outcome = run_cli(tmp_path, "--json")
    assert outcome.exit_code == 0 and json.loads(outcome.output) == EMPTY
    human = run_cli(tmp_path)
    assert human.exit_code == 0 and "No MCP checks recorded yet" in human.output


def test_stats_aggregate_latency_cache_and_payload(tmp_path: Path) -> None:
    session = Session(tmp_path / ".signalint")
    record(
        session,
        1,
        [issue()],
        latency_ms=10,
        cache_hits=3,
        cache_misses=1,
        payload_before=1000,
        payload_after=400,
    )
    record(
        session,
        2,
        [],
        latency_ms=30.04,
        cache_hits=1,
        cache_misses=3,
        payload_before=1000,
        payload_after=1100,
    )
    record(session, 3, [issue()], latency_ms=None, payload_before=0, payload_after=300)
    data = json.loads(run_cli(tmp_path, "--json").output)
    assert data == {
        **EMPTY,
        "checks": 3,
        "payloadSamples": 2,
        "averagePayloadReductionPercent": 25.0,  # mean of 60% and -10%
        "cacheHits": 4,
        "cacheMisses": 4,
        "cacheHitRatePercent": 50.0,
        "latencySamples": 2,
        "averageLatencyMs": 20.0,
        "maxLatencyMs": 30.0,
    }
    human = run_cli(tmp_path).output
    assert "Checks retained:        3" in human and "hit rate 50.0%" in human
    assert "max 30.0 ms" in human


def test_stats_sum_what_the_shared_store_did(tmp_path: Path) -> None:
    session = Session(tmp_path / ".signalint")
    first = {"hits": 3, "misses": 1, "writes": 1, "rejected": 0, "errors": 0, "roundTrips": 2}
    second = {"hits": 0, "misses": 4, "writes": 0, "rejected": 2, "errors": 1, "roundTrips": 1}
    record(session, 1, [], latency_ms=1, remote=first)
    record(session, 2, [], latency_ms=1, remote=second)
    record(session, 3, [], latency_ms=1)  # no shared store for this one
    summed = stats(tmp_path / ".signalint")["remoteCache"]
    assert summed == {k: first[k] + second[k] for k in first}
    assert "Remote cache:           3 hits, 5 misses, 1 write, 2 rejected, 1 error" in (
        run_cli(tmp_path).output
    )


def test_stats_sum_each_engine_s_fallbacks_and_keep_the_last_reason(tmp_path: Path) -> None:
    session = Session(tmp_path / ".signalint")
    record(session, 1, [], latency_ms=1, fallbacks=2, warm_failures=(("eslint", 2, "old"),))
    record(session, 2, [], latency_ms=1)  # no worker failed
    both = (("eslint", 1, "new"), ("mypy", 1, "mypy's daemon did not start"))
    record(session, 3, [], latency_ms=1, fallbacks=2, warm_failures=both)
    log = tmp_path / ".signalint" / LOG_NAME
    with log.open("a") as f:  # a record whose failures are not what a check writes
        f.write(json.dumps({"type": "check", "checkId": "x", "metrics": {"warmFailures": [1]}}))
        f.write("\n")
    assert stats(tmp_path / ".signalint")["warmFailures"] == {
        "eslint": {"fallbacks": 3, "lastReason": "new"},
        "mypy": {"fallbacks": 1, "lastReason": "mypy's daemon did not start"},
    }
    human = run_cli(tmp_path).output
    assert "Warm engines:           0 warm answers, 4 fallbacks, 0 restarts" in human
    assert "  eslint fell back:     3 times; last: new\n" in human
    assert "  mypy fell back:       1 time; last: mypy's daemon did not start\n" in human


def test_stats_count_distinct_loop_signatures(tmp_path: Path) -> None:
    session = Session(tmp_path / ".signalint")
    for n, issues in enumerate([[issue()], [], [issue()], [], [issue()], [], [issue()]]):
        record(session, n, issues, latency_ms=1)
    assert stats(tmp_path / ".signalint")["loopWarningsTriggered"] == 1


def test_stats_read_the_backup_dedupe_overlap_and_count_malformed_lines(tmp_path: Path) -> None:
    state = tmp_path / ".signalint"
    state.mkdir()
    line = json.dumps(
        {"type": "check", "checkId": "dup", "metrics": Metrics(latency_ms=5).record()}
    )
    other = json.dumps({"type": "check", "checkId": "x", "metrics": Metrics(latency_ms=7).record()})
    (state / (LOG_NAME + ".1")).write_text(f"{line}\nnot json\n")
    (state / LOG_NAME).write_text(
        f'{line}\n{other}\n{{"type":"check"}}\n{{"type":"state","seq":2}}\n{{"trunc'
    )
    data = stats(state)
    assert data["checks"] == 2 and data["latencySamples"] == 2
    assert data["maxLatencyMs"] == 7.0
    assert data["malformedLinesSkipped"] == 3  # garbage, a check without id, the truncated tail


def test_payload_bytes_measure_minified_details_against_the_payload() -> None:
    issues = [issue(line=n) for n in range(1, 30)]
    checked = result(issues)
    payload = check_payload(checked, cluster(issues), words=tool_words)
    before, after = payload_bytes(checked, payload)
    assert after == len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode())
    assert before > after > 0
    assert payload_bytes(result([]), {}) == (2, 2)


def test_stats_refuse_a_bad_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refusals become exit codes in the entry point, so this goes through main.
    monkeypatch.setenv("SIGNALINT_PROJECT_ROOT", str(tmp_path / "missing"))
    assert main(["stats"]) == 2
    assert "cannot be the project root" in capsys.readouterr().err


def test_the_stats_report_counts_its_nouns() -> None:
    from signalint.cli.stats import render

    data: dict[str, Any] = {
        "checks": 1,
        "averagePayloadReductionPercent": 50,
        "payloadSamples": 1,
        "cacheHits": 1,
        "cacheMisses": 2,
        "cacheHitRatePercent": 33,
        "averageLatencyMs": 10,
        "maxLatencyMs": 10,
        "latencySamples": 2,
        "loopWarningsTriggered": 1,
        "malformedLinesSkipped": 0,
        "remoteCache": {
            "hits": 1, "misses": 2, "writes": 1, "rejected": 0, "errors": 1, "roundTrips": 1
        },
        "warmAnswers": 1, "warmFallbacks": 2, "warmRestarts": 1,
    }  # fmt: skip
    text = render(data)
    assert (
        "Remote cache:           1 hit, 2 misses, 1 write, 0 rejected, 1 error, 1 round trip\n"
        in text
    )
    assert "average over 1 sample\n" in text
    assert "1 hit, 2 misses" in text
    assert "over 2 samples" in text and "1 distinct signature\n" in text
    warm = "Warm engines:           1 warm answer, 2 fallbacks, 1 restart, 0 daemon fallbacks\n"
    assert warm in text
    assert "(s)" not in text
