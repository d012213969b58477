"""The test suite (a package, so test modules import `tests.helpers` and the like).

The session keeps the bytecode of our modules and pytest's rewritten test
modules (in `__pycache__`, ignored by git) even where PYTHONDONTWRITEBYTECODE
is set, as bench/ and the real-world tier do: otherwise every run, and every
xdist worker, compiles `src/` and rewrites `tests/` again, about 7 s of CPU
each. It is said here, in the package pytest imports before `conftest.py`,
so that the modules `conftest.py` imports are kept too (set there, after its
imports, they were compiled again in every process of every run). Processes
the tests start still inherit the variable.
"""

import sys

sys.dont_write_bytecode = False
