"""vue-tsc: its adapter."""
