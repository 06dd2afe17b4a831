package org.orbench.grpc;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.orbench.grpc.generated.BenchGrpc;
import org.orbench.grpc.generated.Counters;
import org.orbench.grpc.generated.Doubles;
import org.orbench.grpc.generated.Empty;
import org.orbench.grpc.generated.Longs;
import org.orbench.grpc.generated.Octets;
import org.orbench.grpc.generated.Record;
import org.orbench.grpc.generated.Records;
import org.orbench.grpc.generated.Strings;
import org.orbench.grpc.generated.SyncRequest;
import org.orbench.grpc.generated.SyncResult;
import org.orbench.worker.Calls;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.Counts;
import org.orbench.worker.PayloadType;
import org.orbench.worker.Payloads;
import org.orbench.worker.StubClient;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/**
 * The client side of grpc-java: one channel (one HTTP/2 connection) per connect, shared by every thread of a
 * run; twoway and echo calls on a blocking stub, oneways on one push stream per payload type and thread (a
 * stream takes one writer), opened by the first oneway run of that type on that thread and kept open until
 * the next connect or quit. Netty sets TCP_NODELAY on gRPC's sockets (what tcp_nodelay = true asks); no option
 * can be set here. gRPC has no objects.
 */
final class GrpcBenchClient extends StubClient<GrpcBenchClient.Channel> {
  private static final Empty EMPTY = Empty.getDefaultInstance();
  // Each payload type's open streams, by thread.
  private final Map<PayloadType, Map<Integer, PushStream<?>>> streams = new EnumMap<>(PayloadType.class);

  record Channel(ManagedChannel channel, BenchGrpc.BenchBlockingStub blocking, BenchGrpc.BenchStub async) {}

  GrpcBenchClient(String target) {
    super(WorkerInfo.client(target, GrpcIdentity.NAME, GrpcIdentity.version()), "gRPC Java", Set.of());
  }

  @Override
  protected Channel open(String endpoint, ConnectOptions options) {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(GrpcEndpoint.target(endpoint)).usePlaintext().build();
    return new Channel(channel, BenchGrpc.newBlockingStub(channel), BenchGrpc.newStub(channel));
  }

  @Override
  protected void resetCounters(Channel c) {
    c.blocking().resetCounters(EMPTY);
  }

  @Override
  protected void shutdownServer(Channel c) {
    c.blocking().shutdown(EMPTY);
  }

  @Override
  protected SyncOutcome sync(Channel c, long expected, long timeoutMs) {
    SyncResult result = c.blocking().sync(
        SyncRequest.newBuilder().setExpected(expected).setTimeoutMs((int) timeoutMs).build());
    return new SyncOutcome(result.getComplete(), counts(result.getReceived()));
  }

  @Override
  protected Counts counters(Channel c) {
    return counts(c.blocking().counters(EMPTY));
  }

  @Override
  protected Calls<Channel, ?> octets(byte[] items) {
    Octets payload = Octets.newBuilder().setItems(ByteString.copyFrom(items)).build();
    return Calls.<Channel, Octets>opening(payload, pushing(PayloadType.OCTETS, c -> c.async()::push),
        c -> c.blocking()::send, c -> c.blocking()::echoOctets);
  }

  @Override
  protected Calls<Channel, ?> records(int count) {
    Records.Builder builder = Records.newBuilder();
    for (int i = 0; i < count; i++) {
      builder.addItems(Record.newBuilder()
          .setId(Payloads.recordId(i))
          .setValue(Payloads.recordValue(i))
          .setFlags(Payloads.recordFlags(i))
          .setKind(Payloads.recordKind(i))
          .setLevel(Payloads.recordLevel(i)));
    }
    return Calls.<Channel, Records>opening(builder.build(),
        pushing(PayloadType.RECORDS, c -> c.async()::pushRecords), c -> c.blocking()::sendRecords,
        c -> c.blocking()::echoRecords);
  }

  @Override
  protected Calls<Channel, ?> longs(int[] items) {
    Longs.Builder builder = Longs.newBuilder();
    for (int item : items) {
      builder.addItems(item);
    }
    return Calls.<Channel, Longs>opening(builder.build(),
        pushing(PayloadType.LONGS, c -> c.async()::pushLongs), c -> c.blocking()::sendLongs,
        c -> c.blocking()::echoLongs);
  }

  @Override
  protected Calls<Channel, ?> doubles(double[] items) {
    Doubles.Builder builder = Doubles.newBuilder();
    for (double item : items) {
      builder.addItems(item);
    }
    return Calls.<Channel, Doubles>opening(builder.build(),
        pushing(PayloadType.DOUBLES, c -> c.async()::pushDoubles), c -> c.blocking()::sendDoubles,
        c -> c.blocking()::echoDoubles);
  }

  @Override
  protected Calls<Channel, ?> strings(String[] items) {
    Strings payload = Strings.newBuilder().addAllItems(Arrays.asList(items)).build();
    return Calls.<Channel, Strings>opening(payload, pushing(PayloadType.STRINGS, c -> c.async()::pushStrings),
        c -> c.blocking()::sendStrings, c -> c.blocking()::echoStrings);
  }

  @Override
  public WorkerException translate(Exception failure) {
    return GrpcErrors.translate(failure);
  }

  /**
   * Oneways of {@code type} on the thread's open push stream, opened (again, if the last one broke) with the
   * channel's {@code open}. Runs on the command loop's thread, before the run's threads start.
   */
  @SuppressWarnings("unchecked")
  private <M> Calls.Open<Channel, M> pushing(
      PayloadType type, Function<Channel, Function<StreamObserver<Empty>, StreamObserver<M>>> open) {
    return (c, thread) -> {
      Map<Integer, PushStream<?>> byThread = streams.computeIfAbsent(type, t -> new HashMap<>());
      PushStream<?> stream = byThread.get(thread);
      if (stream == null || stream.broken()) {
        stream = PushStream.open(open.apply(c));
        byThread.put(thread, stream);
      }
      return ((PushStream<M>) stream)::send;
    };
  }

  @Override
  protected void release(Channel c) {
    streams.values().forEach(byThread -> byThread.values().forEach(PushStream::close));
    streams.clear();
    c.channel().shutdown();
    try {
      if (!c.channel().awaitTermination(1, TimeUnit.SECONDS)) {
        c.channel().shutdownNow();
      }
    } catch (InterruptedException e) {
      c.channel().shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static Counts counts(Counters counters) {
    return new Counts(counters.getMessages(), counters.getBytes());
  }
}
