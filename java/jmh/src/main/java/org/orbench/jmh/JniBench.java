package org.orbench.jmh;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What crossing JNI costs: the transition alone ({@link #jniNoop}) against a plain Java call that is kept out of
 * line ({@link #javaCall}) and an empty benchmark ({@link #baseline}); a C-to-Java callback with the method ID
 * cached in JNI_OnLoad versus looked up (FindClass + GetStaticMethodID) on every call; and handing a payload to C
 * as a byte[] that C must copy versus a direct ByteBuffer that C reads in place.
 *
 * <p>The native library is {@code target/native/liborbenchjni.so}, loaded from {@code -Djava.library.path}
 * (set by {@code make jmh}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = JniBench.WARMUP_ITERATIONS, time = 1)
@Measurement(iterations = JniBench.MEASUREMENT_ITERATIONS, time = 1)
@Fork(JniBench.FORKS)
public class JniBench {
  /** Seconds of warm-up: enough for C2 to compile the benchmark loop and the native stubs. */
  static final int WARMUP_ITERATIONS = 3;
  /** One-second measurement iterations per fork. */
  static final int MEASUREMENT_ITERATIONS = 5;
  /** Separate JVMs, so one JIT decision does not decide the result. */
  static final int FORKS = 1;

  static {
    System.loadLibrary("orbenchjni");
  }

  static native int noop(int x);

  static native int callbackCached(int x);

  static native int callbackLookup(int x);

  static native long sumCopied(byte[] a, long scratch);

  static native long sumDirect(ByteBuffer direct);

  static native long allocScratch(int n);

  static native void freeScratch(long p);

  /** The Java method C calls back. */
  static int callback(int x) {
    return x * 31 + 7;
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static int javaMethod(int x) {
    return x + 1;
  }

  int x = 42;

  /** The payload of the copy benchmarks, in its own state so only they run once per size. */
  @State(Scope.Thread)
  public static class Payload {
    /** A small request, about 1 KiB, and the quick campaign's 64 KiB. */
    @Param({"64", "1024", "65536"})
    int size;

    byte[] array;
    ByteBuffer direct;
    long scratch;

    @Setup(Level.Trial)
    public void setup() {
      array = new byte[size];
      direct = ByteBuffer.allocateDirect(size);
      for (int i = 0; i < size; i++) {
        array[i] = (byte) i;
        direct.put(i, (byte) i);
      }
      scratch = allocScratch(size);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      freeScratch(scratch);
    }
  }

  @Benchmark
  public void baseline() {
    // Empty: JMH's own per-invocation cost, to subtract by eye.
  }

  @Benchmark
  public int javaCall() {
    return javaMethod(x);
  }

  @Benchmark
  public int jniNoop() {
    return noop(x);
  }

  @Benchmark
  public int callbackCachedMethodId() {
    return callbackCached(x);
  }

  @Benchmark
  public int callbackLookedUpMethodId() {
    return callbackLookup(x);
  }

  @Benchmark
  public long byteArrayCopiedToC(Payload p) {
    return sumCopied(p.array, p.scratch);
  }

  @Benchmark
  public long directBufferReadInPlace(Payload p) {
    return sumDirect(p.direct);
  }
}
