"""Faults the tests inject into the fix journal's checkpoints (`journal.Checkpoint`)."""

from __future__ import annotations

import functools
import os
import signal
from collections.abc import Callable

from signalint.kept import fix_journal as journal


class _CountedFault:
    """Counts checkpoints (1-based) and strikes at the `at`-th."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.passed = 0

    def __call__(self, committed: bool) -> None:
        self.passed += 1
        if self.passed == self.at:
            self.strike(committed)

    def strike(self, committed: bool) -> None:
        raise NotImplementedError


class KillAt(_CountedFault):
    """`SIGKILL` this process at the `at`-th checkpoint."""

    def strike(self, committed: bool) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


class FailAt(_CountedFault):
    """An `OSError` at the `at`-th checkpoint, as a full disk would raise; after
    the commit nothing fails."""

    def strike(self, committed: bool) -> None:
        if not committed:
            raise OSError(28, "No space left on device (injected)")


def journal_with(checkpoint: Callable[[bool], None]) -> Callable[..., None]:
    """`journal.write_all` with `checkpoint` injected (to monkeypatch it in)."""
    return functools.partial(journal.write_all, checkpoint=checkpoint)
