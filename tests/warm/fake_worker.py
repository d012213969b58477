"""A fault-injection worker for the warm pool's tests (not an engine).

It answers one JSON line per request with `{"stdout", "exit"}`, echoing the
command's argv, and behaves as the file named by its first argument says at
each request: `ok`, `crash` (says so on stderr and exits), `hang` (never
answers), `garbage` (an unreadable line), `big` (allocates ~200 MiB and
keeps it), `slow` (answers after 0.5 s). It exits when its stdin closes,
as every worker must.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

control = Path(sys.argv[1])
kept: list[bytearray] = []
sys.stdout.write(json.dumps({"ready": os.getpid()}) + "\n")
sys.stdout.flush()
for line in sys.stdin:
    mode = control.read_text().strip() if control.exists() else "ok"
    request = json.loads(line)
    if mode == "crash":
        sys.stderr.write("the fake worker crashed (injected)\n")
        sys.exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "slow":
        time.sleep(0.5)
    if mode == "garbage":
        sys.stdout.write("not json\n")
    else:
        if mode == "big":
            kept.append(bytearray(os.urandom(1024)) * (200 * 1024))
        answer = {"stdout": " ".join(request["argv"]), "exit": 0, "pid": os.getpid()}
        sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
