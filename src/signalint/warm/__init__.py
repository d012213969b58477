"""Warm engines: long-lived workers that answer as a cold run would (D23).

`pool.py` keeps the workers and their guarantees; each engine kept warm
has one driver module here (listed in `registry.py`) and, for Node
engines, a worker script beside it.
"""
