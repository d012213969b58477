"""The one check service every front end calls, and what it keeps across
checks: only-what-is-new (baselines), watch state, package summaries, CI
shards' reports joined back.
"""
