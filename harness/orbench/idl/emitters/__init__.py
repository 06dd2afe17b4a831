"""The IDL emitters, one module each; every module here registers itself (orbench/idl/emitter.py)."""
