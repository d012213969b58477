"""`signalint-mcp` whose `ping` blocks its event loop, for tests.

Run as `python -m tests.server.stuck_server` with the repository on
PYTHONPATH: a `ping` call sleeps 600 s on the event loop's thread (a long
synchronous step nothing can cancel); everything else is the real server.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from signalint.server import tools
from signalint.server.catalog import Tool
from signalint.server.check_tools import SendProgress
from signalint.server.entry import main
from signalint.server.payload import Reply
from signalint.server.state import ServerState

_call = tools.call


async def _stuck(tool: Tool, state: ServerState, args: dict[str, Any], send: SendProgress) -> Reply:
    if tool.name == "ping":
        sys.stderr.write("stuck_server: ping blocks the loop\n")
        sys.stderr.flush()
        time.sleep(600)
    return await _call(tool, state, args, send)


if __name__ == "__main__":
    tools.call = _stuck
    sys.exit(main([]))
