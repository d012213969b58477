"""basedpyright: its adapter and its warm driver (Pyright's, given
basedpyright's adapter).
"""
