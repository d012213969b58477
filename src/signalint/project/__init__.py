"""The project on disk: its root, its languages, the paths a check may use
and the files it walks. Every path that reaches an engine comes from
`walk.walk` or `paths.safe_relative`, so this package is where untrusted
input is checked against the project root."""
