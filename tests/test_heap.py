"""The C allocator of a long-lived process (glibc): arenas capped, free memory given back."""

from __future__ import annotations

import ctypes
import sys

import pytest

from signalint import heap


def _glibc() -> bool:
    return sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "malloc_trim")


@pytest.mark.skipif(not _glibc(), reason="glibc only")
def test_on_glibc_the_arenas_are_capped_and_free_memory_is_given_back() -> None:
    assert heap.one_arena() is True
    garbage = [bytes(1 << 16) for _ in range(256)]  # 16 MiB of C-heap blocks
    del garbage
    assert heap.give_back() in (True, False)  # it ran; whether pages were freed varies
    assert heap._glibc() is not None


@pytest.mark.skipif(_glibc(), reason="elsewhere than glibc")
def test_elsewhere_both_are_no_ops() -> None:
    assert heap.one_arena() is False
    assert heap.give_back() is False
