"""Op suites against LiteRT through op_harness (one file per kernel family:
test_ops_<family>.py)."""
