"""`initialize` answered before pygls and lsprotocol are imported.

Importing pygls with lsprotocol's types (and the check pipeline) takes a
few hundred milliseconds, most of a language server's start. The answer to
`initialize` depends only on the features the server registers, which are
fixed, and on the position encoding the client prefers, so the front
answers it from `answer` at once; the server is then built and the same
`initialize` handed to it, its own answer dropped (`Writer.drop`), so its
session knows the client as the client knows it. A quick test holds
`answer` equal to what pygls answers for several clients.
"""

from __future__ import annotations

import json
from typing import Any, Final

from signalint import __version__

# The encodings pygls supports, in the order a client's preference is read.
_ENCODINGS: Final = ("utf-8", "utf-16", "utf-32")


def encoding(params: dict[str, Any]) -> str:
    """The position encoding: the client's first one pygls supports, else UTF-16."""
    general = (params.get("capabilities") or {}).get("general") or {}
    for offered in general.get("positionEncodings") or ():
        if offered in _ENCODINGS:
            return str(offered)
    return "utf-16"


def answer(params: dict[str, Any]) -> dict[str, Any]:
    """The `initialize` result for a client's `params`."""
    return {
        "capabilities": {
            "positionEncoding": encoding(params),
            "textDocumentSync": {
                "openClose": True,
                "change": 2,
                "willSave": False,
                "willSaveWaitUntil": False,
                "save": {"includeText": False},
            },
            "codeActionProvider": {
                "codeActionKinds": ["quickfix", "source.fixAll.signalint"],
                "resolveProvider": True,
            },
            "executeCommandProvider": {"commands": []},
            "diagnosticProvider": {
                "interFileDependencies": True,
                "workspaceDiagnostics": True,
                "identifier": "signalint",
            },
            "workspace": {
                "workspaceFolders": {"supported": True, "changeNotifications": True},
                "fileOperations": {},
            },
        },
        "serverInfo": {"name": "signalint", "version": __version__},
    }


def initialize_of(body: bytes) -> tuple[Any, dict[str, Any]] | None:
    """The id and params of an `initialize` request in `body`, else None."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    if "id" not in message or not isinstance(params, dict):
        return None
    capabilities = params.get("capabilities")
    if not isinstance(capabilities, dict):
        return None  # pygls names what is wrong
    return message["id"], params


__all__ = ["answer", "encoding", "initialize_of"]
