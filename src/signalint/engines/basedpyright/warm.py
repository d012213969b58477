"""basedpyright kept warm: its own `basedpyright-langserver --stdio`.

The Pyright driver (`engines/pyright/warm.py`) given basedpyright's adapter:
basedpyright's language server speaks Pyright's protocol, reads the same
`python` settings (its `basedpyright` section is left empty, so the
`python.analysis` answer applies), logs the same "Found N source files"
and answers the same pulls, so the answer is the JSON the cold
`basedpyright --outputjson` prints (D23).

The baseline: the cold command reads a copy of the project's baseline;
the server reads the project's file itself (the same content) and is told
`baselineMode: "discard"`, and it is never sent a save, the only event
after which it would rewrite the file. The baseline's content is part of
the worker's state (`BasedPyrightEngine.key_configs`): a change to it
starts a fresh worker.
"""

from __future__ import annotations

from signalint.engines.basedpyright.adapter import ENGINE
from signalint.engines.pyright.warm import PyrightDriver

DRIVER = PyrightDriver(ENGINE)
