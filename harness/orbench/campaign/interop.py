"""Cross-ORB runs (interop): the client worker of one target against the server worker of another.

An interop pair [client_target, server_target] of a campaign becomes a target of its own, labelled
"client->server" (e.g. "jacorb->omniorb"), whose server argv is the server target's and whose client argv is
the client target's. It runs interleaved with the campaign's targets, at the same points, and needs no
change to the workers: both sides speak one protocol (their family's, harness/targets/families.toml: GIOP for
the ORBs, gRPC, ...; the OBSK wire format for the socket baselines).

It has no ORB-added latency: that is an ORB minus a socket baseline of the same language, and an interop
pair has two languages (or two ORBs) and no baseline that removes exactly the other side's share. The
meaningful comparison is with the two homogeneous pairs measured at the same point in the same run
(client->client and server->server), which summary.json gives beside it (`interop`).
"""

from __future__ import annotations

from pathlib import Path

from orbench.errors import UserError
from orbench.results.point import interop_label
from orbench.targets.descriptor import Target

KIND = "interop"


def _both(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(x for x in a if x in b)


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return a + tuple(x for x in b if x not in a)


def interop_target(client: Target, server: Target) -> Target:
    language = client.language if client.language == server.language else interop_label(client.language, server.language)
    java = [v for v in (client.required_java, server.required_java) if v is not None]
    return Target(
        name=interop_label(client.name, server.name),
        description=f"{client.name} client against a {server.name} server",
        language=language,
        kind=KIND,
        build=client.build if client.build == server.build else f"{client.build} {server.build}",
        server_argv=server.server_argv,
        client_argv=client.client_argv,
        modes=_both(client.modes, server.modes),
        payload_types=_both(client.payload_types, server.payload_types),
        options=_both(client.options, server.options),
        # What both ends always do (omniORB and JacORB: tcp_nodelay = true) the pair always does.
        fixed_options=tuple(sorted(set(client.fixed_options) & set(server.fixed_options))),
        refused_options=client.refused_options,  # refused by the client's ORB at connect
        baseline=None,
        family=client.family,
        required_files=_union(client.required_files, server.required_files),
        required_pkg_config=_union(client.required_pkg_config, server.required_pkg_config),
        required_commands=_union(client.required_commands, server.required_commands),
        required_java=max(java) if java else None,
        requires_hint="; ".join(h for h in (client.requires_hint, server.requires_hint) if h) or None,
        path=client.path,
        java=client.java or server.java,
    )


def resolve_interop(path: Path, pairs: list[list[str]], targets: dict[str, Target]) -> list[Target]:
    """The campaign's `interop` key as targets; every mistake names the file, the key and the value."""
    out: list[Target] = []
    for i, pair in enumerate(pairs):
        where = f"{path}: key interop[{i}]: value {pair!r}"
        client_name, server_name = pair
        for role, name in (("client", client_name), ("server", server_name)):
            if name not in targets:
                raise UserError(f"{where}: unknown {role} target {name!r}; known: {', '.join(sorted(targets))}")
        client, server = targets[client_name], targets[server_name]
        if client_name == server_name:
            raise UserError(f"{where}: client and server are the same target; list it under targets instead")
        if client.protocol != server.protocol:
            raise UserError(f"{where}: the {client_name} client speaks {client.protocol}, the {server_name} server "
                            f"{server.protocol}: they cannot talk")
        target = interop_target(client, server)
        if not target.modes:
            raise UserError(f"{where}: {client_name} and {server_name} have no mode in common")
        if target.name in [t.name for t in out]:
            raise UserError(f"{where}: listed twice")
        out.append(target)
    return out
