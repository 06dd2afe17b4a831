"""Campaigns: spec.py reads a campaign file, validated against campaign.schema.json, and expands it into point
groups; hosts.py (its host keys), options.py (option sets, and what each target does with them), interop.py
(cross-ORB pairs as targets)."""
