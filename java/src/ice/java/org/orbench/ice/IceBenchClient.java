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
 * The client side of ice-java: a Bench proxy for twoways and echoes, its ice_oneway() form for oneways, shared
 * by every thread of a run (Ice proxies are thread-safe); for a server's several objects, one pair per object.
 * Ice sets TCP_NODELAY on every socket (what tcp_nodelay = true asks); no option can be set here.
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
  protected void shutdownServer(Proxies bench) {
    bench.twoway().shutdown();
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
  protected Calls<Proxies, ?> octets(byte[] items) {
    return Calls.<Proxies, byte[]>of(items, p -> p.oneway()::push, p -> p.twoway()::send,
        p -> p.twoway()::echo_octets);
  }

  @Override
  protected Calls<Proxies, ?> records(int count) {
    Record[] records = new Record[count];
    for (int i = 0; i < count; i++) {
      records[i] = new Record(Payloads.recordId(i), Payloads.recordValue(i), Payloads.recordFlags(i),
          (byte) Payloads.recordKind(i), (byte) Payloads.recordLevel(i));
    }
    return Calls.<Proxies, Record[]>of(records, p -> p.oneway()::push_records, p -> p.twoway()::send_records,
        p -> p.twoway()::echo_records);
  }

  @Override
  protected Calls<Proxies, ?> longs(int[] items) {
    return Calls.<Proxies, int[]>of(items, p -> p.oneway()::push_longs, p -> p.twoway()::send_longs,
        p -> p.twoway()::echo_longs);
  }

  @Override
  protected Calls<Proxies, ?> doubles(double[] items) {
    return Calls.<Proxies, double[]>of(items, p -> p.oneway()::push_doubles, p -> p.twoway()::send_doubles,
        p -> p.twoway()::echo_doubles);
  }

  @Override
  protected Calls<Proxies, ?> strings(String[] items) {
    return Calls.<Proxies, String[]>of(items, p -> p.oneway()::push_strings, p -> p.twoway()::send_strings,
        p -> p.twoway()::echo_strings);
  }

  /** The stringified proxies of objects first .. (identities bench-FIRST, ...). */
  @Override
  protected String[] references(Proxies p, int first, int count) {
    return p.twoway().references(first, count);
  }

  /** counters(): a twoway without effect, the proxy's first request (StubClient). */
  @Override
  protected void touch(Proxies p) {
    p.twoway().counters();
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
