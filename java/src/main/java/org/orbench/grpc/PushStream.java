package org.orbench.grpc;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.orbench.grpc.generated.Empty;

/**
 * One open client stream of a push operation: the grpc-java form of an IDL oneway (PROTOCOL.md, "gRPC and
 * Ice"). {@link #send} is one oneway call. It honours gRPC's flow control: while the stream is not ready (the
 * transport has more than its threshold queued) it waits, as a blocking socket write would, instead of
 * queueing without bound; then {@code onNext} serializes the message and queues it for Netty's event loop,
 * which writes it to the socket.
 */
final class PushStream<M> {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private ClientCallStreamObserver<M> requests;
  private volatile Throwable failure;
  private volatile boolean ended;

  private PushStream() {}

  /** Opens the stream with {@code call}, an async stub's client-streaming method. */
  static <M> PushStream<M> open(Function<StreamObserver<Empty>, StreamObserver<M>> call) {
    PushStream<M> stream = new PushStream<>();
    call.apply(stream.new Responses());
    return stream;
  }

  void send(M message) throws InterruptedException {
    if (!requests.isReady()) {
      awaitReady();
    }
    Throwable failed = failure;
    if (failed != null || ended) {
      throw GrpcErrors.translate(failed != null ? failed
          : io.grpc.Status.UNAVAILABLE.withDescription("push stream closed by the server").asRuntimeException());
    }
    requests.onNext(message);
  }

  /** Half-closes the stream without waiting for the server's answer. */
  void close() {
    if (failure == null && !ended) {
      requests.onCompleted();
    }
  }

  boolean broken() {
    return failure != null || ended;
  }

  private void awaitReady() throws InterruptedException {
    lock.lock();
    try {
      while (!requests.isReady() && failure == null && !ended) {
        changed.await();
      }
    } finally {
      lock.unlock();
    }
  }

  private void signal() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private final class Responses implements ClientResponseObserver<M, Empty> {
    @Override
    public void beforeStart(ClientCallStreamObserver<M> requestStream) {
      requests = requestStream;
      requestStream.setOnReadyHandler(PushStream.this::signal);
    }

    @Override
    public void onNext(Empty value) {}

    @Override
    public void onError(Throwable t) {
      failure = t;
      signal();
    }

    @Override
    public void onCompleted() {
      ended = true;
      signal();
    }
  }
}
