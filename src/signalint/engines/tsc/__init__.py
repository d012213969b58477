"""TypeScript's tsc: its adapter, its build-mode and program readers, its
warm drivers (the compiler API for 5 and 6, the native API for 7) and their
Node workers.
"""
