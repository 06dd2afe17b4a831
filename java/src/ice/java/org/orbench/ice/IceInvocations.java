package org.orbench.ice;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.orbench.ice.generated.orbench.BenchPrx;
import org.orbench.ice.generated.orbench.Record;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.Payloads;
import org.orbench.worker.RunSpec;
import org.orbench.worker.WorkerException;

/** One {@link Invocation} per mode and payload type, each a single proxy call on a prebuilt payload. */
final class IceInvocations {
  private IceInvocations() {}

  /** A payload type's three operations: the oneway (on the oneway proxy), the twoway, and the echo. */
  private record Calls<P>(Consumer<P> push, Consumer<P> send, UnaryOperator<P> echo) {}

  static Invocation of(BenchPrx twoway, BenchPrx oneway, RunSpec spec) {
    return switch (spec.payloadType()) {
      case OCTETS -> invocation(spec, Payloads.octets(spec.payloadBytes()),
          new Calls<>(oneway::push, twoway::send, twoway::echo_octets), Arrays::equals);
      case RECORDS -> invocation(spec, records(spec.recordCount()),
          new Calls<>(oneway::push_records, twoway::send_records, twoway::echo_records), Arrays::equals);
      case LONGS -> invocation(spec, Payloads.longs(spec.elementCount()),
          new Calls<>(oneway::push_longs, twoway::send_longs, twoway::echo_longs), Arrays::equals);
      case DOUBLES -> invocation(spec, Payloads.doubles(spec.elementCount()),
          new Calls<>(oneway::push_doubles, twoway::send_doubles, twoway::echo_doubles), Arrays::equals);
      case STRINGS -> invocation(spec, Payloads.strings(spec.elementCount()),
          new Calls<>(oneway::push_strings, twoway::send_strings, twoway::echo_strings), Arrays::equals);
    };
  }

  /** Equality of a payload and its echo (arrays: Arrays.equals; Ice's Record has a field-wise equals). */
  private interface Same<P> {
    boolean test(P a, P b);
  }

  private static <P> Invocation invocation(RunSpec spec, P payload, Calls<P> calls, Same<P> same) {
    switch (spec.mode()) {
      case ONEWAY:
        return new Invocation() {
          @Override
          public void call() {
            calls.push().accept(payload);
          }
        };
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            calls.send().accept(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private P reply;

          @Override
          public void call() {
            reply = calls.echo().apply(payload);
          }

          @Override
          public void check() {
            if (!same.test(payload, reply)) {
              throw new WorkerException(ErrorKind.REMOTE,
                  "echo reply of " + spec.payloadType().wireName() + " differs from the payload");
            }
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }

  static Record[] records(int count) {
    Record[] records = new Record[count];
    for (int i = 0; i < count; i++) {
      records[i] = new Record(Payloads.recordId(i), Payloads.recordValue(i), Payloads.recordFlags(i),
          (byte) Payloads.recordKind(i), (byte) Payloads.recordLevel(i));
    }
    return records;
  }
}
