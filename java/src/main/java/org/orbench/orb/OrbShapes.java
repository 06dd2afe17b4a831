package org.orbench.orb;

import java.util.Arrays;
import orbench.Bench;
import orbench.BenchHelper;
import orbench.DoublesHelper;
import orbench.DoublesHolder;
import orbench.LongsHelper;
import orbench.LongsHolder;
import orbench.OctetsHelper;
import orbench.OctetsHolder;
import orbench.Record;
import orbench.RecordsHelper;
import orbench.RecordsHolder;
import orbench.Refused;
import orbench.Shapes;
import orbench.ShapesHelper;
import orbench.StringsHelper;
import orbench.StringsHolder;
import org.omg.CORBA.Any;
import org.omg.CORBA.ORB;
import org.omg.CORBA.Request;
import org.omg.CORBA.TCKind;
import org.omg.CORBA.TypeCode;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.orbench.worker.Invocation;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.Mode;
import org.orbench.worker.PayloadType;
import org.orbench.worker.Payloads;
import org.orbench.worker.RunSpec;
import org.orbench.worker.Shape;
import org.orbench.worker.WorkerException;

/**
 * The invocation shapes of the Java ORB client (PROTOCOL.md, "Invocation shapes"), over the org.omg APIs only:
 * out, return, inout, exception, wstring, DII, DSI and collocated, each one {@link Invocation} whose reply is
 * checked after the second clock read. AMI is not here: the GlassFish-idlj stubs have no sendc_ operations, so
 * it goes through JacORB's own stubs ({@link AmiCalls}).
 */
final class OrbShapes {
  static final java.util.Set<String> KINDS =
      java.util.Set.of("in", "out", "return", "inout", "exception", "wstring", "dii", "dsi", "collocated");

  private final ORB orb;
  private Bench dsi;
  private Bench local;
  private final MessageCounter localCounter = new MessageCounter();

  OrbShapes(ORB orb) {
    this.orb = orb;
    localCounter.trackObjects(1);
  }

  /** A new connection: the DSI object's reference is fetched again from its server. */
  void forgetRemote() {
    dsi = null;
  }

  /** The object a collocated run calls: a servant in this process, on this ORB's root POA. */
  Bench local() throws Exception {
    if (local == null) {
      POA poa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
      poa.the_POAManager().activate();
      BenchServant servant = new BenchServant(localCounter, new ObjectDirectory(orb), 0, () -> {});
      local = BenchHelper.narrow(poa.id_to_reference(poa.activate_object(servant)));
    }
    return local;
  }

  /** Where a run of {@code shape} calls, untimed: the DSI object, the local one, or {@code remote}. */
  Bench target(Bench remote, Shape shape) throws Exception {
    switch (shape.kind()) {
      case "collocated":
        return local();
      case "dsi":
        if (dsi == null) {
          String reference = shapes(remote).dsi_reference();
          if (reference.isEmpty()) {
            throw new WorkerException(org.orbench.worker.ErrorKind.UNSUPPORTED, "the server has no DSI object");
          }
          dsi = BenchHelper.unchecked_narrow(orb.string_to_object(reference));
          dsi._non_existent(); // bound to its connection before the first timed call
        }
        return dsi;
      default:
        return remote;
    }
  }

  /** A payload type's calls of each shape, bound to its payload and the reply it must get. */
  private record Ops<P>(P payload, P reply, Same<P> same, ShapeCall<P> out, ShapeCall<P> ret, ShapeCall<P> inout,
                        Raise<P> raise, String send, String echo, TypeCode type, Insert<P> insert,
                        Extract<P> extract, int count) {}

  private interface ShapeCall<P> {
    P call(Shapes shapes, P payload, int count) throws Exception;
  }

  private interface Raise<P> {
    void call(Shapes shapes, P payload) throws Refused;
  }

  private interface Same<P> {
    boolean test(P a, P b);
  }

  private interface Insert<P> {
    void into(Any any, P value);
  }

  private interface Extract<P> {
    P from(Any any);
  }

  private static Ops<?> ops(RunSpec spec) {
    int n = spec.elementCount();
    return switch (spec.payloadType()) {
      case OCTETS -> new Ops<byte[]>(Payloads.octets(spec.payloadBytes()), Payloads.octets(n, 1), Arrays::equals,
          (s, p, k) -> {
            OctetsHolder h = new OctetsHolder();
            s.out_octets(k, h);
            return h.value;
          }, (s, p, k) -> s.return_octets(k), (s, p, k) -> {
            OctetsHolder h = new OctetsHolder(p);
            s.inout_octets(h);
            return h.value;
          }, Shapes::raise_octets, "send", "echo_octets", OctetsHelper.type(), OctetsHelper::insert,
          OctetsHelper::extract, n);
      case RECORDS -> new Ops<Record[]>(RecordPayload.build(n), RecordPayload.build(n, 1), RecordPayload::same,
          (s, p, k) -> {
            RecordsHolder h = new RecordsHolder();
            s.out_records(k, h);
            return h.value;
          }, (s, p, k) -> s.return_records(k), (s, p, k) -> {
            RecordsHolder h = new RecordsHolder(p);
            s.inout_records(h);
            return h.value;
          }, Shapes::raise_records, "send_records", "echo_records", RecordsHelper.type(), RecordsHelper::insert,
          RecordsHelper::extract, n);
      case LONGS -> new Ops<int[]>(Payloads.longs(n), Payloads.longs(n, 1), Arrays::equals,
          (s, p, k) -> {
            LongsHolder h = new LongsHolder();
            s.out_longs(k, h);
            return h.value;
          }, (s, p, k) -> s.return_longs(k), (s, p, k) -> {
            LongsHolder h = new LongsHolder(p);
            s.inout_longs(h);
            return h.value;
          }, Shapes::raise_longs, "send_longs", "echo_longs", LongsHelper.type(), LongsHelper::insert,
          LongsHelper::extract, n);
      case DOUBLES -> new Ops<double[]>(Payloads.doubles(n), Payloads.doubles(n, 1), Arrays::equals,
          (s, p, k) -> {
            DoublesHolder h = new DoublesHolder();
            s.out_doubles(k, h);
            return h.value;
          }, (s, p, k) -> s.return_doubles(k), (s, p, k) -> {
            DoublesHolder h = new DoublesHolder(p);
            s.inout_doubles(h);
            return h.value;
          }, Shapes::raise_doubles, "send_doubles", "echo_doubles", DoublesHelper.type(), DoublesHelper::insert,
          DoublesHelper::extract, n);
      case STRINGS -> new Ops<String[]>(Payloads.strings(n), Payloads.strings(n, 1), Arrays::equals,
          (s, p, k) -> {
            StringsHolder h = new StringsHolder();
            s.out_strings(k, h);
            return h.value;
          }, (s, p, k) -> s.return_strings(k), (s, p, k) -> {
            StringsHolder h = new StringsHolder(p);
            s.inout_strings(h);
            return h.value;
          }, Shapes::raise_strings, "send_strings", "echo_strings", StringsHelper.type(), StringsHelper::insert,
          StringsHelper::extract, n);
    };
  }

  /** The run's call at {@code shape}; dsi and collocated go through the static stub to their object. */
  Invocation invocation(Bench remote, RunSpec spec, Shape shape, StaticCall staticCall) throws Exception {
    String kind = shape.kind();
    if (kind.equals("dsi") || kind.equals("collocated")) {
      return staticCall.on(target(remote, shape));
    }
    return build(ops(spec), remote, spec, shape);
  }

  private <P> Invocation build(Ops<P> ops, Bench remote, RunSpec spec, Shape shape) {
    String kind = shape.kind();
    return switch (kind) {
      case "out" -> reply(shapes(remote), ops, ops.out(), "out argument");
      case "return" -> reply(shapes(remote), ops, ops.ret(), "return value");
      case "inout" -> reply(shapes(remote), ops, ops.inout(), "inout argument");
      case "exception" -> raising(shapes(remote), ops);
      case "wstring" -> wide(shapes(remote), spec);
      case "dii" -> dii(remote, spec.mode(), ops);
      default -> throw new WorkerException(org.orbench.worker.ErrorKind.UNSUPPORTED,
          "shape \"" + shape.name() + "\" not supported by the Java ORB client");
    };
  }

  /** The static stub's call on another object (StubClient's own invocation). */
  interface StaticCall {
    Invocation on(Bench target) throws Exception;
  }

  private static Shapes shapes(Bench remote) {
    Shapes shapes = ShapesHelper.narrow(remote);
    if (shapes == null) {
      throw new WorkerException(org.orbench.worker.ErrorKind.UNSUPPORTED, "the server's object is no orbench::Shapes");
    }
    return shapes;
  }

  private static <P> Invocation reply(Shapes shapes, Ops<P> ops, ShapeCall<P> call, String what) {
    P payload = ops.payload();
    int count = ops.count();
    return new Invocation() {
      private P got;

      @Override
      public void call() throws Exception {
        got = call.call(shapes, payload, count);
      }

      @Override
      public void check() {
        if (!ops.same().test(got, ops.reply())) {
          throw new WorkerException(org.orbench.worker.ErrorKind.REMOTE,
              "the " + what + " differs from elements 1.. of the payload");
        }
      }
    };
  }

  private static <P> Invocation raising(Shapes shapes, Ops<P> ops) {
    P payload = ops.payload();
    return new Invocation() {
      private int outcome; // 0: returned; 1: Refused with the right count; 2: with another

      @Override
      public void call() {
        try {
          ops.raise().call(shapes, payload);
          outcome = 0;
        } catch (Refused refused) {
          outcome = refused.count == ops.count() ? 1 : 2;
        }
      }

      @Override
      public void check() {
        if (outcome != 1) {
          throw new WorkerException(org.orbench.worker.ErrorKind.REMOTE, outcome == 0
              ? "returned without raising orbench::Refused" : "orbench::Refused with another count than the request's");
        }
      }
    };
  }

  private static Invocation wide(Shapes shapes, RunSpec spec) {
    String[] payload = Payloads.strings(spec.elementCount());
    if (spec.mode() == Mode.TWOWAY) {
      return new Invocation() {
        @Override
        public void call() {
          shapes.send_wstrings(payload);
        }
      };
    }
    return new Invocation() {
      private String[] got;

      @Override
      public void call() {
        got = shapes.echo_wstrings(payload);
      }

      @Override
      public void check() {
        if (!Arrays.equals(got, payload)) {
          throw new WorkerException(org.orbench.worker.ErrorKind.REMOTE, "wstring echo differs from the request");
        }
      }
    };
  }

  private <P> Invocation dii(Bench remote, Mode mode, Ops<P> ops) {
    P payload = ops.payload();
    TypeCode none = orb.get_primitive_tc(TCKind.tk_void);
    boolean echo = mode == Mode.ECHO;
    String operation = echo ? ops.echo() : ops.send();
    return new Invocation() {
      private Request request;

      @Override
      public void call() throws Exception {
        Request r = remote._request(operation);
        ops.insert().into(r.add_in_arg(), payload);
        r.set_return_type(echo ? ops.type() : none);
        r.invoke();
        Exception failure = r.env().exception();
        if (failure != null) {
          throw failure;
        }
        request = r;
      }

      @Override
      public void check() {
        if (echo && !ops.same().test(ops.extract().from(request.return_value()), payload)) {
          throw new WorkerException(org.orbench.worker.ErrorKind.REMOTE, "DII echo reply differs from the request");
        }
        request = null;
      }
    };
  }
}
