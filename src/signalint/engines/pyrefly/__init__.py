"""Pyrefly: its adapter."""
