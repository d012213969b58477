"""Input schemas of the live tools (ingest_diagnostics, get_live_diagnostics, clear_live).

Kept apart from their answer shapes (`live_schemas`) so `schemas.INPUTS` can
include them without importing the output schemas. Input diagnostics are
open objects: LSP diagnostics carry fields we do not read (`tags`, `data`),
and `ingest.lsp` checks the ones we do, naming the field's path.
"""

from typing import Final

from signalint.ingest import FORMATS, MAX_BATCH, MAX_REPORT_BYTES
from signalint.server.schemas import MAX_PATH_CHARS, MAX_PATHS, SEVERITY, Schema, closed

_NAME: Final[Schema] = {"type": "string", "minLength": 1, "maxLength": 100}
_FILTER_PATHS: Final[Schema] = {
    "type": "array",
    "items": {"type": "string", "maxLength": MAX_PATH_CHARS},
    "maxItems": MAX_PATHS,
}

INPUTS: Final[dict[str, Schema]] = {
    "ingest_diagnostics": closed(
        {
            "diagnostics": {
                "type": "array",
                "items": {"type": "object", "additionalProperties": True},
                "maxItems": MAX_BATCH,
                "description": "LSP diagnostics with file (path or file:// URI), or "
                "publishDiagnostics params.",
            },
            "files": {
                **_FILTER_PATHS,
                "description": "More files it covers (cleared if none).",
            },
            "source": {**_NAME, "description": 'Default "lsp".'},
            "serverName": {**_NAME, "description": "Keeps this server's reports apart."},
            "format": {"type": "string", "enum": list(FORMATS)},
            "report": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_REPORT_BYTES,
                "description": "A tool's output in `format`.",
            },
        },
        [],
    ),
    "get_live_diagnostics": closed(
        {"files": {**_FILTER_PATHS, "description": "Files or directories."}, "severity": SEVERITY},
        [],
    ),
    "clear_live": closed(
        {
            "source": {**_NAME, "description": "Only this source (default: all)."},
            "serverName": _NAME,
            "files": {**_FILTER_PATHS, "description": "Only these files (default: all)."},
        },
        [],
    ),
}
