"""`signalint stats`: aggregate the check metrics retained in the session log.

Only MCP checks write the log (the CLI's own `check` does not, in-process
or through the daemon: its output must be what an in-process check prints),
so empty stats before any MCP check are expected. Warm engines: the checks'
engines answered by a kept-warm worker, fallbacks to the cold path after a
worker failed (per engine, with the last failure's reason), and workers
restarted.
"""

from __future__ import annotations

import json
from typing import Any

import click

from signalint.features.history import stats as collect_stats
from signalint.project.roots import discover_root
from signalint.settings.config import state_dir
from signalint.wording import count


def _value(value: Any, unit: str = "") -> str:
    return "n/a" if value is None else f"{value}{unit}"


def _remote(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "not used"
    return (
        f"{count(counts['hits'], 'hit')}, {count(counts['misses'], 'miss')}, "
        f"{count(counts['writes'], 'write')}, {counts['rejected']} rejected, "
        f"{count(counts['errors'], 'error')}, {count(counts['roundTrips'], 'round trip')}"
    )


def _failure_lines(failures: dict[str, Any]) -> list[str]:
    """Per engine whose warm worker fell back to its cold run: how often,
    and the last reason."""
    return [
        f"{f'  {engine} fell back:':<23} {count(f['fallbacks'], 'time')}; last: {f['lastReason']}"
        for engine, f in sorted(failures.items())
    ]


def render(data: dict[str, Any]) -> str:
    """The human report for a `history.stats` aggregate."""
    lines = [
        f"Checks retained:        {data['checks']}",
        f"Payload reduction:      {_value(data['averagePayloadReductionPercent'], '%')} "
        f"average over {count(data['payloadSamples'], 'sample')}",
        f"Cache:                  {count(data['cacheHits'], 'hit')}, "
        f"{count(data['cacheMisses'], 'miss')}, "
        f"hit rate {_value(data['cacheHitRatePercent'], '%')}",
        f"Latency:                average {_value(data['averageLatencyMs'], ' ms')}, "
        f"max {_value(data['maxLatencyMs'], ' ms')} over {count(data['latencySamples'], 'sample')}",
        f"Loop warnings:          {count(data['loopWarningsTriggered'], 'distinct signature')}",
        f"Remote cache:           {_remote(data['remoteCache'])}",
        f"Warm engines:           {count(data['warmAnswers'], 'warm answer')}, "
        f"{count(data['warmFallbacks'], 'fallback')}, "
        f"{count(data['warmRestarts'], 'restart')}, "
        f"{count(data.get('daemonFallbacks', 0), 'daemon fallback')}",
        *_failure_lines(data.get("warmFailures") or {}),
        f"Malformed lines:        {data['malformedLinesSkipped']} skipped",
    ]
    if data["checks"] == 0:
        lines.append("No MCP checks recorded yet (CLI checks are not recorded).")
    return "\n".join(lines) + "\n"


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the aggregate as JSON.")
def stats(as_json: bool) -> int:
    """Summarize latency, cache use and payload savings of recorded MCP checks.

    Reads .signalint/session.jsonl and its .1 backup (or SIGNALINT_STATE_DIR).
    """
    data = collect_stats(state_dir(discover_root()))
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(render(data), nl=False)
    return 0
