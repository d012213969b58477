"""Astro's `astro check`: its adapter."""
