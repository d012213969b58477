"""The json format: the schema 1.4 check payload, pretty-printed.

This is the CLI's default output; its content is exactly what
`report.check_payload` builds, so it matches the MCP check result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from signalint.cluster import Clustering
from signalint.formats.commands import command_words
from signalint.model import CheckResult
from signalint.payloads import CheckWarnings
from signalint.report import check_payload


def render(
    result: CheckResult,
    clustering: Clustering,
    *,
    compact: bool = False,
    filtered_out: int | None = None,
    extras: CheckWarnings | None = None,
    workspace: Mapping[str, object] | None = None,
    baseline: Mapping[str, object] | None = None,
) -> str:
    """The payload as JSON with 2-space indentation, ending in a newline.

    `workspace` (the per-package summary, `package_summary.summarize`) and
    `baseline` (what `--new-from-rev` compared with) are added under those
    keys when given. Other options are passed to `check_payload` unchanged. Non-ASCII text is kept
    as is (the CLI writes UTF-8), which keeps paths and messages readable.
    """
    payload = check_payload(
        result,
        clustering,
        compact=compact,
        filtered_out=filtered_out,
        extras=extras,
        workspace=workspace,
        baseline=baseline,
        words=command_words,  # this writer serves the CLI: nextStep names commands
    )
    return dump(payload)


def dump(payload: Mapping[str, object]) -> str:
    """A check payload (`service.Checked.payload`) as the CLI writes it."""
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
