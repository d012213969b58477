"""Protocol errors that name what was wrong with a message or a call.

The SDK refuses a malformed message in two places, both without saying why:

- its stdio transport reads each line as a JSON-RPC message; a line that is
  not one becomes an exception on its read stream, which `app._Unparsed`
  answers. `envelope` reads such a line again and names the member at
  fault (`params` must be an object, `method` a string, `id` a string or
  an integer, `jsonrpc` "2.0"; a batch is not accepted), with the
  request's id when it is readable;
- its request runner validates a request's `params` against the method's
  model before any handler, and answers a failure with a bare "Invalid
  request parameters" and empty `data` (a `tools/call` whose `arguments`
  is an array, a missing `name`, a `_meta` of the wrong type), and the same
  words to a request sent before `initialize`. `Naming`, a middleware (the
  SDK's documented hook: it runs around that validation and sees the raw
  params), turns each into an error naming the field by its path from
  `params`, what it accepts and what it got.

The tool's own arguments are checked after this, against its input schema
(`server.arguments`): a wrong one is a tool result with `isError`, naming
the field and the limit (D25), not a protocol error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

INVALID_PARAMS: Final = -32602
INVALID_REQUEST: Final = -32600
PARSE_ERROR: Final = -32700
# Errors listed in one message; the rest are counted.
SHOWN: Final = 3

# pydantic's error types -> what the field accepts.
_ACCEPTS: Final = {
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "an array",
    "tuple_type": "an array",
    "none_required": "null",
}
# What some fields are, for the message (by path from params).
_MEANING: Final = {
    "params.arguments": "the tool's arguments by name, as its inputSchema in tools/list describes",
    "params.name": "the name of a tool from tools/list",
    "params._meta": "request metadata",
    "params._meta.progressToken": "a progress token",
    "params.cursor": "the nextCursor of an earlier answer",
}


def kind(value: object) -> str:
    """A decoded JSON value's kind, as a message says it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction" if not value.is_integer() else "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _path(loc: Sequence[str | int], params: object) -> tuple[str, object, bool]:
    """The field's path from `params` (the part of `loc` that names members
    of the input; pydantic appends the union member it tried, such as
    `str`), the value found there and whether it was there."""
    parts = list(loc)
    if parts and parts[0] == "params":
        parts = parts[1:]
    value: object = params
    shown = "params"
    for index, part in enumerate(parts):
        if isinstance(value, Mapping) and isinstance(part, str) and part in value:
            value = value[part]
            shown = f"{shown}.{part}"
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
            shown = f"{shown}[{part}]"
        elif index == len(parts) - 1 and isinstance(value, Mapping | type(None)):
            return f"{shown}.{part}", None, False  # a missing member
        else:
            break
    return shown, value, True


def _accepts(error: Mapping[str, Any]) -> str:
    found = _ACCEPTS.get(str(error.get("type")))
    if found is not None:
        return found
    context = error.get("ctx") or {}
    if error.get("type") == "literal_error" and "expected" in context:
        return f"one of {context['expected']}"
    message = str(error.get("msg", "something else"))
    return message[:1].lower() + message[1:]


def field_errors(errors: Sequence[Mapping[str, Any]], params: object) -> list[dict[str, str]]:
    """pydantic's `errors` of a request's params, one per field: its path
    (`params.arguments`), what it accepts and what it got."""
    fields: dict[str, dict[str, str]] = {}
    for error in errors:
        loc = error.get("loc", ())
        if isinstance(params, Mapping | type(None)) and loc == ("params",):
            loc = ()  # params itself (absent)
        path, value, present = _path(tuple(loc), params)
        if not present or error.get("type") == "missing":
            entry = fields.setdefault(path, {"field": path, "problem": "missing"})
            entry.setdefault("expected", "required")
            continue
        entry = fields.setdefault(path, {"field": path, "got": kind(value)})
        accepts = _accepts(error)
        known = entry.get("expected")
        if known is None:
            entry["expected"] = accepts
        elif accepts not in known.split(" or "):
            entry["expected"] = f"{known} or {accepts}"
    return list(fields.values())


def _sentence(entry: Mapping[str, str]) -> str:
    field = entry["field"]
    meaning = _MEANING.get(field)
    what = f" ({meaning})" if meaning else ""
    if entry.get("problem") == "missing":
        if field == "params":
            return "params is required: an object with the method's arguments"
        return f"{field} is required{what}"
    return f"{field} must be {entry['expected']}{what}, got {entry['got']}"


def params_message(method: str, fields: Sequence[Mapping[str, str]]) -> str:
    """One message naming every field at fault (the first `SHOWN`)."""
    shown = "; ".join(_sentence(entry) for entry in fields[:SHOWN])
    more = len(fields) - SHOWN
    tail = f"; and {more} more" if more > 0 else ""
    return f"Invalid params for {method}: {shown}{tail}"


def not_initialized(method: str) -> str:
    return (
        f"{method} was sent before the session was initialized: send initialize, "
        "then the notifications/initialized notification, then this request"
    )


class Naming:
    """The SDK middleware (`Server.middleware`) that names what was wrong
    with a request's params (module docstring); everything else passes
    through unchanged."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        try:
            return await call_next(ctx)
        except ValidationError as exc:
            method = str(ctx.method)
            fields = field_errors(exc.errors(include_url=False), ctx.params)
            raise MCPError(
                code=INVALID_PARAMS,
                message=params_message(method, fields),
                data={"method": method, "errors": fields},
            ) from None
        except MCPError as exc:
            error = exc.error
            if error.code == INVALID_PARAMS and error.message == "Invalid request parameters":
                # The SDK's gate for a request before `initialize` (a params
                # failure arrives above as a ValidationError).
                method = str(ctx.method)
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=not_initialized(method),
                    data={"method": method, "expected": "initialize first"},
                ) from None
            raise


RequestId = int | str


def _usable_id(value: object) -> RequestId | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


def envelope(line: str) -> tuple[int, str, RequestId | None, dict[str, Any]]:
    """The JSON-RPC error for `line`, which the SDK could not read as a
    message: its code, a message naming the member at fault and what it
    accepts, the request's id when readable (else None), and `data`."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        where = f" (at character {exc.pos})" if isinstance(exc, json.JSONDecodeError) else ""
        return (
            PARSE_ERROR,
            f"Parse error: the line is not JSON{where}; send one JSON-RPC 2.0 message per line",
            None,
            {},
        )
    if isinstance(message, list):
        return (
            INVALID_REQUEST,
            "Invalid Request: a batch (a JSON array) is not accepted; send one JSON-RPC 2.0 "
            "message (a JSON object) per line",
            None,
            {"got": "an array"},
        )
    if not isinstance(message, dict):
        return (
            INVALID_REQUEST,
            f"Invalid Request: a message must be a JSON object, got {kind(message)}",
            None,
            {"got": kind(message)},
        )
    request_id = _usable_id(message.get("id"))
    problems: list[dict[str, str]] = []
    if message.get("jsonrpc") != "2.0":
        got = "nothing" if "jsonrpc" not in message else kind(message["jsonrpc"])
        if isinstance(message.get("jsonrpc"), str):
            got = json.dumps(message["jsonrpc"][:20])
        problems.append({"field": "jsonrpc", "expected": '"2.0"', "got": got})
    if "id" in message and request_id is None and message["id"] is not None:
        got = kind(message["id"])
        problems.append({"field": "id", "expected": "a string or an integer", "got": got})
    if "method" in message:
        if not isinstance(message["method"], str):
            got = kind(message["method"])
            problems.append({"field": "method", "expected": "a string", "got": got})
        if "params" in message and not isinstance(message["params"], dict | type(None)):
            got = kind(message["params"])
            problems.append({"field": "params", "expected": "an object", "got": got})
    elif not ("result" in message or "error" in message):
        problems.append({"field": "method", "expected": "a string", "got": "nothing"})
    if not problems:
        return (
            INVALID_REQUEST,
            "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (a request "
            "needs jsonrpc, id, method and optionally params; a notification has no id)",
            request_id,
            {},
        )
    said = "; ".join(
        f"{p['field']} must be {p['expected']}"
        + (", and is missing" if p["got"] == "nothing" else f", got {p['got']}")
        for p in problems
    )
    return INVALID_REQUEST, f"Invalid Request: {said}", request_id, {"errors": problems}


__all__ = [
    "Naming",
    "envelope",
    "field_errors",
    "kind",
    "not_initialized",
    "params_message",
]
