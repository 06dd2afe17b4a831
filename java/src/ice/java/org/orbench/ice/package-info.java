/**
 * The ice-java target: server and client workers over the Slice file that the IDL translator writes from
 * idl/orbench.idl (slice2java generates org.orbench.ice.generated.orbench at build time), on ZeroC Ice 3.7 for
 * Java. Compiled only where slice2java is installed (Maven profile {@code ice}, see java/README.md).
 */
package org.orbench.ice;
