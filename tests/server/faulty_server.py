"""`signalint-mcp` with a write fault injected into the fix journal, for tests.

Run as `python -m tests.server.faulty_server N` with the repository on
PYTHONPATH: the N-th checkpoint of every journal write raises the error a
full disk would (`tests.faults.FailAt`); everything else is the real server.
"""

from __future__ import annotations

import sys

from signalint.kept import fix_journal as journal
from signalint.server.entry import main

from ..faults import FailAt, journal_with

if __name__ == "__main__":
    journal.write_all = journal_with(FailAt(int(sys.argv[1])))
    sys.exit(main([]))
