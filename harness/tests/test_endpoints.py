"""The server port in real ready lines' endpoints (IORs of both byte orders, gRPC, Ice, sockets), and the same
endpoint pointed at another port, as check-target's delaying relay needs (orbench/targets/endpoints.py)."""

from __future__ import annotations

import socket

import pytest
from orbench.targets.descriptor import read_targets
from orbench.targets.endpoints import EndpointError, port_of, with_port
from orbench.targets.workers import ServerWorker

from tests.conftest import on_fitting_jdk, require_targets


# omniORB writes its IOR little-endian, JacORB big-endian.
@pytest.mark.parametrize("name", ["c-socket", "omniorb", "jacorb", "grpc-cpp", "ice-cpp"])
def test_the_port_is_where_the_server_listens_and_only_it_changes(name, tmp_path):
    require_targets(name)
    target = on_fitting_jdk(read_targets()[name])
    server = ServerWorker(name, target.server_command("127.0.0.1"), tmp_path / "server.log")
    try:
        endpoint = server.endpoint
        port = port_of(endpoint)
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # the server accepts there
        other = 1 if port != 1 else 2
        moved = with_port(endpoint, other)
        assert port_of(moved) == other
        assert with_port(moved, port).lower() == endpoint.lower()
        assert len(moved) == len(endpoint) or not endpoint.startswith("IOR:")
    finally:
        server.stop()


@pytest.mark.parametrize("endpoint", ["IOR:00", "IOR:0000000000000001", "corbaloc::host/key", "tcp://nohost"])
def test_an_endpoint_without_a_port_is_an_error(endpoint):
    with pytest.raises((EndpointError, ValueError)):
        port_of(endpoint)
