"""The server port in real ready lines' endpoints (IORs of both byte orders, gRPC, Ice, sockets), and the same
endpoint pointed at another port, as check-target's delaying relay needs (orbench/targets/endpoints.py)."""

from __future__ import annotations

import socket

import pytest
from orbench.targets.descriptor import read_targets
from orbench.targets.endpoints import SOCKET_FORM, EndpointError
from orbench.targets.families import endpoint_form, read_families
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
        form = endpoint_form(target.family)
        port = form.port_of(endpoint)
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # the server accepts there
        other = 1 if port != 1 else 2
        moved = form.with_port(endpoint, other)
        assert form.port_of(moved) == other
        assert form.with_port(moved, port).lower() == endpoint.lower()
        assert len(moved) == len(endpoint) or not endpoint.startswith("IOR:")
    finally:
        server.stop()


@pytest.mark.parametrize("family, endpoint", [("corba", "IOR:00"), ("corba", "IOR:0000000000000001"),
                                             ("corba", "corbaloc::host/key"), (None, "tcp://nohost"),
                                             ("grpc", "grpc://host"), ("ice", "bench -t:tcp -h host")])
def test_an_endpoint_without_a_port_is_an_error(family, endpoint):
    with pytest.raises((EndpointError, ValueError)):
        endpoint_form(family).port_of(endpoint)


def test_a_textual_endpoint_has_every_occurrence_of_its_port_moved():
    ice = read_families()["ice"].endpoint
    proxy = "bench -t -e 1.1:tcp -h 10.0.0.1 -p 4000 -t 60000:tcp -h 10.0.0.2 -p 4000:tcp -h 10.0.0.3 -p 4001"
    assert ice.port_of(proxy) == 4000
    assert ice.with_port(proxy, 5) == proxy.replace("-p 4000", "-p 5")
    assert SOCKET_FORM.with_port("tcp://[::1]:80", 8080) == "tcp://[::1]:8080"
