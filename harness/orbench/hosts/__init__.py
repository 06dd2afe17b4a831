"""Hosts: where workers run. ssh.py (hosts reached over SSH, host pairs), remote.py (the workers of a host pair
and their command lines), deploy.py (copying and checking a campaign's files on a host), facts.py (one host's
facts, by the one script every host runs), environment.py (this machine's toolchains), jdk.py (installed JDKs),
placement.py (CPU pinning), readiness.py (can a target run here?), inventory.py (Ansible inventories, read by
ansible-core, into host specs), prepare/ (the playbook of `orbench prepare`); netns.py, wanlink.py and measure_wan.py make
hosts of network namespaces on one machine, joined by a bridge or an emulated WAN link, and measure across them.
"""
