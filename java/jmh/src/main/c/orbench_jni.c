/* The JNI side of org.orbench.jmh.JniBench: the smallest native methods that isolate one cost each.
 *
 *   noop             a JNI transition and back, nothing else
 *   callbackCached   C calls a static Java method through a jmethodID looked up once (JNI_OnLoad)
 *   callbackLookup   C looks the class and method ID up on every call, then calls it
 *   sumCopied        a byte[] copied into a C buffer (GetByteArrayRegion), then read
 *   sumDirect        a direct ByteBuffer's memory read in place (GetDirectBufferAddress), no copy
 * The sums make the reads observable, so the compiler cannot drop them. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>

static jclass bench_class;       /* a global reference, valid across calls */
static jmethodID callback_id;    /* method IDs stay valid while the class is loaded */

#define CLASS_NAME "org/orbench/jmh/JniBench"

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
  (void)reserved;
  JNIEnv *env;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  jclass local = (*env)->FindClass(env, CLASS_NAME);
  if (local == NULL) return JNI_ERR;
  bench_class = (*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  callback_id = (*env)->GetStaticMethodID(env, bench_class, "callback", "(I)I");
  return callback_id == NULL ? JNI_ERR : JNI_VERSION_1_8;
}

JNIEXPORT jint JNICALL Java_org_orbench_jmh_JniBench_noop(JNIEnv *env, jclass cls, jint x) {
  (void)env; (void)cls;
  return x + 1;
}

JNIEXPORT jint JNICALL Java_org_orbench_jmh_JniBench_callbackCached(JNIEnv *env, jclass cls, jint x) {
  (void)cls;
  return (*env)->CallStaticIntMethod(env, bench_class, callback_id, x);
}

JNIEXPORT jint JNICALL Java_org_orbench_jmh_JniBench_callbackLookup(JNIEnv *env, jclass cls, jint x) {
  (void)cls;
  jclass c = (*env)->FindClass(env, CLASS_NAME);
  if (c == NULL) return -1;
  jmethodID id = (*env)->GetStaticMethodID(env, c, "callback", "(I)I");
  if (id == NULL) return -1;
  jint r = (*env)->CallStaticIntMethod(env, c, id, x);
  (*env)->DeleteLocalRef(env, c);
  return r;
}

static jlong sum(const unsigned char *p, jsize n) {
  jlong s = 0;
  for (jsize i = 0; i < n; i += 64) s += p[i]; /* one byte per cache line: the read, not the arithmetic */
  return s + p[n - 1];
}

JNIEXPORT jlong JNICALL Java_org_orbench_jmh_JniBench_sumCopied(JNIEnv *env, jclass cls, jbyteArray a, jlong scratch) {
  (void)cls;
  jsize n = (*env)->GetArrayLength(env, a);
  unsigned char *buf = (unsigned char *)(intptr_t)scratch;
  (*env)->GetByteArrayRegion(env, a, 0, n, (jbyte *)buf);
  return sum(buf, n);
}

JNIEXPORT jlong JNICALL Java_org_orbench_jmh_JniBench_sumDirect(JNIEnv *env, jclass cls, jobject buffer) {
  (void)cls;
  unsigned char *p = (unsigned char *)(*env)->GetDirectBufferAddress(env, buffer);
  jlong n = (*env)->GetDirectBufferCapacity(env, buffer);
  return p == NULL ? -1 : sum(p, (jsize)n);
}

JNIEXPORT jlong JNICALL Java_org_orbench_jmh_JniBench_allocScratch(JNIEnv *env, jclass cls, jint n) {
  (void)env; (void)cls;
  return (jlong)(intptr_t)malloc((size_t)n);
}

JNIEXPORT void JNICALL Java_org_orbench_jmh_JniBench_freeScratch(JNIEnv *env, jclass cls, jlong p) {
  (void)env; (void)cls;
  free((void *)(intptr_t)p);
}
