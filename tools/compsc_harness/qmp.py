"""The harness's one QMP client: QEMU's own library (qemu.qmp), driven
synchronously, one connection per command. The QEMUs the tests talk to
come and go on the same sockets and ports (a migration's destination
takes the source's place), so no session is kept between commands.

@address is what QMPClient.connect() takes (a UNIX socket's path, a
(host, port) pair, a connected socket) or a function returning one,
called for each try (the nested bench's ports are reached through a
network namespace: nested.L1)."""
from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Callable, Union

from qemu.qmp import ExecuteError, QMPClient, QMPError

from .vm import BenchError

Address = Union[str, tuple, Any, Callable[[], Any]]


class QMPFailed(BenchError):
    """A QMP command failed, or its QEMU gave no answer."""


async def close(client: QMPClient) -> None:
    """Disconnect; an error the session already had (EOF after quit, a
    dropped connection) was reported where it mattered."""
    try:
        await client.disconnect()
    except (QMPError, OSError, EOFError):
        pass


async def connect(address: Address, timeout: float, what: str) -> QMPClient:
    """A negotiated session. A QEMU that has just started may not listen
    yet (a port forwarder then takes the connection and drops it at
    once): tried again every half second until @timeout."""
    end = time.monotonic() + timeout
    while True:
        client = QMPClient(what)
        try:
            where = address() if callable(address) else address
            await asyncio.wait_for(client.connect(where), 10)
            return client
        except (QMPError, OSError) as e:    # TimeoutError is an OSError
            await close(client)
            if time.monotonic() >= end:
                raise QMPFailed(f"{what}: no QMP server in {timeout} s: {e!r}") from None
        await asyncio.sleep(0.5)


def execute(address: Address, command: str, args: dict | None = None,
            timeout: float = 30, target: str = "QEMU") -> dict:
    """@command with @args to the QEMU at @address: its "return", or
    QMPFailed naming the command, @target and QEMU's error."""
    return asyncio.run(_execute(address, command, args or {}, timeout, target))


async def _execute(address, command: str, args: dict, timeout: float, target: str):
    what = f"QMP {command} {json.dumps(args)} to {target}"
    client = await connect(address, timeout, what)
    try:
        return await asyncio.wait_for(client.execute(command, args), timeout)
    except ExecuteError as e:
        raise QMPFailed(f"{what}: {e.error_class}: {e}") from None
    except (QMPError, OSError) as e:
        raise QMPFailed(f"{what}: no answer (waited up to {timeout} s): {e!r}") from None
    finally:
        await close(client)


def device_del(address: Address, dev_id: str, timeout: float = 60,
               target: str = "QEMU") -> float:
    """device_del of @dev_id and the wait for its DEVICE_DELETED event
    (the guest has let go of the device): seconds from command to event."""
    return asyncio.run(_device_del(address, dev_id, timeout, target))


async def _device_del(address, dev_id: str, timeout: float, target: str) -> float:
    what = f"QMP device_del {dev_id} to {target}"
    client = await connect(address, timeout, what)
    try:
        # listening before the command: the event may come at once
        with client.listener("DEVICE_DELETED") as events:
            t0 = time.monotonic()
            await asyncio.wait_for(client.execute("device_del", {"id": dev_id}), timeout)
            await asyncio.wait_for(_deleted(events, dev_id), timeout)
            return time.monotonic() - t0
    except ExecuteError as e:
        raise QMPFailed(f"{what}: {e.error_class}: {e}") from None
    except (QMPError, OSError) as e:
        raise QMPFailed(f"{what}: no DEVICE_DELETED in {timeout} s "
                        f"(the guest did not give the device back): {e!r}") from None
    finally:
        await close(client)


async def _deleted(events, dev_id: str) -> None:
    """Until DEVICE_DELETED for @dev_id arrives on @events (one also
    comes for the device's QOM child paths, without "device")."""
    async for ev in events:
        if ev.get("data", {}).get("device") == dev_id:
            return
