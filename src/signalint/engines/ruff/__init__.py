"""Ruff: its adapter."""
