"""What the memory probes (probe-memory-*.py) share: the server under test and a WebSocket
client over a raw socket that reads only when asked (Python 3 standard library only).

  Server     starts `<binary> serve --demo` on 127.0.0.1 with a free port and samples the
             resident memory of the process from /proc/<pid>/status every 20 ms
  frame      a client text frame
  WebSocket  the upgrade, then text frames out and frames in when asked

The probes import it from their own folder.
"""

import base64
import os
import pathlib
import socket
import struct
import subprocess
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
# Where the debug build of the shared build folder puts its executables.
DEBUG_BUILD = REPO / ".build" / "debug"


class Server:
    """One `<binary> serve --demo` process on a free port, sampled every 20 ms."""

    def __init__(self, binary):
        self.process = subprocess.Popen(
            [str(binary), "serve", "--demo", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        # READY <endpoint>, the endpoint ending with the port (and maybe a slash).
        line = self.process.stdout.readline().strip()
        if not line.startswith("READY "):
            self.stop()
            raise SystemExit(f"the server did not start: {line!r}")
        self.port = int(line.rstrip("/").rsplit(":", 1)[1])
        self.peak_kb = 0
        self._sampling = True
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def rss_kb(self):
        """The resident memory of the process now, in KiB (0 once it is gone)."""
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def _sample(self):
        while self._sampling:
            self.peak_kb = max(self.peak_kb, self.rss_kb())
            time.sleep(0.02)

    def reset_peak(self):
        """Starts the peak again from the memory now, and returns it."""
        self.peak_kb = self.rss_kb()
        return self.peak_kb

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        self._sampling = False
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def frame(payload):
    """A client text frame of `payload` (text or bytes). A client frame must be masked; a zero
    key leaves the payload as it is."""
    if isinstance(payload, str):
        payload = payload.encode()
    header = bytearray([0x81])
    length = len(payload)
    if length < 126:
        header.append(0x80 | length)
    elif length < 65536:
        header.append(0x80 | 126)
        header += struct.pack("!H", length)
    else:
        header.append(0x80 | 127)
        header += struct.pack("!Q", length)
    return bytes(header) + b"\x00\x00\x00\x00" + payload


class WebSocket:
    """A WebSocket client over a raw socket: it sends text frames and reads only when asked."""

    def __init__(self, port, path="/", protocol=None):
        """Connects to 127.0.0.1:`port` and upgrades `path`, asking for the subprotocols
        `protocol` when given."""
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        )
        if protocol:
            request += f"Sec-WebSocket-Protocol: {protocol}\r\n"
        self.sock.sendall((request + "\r\n").encode())
        # Byte by byte, so that nothing past the response head is read here.
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("the server closed during the upgrade")
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise ConnectionError(f"the upgrade was refused: {status.decode(errors='replace')}")
        self.buffer = b""

    def send_text(self, payload):
        self.sock.sendall(frame(payload))

    def read_frame(self):
        """The opcode and payload of the next server frame (unmasked)."""

        def need(count):
            while len(self.buffer) < count:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("the server closed the connection")
                self.buffer += chunk

        need(2)
        first, second = self.buffer[0], self.buffer[1]
        length = second & 0x7F
        offset = 2
        if length == 126:
            need(4)
            length = struct.unpack("!H", self.buffer[2:4])[0]
            offset = 4
        elif length == 127:
            need(10)
            length = struct.unpack("!Q", self.buffer[2:10])[0]
            offset = 10
        need(offset + length)
        payload = self.buffer[offset : offset + length]
        self.buffer = self.buffer[offset + length :]
        return first & 0x0F, payload

    def read_text(self):
        """The payload of the next server frame, whatever its opcode, as text."""
        return self.read_frame()[1].decode(errors="replace")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
