package org.orbench.worker;

/**
 * An invocation that makes a run's calls itself, because a call's sample does not end where the call returns:
 * an AMI call's reply reaches a handler on another thread (PROTOCOL.md, "Invocation shapes", ami-N). The
 * run sequence hands it the samples array instead of timing {@link #call()} one at a time.
 */
public abstract class BatchInvocation extends Invocation {
  /**
   * Makes {@code samples.length} calls, writes each call's time into its slot and checks every reply; returns
   * the clock read before the first call and the last reply's, {@code {firstNs, lastNs}}.
   */
  public abstract long[] runAll(long[] samples) throws Exception;

  /** One call at a time has no meaning here: the calls overlap. */
  @Override
  public final void call() {
    throw new IllegalStateException("a batch invocation runs through runAll");
  }
}
