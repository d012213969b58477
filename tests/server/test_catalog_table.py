"""One declaration per tool: `catalog.TOOLS` is what tools/list and tools/call read.

Each `Tool` names its handler; the handler is imported only at the first
call, so listing the tools loads no handler module and no check pipeline.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

from signalint.server.catalog import INPUTS, TOOLS


def test_every_tool_names_a_handler_of_its_own_name() -> None:
    for name, tool in TOOLS.items():
        handler = tool.handle()
        assert inspect.iscoroutinefunction(handler), name
        assert handler.__name__ == name
        assert handler.__module__ == "signalint.server." + tool.handler.rsplit(".", 1)[0]


def test_the_input_schemas_are_the_declarations_own() -> None:
    assert list(INPUTS) == list(TOOLS)
    assert all(INPUTS[name] is tool.input_schema for name, tool in TOOLS.items())


def test_listing_the_tools_imports_no_handler() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from signalint.server.app import build_server\n"
        "from signalint.server.state import ServerState\n"
        "build_server(ServerState(Path('.')))\n"
        "print(sorted(m for m in sys.modules if m.startswith('signalint')))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    for heavy in ("tools", "live_tools", "fix_tools", "checking"):
        assert f"'signalint.server.{heavy}'" not in loaded
    assert (
        "'signalint.service.check_service'" not in loaded
        and "'signalint.pipeline.check_run'" not in loaded
    )
