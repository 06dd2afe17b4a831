package org.orbench.ice;

import com.google.gson.JsonObject;
import com.zeroc.Ice.Communicator;
import com.zeroc.Ice.ObjectPrx;
import com.zeroc.Ice.ProxyParseException;
import com.zeroc.Ice.Util;
import java.util.EnumSet;
import java.util.Set;
import org.orbench.ice.generated.orbench.BenchPrx;
import org.orbench.ice.generated.orbench.Counters;
import org.orbench.ice.generated.orbench.SyncResult;
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

/** The client side of ice-java: a Bench proxy for twoways and echoes, its ice_oneway() form for oneways. */
final class IceBenchClient implements BenchClient {
  private final Communicator communicator;
  private final WorkerInfo info;
  private BenchPrx twoway;
  private BenchPrx oneway;

  IceBenchClient(Communicator communicator, String target) {
    this.communicator = communicator;
    this.info = WorkerInfo.client(target, IceServer.NAME, Util.stringVersion());
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
    // Ice sets TCP_NODELAY on every socket (what tcp_nodelay = true asks); nothing else can be set here.
    if (parsed.tcpNoDelay() != null && !parsed.tcpNoDelay()) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "Ice always sets TCP_NODELAY: tcp_nodelay = false cannot be done");
    }
    if (parsed.socketBufferBytes() != null || parsed.syncScope() != null) {
      throw new WorkerException(ErrorKind.UNSUPPORTED, "Ice takes no socket_buffer_bytes or sync_scope here");
    }
    twoway = null;
    oneway = null;
    ObjectPrx base;
    try {
      base = communicator.stringToProxy(endpoint);
    } catch (ProxyParseException e) {
      throw WorkerException.usage("bad endpoint: " + e);
    }
    if (base == null) {
      throw WorkerException.usage("bad endpoint: an empty proxy");
    }
    // No checkedCast (a remote ice_isA): reset_counters is the one call that proves the server answers.
    BenchPrx bench = BenchPrx.uncheckedCast(base);
    bench.reset_counters();
    twoway = bench;
    oneway = bench.ice_oneway();
  }

  @Override
  public Invocation prepare(RunSpec spec) {
    return IceInvocations.of(bench(), oneway, spec);
  }

  @Override
  public void resetCounters() {
    bench().reset_counters();
  }

  @Override
  public SyncOutcome sync(long expected, long timeoutMs) {
    SyncResult result = bench().sync(expected, timeoutMs);
    return new SyncOutcome(result.complete, counts(result.received));
  }

  @Override
  public Counts counters() {
    return counts(bench().counters());
  }

  @Override
  public WorkerException translate(Exception failure) {
    return IceErrors.translate(failure);
  }

  @Override
  public void close() {
    twoway = null;
    oneway = null;
  }

  private BenchPrx bench() {
    if (twoway == null) {
      throw WorkerException.usage("not connected");
    }
    return twoway;
  }

  private static Counts counts(Counters counters) {
    return new Counts(counters.messages, counters.bytes);
  }
}
