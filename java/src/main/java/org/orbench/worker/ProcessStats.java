package org.orbench.worker;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's resident memory and CPU time, for a soak's intervals (a leak shows over time). */
final class ProcessStats {
  private static final Path STATUS = Path.of("/proc/self/status");

  private ProcessStats() {}

  /** VmRSS of /proc/self/status in bytes, -1 where it cannot be read. */
  static long residentBytes() {
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith("VmRSS:")) {
          String[] fields = line.substring(6).trim().split("\\s+");
          return Long.parseLong(fields[0]) * 1024; // always kB
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** User + system CPU time of the whole JVM in ns (JIT and GC threads included), -1 if unknown. */
  static long cpuNs() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean hotspot) {
      return hotspot.getProcessCpuTime();
    }
    return -1;
  }
}
