"""The json format: the schema 1.4 check payload, pretty-printed.

This is the CLI's default output; its content is exactly what
`report.check_payload` builds, so it matches the MCP check result.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from signalint.formats.commands import command_words
from signalint.model import CheckResult
from signalint.pipeline.cluster import Clustering
from signalint.pipeline.report import NOTHING_ADDED, Additions, check_payload


def render(
    result: CheckResult,
    clustering: Clustering,
    *,
    compact: bool = False,
    added: Additions = NOTHING_ADDED,
) -> str:
    """The payload as JSON with 2-space indentation, ending in a newline.

    `added` (`report.Additions`: the per-package summary, what
    `--new-from-rev` compared with, ...) and `compact` are passed to
    `check_payload` unchanged. Non-ASCII text is kept as is (the CLI
    writes UTF-8), which keeps paths and messages readable.
    """
    payload = check_payload(
        result,
        clustering,
        compact=compact,
        added=added,
        words=command_words,  # this writer serves the CLI: nextStep names commands
    )
    return dump(payload)


def dump(payload: Mapping[str, object]) -> str:
    """A check payload (`service.Checked.payload`) as the CLI writes it."""
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
