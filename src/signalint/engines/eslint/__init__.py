"""ESLint: its adapter, its warm driver and the Node worker the driver
starts.
"""
