"""The IDL translator: orbench.idl, the one interface, to the interface file of each middleware family that has
a language of its own (proto3 for gRPC, Slice for Ice, Thrift IDL for Thrift), generated at build time
(`python3 -m orbench.idl`, needs no package outside the standard library). Each language is an emitter module in
emitters/, found by name (emitter.py).
"""

from orbench.idl.emitter import Emitter, get_emitter, known_emitters, register
from orbench.idl.emitters.proto import to_proto
from orbench.idl.emitters.slice import to_slice
from orbench.idl.parser import IdlError, parse, parse_file

__all__ = ["Emitter", "IdlError", "get_emitter", "known_emitters", "parse", "parse_file", "register", "to_proto",
           "to_slice"]
