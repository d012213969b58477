"""svelte-check: its adapter."""
