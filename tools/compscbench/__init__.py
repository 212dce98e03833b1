"""Helpers of tools/compsc-bench: plots (plot.py), the JSON schema check
(schema.py) and the guest CPU rule (guestcpu.py, also used by
tools/compsc-datapath). The engine itself is the tools/compsc-bench script."""
