"""The `signalint-mcp` stdio server: the only package that imports the MCP SDK.

Layout: `entry` (console script: CLI dispatch, root selection, start-up),
`app` (SDK server construction, `tools/list` and `tools/call`), `catalog`
(one `Tool` per tool: name, description, schemas, annotations, handler),
`schemas` and `outputs` (input and output JSON schemas), `arguments`
(argument checking against the input schemas), `tools` (handlers calling
the library), `checking` (one check from refusals to snapshot and
history), `state` (what the process remembers), `errors` (refusals,
failure classification, sanitizing), `words` (next steps worded as tools
to call), `payload` (how a result travels in each MCP payload mode).

The SDK is imported only once the server actually starts, and the check
pipeline only at the first tool call, so `signalint-mcp --version` and the
`initialize` handshake stay fast. The SDK's package initializers (its
client, its decorator framework) are not run at all unless something reads
what they define (`sdk_packages`, installed where the SDK is imported:
about 11 MiB of a resident server).
"""
