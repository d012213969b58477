"""Engine adapters: each builds commands and parses output, nothing else."""
