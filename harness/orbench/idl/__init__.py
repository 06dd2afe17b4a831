"""The IDL translator: orbench.idl, the one interface, to the proto3 file of the gRPC targets and the Slice file of
the Ice targets, generated at build time (`python3 -m orbench.idl`, needs no package outside the standard library).
"""

from orbench.idl.parser import IdlError, parse, parse_file
from orbench.idl.proto import to_proto
from orbench.idl.slice import to_slice

__all__ = ["IdlError", "parse", "parse_file", "to_proto", "to_slice"]
