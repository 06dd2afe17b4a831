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

  /**
   * The number of the next call (PROTOCOL.md, "Load at scale"); each call() after it takes the next number. An
   * invocation to several objects picks the object of each call by its number; the others ignore it. Called
   * outside the clock reads: before the warm-up and the timed calls, and by a pool's thread before each call.
   */
  public void startAt(long number) {}
}
