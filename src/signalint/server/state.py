"""What one server process remembers: root, transport settings, snapshots, history.

The payload mode and compact keys are captured once at start-up, because
the output schemas advertised in `tools/list` depend on them and must not
change under a connected client. Engine settings, on the other hand, are
re-read for every check, so editing `signalint.config.json` takes effect
without reconnecting.

Snapshots and session history are created on first use: nothing heavy
stands between process start and the `initialize` response.
"""

from __future__ import annotations

import os
import sys
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from signalint.settings.config import PAYLOAD_MODES, Config, ConfigError, load_config

if TYPE_CHECKING:
    from signalint.cache.context import Context
    from signalint.features.history import Session
    from signalint.features.live import LiveBuffer
    from signalint.features.transactions import TransactionStore
    from signalint.kept.snapshot_store import SnapshotStore
    from signalint.pipeline.snapshot import Snapshot

_TRUE = ("1", "true", "yes", "on")


class ServerState:
    """Per-process state shared by every tool call (single asyncio thread)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.startup_config: Config | None = None
        try:
            self.startup_config = load_config(root)
            self.mode = self.startup_config.mcp_payload
            self.compact = self.startup_config.compact
        except ConfigError as exc:
            # Keep serving: ping works, and every check reports the problem.
            sys.stderr.write(f"signalint-mcp: warning: {exc}\n")
            env_mode = os.environ.get("SIGNALINT_MCP_PAYLOAD", "").strip()
            self.mode = env_mode if env_mode in PAYLOAD_MODES else "both"
            self.compact = os.environ.get("SIGNALINT_COMPACT", "").strip().lower() in _TRUE

    def config(self) -> Config:
        """The current configuration (raises `ConfigError`)."""
        return load_config(self.root)

    @cached_property
    def snapshots(self) -> SnapshotStore:
        """Retained checks, persisted in the state directory (D19).

        Shared with the CLI and other server processes, so an id from any of
        them resolves here. Writes happen on a background thread: a check's
        answer never waits for its snapshot file, and a leaving server waits
        for it until its exit deadline (`server.leaving`).
        """
        from signalint.kept.snapshot_store import (
            DEFAULT_MAX_COUNT,
            DEFAULT_TTL_S,
            SnapshotStore,
            snapshot_dir,
        )

        config = self.startup_config
        max_count = config.snapshot_max if config else DEFAULT_MAX_COUNT
        ttl_s = config.snapshot_ttl_s if config else DEFAULT_TTL_S
        return SnapshotStore(max_count, ttl_s, directory=snapshot_dir(self.root), background=True)

    @cached_property
    def live_snapshots(self) -> SnapshotStore:
        """Snapshots of ingested batches, bounded apart from the checks' (D8, D19)."""
        from signalint.kept.snapshot_store import SnapshotStore, live_snapshot_dir

        store = self.snapshots
        return SnapshotStore(
            store.max_count, store.ttl_s, directory=live_snapshot_dir(self.root), background=True
        )

    def snapshot(self, check_id: str) -> Snapshot | None:
        """The retained check or ingested batch with `check_id`, or None."""
        return self.snapshots.get(check_id) or self.live_snapshots.get(check_id)

    def retained(self, check_id: str, field: str = "checkId") -> Snapshot:
        """`snapshot(check_id)`, or the `stale` refusal naming `field`."""
        found = self.snapshot(check_id)
        if found is None:
            from signalint.server.refusals import stale

            raise stale(field, f"No retained check has checkId {check_id[:40]!r}")
        return found

    @cached_property
    def live(self) -> LiveBuffer:
        """What each source last reported about each file (D8), in memory only."""
        from signalint.features.live import DEFAULT_CAPACITY, LiveBuffer

        config = self.startup_config
        return LiveBuffer(config.live_max_entries if config else DEFAULT_CAPACITY)

    @cached_property
    def context(self) -> Context:
        """This server's memory between checks (caches, decoded issues,
        programs). It keeps no warm engine workers: the project's daemon
        owns the one pool and answers the server's checks
        (`daemon.client.check`); a check the daemon could not answer runs
        here, cold."""
        from signalint.cache.context import Context

        return Context()

    @cached_property
    def history(self) -> Session:
        """Loop and churn tracking, replayed from the session log on first use (D15)."""
        from signalint.features.history import Session
        from signalint.settings.config import state_dir

        return Session(state_dir(self.root))

    @cached_property
    def transactions(self) -> TransactionStore:
        """Staged fix transactions of this process (previews: 20, 15 minutes)."""
        from signalint.features.transactions import TransactionStore

        return TransactionStore()
