package org.orbench.ice;

import com.zeroc.Ice.Communicator;
import com.zeroc.Ice.ObjectPrx;
import com.zeroc.Ice.ProxyParseException;
import com.zeroc.Ice.Util;
import java.util.Set;
import org.orbench.ice.generated.orbench.BenchPrx;
import org.orbench.ice.generated.orbench.Counters;
import org.orbench.ice.generated.orbench.Record;
import org.orbench.ice.generated.orbench.SyncResult;
import org.orbench.worker.Calls;
import org.orbench.worker.ConnectOptions;
import org.orbench.worker.Counts;
import org.orbench.worker.Payloads;
import org.orbench.worker.StubClient;
import org.orbench.worker.SyncOutcome;
import org.orbench.worker.WorkerException;
import org.orbench.worker.WorkerInfo;

/**
 * The client side of ice-java: a Bench proxy for twoways and echoes, its ice_oneway() form for oneways. Ice
 * sets TCP_NODELAY on every socket (what tcp_nodelay = true asks); no option can be set here.
 */
final class IceBenchClient extends StubClient<IceBenchClient.Proxies> {
  private final Communicator communicator;

  record Proxies(BenchPrx twoway, BenchPrx oneway) {}

  IceBenchClient(Communicator communicator, String target) {
    super(WorkerInfo.client(target, IceServer.NAME, Util.stringVersion()), IceServer.NAME, Set.of());
    this.communicator = communicator;
  }

  @Override
  protected Proxies open(String endpoint, ConnectOptions options) {
    ObjectPrx base;
    try {
      base = communicator.stringToProxy(endpoint);
    } catch (ProxyParseException e) {
      throw WorkerException.usage("bad endpoint: " + e);
    }
    if (base == null) {
      throw WorkerException.usage("bad endpoint: an empty proxy");
    }
    // No checkedCast (a remote ice_isA): the counter reset after open is the one call that proves the server answers.
    BenchPrx bench = BenchPrx.uncheckedCast(base);
    return new Proxies(bench, bench.ice_oneway());
  }

  @Override
  protected void resetCounters(Proxies bench) {
    bench.twoway().reset_counters();
  }

  @Override
  protected SyncOutcome sync(Proxies bench, long expected, long timeoutMs) {
    SyncResult result = bench.twoway().sync(expected, timeoutMs);
    return new SyncOutcome(result.complete, counts(result.received));
  }

  @Override
  protected Counts counters(Proxies bench) {
    return counts(bench.twoway().counters());
  }

  @Override
  protected Calls<?> octets(Proxies p, byte[] items) {
    return Calls.of(items, p.oneway()::push, p.twoway()::send, p.twoway()::echo_octets);
  }

  @Override
  protected Calls<?> records(Proxies p, int count) {
    Record[] records = new Record[count];
    for (int i = 0; i < count; i++) {
      records[i] = new Record(Payloads.recordId(i), Payloads.recordValue(i), Payloads.recordFlags(i),
          (byte) Payloads.recordKind(i), (byte) Payloads.recordLevel(i));
    }
    return Calls.of(records, p.oneway()::push_records, p.twoway()::send_records, p.twoway()::echo_records);
  }

  @Override
  protected Calls<?> longs(Proxies p, int[] items) {
    return Calls.of(items, p.oneway()::push_longs, p.twoway()::send_longs, p.twoway()::echo_longs);
  }

  @Override
  protected Calls<?> doubles(Proxies p, double[] items) {
    return Calls.of(items, p.oneway()::push_doubles, p.twoway()::send_doubles, p.twoway()::echo_doubles);
  }

  @Override
  protected Calls<?> strings(Proxies p, String[] items) {
    return Calls.of(items, p.oneway()::push_strings, p.twoway()::send_strings, p.twoway()::echo_strings);
  }

  @Override
  public WorkerException translate(Exception failure) {
    return IceErrors.translate(failure);
  }

  /** Drops the proxies and destroys the communicator: the worker is about to exit. */
  @Override
  public void close() {
    super.close();
    communicator.destroy();
  }

  private static Counts counts(Counters counters) {
    return new Counts(counters.messages, counters.bytes);
  }
}
