"""mypy: its adapter, its warm driver and the worker script (dmypy's server
in a process of its own).
"""
