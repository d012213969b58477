"""The `signalint-mcp` stdio server: the only package that imports the MCP SDK.

Layout: `entry` (console script: CLI dispatch, root selection, start-up),
`app` (SDK server construction and the tool registry), `schemas` (input and
output JSON schemas), `arguments` (validation of tool arguments against the
input schemas), `tools` (handlers calling the library), `payload` (how a
result travels in each MCP payload mode).

Nothing here is imported by the CLI, and the SDK is imported only once the
server actually starts, so `signalint-mcp --version` stays fast.
"""
