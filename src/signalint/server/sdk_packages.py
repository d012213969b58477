"""The MCP SDK's packages, importable without running their initializers.

The server uses the SDK's low-level `Server`, its stdio transport and a few
shared values (`server/app.py`). Importing any of them runs `mcp/__init__.py`
(the SDK's client, its HTTP client, its session group) and
`mcp/server/__init__.py` (the decorator framework `MCPServer`), which the
server never uses: about 11 MiB of a resident server's memory (issue 38's
one-pool figure, docs/benchmarks-history.md).

`defer()` puts in `sys.modules` a stand-in for each of the two packages: a
module with the package's `__path__` and spec, so that its submodules import
as usual, whose first read of any other attribute (`mcp.ClientSession`,
`from mcp.server import MCPServer`) runs the package's real initializer into
that same module and answers from it (PEP 562's module `__getattr__`). Code
that wants what the initializers define still gets it; the server never asks.
A package already imported, or not installed, is left as it is.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Final

# Outermost first: a subpackage's stand-in is found through its parent's.
DEFERRED: Final = ("mcp", "mcp.server")


def _stand_in(name: str) -> types.ModuleType | None:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return None
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def initialized(attribute: str) -> object:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        del module.__getattr__
        loader.exec_module(module)
        return getattr(module, attribute)

    module.__getattr__ = initialized  # type: ignore[method-assign]
    return module


def defer() -> None:
    """Install the stand-ins (module docstring); idempotent."""
    for name in DEFERRED:
        if name in sys.modules:
            continue
        module = _stand_in(name)
        if module is None:
            return
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)


__all__ = ["DEFERRED", "defer"]
