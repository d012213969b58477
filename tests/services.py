"""Real services the tests start on a free loopback port: Redis, S3, WebDAV.

Redis is Debian's `redis-server` (`.ci/run` installs it), started without
persistence; the S3-compatible server is moto's standalone server and the
WebDAV server WsgiDAV (both test dependencies). Locally a missing
`redis-server` skips the tests that need it; under CI (CI=true) it fails
them, so a set-up that lost it cannot pass.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the service exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} within {timeout_s:g} s")


class Redis:
    """A redis-server of our own; `stop`, `pause` and `resume` inject faults."""

    def __init__(self, executable: str, workdir: Path) -> None:
        self.port = free_port()
        args = [executable, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(workdir)]
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        _wait_for_port(self.port, self.process)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def command(self, *words: str) -> bytes:
        """One command in Redis's inline protocol; the raw reply."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.sendall(" ".join(words).encode() + b"\r\n")
            return conn.recv(1 << 20)

    def stored_keys(self) -> list[bytes]:
        """Every key (a bulk-string array reply, parsed)."""
        reply = self.command("KEYS", "*")
        lines = reply.split(b"\r\n")
        return [line for line in lines[2::2] if line]

    def pause(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)
            self.process.terminate()
            self.process.wait(10)


def _needed(name: str) -> str:
    found = shutil.which(name, path=f"{os.environ.get('PATH', '')}:/usr/sbin:/usr/bin")
    if found is None:
        message = f"{name} is not installed (.ci/run installs it with apt-get)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@contextmanager
def redis_server(workdir: Path) -> Iterator[Redis]:
    server = Redis(_needed("redis-server"), workdir)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def s3_server(bucket: str) -> Iterator[str]:
    """moto's S3-compatible server with `bucket` made; yields the store URL."""
    import boto3  # type: ignore[import-untyped]  # comes with moto[server]

    port = free_port()
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for_port(port, process)
        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="test",
            aws_secret_access_key="test",
        )
        client.create_bucket(Bucket=bucket)
        query = f"endpoint={endpoint}&region=us-east-1&access_key_id=test&secret_access_key=test"
        yield f"s3://{bucket}/results?{query}"
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def webdav_server(directory: Path) -> Iterator[str]:
    """WsgiDAV serving `directory` without authentication; yields the store URL."""
    port = free_port()
    wsgidav = str(Path(sys.executable).parent / "wsgidav")
    args = [wsgidav, "--host", "127.0.0.1", "--port", str(port), "--root", str(directory)]
    process = subprocess.Popen(
        [*args, "--auth", "anonymous"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        _wait_for_port(port, process)
        yield f"webdav://127.0.0.1:{port}/results"
    finally:
        process.terminate()
        process.wait(10)


__all__ = ["Redis", "free_port", "redis_server", "s3_server", "webdav_server"]
