"""Campaigns: spec.py reads a campaign file, validated against campaign.schema.json, and expands it into point
groups; hosts.py (its host keys), interop.py (cross-ORB pairs as targets). Option sets are planned per target
in targets/options.py."""
