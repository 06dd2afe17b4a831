package org.orbench.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.function.ToLongFunction;
import org.orbench.grpc.generated.BenchGrpc;
import org.orbench.grpc.generated.Counters;
import org.orbench.grpc.generated.Doubles;
import org.orbench.grpc.generated.Empty;
import org.orbench.grpc.generated.Longs;
import org.orbench.grpc.generated.Octets;
import org.orbench.grpc.generated.Records;
import org.orbench.grpc.generated.Strings;
import org.orbench.grpc.generated.SyncRequest;
import org.orbench.grpc.generated.SyncResult;
import org.orbench.worker.Counts;
import org.orbench.worker.MessageCounter;
import org.orbench.worker.PayloadType;
import org.orbench.worker.SyncOutcome;

/** The server side of the Bench service: counts what arrives, returns echoes, and is the sync barrier. */
final class BenchService extends BenchGrpc.BenchImplBase {
  private static final Empty EMPTY = Empty.getDefaultInstance();
  private final MessageCounter counter;
  private final Runnable shutdown;

  /** {@code shutdown} must not block: it runs inside the shutdown() call, before its reply. */
  BenchService(MessageCounter counter, Runnable shutdown) {
    this.counter = counter;
    this.shutdown = shutdown;
  }

  static long bytes(Octets m) {
    return m.getItems().size();
  }

  static long bytes(Records m) {
    return (long) PayloadType.RECORD_BYTES * m.getItemsCount();
  }

  static long bytes(Longs m) {
    return 4L * m.getItemsCount();
  }

  static long bytes(Doubles m) {
    return 8L * m.getItemsCount();
  }

  /** A string counts its characters (PROTOCOL.md, "Payload types"). */
  static long bytes(Strings m) {
    long total = 0;
    for (String s : m.getItemsList()) {
      total += s.length();
    }
    return total;
  }

  @Override
  public StreamObserver<Octets> push(StreamObserver<Empty> done) {
    return new Drain<>(done, BenchService::bytes);
  }

  @Override
  public StreamObserver<Records> pushRecords(StreamObserver<Empty> done) {
    return new Drain<>(done, BenchService::bytes);
  }

  @Override
  public StreamObserver<Longs> pushLongs(StreamObserver<Empty> done) {
    return new Drain<>(done, BenchService::bytes);
  }

  @Override
  public StreamObserver<Doubles> pushDoubles(StreamObserver<Empty> done) {
    return new Drain<>(done, BenchService::bytes);
  }

  @Override
  public StreamObserver<Strings> pushStrings(StreamObserver<Empty> done) {
    return new Drain<>(done, BenchService::bytes);
  }

  @Override
  public void send(Octets m, StreamObserver<Empty> out) {
    counted(bytes(m), EMPTY, out);
  }

  @Override
  public void sendRecords(Records m, StreamObserver<Empty> out) {
    counted(bytes(m), EMPTY, out);
  }

  @Override
  public void sendLongs(Longs m, StreamObserver<Empty> out) {
    counted(bytes(m), EMPTY, out);
  }

  @Override
  public void sendDoubles(Doubles m, StreamObserver<Empty> out) {
    counted(bytes(m), EMPTY, out);
  }

  @Override
  public void sendStrings(Strings m, StreamObserver<Empty> out) {
    counted(bytes(m), EMPTY, out);
  }

  @Override
  public void echoOctets(Octets m, StreamObserver<Octets> out) {
    counted(bytes(m), m, out);
  }

  @Override
  public void echoRecords(Records m, StreamObserver<Records> out) {
    counted(bytes(m), m, out);
  }

  @Override
  public void echoLongs(Longs m, StreamObserver<Longs> out) {
    counted(bytes(m), m, out);
  }

  @Override
  public void echoDoubles(Doubles m, StreamObserver<Doubles> out) {
    counted(bytes(m), m, out);
  }

  @Override
  public void echoStrings(Strings m, StreamObserver<Strings> out) {
    counted(bytes(m), m, out);
  }

  /**
   * Waits on a thread of its own, not on the call's: with a fixed pool or the direct executor, a waiting
   * barrier would hold the very thread the messages it waits for must be counted on.
   */
  @Override
  public void sync(SyncRequest request, StreamObserver<SyncResult> out) {
    Thread waiter = new Thread(() -> {
      SyncOutcome outcome;
      try {
        outcome = counter.await(request.getExpected(), Integer.toUnsignedLong(request.getTimeoutMs()));
      } catch (InterruptedException e) {
        out.onError(Status.CANCELLED.withDescription("server stopping").asRuntimeException());
        return;
      }
      reply(out, SyncResult.newBuilder().setComplete(outcome.complete())
          .setReceived(counters(outcome.received())).build());
    }, "orbench-grpc-sync");
    waiter.setDaemon(true);
    waiter.start();
  }

  @Override
  public void counters(Empty request, StreamObserver<Counters> out) {
    reply(out, counters(counter.snapshot()));
  }

  @Override
  public void resetCounters(Empty request, StreamObserver<Empty> out) {
    counter.reset();
    reply(out, EMPTY);
  }

  @Override
  public void shutdown(Empty request, StreamObserver<Empty> out) {
    shutdown.run();
    reply(out, EMPTY);
  }

  private <T> void counted(long payloadBytes, T answer, StreamObserver<T> out) {
    counter.count(payloadBytes);
    reply(out, answer);
  }

  private static <T> void reply(StreamObserver<T> out, T answer) {
    out.onNext(answer);
    out.onCompleted();
  }

  private static Counters counters(Counts counts) {
    return Counters.newBuilder().setMessages(counts.messages()).setBytes(counts.bytes()).build();
  }

  /** The server end of a push stream: counts every message; answers once the client half-closes. */
  private final class Drain<M> implements StreamObserver<M> {
    private final StreamObserver<Empty> done;
    private final ToLongFunction<M> bytes;

    Drain(StreamObserver<Empty> done, ToLongFunction<M> bytes) {
      this.done = done;
      this.bytes = bytes;
    }

    @Override
    public void onNext(M message) {
      counter.count(bytes.applyAsLong(message));
    }

    @Override
    public void onError(Throwable t) {
      // The client went away or cancelled: what it sent is counted, nothing to answer.
    }

    @Override
    public void onCompleted() {
      reply(done, EMPTY);
    }
  }
}
