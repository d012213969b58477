"""Files touched while an engine ran: their results are used but not kept.

An engine reads a file some time after the run starts; a file changed
around then may have been read before or after the change, so a result
for it cannot be keyed by its content as it is now.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

# Timestamps on the file systems we know tick in a few milliseconds at most;
# anything touched this close to (or after) a run's start may have changed
# under the engine.
SETTLE_NS = 100_000_000


def touched_since(paths_abs: Sequence[str], since_ns: int) -> set[str]:
    """Those of `paths_abs` modified (or gone) since `since_ns`, less `SETTLE_NS`."""
    touched = set()
    for path in paths_abs:
        try:
            st = os.stat(path)
        except OSError:
            touched.add(path)
            continue
        if max(st.st_mtime_ns, st.st_ctime_ns) >= since_ns - SETTLE_NS:
            touched.add(path)
    return touched
