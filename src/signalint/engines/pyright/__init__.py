"""Pyright: its adapter and its warm driver (its language server,
`warm/lsp_client.py`).
"""
