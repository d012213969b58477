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
from signalint.server.entry import main

_call = tools.call


async def _stuck(spec: Any, *args: Any) -> Any:
    if spec.name == "ping":
        sys.stderr.write("stuck_server: ping blocks the loop\n")
        sys.stderr.flush()
        time.sleep(600)
    return await _call(spec, *args)


if __name__ == "__main__":
    tools.call = _stuck
    sys.exit(main([]))
