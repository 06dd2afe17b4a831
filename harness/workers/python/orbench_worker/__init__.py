"""The Python worker kit: everything a Python client or server worker does that does not depend on the
middleware (harness/PROTOCOL.md). A target adds a binding (how each call is made) and a connect function;
see ../README.md."""
