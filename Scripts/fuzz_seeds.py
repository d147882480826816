#!/usr/bin/env python3
"""Writes the seeds of the layer-4 fuzz targets (called by fuzz.sh).

usage: fuzz_seeds.py SEEDS_DIR CONFORMANCE_DIR

Makes SEEDS_DIR/{rivet,cbor,compat,actorkey,tinyvex}, one file a seed:
  rivet     every WebSocket frame and every HTTP action body of RivetKit's wire logs, and a few
            frames at the edges (largest ids, compat forms);
  cbor      CBOR creation inputs: integers at every head width, both bignum tags, byte and text
            strings, arrays, maps, floats, simple values, nesting;
  compat    JSON with RivetKit's compat forms;
  actorkey  actor keys with separators, escapes and empty parts, in both forms;
  tinyvex   JSON-RPC sessions against the demo schema, one frame a line.
"""
import json
import pathlib
import re
import struct
import sys


def write_all(folder, seeds):
    folder.mkdir(parents=True, exist_ok=True)
    for index, seed in enumerate(seeds):
        data = seed if isinstance(seed, bytes) else seed.encode()
        (folder / f"seed-{index:04d}").write_bytes(data)


def rivet_seeds(conformance):
    seeds = []
    for log in sorted((conformance / "rivetkit").glob("*.txt")):
        for line in log.read_text(errors="replace").splitlines():
            match = re.match(r"\[wire\] (ws_send|ws_recv|http_request|http_response) (\{.*\})$", line)
            if not match:
                continue
            try:
                record = json.loads(match.group(2))
            except ValueError:
                continue
            for key in ("frame", "body"):
                text = record.get(key)
                if isinstance(text, str) and text:
                    seeds.append(text)
    seeds += [
        '{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","18446744073709551615"],"name":"increment","args":[9223372036854775807]}}}',
        '{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","18446744073709551616"],"name":"x","args":[]}}}',
        '{"body":{"tag":"ActionRequest","val":{"id":["$BigInt","-1"],"name":"x","args":[]}}}',
        '{"body":{"tag":"ActionRequest","val":{"id":0,"name":"a\\u0000b","args":[["$Uint8Array","AAEC"],["$$x",1],["$Set",[1,2]],["$Undefined",0]]}}}',
        '{"body":{"tag":"ActionResponse","val":{"id":["$BigInt","7"],"output":["$BigInt","-9223372036854775809"]}}}',
        '{"body":{"tag":"Error","val":{"group":"actor","code":"x","message":"m","metadata":null,"actionId":["$BigInt","1"]}}}',
        '{"body":{"tag":"Event","val":{"name":"newCount","args":[1e308,-0.0,1.5]}}}',
        '{"body":{"tag":"SubscriptionRequest","val":{"eventName":"","subscribe":false}}}',
    ]
    return seeds


def cbor_head(major, argument):
    if argument < 24:
        return bytes([major << 5 | argument])
    for info, width, fmt in ((24, 1, ">B"), (25, 2, ">H"), (26, 4, ">I"), (27, 8, ">Q")):
        if argument < 1 << (8 * width):
            return bytes([major << 5 | info]) + struct.pack(fmt, argument)
    raise ValueError(argument)


def cbor(value):
    if value is None:
        return b"\xf6"
    if value is True:
        return b"\xf5"
    if value is False:
        return b"\xf4"
    if isinstance(value, int):
        if 0 <= value < 1 << 64:
            return cbor_head(0, value)
        if -(1 << 64) <= value < 0:
            return cbor_head(1, -1 - value)
        magnitude = value if value >= 0 else -1 - value
        digits = magnitude.to_bytes(max(1, (magnitude.bit_length() + 7) // 8), "big")
        return cbor_head(6, 2 if value >= 0 else 3) + cbor_head(2, len(digits)) + digits
    if isinstance(value, float):
        return b"\xfb" + struct.pack(">d", value)
    if isinstance(value, bytes):
        return cbor_head(2, len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return cbor_head(3, len(data)) + data
    if isinstance(value, list):
        return cbor_head(4, len(value)) + b"".join(cbor(item) for item in value)
    if isinstance(value, dict):
        return cbor_head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(value)


def cbor_seeds():
    values = [0, 23, 24, 255, 256, 65535, 65536, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1,
              -1, -24, -25, -(1 << 63), -(1 << 63) - 1, -(1 << 64),
              1 << 64, -(1 << 64) - 1, 1 << 100, -(1 << 100),
              1.5, -0.0, 1e308, float("inf"), float("nan"),
              b"", b"\x00\x01\x02", "", "text", "a\x00b",
              [], [1, [2, [3]]], {}, {"count": 5, "name": "x"}, {"nested": {"list": [None, True, False]}}]
    seeds = [cbor(value) for value in values]
    seeds += [
        b"\xf7",                          # undefined
        b"\xf9\x3c\x00",                  # half-precision 1.0
        b"\xfa\x3f\xc0\x00\x00",          # single-precision 1.5
        b"\xc3\x48\xff\xff\xff\xff\xff\xff\xff\xff",  # negative bignum of 2^64
        b"\xc3\x40",                      # negative bignum with no digits
        b"\xc2\x40",                      # bignum with no digits
        b"\xd9\xd9\xf7\x01",              # self-described CBOR tag
        b"\x9f\x01\xff",                  # indefinite array (refused)
        b"\x5b\xff\xff\xff\xff\xff\xff\xff\xff",  # byte string of 2^64-1 bytes (truncated)
        b"\x9b\x7f\xff\xff\xff\xff\xff\xff\xff",  # array of 2^63-1 elements (truncated)
    ]
    return seeds


def compat_seeds():
    return [
        '["$BigInt","12345678901234567890123"]', '["$BigInt","-9223372036854775808"]', '["$BigInt",""]',
        '["$BigInt","-"]', '["$Undefined",0]', '["$Uint8Array","AAECAw=="]', '["$ArrayBuffer","!!"]',
        '["$Set",[1,["$BigInt","2"]]]', '["$$x",["$$$y",1]]', '{"a":["$Unknown",1]}',
        '[["$BigInt","1"],{"k":["$Undefined",0]}]', '"18446744073709551615"', '["$BigInt","18446744073709551615"]',
    ]


def actorkey_seeds():
    return ["k1", "/", "", "\\0", "a/b", "a\\/b", "\\\\", "\\0/\\0", "a/", "/a", "a\\", "a%2Cb,c", ",", "%00",
            "a\x00b", "%2C,%2F", "+", "%", "%ZZ", "\\x", "a/\\0/b"]


def tinyvex_seeds():
    def request(id_, method, params):
        return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})

    connect = request(1, "tinyvex/connect", {"token": None})
    return ["\n".join(lines) for lines in [
        [connect, request(2, "tinyvex/subscribe", {"subId": "s1", "name": "messages.list", "params": {"channel": "general"}}),
         request(3, "tinyvex/mutation", {"requestId": "r1", "name": "messages.send",
                                         "args": {"channel": "general", "author": "a", "text": "hi"}}),
         request(4, "tinyvex/unsubscribe", {"subId": "s1"})],
        [connect, request(2, "tinyvex/subscribe", {"subId": "s", "name": "channels.list", "params": {},
                                                   "lastSeq": 9223372036854775807}),
         request(3, "tinyvex/mutation", {"requestId": "r", "name": "messages.send",
                                         "args": {"channel": "c", "author": "a", "text": "t"}})],
        [connect, request(2, "tinyvex/mutation", {"requestId": "a\u0000b", "name": "messages.clear",
                                                   "args": {"channel": "alice\u0000wipe"}})],
        [connect, request(2, "tinyvex/action", {"name": "messages.sendLater",
                                                 "args": {"channel": "c", "author": "a", "text": "t", "delayMs": 9223372036854775807}})],
        [request(1, "tinyvex/ping", {"t": 1}), request(2, "tinyvex/ping", {}), request(3, "tinyvex/auth.setToken", {"token": "x"})],
        ['[' + connect + ',' + request(2, "tinyvex/ping", {}) + ']', '[]', '{"jsonrpc":"2.0","method":"tinyvex/ping"}',
         '{"jsonrpc":"2.0","id":1,"result":1}', 'not json'],
    ]]


def main():
    seeds_dir, conformance = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    write_all(seeds_dir / "rivet", rivet_seeds(conformance))
    write_all(seeds_dir / "cbor", cbor_seeds())
    write_all(seeds_dir / "compat", compat_seeds())
    write_all(seeds_dir / "actorkey", actorkey_seeds())
    write_all(seeds_dir / "tinyvex", tinyvex_seeds())


if __name__ == "__main__":
    main()
