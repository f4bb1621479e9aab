"""Batch runs of the simulator from TOML experiment files: arms, sweeps, seat rotation, shards, Parquet."""
