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
      case LONGS:
        return longs(bench, spec);
      case DOUBLES:
        return doubles(bench, spec);
      case STRINGS:
        return strings(bench, spec);
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

  private static Invocation longs(Bench bench, RunSpec spec) {
    int[] payload = Payloads.longs(spec.elementCount());
    switch (spec.mode()) {
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.send_longs(payload);
          }
        };
      case ONEWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.push_longs(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private int[] reply;

          @Override
          public void call() {
            reply = bench.echo_longs(payload);
          }

          @Override
          public void check() {
            if (!Arrays.equals(payload, reply)) {
              throw new WorkerException(ErrorKind.REMOTE, "echo_longs reply differs from the payload");
            }
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }

  private static Invocation doubles(Bench bench, RunSpec spec) {
    double[] payload = Payloads.doubles(spec.elementCount());
    switch (spec.mode()) {
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.send_doubles(payload);
          }
        };
      case ONEWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.push_doubles(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private double[] reply;

          @Override
          public void call() {
            reply = bench.echo_doubles(payload);
          }

          @Override
          public void check() {
            if (!Arrays.equals(payload, reply)) {
              throw new WorkerException(ErrorKind.REMOTE, "echo_doubles reply differs from the payload");
            }
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }

  private static Invocation strings(Bench bench, RunSpec spec) {
    String[] payload = Payloads.strings(spec.elementCount());
    switch (spec.mode()) {
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.send_strings(payload);
          }
        };
      case ONEWAY:
        return new Invocation() {
          @Override
          public void call() {
            bench.push_strings(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private String[] reply;

          @Override
          public void call() {
            reply = bench.echo_strings(payload);
          }

          @Override
          public void check() {
            if (!Arrays.equals(payload, reply)) {
              throw new WorkerException(ErrorKind.REMOTE, "echo_strings reply differs from the payload");
            }
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }
}
