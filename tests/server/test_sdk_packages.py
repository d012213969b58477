"""The MCP server imports the SDK's low-level server without the SDK's
package initializers (`server/sdk_packages.py`), and whoever reads what
those initializers define still gets it.

Each case runs in a fresh interpreter: the stand-ins live in `sys.modules`.
"""

from __future__ import annotations

import subprocess
import sys

# The server's SDK path, as `server.front` loads it, then what it left out.
SERVER_PATH = """
import sys
from signalint.server.sdk_packages import defer
defer()
import signalint.server.app, signalint.server.front
unused = ("mcp.client", "mcp.server.mcpserver", "httpx2")
print(sorted(m for m in sys.modules if m.startswith(unused)))
"""

READ_LATER = """
from signalint.server.sdk_packages import defer
defer()
import mcp.server.lowlevel
import mcp
from mcp.server import MCPServer
from mcp.client.session import ClientSession
print(mcp.ClientSession is ClientSession, MCPServer.__name__, mcp.types.Tool.__name__)
"""


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_server_path_leaves_out_the_sdk_client_and_its_framework() -> None:
    assert run(SERVER_PATH) == "[]"


def test_what_the_initializers_define_is_there_when_read() -> None:
    assert run(READ_LATER) == "True MCPServer Tool"


def test_without_the_stand_ins_the_client_is_loaded() -> None:
    """The control: the plain import does load what the first test says is left out."""
    assert run(SERVER_PATH.replace("defer()", "pass")) != "[]"
