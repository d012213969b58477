"""The connection to a project's daemon (standard library only): the
socket checks, one request and its answer. The client API
(`daemon.client`), the launcher (`daemon.launch`), the CLI's `daemon`
commands and the daemon itself use it.

Refused: a socket that is not ours or not of mode 0600, a daemon served by
another user (SO_PEERCRED).
"""

from __future__ import annotations

import _socket
import os
import stat
import struct
from collections.abc import Mapping
from pathlib import Path

from signalint.daemon import wire
from signalint.daemon.place import Place

TYPE_CHECKING = False  # `typing` costs the forwarding path milliseconds
if TYPE_CHECKING:
    from typing import Any

DISABLE_ENV = "SIGNALINT_DAEMON"
NO_DAEMON = "--no-daemon"
# How long to wait for a daemon to accept and answer a short request.
QUICK_S = 5.0


class Refused(Exception):
    """A socket or daemon the client will not use (the reason is the message)."""


def disabled(env: Mapping[str, str]) -> bool:
    """`SIGNALINT_DAEMON=0`: no daemon and no warm workers."""
    return env.get(DISABLE_ENV, "").strip() == "0"


def peer_uid(sock: _socket.socket) -> int:
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def check_socket(path: Path) -> None:
    """Raise `Refused` unless `path` is a socket of ours that only we can use;
    `FileNotFoundError` when there is none."""
    info = os.lstat(path)
    if not stat.S_ISSOCK(info.st_mode):
        raise Refused(f"{path} is not a socket")
    if info.st_uid != os.getuid():
        raise Refused(f"{path} belongs to user {info.st_uid}, not to you")
    if info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise Refused(f"{path} has mode {mode:04o}; a daemon's socket has mode 0600")


def connect(where: Place, timeout_s: float | None = QUICK_S) -> _socket.socket:
    """A connection to the daemon at `where`. Raises `FileNotFoundError` (no
    socket), `ConnectionRefusedError` (a socket nobody serves: the daemon
    died), `Refused` (module docstring) or another `OSError`."""
    check_socket(where.socket)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        sock.connect(os.fspath(where.socket))
        if peer_uid(sock) != os.getuid():
            raise Refused(f"the daemon on {where.socket} runs as another user")
    except BaseException:
        sock.close()
        raise
    return sock


def ask(where: Place, message: dict[str, Any], timeout_s: float | None = QUICK_S) -> dict[str, Any]:
    """One request and its answer (raises as `connect`, or `wire.WireError`)."""
    sock = connect(where, timeout_s)
    try:
        wire.send(sock, message)
        return wire.receive(sock)
    finally:
        sock.close()
