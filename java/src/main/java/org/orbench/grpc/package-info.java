/**
 * The grpc-java target: server and client workers over the Bench service that the IDL translator writes as a
 * proto from idl/orbench.idl (generated into org.orbench.grpc.generated at build time), on gRPC Java with
 * Netty (grpc-netty-shaded). IDL oneways are client-streaming calls: PROTOCOL.md, "gRPC and Ice".
 */
package org.orbench.grpc;
