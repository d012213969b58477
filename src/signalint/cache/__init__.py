"""Reusing stored results: what to reuse and what to run (per file, per
program), one check's view of the stores, the local results store, its
tiers, the remote tier, sealing and the codecs of keys and values.
"""
