"""Live: the wake-up bus between server processes, the followers' streams and the per-address
counters."""
