"""A WebSocket peer for the interop tests, built on the `websockets` package.

Server mode echoes every message back and reports each connection on stdout as JSON lines:

    ws_peer.py server [--no-deflate] [--subprotocol NAME ...]
                      [--cert PEM --key PEM] [--client-ca PEM --require-client-cert]
                      [--close-trigger TEXT --close-code N --close-reason TEXT]
                      [--oversize-trigger TEXT --oversize-bytes N] [--fragment-size N]
                      [--report-pings]

It listens on 127.0.0.1 on a free port and prints `READY <port>` once it accepts connections.
Then, per connection: {"event": "open", ...}, {"event": "message", ...} for each message
received, and {"event": "closed", "code": ..., "reason": ...} once it is over. With
`--report-pings`, also {"event": "ping", "length": ..., "data": HEX} for each ping received,
printed once its pong has been written.

Client mode connects, sends messages one at a time, waits for each reply and prints it:

    ws_peer.py client URL [--no-deflate] [--subprotocol NAME ...]
                          [--ca PEM] [--cert PEM --key PEM]
                          [--send SPEC ...] [--expect-close] [--close-code N --close-reason TEXT]
                          [--ping-interval SECONDS --ping-timeout SECONDS] [--linger SECONDS]
                          [--fragment-size N]

A SPEC is `text:<bytes>` or `binary:<bytes>` (generated content, see `pattern_text` and
`pattern_binary`) or `literal:<text>`. `--linger` waits that long after the messages before
closing; with `--ping-interval` the client pings meanwhile and closes with 1011 when a pong
takes longer than `--ping-timeout`; each pong it receives is printed as {"event": "pong",
"length": ..., "data": HEX}. Every line printed is one JSON object: "open", "message"
(with "matches_sent"), "closed" or "error". The exit status is 0 when the session ran as asked,
1 when connecting failed.

In both modes `--fragment-size N` sends every message longer than N (characters for text,
bytes for binary) as a fragmented message of pieces of that size.
"""

import argparse
import asyncio
import json
import signal
import ssl
import sys

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

# Large enough for the biggest message a test sends (4 MiB) with room to spare.
MAX_MESSAGE_SIZE = 64 * 1024 * 1024

# The pieces generated text is made of: ASCII and two-, three- and four-byte UTF-8 sequences, so
# that fragmenting a message splits characters across frames.
TEXT_PIECES = ["abcdefghij", "\u00e9", "xyz", "\u2713", "0123", "\U0001d11e", " "]


def pattern_text(size):
    """Text of exactly `size` UTF-8 bytes: the pieces in turn while they fit, then dots."""
    parts = []
    used = 0
    index = 0
    while True:
        piece = TEXT_PIECES[index % len(TEXT_PIECES)]
        length = len(piece.encode("utf-8"))
        if used + length > size:
            break
        parts.append(piece)
        used += length
        index += 1
    parts.append("." * (size - used))
    return "".join(parts)


def pattern_binary(size):
    """Bytes of exactly `size`: byte i is (i * 167 + 13) mod 256."""
    period = bytes((i * 167 + 13) & 0xFF for i in range(256))
    return (period * (size // 256 + 1))[:size]


def emit(record):
    print(json.dumps(record), flush=True)


def describe(message):
    is_text = isinstance(message, str)
    payload = message.encode("utf-8") if is_text else message
    record = {"kind": "text" if is_text else "binary", "length": len(payload)}
    if is_text and len(payload) <= 256:
        record["text"] = message
    return record


async def send(connection, message, fragment_size):
    """Sends `message`, fragmented into pieces of `fragment_size` when that is set."""
    if fragment_size and len(message) > fragment_size:
        pieces = [message[start:start + fragment_size] for start in range(0, len(message), fragment_size)]
        await connection.send(pieces)
    else:
        await connection.send(message)


def header_value(headers, name):
    value = headers.get(name) if headers is not None else None
    return value if value is not None else ""


def report_control_frame(event, opcode, name):
    """Prints a control frame of `opcode` as a `name` event."""
    if isinstance(event, Frame) and event.opcode is opcode:
        data = bytes(event.data)
        emit({"event": name, "length": len(data), "data": data.hex()})


class PingReportingServerConnection(ServerConnection):
    """Reports every ping received. The library answers a ping while parsing it and writes the
    pong before frames are processed, so a ping is reported once its pong has been written."""

    def process_event(self, event):
        if self.request is not None:
            report_control_frame(event, Opcode.PING, "ping")
        super().process_event(event)


class PongReportingClientConnection(ClientConnection):
    """Reports every pong received, so the client's keepalive shows it was answered."""

    def process_event(self, event):
        if self.response is not None:
            report_control_frame(event, Opcode.PONG, "pong")
        super().process_event(event)


# MARK: - Server


async def run_server(options):
    tls = None
    if options.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(options.cert, options.key)
        if options.client_ca:
            tls.load_verify_locations(cafile=options.client_ca)
            tls.verify_mode = ssl.CERT_REQUIRED if options.require_client_cert else ssl.CERT_OPTIONAL

    async def handle(connection):
        response_headers = connection.response.headers if connection.response else None
        emit({
            "event": "open",
            "path": connection.request.path,
            "subprotocol": connection.subprotocol,
            "extensions": header_value(response_headers, "Sec-WebSocket-Extensions"),
            "offered_extensions": header_value(connection.request.headers, "Sec-WebSocket-Extensions"),
        })
        try:
            async for message in connection:
                record = {"event": "message"}
                record.update(describe(message))
                emit(record)
                if options.close_trigger is not None and message == options.close_trigger:
                    await connection.close(options.close_code, options.close_reason)
                    break
                if options.oversize_trigger is not None and message == options.oversize_trigger:
                    await connection.send(pattern_text(options.oversize_bytes))
                    continue
                await send(connection, message, options.fragment_size)
        except ConnectionClosed:
            pass
        await connection.wait_closed()
        emit({"event": "closed", "code": connection.close_code, "reason": connection.close_reason})

    async with serve(
        handle,
        "127.0.0.1",
        0,
        ssl=tls,
        compression=None if options.no_deflate else "deflate",
        subprotocols=options.subprotocol or None,
        max_size=MAX_MESSAGE_SIZE,
        ping_interval=None,
        create_connection=PingReportingServerConnection if options.report_pings else None,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"READY {port}", flush=True)
        stop = asyncio.get_running_loop().create_future()
        for signal_number in (signal.SIGTERM, signal.SIGINT):
            asyncio.get_running_loop().add_signal_handler(signal_number, stop.set_result, None)
        await stop


# MARK: - Client


def make_message(spec):
    kind, _, value = spec.partition(":")
    if kind == "text":
        return pattern_text(int(value))
    if kind == "binary":
        return pattern_binary(int(value))
    if kind == "literal":
        return value
    raise ValueError(f"unknown message spec {spec!r}")


async def run_client(options):
    tls = None
    if options.url.startswith("wss:"):
        tls = ssl.create_default_context(cafile=options.ca)
        if options.cert:
            tls.load_cert_chain(options.cert, options.key)

    try:
        connection = await connect(
            options.url,
            ssl=tls,
            compression=None if options.no_deflate else "deflate",
            subprotocols=options.subprotocol or None,
            max_size=MAX_MESSAGE_SIZE,
            ping_interval=options.ping_interval,
            ping_timeout=options.ping_timeout,
            open_timeout=10,
            close_timeout=5,
            create_connection=PongReportingClientConnection,
        )
    except Exception as error:  # any failure to connect is reported, not raised
        emit({"event": "error", "stage": "connect", "type": type(error).__name__, "message": str(error)})
        return 1

    emit({
        "event": "open",
        "subprotocol": connection.subprotocol,
        "extensions": header_value(connection.response.headers, "Sec-WebSocket-Extensions"),
    })
    try:
        for spec in options.send:
            message = make_message(spec)
            await send(connection, message, options.fragment_size)
            reply = await asyncio.wait_for(connection.recv(), timeout=20)
            record = {"event": "message", "matches_sent": reply == message}
            record.update(describe(reply))
            emit(record)
        if options.linger > 0:
            await asyncio.sleep(options.linger)
        if options.expect_close:
            try:
                extra = await asyncio.wait_for(connection.recv(), timeout=20)
                record = {"event": "message", "unexpected": True}
                record.update(describe(extra))
                emit(record)
            except ConnectionClosed:
                pass
        elif options.close_code is not None:
            await connection.close(options.close_code, options.close_reason)
        else:
            await connection.close()
    except ConnectionClosed:
        pass
    except Exception as error:
        emit({"event": "error", "stage": "session", "type": type(error).__name__, "message": str(error)})
    await connection.wait_closed()
    emit({"event": "closed", "code": connection.close_code, "reason": connection.close_reason})
    return 0


# MARK: - Command line


def parse(arguments):
    parser = argparse.ArgumentParser(description="WebSocket interop peer")
    modes = parser.add_subparsers(dest="mode", required=True)

    server = modes.add_parser("server")
    server.add_argument("--no-deflate", action="store_true")
    server.add_argument("--subprotocol", action="append", default=[])
    server.add_argument("--cert")
    server.add_argument("--key")
    server.add_argument("--client-ca")
    server.add_argument("--require-client-cert", action="store_true")
    server.add_argument("--close-trigger")
    server.add_argument("--close-code", type=int, default=1000)
    server.add_argument("--close-reason", default="")
    server.add_argument("--oversize-trigger")
    server.add_argument("--oversize-bytes", type=int, default=0)
    server.add_argument("--fragment-size", type=int)
    server.add_argument("--report-pings", action="store_true")

    client = modes.add_parser("client")
    client.add_argument("url")
    client.add_argument("--no-deflate", action="store_true")
    client.add_argument("--subprotocol", action="append", default=[])
    client.add_argument("--ca")
    client.add_argument("--cert")
    client.add_argument("--key")
    client.add_argument("--send", action="append", default=[])
    client.add_argument("--expect-close", action="store_true")
    client.add_argument("--close-code", type=int)
    client.add_argument("--close-reason", default="")
    client.add_argument("--ping-interval", type=float)
    client.add_argument("--ping-timeout", type=float)
    client.add_argument("--linger", type=float, default=0)
    client.add_argument("--fragment-size", type=int)
    return parser.parse_args(arguments)


def main():
    options = parse(sys.argv[1:])
    if options.mode == "server":
        asyncio.run(run_server(options))
        return 0
    return asyncio.run(run_client(options))


if __name__ == "__main__":
    sys.exit(main())
