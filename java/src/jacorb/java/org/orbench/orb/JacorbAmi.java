package org.orbench.orb;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import orbench.Bench;
import orbench.jacorb.AMI_BenchHandler;
import orbench.jacorb.AMI_BenchHandlerHelper;
import orbench.jacorb.AMI_BenchHandlerPOA;
import orbench.jacorb.BenchHelper;
import orbench.jacorb.Record;
import orbench.jacorb._BenchStub;
import org.omg.CORBA.ORB;
import org.omg.Messaging.ExceptionHolder;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.orbench.worker.BatchInvocation;
import org.orbench.worker.ErrorKind;
import org.orbench.worker.Mode;
import org.orbench.worker.Payloads;
import org.orbench.worker.RunSpec;
import org.orbench.worker.WorkerException;

/**
 * ami-N on JacORB (PROTOCOL.md, "Invocation shapes"), like the C++ client's (cpp/orb/orb_shapes.hpp): JacORB's
 * IDL compiler's stubs ({@code -ami_callback}, package orbench.jacorb) send {@code sendc_send*} /
 * {@code sendc_echo_*} with up to N calls in flight, one reply-handler servant per outstanding call on the
 * client's root POA. A sample runs from the clock read before the {@code sendc_} call to the handler's upcall;
 * every reply must come (10 s at most) and an echo reply must equal the request. Compiled against jacorb.jar:
 * it runs on JacORB only, and only {@link AmiCalls#of} loads it.
 */
final class JacorbAmi implements AmiCalls {
  /** A reply not here within this long fails the run (PROTOCOL.md). */
  /** The fault ami_lost (check-target's tests): the handlers drop every eighth reply, as if it never came. */
  private static final boolean LOSE_REPLIES = BenchServant.FAULT.equals("ami_lost");
  /** 10 s; 1 s under ami_lost, whose dropped replies never come, so its test does not wait out 10 s a step. */
  private static final long REPLY_WAIT_NS = (LOSE_REPLIES ? 1L : 10L) * 1_000_000_000L;

  private final ORB orb;
  private POA poa;
  // Handler servants and their references, grown to the largest N asked; slot k is handler k.
  private final List<Slot> slots = new ArrayList<>();
  private final List<AMI_BenchHandler> handlers = new ArrayList<>();
  private Tally tally = new Tally(0, 0, 0);

  JacorbAmi(ORB orb) {
    this.orb = orb;
  }

  @Override
  public Tally tally() {
    return tally;
  }

  /** One way of sending a call: the payload bound, the stub and handler given. */
  private interface Send {
    void send(_BenchStub stub, AMI_BenchHandler handler);
  }

  @Override
  public BatchInvocation invocation(Bench remote, RunSpec spec, int outstanding) throws Exception {
    // JacORB's stub on the idlj stub's delegate (a JacORB delegate: this runs only on JacORB); no remote call.
    _BenchStub stub = (_BenchStub) BenchHelper.unchecked_narrow(remote);
    handlers(outstanding);
    boolean echo = spec.mode() == Mode.ECHO;
    int n = spec.elementCount();
    Send send;
    Predicate<Object> same;
    switch (spec.payloadType()) {
      case OCTETS -> {
        byte[] p = Payloads.octets(spec.payloadBytes());
        send = echo ? (s, h) -> s.sendc_echo_octets(h, p) : (s, h) -> s.sendc_send(h, p);
        same = r -> r instanceof byte[] b && Arrays.equals(b, p);
      }
      case RECORDS -> {
        Record[] p = records(RecordPayload.build(spec.recordCount()));
        send = echo ? (s, h) -> s.sendc_echo_records(h, p) : (s, h) -> s.sendc_send_records(h, p);
        same = r -> r instanceof Record[] b && sameRecords(p, b);
      }
      case LONGS -> {
        int[] p = Payloads.longs(n);
        send = echo ? (s, h) -> s.sendc_echo_longs(h, p) : (s, h) -> s.sendc_send_longs(h, p);
        same = r -> r instanceof int[] b && Arrays.equals(b, p);
      }
      case DOUBLES -> {
        double[] p = Payloads.doubles(n);
        send = echo ? (s, h) -> s.sendc_echo_doubles(h, p) : (s, h) -> s.sendc_send_doubles(h, p);
        same = r -> r instanceof double[] b && Arrays.equals(b, p);
      }
      case STRINGS -> {
        String[] p = Payloads.strings(n);
        send = echo ? (s, h) -> s.sendc_echo_strings(h, p) : (s, h) -> s.sendc_send_strings(h, p);
        same = r -> r instanceof String[] b && Arrays.equals(b, p);
      }
      default -> throw new WorkerException(ErrorKind.UNSUPPORTED, "payload type " + spec.payloadType());
    }
    return new BatchInvocation() {
      @Override
      public long[] runAll(long[] samples) {
        return calls(stub, send, echo ? same : null, outstanding, samples);
      }
    };
  }

  /** The calls of one batch: call i goes out as soon as a slot is free, its sample ends in its handler. */
  private long[] calls(_BenchStub stub, Send send, Predicate<Object> same, int outstanding, long[] samples) {
    AmiRun run = new AmiRun(samples, outstanding, same);
    for (int k = 0; k < outstanding; k++) {
      slots.get(k).run = run;
    }
    String lost = null;
    long firstNs = 0;
    for (int i = 0; i < samples.length; i++) {
      int slot = run.takeSlot();
      if (slot < 0) {
        lost = "no reply came for " + REPLY_WAIT_NS / 1_000_000_000L + " s with " + outstanding + " outstanding";
        break;
      }
      long at = System.nanoTime();
      if (i == 0) {
        firstNs = at;
      }
      run.started(slot, i, at);
      send.send(stub, handlers.get(slot));
    }
    boolean all = run.waitAll();
    tally = new Tally(run.replies(), outstanding, run.outstandingMax());
    if (run.error() != null) {
      throw new WorkerException(ErrorKind.REMOTE, "AMI: " + run.error());
    }
    if (lost != null || !all || run.replies() != samples.length) {
      throw new WorkerException(ErrorKind.REMOTE, "AMI: " + run.replies() + " of " + samples.length
          + " replies arrived" + (lost == null ? "" : " (" + lost + ")"));
    }
    return new long[] {firstNs, run.endNs()};
  }

  /** Handlers 0 .. count - 1, activated on the root POA (untimed, once each). */
  private void handlers(int count) throws Exception {
    if (poa == null) {
      poa = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
      poa.the_POAManager().activate();
    }
    while (slots.size() < count) {
      Slot slot = new Slot(slots.size());
      AMI_BenchHandler handler = AMI_BenchHandlerHelper.narrow(poa.id_to_reference(poa.activate_object(slot)));
      slots.add(slot);
      handlers.add(handler);
    }
  }

  private static Record[] records(orbench.Record[] from) {
    Record[] out = new Record[from.length];
    for (int i = 0; i < from.length; i++) {
      orbench.Record r = from[i];
      out[i] = new Record(r.id, r.value, r.flags, r.kind, r.level);
    }
    return out;
  }

  private static boolean sameRecords(Record[] sent, Record[] reply) {
    if (reply.length != sent.length) {
      return false;
    }
    for (int i = 0; i < sent.length; i++) {
      Record a = sent[i];
      Record b = reply[i];
      if (a.id != b.id || Double.compare(a.value, b.value) != 0 || a.flags != b.flags || a.kind != b.kind
          || a.level != b.level) {
        return false;
      }
    }
    return true;
  }

  /** The calls of one batch: which call each slot carries and since when, the free slots, the replies. */
  private static final class AmiRun {
    private final long[] samples;
    private final long[] callOf;
    private final long[] startOf;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private final Predicate<Object> same;
    private int inFlight;
    private int outstandingMax;
    private long replies;
    private long endNs;
    private String error;

    AmiRun(long[] samples, int outstanding, Predicate<Object> same) {
      this.samples = samples;
      this.same = same;
      callOf = new long[outstanding];
      startOf = new long[outstanding];
      Arrays.fill(callOf, -1);
      for (int k = 0; k < outstanding; k++) {
        free.add(k);
      }
    }

    synchronized void started(int slot, long call, long at) {
      callOf[slot] = call;
      startOf[slot] = at;
      inFlight++;
      outstandingMax = Math.max(outstandingMax, inFlight);
    }

    /** Slot {@code slot}'s reply came at {@code at}; {@code why} non-null: it was not the reply asked for. */
    synchronized void finished(int slot, long at, String why) {
      long call = callOf[slot];
      if (call < 0) {
        return; // no call of this batch on that slot: a late reply of an earlier, failed batch
      }
      if (LOSE_REPLIES && call % 8 == 7) {
        return;
      }
      callOf[slot] = -1;
      samples[(int) call] = at - startOf[slot];
      endNs = Math.max(endNs, at);
      if (why != null && error == null) {
        error = why + " (call " + call + ")";
      }
      replies++;
      inFlight--;
      free.add(slot);
      notifyAll();
    }

    /** A free slot, waiting for one up to the reply wait; -1 when none came. */
    synchronized int takeSlot() {
      long deadline = System.nanoTime() + REPLY_WAIT_NS;
      while (free.isEmpty() && error == null) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !pause(left)) {
          return -1;
        }
      }
      if (error != null) {
        throw new WorkerException(ErrorKind.REMOTE, "AMI: " + error);
      }
      return free.poll();
    }

    /** Whether every call's reply came within the reply wait. */
    synchronized boolean waitAll() {
      long deadline = System.nanoTime() + REPLY_WAIT_NS;
      while (inFlight > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !pause(left)) {
          return false;
        }
      }
      return true;
    }

    private boolean pause(long ns) {
      try {
        wait(ns / 1_000_000, (int) (ns % 1_000_000));
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    void check(int slot, Object reply, long at) {
      finished(slot, at, same != null && same.test(reply) ? null : "echo reply differs from the request");
    }

    synchronized long replies() {
      return replies;
    }

    synchronized int outstandingMax() {
      return outstandingMax;
    }

    synchronized long endNs() {
      return endNs;
    }

    synchronized String error() {
      return error;
    }
  }

  /** The reply handler of one slot: its reply (or exception) completes the call the slot carries. */
  private static final class Slot extends AMI_BenchHandlerPOA {
    private final int index;
    private volatile AmiRun run;

    Slot(int index) {
      this.index = index;
    }

    private void done() {
      run.finished(index, System.nanoTime(), null);
    }

    private void echoed(Object reply) {
      long at = System.nanoTime();
      run.check(index, reply, at); // compared after the clock read, as the synchronous echo
    }

    private void failed(ExceptionHolder holder) {
      long at = System.nanoTime();
      String why = "exception reply";
      try {
        holder.raise_exception();
      } catch (Exception e) {
        why = "exception reply: " + CorbaErrors.translate(e).getMessage();
      }
      run.finished(index, at, why);
    }

    private void unexpected() {
      run.finished(index, System.nanoTime(), "a reply of another operation");
    }

    @Override
    public void send() {
      done();
    }

    @Override
    public void send_records() {
      done();
    }

    @Override
    public void send_longs() {
      done();
    }

    @Override
    public void send_doubles() {
      done();
    }

    @Override
    public void send_strings() {
      done();
    }

    @Override
    public void echo_octets(byte[] reply) {
      echoed(reply);
    }

    @Override
    public void echo_records(Record[] reply) {
      echoed(reply);
    }

    @Override
    public void echo_longs(int[] reply) {
      echoed(reply);
    }

    @Override
    public void echo_doubles(double[] reply) {
      echoed(reply);
    }

    @Override
    public void echo_strings(String[] reply) {
      echoed(reply);
    }

    @Override
    public void send_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void send_records_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void send_longs_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void send_doubles_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void send_strings_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void echo_octets_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void echo_records_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void echo_longs_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void echo_doubles_excep(ExceptionHolder holder) {
      failed(holder);
    }

    @Override
    public void echo_strings_excep(ExceptionHolder holder) {
      failed(holder);
    }

    // The operations an ami run never sends: a reply to one is an error of the run.

    @Override
    public void push() {
      unexpected();
    }

    @Override
    public void push_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void push_records() {
      unexpected();
    }

    @Override
    public void push_records_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void push_longs() {
      unexpected();
    }

    @Override
    public void push_longs_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void push_doubles() {
      unexpected();
    }

    @Override
    public void push_doubles_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void push_strings() {
      unexpected();
    }

    @Override
    public void push_strings_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void sync(orbench.jacorb.SyncResult reply) {
      unexpected();
    }

    @Override
    public void sync_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void counters(orbench.jacorb.Counters reply) {
      unexpected();
    }

    @Override
    public void counters_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void reset_counters() {
      unexpected();
    }

    @Override
    public void reset_counters_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void references(String[] reply) {
      unexpected();
    }

    @Override
    public void references_excep(ExceptionHolder holder) {
      unexpected();
    }

    @Override
    public void shutdown() {
      unexpected();
    }

    @Override
    public void shutdown_excep(ExceptionHolder holder) {
      unexpected();
    }
  }
}
