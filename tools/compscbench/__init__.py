"""Helpers of tools/compsc-bench: plots (plot.py) and the JSON schema check
(schema.py). The engine itself is the tools/compsc-bench script."""
