"""Tool-argument checking against the advertised input schemas.

The schemas in `schemas.INPUTS` use a small JSON Schema subset (closed and
open objects, strings, integers, booleans, null, arrays, a list of types,
enums, length and size bounds); this module enforces exactly that subset,
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


class ArgumentError(ValueError):
    """An argument that does not match the tool's input schema."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def _kind(value: object) -> str:
    """The JSON Schema type of a decoded JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
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
    "null": "null",
    "boolean": "true or false",
    "integer": "an integer",
    "string": "a string",
    "array": "an array",
    "object": "an object",
}


def _shown(value: str) -> str:
    """A string value quoted for a message, cut to a readable length."""
    return json.dumps(value if len(value) <= 60 else value[:60] + "...")


def _check(schema: Schema, value: object, field: str) -> None:
    declared = schema["type"]
    kinds = [declared] if isinstance(declared, str) else list(declared)
    kind = _kind(value)
    if kind not in kinds:
        expected = " or ".join(_EXPECTED[k] for k in kinds)
        raise ArgumentError(field, f"expected {expected}, got {_DESCRIBED[kind]}")
    if kind == "string":
        assert isinstance(value, str)
        if len(value) < schema.get("minLength", 0):
            raise ArgumentError(field, "must not be empty")
        if len(value) > schema.get("maxLength", len(value)):
            raise ArgumentError(
                field, f"longer than {schema['maxLength']} characters ({len(value)} given)"
            )
        if "enum" in schema and value not in schema["enum"]:
            choices = ", ".join(json.dumps(c) for c in schema["enum"])
            raise ArgumentError(field, f"expected one of {choices}, got {_shown(value)}")
    elif kind == "integer":
        assert isinstance(value, int)
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = (
                f"between {low} and {high}"
                if low is not None and high is not None
                else f"at least {low}"
                if low is not None
                else f"at most {high}"
            )
            raise ArgumentError(field, f"must be {bounds}, got {value}")
    elif kind == "array":
        assert isinstance(value, list)
        if len(value) < schema.get("minItems", 0):
            raise ArgumentError(field, f"needs at least {schema['minItems']} item(s)")
        if len(value) > schema.get("maxItems", len(value)):
            raise ArgumentError(
                field, f"has {len(value)} items; at most {schema['maxItems']} are accepted"
            )
        for index, item in enumerate(value):
            _check(schema["items"], item, f"{field}[{index}]")
    elif kind == "object":
        assert isinstance(value, Mapping)
        validate(schema, value, prefix=f"{field}.")


def validate(schema: Schema, arguments: Mapping[str, Any], *, prefix: str = "") -> None:
    """Raise `ArgumentError` unless `arguments` matches the object `schema`.

    A closed object (every tool's arguments) refuses unknown keys. An open
    one (an LSP diagnostic) accepts them unchecked and checks the
    properties it declares.
    """
    properties: dict[str, Schema] = schema.get("properties", {})
    if schema.get("additionalProperties") is not True:
        for key in arguments:
            if key not in properties:
                accepted = ", ".join(properties) or "none"
                raise ArgumentError(
                    f"{prefix}{key}", f"unknown argument; accepted arguments: {accepted}"
                )
    for key in schema.get("required", []):
        if key not in arguments:
            raise ArgumentError(f"{prefix}{key}", "this argument is required")
    for key, value in arguments.items():
        if key in properties:
            _check(properties[key], value, f"{prefix}{key}")
