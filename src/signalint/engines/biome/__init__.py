"""Biome: its adapter and the safe fixes it knows."""
