"""How a tool's answer travels: the MCP payload modes (reference "MCP payload modes").

Handlers produce a transport-neutral `Reply`; `render` turns it into a
`CallToolResult` for the server's mode, captured once at start-up:

- `both` (default): first text block is the minified JSON of the structured
  object, and `structuredContent` is that object;
- `text`: only the minified JSON text (detail answers are the bare issue
  array), no `structuredContent`, and no output schemas are advertised;
- `structured`: as `both`, plus a second text block with a one-line human
  summary for the user (`annotations.audience: ["user"]`).

Ping is the exception everywhere: its first block is the literal `pong`.

Human summaries are written by the handlers from the *full-key* payload,
before compact keys are applied, so they always read the right counts (D16).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import mcp_types as types

MODES: Final = ("both", "text", "structured")


@dataclass(frozen=True, slots=True)
class Reply:
    """A tool's answer before transport.

    `data` is the structured object (it must match the tool's output schema);
    `summary` is one human sentence; `text_data` replaces `data` as the JSON
    of text mode (detail's bare array); `literal` replaces the first text
    block in every mode (ping's `pong`); `error` sets `isError`.
    """

    data: Mapping[str, Any]
    summary: str
    text_data: Any = None
    literal: str | None = None
    error: bool = False


def minified(value: Any) -> str:
    """Compact JSON; non-ASCII stays readable (and shorter) as UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def render(mode: str, reply: Reply) -> types.CallToolResult:
    """The `CallToolResult` carrying `reply` in payload `mode`."""
    if mode == "text":
        body = reply.data if reply.text_data is None else reply.text_data
        first = reply.literal if reply.literal is not None else minified(body)
        return types.CallToolResult(content=[types.TextContent(text=first)], is_error=reply.error)
    first = reply.literal if reply.literal is not None else minified(reply.data)
    content: list[types.ContentBlock] = [types.TextContent(text=first)]
    if mode == "structured":
        content.append(
            types.TextContent(text=reply.summary, annotations=types.Annotations(audience=["user"]))
        )
    return types.CallToolResult(
        content=content, structured_content=dict(reply.data), is_error=reply.error
    )


def advertises_output_schema(mode: str) -> bool:
    """Text mode sends no structured content, so it promises no output shape."""
    return mode != "text"
