package org.orbench.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.stub.StreamObserver;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.orbench.grpc.generated.BenchGrpc;
import org.orbench.grpc.generated.Doubles;
import org.orbench.grpc.generated.Empty;
import org.orbench.grpc.generated.Longs;
import org.orbench.grpc.generated.Octets;
import org.orbench.grpc.generated.Record;
import org.orbench.grpc.generated.Records;
import org.orbench.grpc.generated.Strings;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.PayloadType;
import org.orbench.worker.Payloads;
import org.orbench.worker.RunSpec;
import org.orbench.worker.WorkerException;

/** One {@link Invocation} per mode and payload type: a blocking stub call, or one message on a push stream. */
final class GrpcInvocations {
  private GrpcInvocations() {}

  /** A payload type's three operations: twoway, echo, and the client stream of its oneway. */
  record Calls<M>(
      Function<M, Empty> send, UnaryOperator<M> echo, Function<StreamObserver<Empty>, StreamObserver<M>> push) {}

  static Invocation of(GrpcBenchClient client, RunSpec spec) {
    BenchGrpc.BenchBlockingStub b = client.blocking();
    BenchGrpc.BenchStub a = client.async();
    return switch (spec.payloadType()) {
      case OCTETS -> invocation(client, spec, octets(spec.payloadBytes()), new Calls<>(b::send, b::echoOctets, a::push));
      case RECORDS -> invocation(client, spec, records(spec.recordCount()),
          new Calls<>(b::sendRecords, b::echoRecords, a::pushRecords));
      case LONGS -> invocation(client, spec, longs(spec.elementCount()),
          new Calls<>(b::sendLongs, b::echoLongs, a::pushLongs));
      case DOUBLES -> invocation(client, spec, doubles(spec.elementCount()),
          new Calls<>(b::sendDoubles, b::echoDoubles, a::pushDoubles));
      case STRINGS -> invocation(client, spec, strings(spec.elementCount()),
          new Calls<>(b::sendStrings, b::echoStrings, a::pushStrings));
    };
  }

  private static <M extends Message> Invocation invocation(
      GrpcBenchClient client, RunSpec spec, M payload, Calls<M> calls) {
    PayloadType type = spec.payloadType();
    switch (spec.mode()) {
      case TWOWAY:
        return new Invocation() {
          @Override
          public void call() {
            calls.send().apply(payload);
          }
        };
      case ONEWAY:
        PushStream<M> stream = client.pushStream(type, calls.push());
        return new Invocation() {
          @Override
          public void call() throws InterruptedException {
            stream.send(payload);
          }
        };
      case ECHO:
        return new Invocation() {
          private M reply;

          @Override
          public void call() {
            reply = calls.echo().apply(payload);
          }

          @Override
          public void check() {
            if (!payload.equals(reply)) {
              throw new WorkerException(ErrorKind.REMOTE, "echo reply of " + type.wireName() + " differs from the payload");
            }
          }
        };
      default:
        throw new IllegalStateException("mode " + spec.mode());
    }
  }

  static Octets octets(int length) {
    return Octets.newBuilder().setItems(ByteString.copyFrom(Payloads.octets(length))).build();
  }

  static Records records(int count) {
    Records.Builder builder = Records.newBuilder();
    for (int i = 0; i < count; i++) {
      builder.addItems(Record.newBuilder()
          .setId(Payloads.recordId(i))
          .setValue(Payloads.recordValue(i))
          .setFlags(Payloads.recordFlags(i))
          .setKind(Payloads.recordKind(i))
          .setLevel(Payloads.recordLevel(i)));
    }
    return builder.build();
  }

  static Longs longs(int count) {
    Longs.Builder builder = Longs.newBuilder();
    for (int value : Payloads.longs(count)) {
      builder.addItems(value);
    }
    return builder.build();
  }

  static Doubles doubles(int count) {
    Doubles.Builder builder = Doubles.newBuilder();
    for (double value : Payloads.doubles(count)) {
      builder.addItems(value);
    }
    return builder.build();
  }

  static Strings strings(int count) {
    Strings.Builder builder = Strings.newBuilder();
    for (String value : Payloads.strings(count)) {
      builder.addItems(value);
    }
    return builder.build();
  }
}
