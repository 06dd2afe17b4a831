#!/usr/bin/env bash
# One JMH run of the suite for one Java ORB: run-orb.sh ORB OUT.json [JMH options and benchmark regexps...]
#
# Both ORBs ship their own org.omg classes, so they never share a class path: this run's class path holds the
# suite, JMH, the workers' stubs and ORB's jars alone (java/target/lib/ORB/, built by `make java` with their
# pins), forked JVMs inherit it, and -p orb=ORB names the ORB in every result. `make jmh` calls it once per ORB.
# Writes OUT.json (JMH -rf json, with -prof gc) and OUT.log (JMH's output). Exit status: 0 when every benchmark
# ran, 1 when one failed (its error is in the log; the others' results are in OUT.json), 2 on bad arguments.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 ORB OUT.json [JMH options...]   (ORB: a directory name under java/target/lib, e.g. jacorb)" >&2
  exit 2
fi
orb=$1 out=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/java/target/lib/$orb
if [ ! -d "$lib" ] || [ "$orb" = common ]; then
  echo "error: no ORB '$orb' here: $lib is not a directory of an ORB's jars (make java builds them)" >&2
  exit 2
fi
for f in "$root/java/jmh/target/jmh-classes.jar" "$root/java/target/orbench-workers.jar"; do
  [ -f "$f" ] || { echo "error: $f is missing: run make jmh-build" >&2; exit 2; }
done

cp="$root/java/jmh/target/jmh-classes.jar:$root/java/jmh/target/lib/jmh/*:$root/java/target/orbench-workers.jar"
cp="$cp:$root/java/target/lib/common/*:$lib/*"
log=${out%.json}.log
echo "== JMH, orb=$orb: $out (log $log)"
status=0
java -Djava.library.path="$root/java/jmh/target/native" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$cp" org.openjdk.jmh.Main -p orb="$orb" -prof gc -rf json -rff "$out" "$@" 2>&1 | tee "$log" \
  || status=$?
if grep -q '^No matching benchmarks' "$log"; then
  echo "orb=$orb: no benchmark here matches the given patterns; nothing run" >&2
  rm -f "$out"
  exit 0
fi
# JMH exits 0 when a benchmark fails (without -foe), and -foe would drop the results of the others.
if grep -q '<failure>' "$log"; then
  echo "error: orb=$orb: a benchmark failed (see <failure> in $log); the others' results are in $out" >&2
  exit 1
fi
exit "$status"
