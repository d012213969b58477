"""The daemon: one long-lived process per project that keeps the warm engines
for the CLI, the hooks and `watch`'s neighbours (docs/architecture.md).

`place` says where a project's daemon is reached (its socket) and which code
it runs (a stamp of the sources); `wire` frames the messages; `client` is the
fast forwarding path of the `signalint` entry point (standard library only);
`server` is the daemon itself; `cli/daemon.py` the `signalint daemon`
commands.
"""
