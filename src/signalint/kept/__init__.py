"""What Signalint keeps on disk, and the two primitives every store uses."""
