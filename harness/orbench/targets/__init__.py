"""Targets: what can be measured. descriptor.py reads the target descriptors (harness/targets/*.toml),
workers.py drives worker processes through the worker contract (harness/PROTOCOL.md, protocol.schema.json),
conformance.py checks a target's workers against it (`orbench check-target`), new_target.py starts a new
descriptor (`orbench new-target`), options.py what a target does with a campaign's option set."""
