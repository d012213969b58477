"""Warm engines: long-lived workers that answer as a cold run would (D23).

`pool.py` keeps the workers and their guarantees, `driver.py` is the
contract a driver fulfils, `registry.py` finds each engine's driver. Each
engine kept warm has its driver in its own package (`engines/<name>/warm.py`,
named by its spec's `warm_driver`) with its worker script beside it.
"""
