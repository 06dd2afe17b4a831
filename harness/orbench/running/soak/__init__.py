"""Soak points (campaign key duration_s), run by the Runner: point.py runs one on the workers of a host pair,
intervals.py writes a worker's interval events as HdrHistogram interval logs, resources.py reads the workers'
memory and CPU on their hosts each interval. The settings and the one-point campaign of `orbench soak` are in
campaign/soakfile.py.
"""
