package org.orbench.grpc;

import com.google.gson.JsonObject;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.orbench.grpc.generated.BenchGrpc;
import org.orbench.grpc.generated.Counters;
import org.orbench.grpc.generated.Empty;
import org.orbench.grpc.generated.SyncRequest;
import org.orbench.grpc.generated.SyncResult;
import org.orbench.worker.BenchClient;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.Counts;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Invocation;
import org.orbench.worker.Mode;
import org.orbench.worker.PayloadType;
import org.orbench.worker.RunSpec;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/**
 * The client side of grpc-java: one channel (one HTTP/2 connection) per connect; twoway and echo calls on a
 * blocking stub, oneways on one push stream per payload type, opened by the first oneway run of that type and
 * kept open until the next connect or quit.
 */
final class GrpcBenchClient implements BenchClient {
  private static final Empty EMPTY = Empty.getDefaultInstance();
  private final WorkerInfo info;
  private final Map<PayloadType, PushStream<?>> streams = new EnumMap<>(PayloadType.class);
  private ManagedChannel channel;
  private BenchGrpc.BenchBlockingStub blocking;
  private BenchGrpc.BenchStub async;

  GrpcBenchClient(String target) {
    this.info = WorkerInfo.client(target, GrpcIdentity.NAME, GrpcIdentity.version());
  }

  @Override
  public WorkerInfo info() {
    return info;
  }

  @Override
  public Set<Mode> modes() {
    return EnumSet.allOf(Mode.class);
  }

  @Override
  public Set<PayloadType> payloadTypes() {
    return EnumSet.allOf(PayloadType.class);
  }

  @Override
  public void connect(String endpoint, JsonObject options) {
    ConnectOptions parsed = ConnectOptions.parse(options);
    // Netty sets TCP_NODELAY on gRPC's sockets (what tcp_nodelay = true asks); nothing else can be set here.
    if (parsed.tcpNoDelay() != null && !parsed.tcpNoDelay()) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "gRPC Java always sets TCP_NODELAY: tcp_nodelay = false cannot be done");
    }
    if (parsed.socketBufferBytes() != null || parsed.syncScope() != null) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "gRPC Java takes no socket_buffer_bytes or sync_scope here");
    }
    String target = GrpcEndpoint.target(endpoint);
    release();
    channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    blocking = BenchGrpc.newBlockingStub(channel);
    async = BenchGrpc.newStub(channel);
    try {
      blocking.resetCounters(EMPTY); // proves the server answers
    } catch (RuntimeException e) {
      release();
      throw e;
    }
  }

  @Override
  public Invocation prepare(RunSpec spec) {
    blocking();
    return GrpcInvocations.of(this, spec);
  }

  @Override
  public void resetCounters() {
    blocking().resetCounters(EMPTY);
  }

  @Override
  public SyncOutcome sync(long expected, long timeoutMs) {
    SyncResult result = blocking().sync(
        SyncRequest.newBuilder().setExpected(expected).setTimeoutMs((int) timeoutMs).build());
    return new SyncOutcome(result.getComplete(), counts(result.getReceived()));
  }

  @Override
  public Counts counters() {
    return counts(blocking().counters(EMPTY));
  }

  @Override
  public WorkerException translate(Exception failure) {
    return GrpcErrors.translate(failure);
  }

  @Override
  public void close() {
    release();
  }

  BenchGrpc.BenchBlockingStub blocking() {
    if (blocking == null) {
      throw WorkerException.usage("not connected");
    }
    return blocking;
  }

  BenchGrpc.BenchStub async() {
    return async;
  }

  /** The open push stream of {@code type}, opened (again, if the last one broke) with {@code open}. */
  @SuppressWarnings("unchecked")
  <M> PushStream<M> pushStream(PayloadType type, Function<StreamObserver<Empty>, StreamObserver<M>> open) {
    PushStream<?> stream = streams.get(type);
    if (stream == null || stream.broken()) {
      stream = PushStream.open(open);
      streams.put(type, stream);
    }
    return (PushStream<M>) stream;
  }

  private void release() {
    streams.values().forEach(PushStream::close);
    streams.clear();
    if (channel != null) {
      channel.shutdown();
      try {
        if (!channel.awaitTermination(1, TimeUnit.SECONDS)) {
          channel.shutdownNow();
        }
      } catch (InterruptedException e) {
        channel.shutdownNow();
        Thread.currentThread().interrupt();
      }
      channel = null;
      blocking = null;
      async = null;
    }
  }

  private static Counts counts(Counters counters) {
    return new Counts(counters.getMessages(), counters.getBytes());
  }
}
