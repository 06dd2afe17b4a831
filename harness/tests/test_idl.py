"""The IDL translator (orbench.idl): orbench.idl parsed, mapped to proto3 and Slice, checked by the real
compilers where they are installed, and every construct it cannot map refused with the file and line."""

import shutil
import subprocess
import sys

import pytest
from orbench.idl import IdlError, get_emitter, parse, to_proto, to_slice
from orbench.idl.__main__ import main
from orbench.idl.model import Basic, Interface, Ref, Sequence, Struct, Typedef, UserException
from orbench.paths import repo_root

IDL = repo_root() / "idl" / "orbench.idl"


def module():
    return parse(IDL.read_text(), str(IDL))


def shapes_module():
    """As the Slice emitter reads it: with the invocation shapes (out, inout, exceptions)."""
    return parse(IDL.read_text(), str(IDL), in_only=False)


def test_orbench_idl_parses_whole():
    m = module()
    assert m.name == "orbench"
    (bench,) = [d for d in m.definitions if d.name == "Bench"]
    names = [op.name for op in bench.operations]
    assert names[:5] == ["push", "push_records", "push_longs", "push_doubles", "push_strings"]
    assert {"send", "echo_octets", "sync", "counters", "reset_counters", "shutdown"} <= set(names)
    assert [op.name for op in bench.operations if op.oneway] == names[:5]
    sync = next(op for op in bench.operations if op.name == "sync")
    assert [(p.name, p.type) for p in sync.params] == [("expected", Basic("unsigned long long")),
                                                        ("timeout_ms", Basic("unsigned long"))]
    counters = next(op for op in bench.operations if op.name == "counters")
    assert isinstance(counters.result, Ref) and counters.result.definition.name == "Counters"
    record = next(d for d in m.definitions if d.name == "Record")
    assert isinstance(record, Struct) and [f.name for f in record.fields] == ["id", "value", "flags", "kind", "level"]
    octets = next(d for d in m.definitions if d.name == "Octets")
    assert isinstance(octets, Typedef) and octets.type == Sequence(Basic("octet"))


def test_the_shapes_are_read_only_for_a_language_with_out_parameters():
    assert {d.name for d in module().definitions} == {"Octets", "Record", "Records", "Longs", "Doubles", "Strings",
                                                      "Counters", "SyncResult", "Bench"}
    m = shapes_module()
    (refused,) = [d for d in m.definitions if isinstance(d, UserException)]
    assert refused.name == "Refused" and [(f.name, f.type) for f in refused.fields] == [("count", Basic("unsigned long"))]
    (shapes,) = [d for d in m.definitions if d.name == "Shapes"]
    assert isinstance(shapes, Interface) and shapes.base is not None and shapes.base.name == "Bench"
    ops = {op.name: op for op in shapes.operations}
    # The CORBA-only parts (ORBENCH_TRANSLATED): wide strings and the DSI object.
    assert "send_wstrings" not in ops and "dsi_reference" not in ops and "WStrings" not in {d.name for d in m.definitions}
    assert len(ops) == 20
    assert [(p.name, p.direction) for p in ops["out_records"].params] == [("count", "in"), ("data", "out")]
    assert ops["return_longs"].result is not None and ops["return_longs"].params[0].direction == "in"
    assert [(p.name, p.direction) for p in ops["inout_strings"].params] == [("data", "inout")]
    assert ops["raise_doubles"].raises == (refused,)


def test_proto_maps_every_operation_and_type():
    proto = to_proto(shapes_module(), "org.example")
    for line in ("rpc push(stream Octets) returns (Empty);",       # IDL oneway: a client stream
                 "rpc push_strings(stream Strings) returns (Empty);",
                 "rpc send_records(Records) returns (Empty);",      # void: Empty
                 "rpc echo_longs(Longs) returns (Longs);",
                 "rpc sync(SyncRequest) returns (SyncResult);",     # two arguments: a request message
                 "rpc counters(Empty) returns (Counters);",         # no argument: Empty
                 "rpc reset_counters(Empty) returns (Empty);",
                 "rpc shutdown(Empty) returns (Empty);",
                 "rpc references(ReferencesRequest) returns (Strings);",  # basic arguments: a request message
                 "fixed32 first = 1;", "fixed32 count = 2;",
                 "bytes items = 1;",                                # sequence<octet>
                 "repeated sfixed32 items = 1;",                    # sequence<long>: fixed width
                 "repeated Record items = 1;",
                 "fixed64 expected = 1;", "fixed32 timeout_ms = 2;",
                 "sfixed32 flags = 3;", "fixed32 kind = 4;",        # short and octet widened
                 'option java_package = "org.example";'):
        assert line in proto, line
    assert proto.count("rpc ") == 20 + 20


def test_proto_maps_the_shapes_to_a_service_of_their_own():
    proto = to_proto(shapes_module())
    for line in ("service Shapes {",
                 "message OutRecordsRequest {", "  fixed32 count = 1;",   # the count in, the payload out
                 "  rpc out_records(OutRecordsRequest) returns (Records);",
                 "  rpc return_octets(ReturnOctetsRequest) returns (Octets);",
                 "  rpc inout_longs(Longs) returns (Longs);",           # inout: in the request and the reply
                 "  rpc raise_strings(Strings) returns (Empty);",       # Refused: a status, no message
                 "// with status FAILED_PRECONDITION and the message \"Refused count=<count>\"."):
        assert line in proto.splitlines(), line
    assert "message Refused" not in proto and "wstring" not in proto and "dsi_reference" not in proto
    shapes = proto[proto.index("service Shapes {"):]
    assert "echo_octets" not in shapes and shapes.count("rpc ") == 20  # the Bench operations stay in Bench


def test_the_shapes_leave_the_bench_service_of_the_proto_as_it_was():
    """Bench's messages and service come first, word for word those of the IDL without the shapes, so gRPC's
    `in` numbers stay comparable with those measured before the shapes were translated."""
    bench_only = to_proto(module(), "org.example")
    assert "Shapes" not in bench_only
    assert to_proto(shapes_module(), "org.example").startswith(bench_only)


def test_the_translator_gives_the_shapes_to_proto_and_slice_not_thrift(tmp_path):
    assert not get_emitter("proto").in_only and not get_emitter("slice").in_only and get_emitter("thrift").in_only
    for emitter in ("proto", "thrift"):
        assert main([emitter, str(IDL), str(tmp_path / emitter)]) == 0
    assert "service Shapes" in (tmp_path / "proto").read_text()
    thrift = (tmp_path / "thrift").read_text()
    assert "Shapes" not in thrift and "Refused" not in thrift and "raise_" not in thrift


@pytest.mark.parametrize("text, lines", [
    # A basic out parameter and a result: a reply message of both, the result first.
    ("module m { interface I { long f(in long a, out double b); }; };",
     ["message FRequest {", "  sfixed32 a = 1;", "message FReply {", "  sfixed32 result = 1;", "  double b = 2;",
      "  rpc f(FRequest) returns (FReply);"]),
    # inout of a basic type: in the request and in the reply; an out-only operation takes Empty.
    ("module m { interface I { void g(inout long x); void h(out long y); }; };",
     ["  rpc g(GRequest) returns (GReply);", "  sfixed32 x = 1;", "  rpc h(Empty) returns (HReply);"]),
    # An exception of two fields: its name and its fields in the status message.
    ("module m { exception E { long a; string b; }; interface I { void f() raises (E); }; };",
     ['// with status FAILED_PRECONDITION and the message "E a=<a> b=<b>".',
      "  // raises E: status FAILED_PRECONDITION (gRPC has no user exceptions)."]),
    # A derived interface: its own operations only.
    ("module m { interface A { void f(); }; interface B : A { void g(); }; };",
     ["service B {", "  rpc g(Empty) returns (Empty);"]),
])
def test_proto_maps_out_inout_exceptions_and_bases(text, lines):
    proto = to_proto(parse(text, "p.idl", in_only=False)).splitlines()
    for line in lines:
        assert line in proto, line
    if "interface B" in text:
        service_b = proto[proto.index("service B {"):]
        assert "  rpc f(Empty) returns (Empty);" not in service_b


def test_proto_refuses_an_out_parameter_whose_reply_name_is_taken():
    text = "module m {\n struct FReply { long a; };\n interface I {\n  void f(out long x);\n };\n};\n"
    with pytest.raises(IdlError, match=r"^q.idl:4: proto message name 'FReply' is used twice"):
        to_proto(parse(text, "q.idl", in_only=False))


def test_slice_maps_every_operation_and_type():
    ice = to_slice(shapes_module(), "org.example", frozenset({"sync"}))
    for line in ("exception Refused", "long count;",            # unsigned long widened
                 "interface Shapes extends ::orbench::Bench",
                 "void out_octets(long count, out ::orbench::Octets data);",
                 "::orbench::Records return_records(long count);",
                 # inout: the in argument and an out argument of the same type
                 "void inout_longs(::orbench::Longs data, out ::orbench::Longs data_out);",
                 "void raise_strings(::orbench::Strings data) throws ::orbench::Refused;",
                 "sequence<byte> Octets;", "sequence<int> Longs;", "sequence<::orbench::Record> Records;",
                 "double \\value;",                                 # a Slice keyword (Value), escaped
                 '["amd"] ::orbench::SyncResult sync(long expected, long timeout_ms);',  # unsigned widened
                 "void push(::orbench::Octets data);",              # a oneway is an ordinary void operation
                 "::orbench::Counters counters();", "void reset_counters();",
                 "::orbench::Strings references(long first, long count);",  # unsigned long widened
                 '[["java:package:org.example"]]'):
        assert line in ice, line
    assert ice.count(");\n") == 20 + 20 - 5 and ice.count("throws") == 5
    assert "wstring" not in ice and "dsi_reference" not in ice
    assert "Shapes" not in to_slice(module())  # read as proto and Thrift are: no shapes


@pytest.mark.parametrize("text, message", [
    ("module m { interface I { void f(out long x); }; };", "'out' parameters"),
    ("module m { interface I { oneway long f(); }; };", "must return void"),
    ("module m { typedef Missing X; };", "'Missing' is not defined"),
    ("module m { struct S { char c; }; };", "'char' is not supported"),
    ("module m { const long X = 1; };", "'const' is not supported"),
    ("module m { }; module n { };", "one module"),
    ("module m { typedef sequence<octet, 8> B; };", "bounded sequences"),
    ("module m { struct S { long a; }; struct s { long b; }; };", "case-insensitive"),
    ("module m { interface I { void f(); void f(); }; };", "two operations named 'f'"),
    ("module m { /* open", "unterminated"),
    ("module m { typedef ::other::T X; };", "names nothing in module m"),
    ("module m { exception E { long c; }; };", "'exception' is not supported by the translator for a language"),
    ("module m { interface A { }; interface B : A { }; };", "inheritance is not supported by the translator for"),
])
def test_refuses_what_it_cannot_map(text, message):
    with pytest.raises(IdlError) as exc:
        parse(text, "x.idl")
    assert message in str(exc.value) and str(exc.value).startswith("x.idl")


@pytest.mark.parametrize("text, message", [
    ("module m { typedef sequence<wstring> W; };", "'wstring' is not supported"),
    ("module m { interface I { void f(in long a) raises (Missing); }; };", "'Missing' is no exception"),
    ("module m { interface B : Missing { }; };", "'Missing' is no interface"),
    ("module m { interface A { }; interface C { }; interface B : A, C { }; };", "multiple inheritance"),
    ("module m { interface I { oneway void f(out long a); }; };", "oneway operation takes in parameters only"),
    ("module m { exception E { }; interface I { oneway void f() raises (E); }; };", "raises no exception"),
    ("module m { interface A { void f(); }; interface B : A { void f(); }; };", "two operations named 'f'"),
    ("module m { interface I { void f(in long a, out long a); }; };", "two parameters named 'a'"),
    ("module m { interface I { void f(copy long a); }; };", "expected 'in', 'out' or 'inout'"),
])
def test_refuses_what_slice_cannot_map(text, message):
    with pytest.raises(IdlError) as exc:
        to_slice(parse(text, "z.idl", in_only=False))
    assert message in str(exc.value) and str(exc.value).startswith("z.idl:1:")


def test_slice_refuses_an_inout_whose_out_name_is_taken():
    text = "module m {\n typedef sequence<long> L;\n interface I {\n  void f(inout L d, out L d_out);\n };\n};\n"
    with pytest.raises(IdlError, match=r"^w.idl:4: f: inout 'd' needs the name 'd_out'"):
        to_slice(parse(text, "w.idl", in_only=False))


def test_errors_name_the_line():
    with pytest.raises(IdlError) as exc:
        parse("module m {\n  struct S {\n    wchar w;\n  };\n};\n", "y.idl")
    assert str(exc.value).startswith("y.idl:3:")


def test_slice_refuses_amd_of_no_operation():
    with pytest.raises(IdlError, match="--amd names no operation: nope"):
        to_slice(module(), amd=frozenset({"nope"}))


def test_cli_rewrites_only_a_changed_file(tmp_path, capsys):
    out = tmp_path / "o.proto"
    assert main(["proto", str(IDL), str(out)]) == 0
    before = out.stat().st_mtime_ns
    assert main(["proto", str(IDL), str(out)]) == 0
    assert out.stat().st_mtime_ns == before
    bad = tmp_path / "bad.idl"
    bad.write_text("module m { struct S { any a; }; };")
    assert main(["slice", str(bad), str(tmp_path / "o.ice")]) == 1
    assert "bad.idl:1:" in capsys.readouterr().err


def test_cli_runs_with_the_system_python_and_no_venv(tmp_path):
    """The build runs it as `PYTHONPATH=harness python3 -m orbench.idl`, before any venv exists."""
    out = tmp_path / "o.ice"
    env = {"PYTHONPATH": str(repo_root() / "harness"), "PATH": "/usr/bin:/bin"}
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    subprocess.run([python, "-m", "orbench.idl", "slice", str(IDL), str(out), "--amd", "sync"], env=env, check=True)
    assert '["amd"]' in out.read_text() and "interface Shapes extends" in out.read_text()


@pytest.mark.skipif(shutil.which("protoc") is None, reason="protoc not installed (make deps installs it)")
def test_protoc_compiles_the_proto(tmp_path):
    (tmp_path / "orbench.proto").write_text(to_proto(shapes_module(), "org.example"))
    plugin = shutil.which("grpc_cpp_plugin")
    grpc = [f"--plugin=protoc-gen-grpc={plugin}", f"--grpc_out={tmp_path}"] if plugin else []
    subprocess.run(["protoc", f"-I{tmp_path}", f"--cpp_out={tmp_path}", f"--java_out={tmp_path}", *grpc,
                    str(tmp_path / "orbench.proto")], check=True, capture_output=True)
    assert (tmp_path / "orbench.pb.h").exists()
    if plugin:
        assert "class Shapes final" in (tmp_path / "orbench.grpc.pb.h").read_text()


@pytest.mark.skipif(shutil.which("slice2cpp") is None, reason="slice2cpp not installed (make deps installs it)")
def test_slice2cpp_and_slice2java_compile_the_slice(tmp_path):
    (tmp_path / "orbench.ice").write_text(to_slice(shapes_module(), "org.example", frozenset({"sync"})))
    for compiler in ("slice2cpp", "slice2java"):
        if shutil.which(compiler):
            subprocess.run([compiler, "--underscore", "--output-dir", str(tmp_path), str(tmp_path / "orbench.ice")],
                           check=True, capture_output=True)
    assert (tmp_path / "orbench.h").exists()


def test_thrift_idl_maps_the_types_and_keeps_oneway():
    from orbench.idl.emitters.thrift import to_thrift

    text = to_thrift(module(), "org.example")
    for line in ("namespace cpp orbench", "namespace java org.example", "typedef binary Octets",
                 "typedef list<Record> Records", "  4: i8 kind", "  1: i64 messages",
                 "  oneway void push(1: Octets data)", "  Octets echo_octets(1: Octets data)",
                 "  SyncResult sync(1: i64 expected, 2: i64 timeout_ms)", "  Counters counters()"):
        assert line in text.splitlines(), line


def test_a_thrift_keyword_is_refused_with_its_line():
    from orbench.idl.emitters.thrift import to_thrift

    with pytest.raises(IdlError, match=r"m.idl:1: 'binary' is a Thrift keyword"):
        to_thrift(parse("module m { struct S { long binary; }; };", "m.idl"))


def test_the_translator_lists_its_emitters_and_refuses_an_unknown_one(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    listed = capsys.readouterr().out
    assert exc.value.code == 0 and all(n in listed for n in ("proto", "slice", "thrift")), listed
    with pytest.raises(SystemExit) as exc:
        main(["corba", str(IDL), "out"])
    assert exc.value.code == 2 and "invalid choice: 'corba'" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("thrift") is None, reason="thrift not installed (make deps installs it)")
def test_the_thrift_compiler_compiles_the_thrift_idl(tmp_path):
    from orbench.idl.emitters.thrift import to_thrift

    (tmp_path / "orbench.thrift").write_text(to_thrift(module(), "org.example"))
    done = subprocess.run(["thrift", "--gen", "cpp", "--gen", "java", "-out", str(tmp_path),
                           str(tmp_path / "orbench.thrift")], check=True, capture_output=True, text=True)
    assert (tmp_path / "Bench.h").exists() and "WARNING" not in done.stderr, done.stderr


def test_capnp_names_in_camel_case_and_maps_oneway_to_a_stream():
    from orbench.idl.emitters.capnp import to_capnp

    text = to_capnp(parse(IDL.read_text(), str(IDL), capabilities=True))
    for line in ("  pushRecords @1 (data :List(Record)) -> stream;", "  send @5 (data :Data) -> ();",
                 "  echoStrings @14 (data :List(Text)) -> (result :List(Text));",
                 "  sync @15 (expected :UInt64, timeoutMs :UInt32) -> (result :SyncResult);",
                 "interface Pipelines extends(Bench) {", "  peer @0 () -> (result :Bench);"):
        assert line in text.splitlines(), (line, text)
    assert "_" not in "".join(line.split("#")[0] for line in text.splitlines() if "@" in line), text


def test_the_capabilities_block_is_read_for_a_language_with_capabilities_only():
    # Without it, Bench is the whole interface, as every ORB compiles it; an interface is no type there.
    assert [d.name for d in module().definitions if isinstance(d, Interface)] == ["Bench"]
    with_capabilities = parse(IDL.read_text(), str(IDL), capabilities=True)
    pipelines = [d for d in with_capabilities.definitions if isinstance(d, Interface)][-1]
    assert pipelines.name == "Pipelines" and pipelines.base.name == "Bench"
    assert isinstance(pipelines.operations[0].result.definition, Interface)
    with pytest.raises(IdlError, match="'Bench' is not defined before its use"):
        parse("module m { interface Bench { void f(); }; interface P { Bench g(); }; };", "<x>")


@pytest.mark.skipif(shutil.which("capnp") is None, reason="capnp not installed (make deps installs capnproto)")
def test_the_capnp_compiler_compiles_the_schema(tmp_path):
    from orbench.idl.emitters.capnp import to_capnp

    (tmp_path / "orbench.capnp").write_text(to_capnp(parse(IDL.read_text(), str(IDL), capabilities=True)))
    subprocess.run(["capnp", "compile", "-oc++", "orbench.capnp"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "orbench.capnp.h").exists()
