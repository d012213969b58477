"""Tool-argument checking against the advertised input schemas.

The input schemas (`catalog.Tool.input_schema`) use a small JSON Schema subset (closed and
open objects, strings, integers, booleans, arrays, enums, length and size
bounds); this module enforces exactly that subset,
so what is advertised is what is accepted. A refusal names the offending
field (its path, such as `diagnostics[3].message`) and the limit it broke,
because the caller is usually a model that will fix its call from the
message alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from signalint.server.schemas import Schema
from signalint.wording import count


class ArgumentError(ValueError):
    """An argument that does not match the tool's input schema."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


# Exact types of decoded JSON values -> their JSON Schema type (bool before int).
_KIND_OF: Final[dict[type, str]] = {
    str: "string",
    int: "integer",
    bool: "boolean",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _kind(value: object) -> str:
    """The JSON Schema type of a decoded JSON value."""
    found = _KIND_OF.get(type(value))
    if found is not None:
        return found
    if isinstance(value, bool):
        return "boolean"
    for kind, name in _KIND_OF.items():
        if isinstance(value, kind):
            return name
    return "object" if isinstance(value, Mapping) else "unknown"


_DESCRIBED: Final = {
    "null": "null",
    "boolean": "a boolean",
    "integer": "a number",
    "number": "a number",
    "string": "a string",
    "array": "an array",
    "object": "an object",
    "unknown": "null",
}
_EXPECTED: Final = {
    "boolean": "true or false",
    "integer": "an integer",
    "string": "a string",
    "array": "an array",
    "object": "an object",
}


def _shown(value: str) -> str:
    """A string value quoted for a message, cut to a readable length."""
    return json.dumps(value if len(value) <= 60 else value[:60] + "...")


def _name(parent: str, key: str | int) -> str:
    """The path of `key` under `parent`: `diagnostics[3]`, `diagnostics[3].message`."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def _check(schema: Schema, value: Any, parent: str, key: str | int) -> None:
    """Check `value` (named `key` under `parent`; the name is built only for a refusal)."""
    declared = schema["type"]
    kind = _KIND_OF.get(type(value)) or _kind(value)
    if kind != declared:
        expected = _EXPECTED[declared]
        raise ArgumentError(_name(parent, key), f"expected {expected}, got {_DESCRIBED[kind]}")
    if kind == "string":
        size, limit = len(value), schema.get("maxLength")
        if limit is not None and size > limit:
            raise ArgumentError(
                _name(parent, key), f"longer than {limit} characters ({size} given)"
            )
        if size < schema.get("minLength", 0):
            raise ArgumentError(_name(parent, key), "must not be empty")
        if "enum" in schema and value not in schema["enum"]:
            choices = ", ".join(json.dumps(c) for c in schema["enum"])
            raise ArgumentError(
                _name(parent, key), f"expected one of {choices}, got {_shown(value)}"
            )
    elif kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = (
                f"between {low} and {high}"
                if low is not None and high is not None
                else f"at least {low}"
                if low is not None
                else f"at most {high}"
            )
            raise ArgumentError(_name(parent, key), f"must be {bounds}, got {value}")
    elif kind == "array":
        field = _name(parent, key)
        if len(value) < schema.get("minItems", 0):
            raise ArgumentError(field, f"needs at least {count(schema['minItems'], 'item')}")
        if len(value) > schema.get("maxItems", len(value)):
            raise ArgumentError(
                field, f"has {len(value)} items; at most {schema['maxItems']} are accepted"
            )
        items = schema["items"]
        for index, item in enumerate(value):
            _check(items, item, field, index)
    elif kind == "object":
        _object(schema, value, _name(parent, key))


def _object(schema: Schema, value: Mapping[str, Any], field: str) -> None:
    properties: dict[str, Schema] = schema.get("properties", {})
    if schema.get("additionalProperties") is not True:
        for key in value:
            if key not in properties:
                accepted = ", ".join(properties) or "none"
                raise ArgumentError(
                    _name(field, key), f"unknown argument; accepted arguments: {accepted}"
                )
    for key in schema.get("required", ()):
        if key not in value:
            raise ArgumentError(_name(field, key), "this argument is required")
    for key, item in value.items():
        declared = properties.get(key)
        if declared is not None:
            _check(declared, item, field, key)


def validate(schema: Schema, arguments: Mapping[str, Any]) -> None:
    """Raise `ArgumentError` unless `arguments` matches the object `schema`.

    A closed object (every tool's arguments) refuses unknown keys. An open
    one (an LSP diagnostic) accepts them unchecked and checks the
    properties it declares.
    """
    _object(schema, arguments, "")
