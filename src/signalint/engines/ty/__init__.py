"""ty: its adapter and its warm driver (ty's language server,
`warm/lsp_client.py`).
"""
