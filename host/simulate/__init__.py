"""A deterministic simulation of the whole table (docs/simulation.md)."""
