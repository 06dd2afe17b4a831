package org.orbench.orb;

import java.util.Arrays;
import orbench.Bench;
import orbench.Record;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.Payloads;
import org.orbench.worker.RunSpec;
import org.orbench.worker.WorkerException;

/** One {@link Invocation} per mode and payload type, each a single stub call on a prebuilt payload. */
final class OrbInvocations {
  private OrbInvocations() {}

  static Invocation of(Bench bench, RunSpec spec) {
    switch (spec.payloadType()) {
      case OCTETS:
        return octets(bench, spec);
      case RECORDS:
        return records(bench, spec);
      default:
        throw new IllegalStateException("payload type " + spec.payloadType());
    }
  }

  private static Invocation octets(Bench bench, RunSpec spec) {
    byte[] payload = Payloads.octets(spec.payloadBytes());
    switch (spec.mode()) {
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.send(payload);
          }
        };
      case ONEWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.push(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private byte[] reply;

          @Override
          public void call() {
            reply = bench.echo_octets(payload);
          }

          @Override
          public void check() {
            if (!Arrays.equals(payload, reply)) {
              throw new WorkerException(
                  ErrorKind.REMOTE,
                  "echo_octets reply differs from the payload (" + reply.length + " bytes back)");
            }
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }

  private static Invocation records(Bench bench, RunSpec spec) {
    Record[] payload = RecordPayload.build(spec.recordCount());
    switch (spec.mode()) {
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.send_records(payload);
          }
        };
      case ONEWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.push_records(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private Record[] reply;

          @Override
          public void call() {
            reply = bench.echo_records(payload);
          }

          @Override
          public void check() {
            RecordPayload.checkEcho(payload, reply);
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }
}
