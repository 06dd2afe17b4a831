package org.orbench.grpc;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.Arrays;
import java.util.EnumMap;
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
 * The client side of grpc-java: one channel (one HTTP/2 connection) per connect; twoway and echo calls on a
 * blocking stub, oneways on one push stream per payload type, opened by the first oneway run of that type and
 * kept open until the next connect or quit. Netty sets TCP_NODELAY on gRPC's sockets (what tcp_nodelay = true
 * asks); no option can be set here.
 */
final class GrpcBenchClient extends StubClient<GrpcBenchClient.Channel> {
  private static final Empty EMPTY = Empty.getDefaultInstance();
  private final Map<PayloadType, PushStream<?>> streams = new EnumMap<>(PayloadType.class);

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
  protected Calls<?> octets(Channel c, byte[] items) {
    Octets payload = Octets.newBuilder().setItems(ByteString.copyFrom(items)).build();
    return Calls.opening(payload, pushing(PayloadType.OCTETS, c.async()::push), c.blocking()::send,
        c.blocking()::echoOctets);
  }

  @Override
  protected Calls<?> records(Channel c, int count) {
    Records.Builder builder = Records.newBuilder();
    for (int i = 0; i < count; i++) {
      builder.addItems(Record.newBuilder()
          .setId(Payloads.recordId(i))
          .setValue(Payloads.recordValue(i))
          .setFlags(Payloads.recordFlags(i))
          .setKind(Payloads.recordKind(i))
          .setLevel(Payloads.recordLevel(i)));
    }
    return Calls.opening(builder.build(), pushing(PayloadType.RECORDS, c.async()::pushRecords),
        c.blocking()::sendRecords, c.blocking()::echoRecords);
  }

  @Override
  protected Calls<?> longs(Channel c, int[] items) {
    Longs.Builder builder = Longs.newBuilder();
    for (int item : items) {
      builder.addItems(item);
    }
    return Calls.opening(builder.build(), pushing(PayloadType.LONGS, c.async()::pushLongs),
        c.blocking()::sendLongs, c.blocking()::echoLongs);
  }

  @Override
  protected Calls<?> doubles(Channel c, double[] items) {
    Doubles.Builder builder = Doubles.newBuilder();
    for (double item : items) {
      builder.addItems(item);
    }
    return Calls.opening(builder.build(), pushing(PayloadType.DOUBLES, c.async()::pushDoubles),
        c.blocking()::sendDoubles, c.blocking()::echoDoubles);
  }

  @Override
  protected Calls<?> strings(Channel c, String[] items) {
    Strings payload = Strings.newBuilder().addAllItems(Arrays.asList(items)).build();
    return Calls.opening(payload, pushing(PayloadType.STRINGS, c.async()::pushStrings),
        c.blocking()::sendStrings, c.blocking()::echoStrings);
  }

  @Override
  public WorkerException translate(Exception failure) {
    return GrpcErrors.translate(failure);
  }

  /** Oneways of {@code type} on its open push stream, opened (again, if the last one broke) with {@code open}. */
  @SuppressWarnings("unchecked")
  private <M> Calls.Oneway<M> pushing(PayloadType type, Function<StreamObserver<Empty>, StreamObserver<M>> open) {
    return () -> {
      PushStream<?> stream = streams.get(type);
      if (stream == null || stream.broken()) {
        stream = PushStream.open(open);
        streams.put(type, stream);
      }
      return ((PushStream<M>) stream)::send;
    };
  }

  @Override
  protected void release(Channel c) {
    streams.values().forEach(PushStream::close);
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
