"""Oxlint: its adapter, the safe fixes it knows, its warm driver and the
Node worker the driver starts.
"""
