package org.orbench.worker;

/**
 * One prepared call of a run: its payload and stub (or socket frame) are bound before timing, so the
 * timed part is {@link #call()} alone. Implementations keep the reply in a field for {@link #check()}.
 */
public abstract class Invocation {
  /** Makes one call; the run sequence reads the clock just before and just after. */
  public abstract void call() throws Exception;

  /**
   * Verifies the reply of the call just made (echo), after the second clock read so that comparing 32 KB
   * is not part of the sample. Throws {@link WorkerException} ({@code remote}) on a wrong reply.
   */
  public void check() throws Exception {}
}
