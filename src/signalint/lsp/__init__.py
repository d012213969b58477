"""`signalint lsp`: the project's diagnostics for editors and agent hosts over LSP.

`server` (the session and pygls features), `backend` (the one seam to the
check service), `convert` (issues as diagnostics), `tags`, `documents`
(open buffers and which are checked), `latest` (debounced checks, newest
wins), `restarts` (what restarts the engines), `transport` (the wire and
its limits), `run` (the entry the CLI command calls).
"""
