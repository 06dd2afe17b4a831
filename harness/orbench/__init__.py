"""orbench: a benchmark harness for CORBA middleware and the raw-socket baselines it is measured against."""

__version__ = "0.1.0"
