import NIOCore
import RpcTransport
import Testing

@testable import RpcTransportNIO

@Suite("WebSocket state machine")
struct WebSocketStateMachineTests {
    // MARK: Messages

    @Test("A message in one frame is delivered unmasked, and the read leaves no timer running")
    func singleFrame() {
        var machine = Harness.machine()
        let steps = Harness.read(TestFrame.encode(opcode: 0x1, payload: Array("hello".utf8)), into: &machine)
        #expect(steps == [.deliver(.text("hello"))])
        #expect(!machine.frameTimerRunning)
    }

    @Test(
        "Fragments are reassembled, and control frames between them are answered first",
        arguments: [
            FragmentCase(
                name: "text in three frames",
                frames: [
                    TestFrame.encode(opcode: 0x1, payload: Array("Hel".utf8), fin: false),
                    TestFrame.encode(opcode: 0x0, payload: Array("lo ".utf8), fin: false),
                    TestFrame.encode(opcode: 0x0, payload: Array("world".utf8)),
                ],
                expected: [.deliver(.text("Hello world"))]),
            FragmentCase(
                name: "binary with a ping and a pong between the frames",
                frames: [
                    TestFrame.encode(opcode: 0x2, payload: [1, 2], fin: false),
                    TestFrame.encode(opcode: 0x9, payload: [7]),
                    TestFrame.encode(opcode: 0x0, payload: [3], fin: false),
                    TestFrame.encode(opcode: 0xA),
                    TestFrame.encode(opcode: 0x0, payload: [4, 5]),
                ],
                expected: [.sendPong([7]), .answerPings, .deliver(.binary([1, 2, 3, 4, 5]))]),
            FragmentCase(
                name: "an empty first frame and an empty last frame",
                frames: [
                    TestFrame.encode(opcode: 0x1, fin: false),
                    TestFrame.encode(opcode: 0x0, payload: Array("é".utf8), fin: false),
                    TestFrame.encode(opcode: 0x0),
                ],
                expected: [.deliver(.text("é"))]),
            FragmentCase(
                name: "a character split between two frames",
                frames: [
                    TestFrame.encode(opcode: 0x1, payload: [0xE2, 0x82], fin: false),
                    TestFrame.encode(opcode: 0x0, payload: [0xAC]),
                ],
                expected: [.deliver(.text("€"))]),
            FragmentCase(
                name: "two messages back to back",
                frames: [
                    TestFrame.encode(opcode: 0x1, payload: Array("a".utf8), fin: false),
                    TestFrame.encode(opcode: 0x0, payload: Array("b".utf8)),
                    TestFrame.encode(opcode: 0x2, payload: [9]),
                ],
                expected: [.deliver(.text("ab")), .deliver(.binary([9]))]),
        ]
    )
    func reassembly(fragmentCase: FragmentCase) {
        var machine = Harness.machine()
        let steps = Harness.read(fragmentCase.frames.flatMap { $0 }, into: &machine)
        #expect(steps == fragmentCase.expected)
    }

    @Test("Frames split across reads at any point give the same messages", arguments: [1, 2, 3, 5, 8, 13])
    func splitReads(chunkSize: Int) {
        let frames: [UInt8] =
            TestFrame.encode(opcode: 0x1, payload: Array("first message".utf8))
            + TestFrame.encode(opcode: 0x2, payload: Array(repeating: 0xAB, count: 300), fin: false)
            + TestFrame.encode(opcode: 0x9, payload: [1, 2, 3])
            + TestFrame.encode(opcode: 0x0, payload: Array(repeating: 0xCD, count: 200))
        var machine = Harness.machine()
        var delivered: [Harness.Step] = []
        var start = 0
        while start < frames.count {
            let end = min(start + chunkSize, frames.count)
            delivered += Harness.read(Array(frames[start ..< end]), into: &machine).filter { !$0.isFrameTimer }
            start = end
        }
        #expect(
            delivered == [
                .deliver(.text("first message")),
                .sendPong([1, 2, 3]),
                .deliver(.binary(Array(repeating: 0xAB, count: 300) + Array(repeating: 0xCD, count: 200))),
            ])
        #expect(!machine.frameTimerRunning)
    }

    @Test("A delivered message keeps its bytes when the next message arrives")
    func deliveredMessagesDoNotChange() {
        var machine = Harness.machine()
        let first = Harness.read(TestFrame.encode(opcode: 0x2, payload: [1, 2, 3, 4]), into: &machine)
        let second = Harness.read(TestFrame.encode(opcode: 0x2, payload: [9, 9]), into: &machine)
        #expect(first == [.deliver(.binary([1, 2, 3, 4]))])
        #expect(second == [.deliver(.binary([9, 9]))])
    }

    @Test(
        "Messages above the limit fail the connection with 1009",
        arguments: [
            [TestFrame.encode(opcode: 0x2, payload: Array(repeating: 0, count: 101))],
            [
                TestFrame.encode(opcode: 0x1, payload: Array(repeating: 0x61, count: 60), fin: false),
                TestFrame.encode(opcode: 0x0, payload: Array(repeating: 0x61, count: 41)),
            ],
            // Larger than the frame limit: refused from its header, before its payload is read.
            [TestFrame.encode(opcode: 0x2, payload: [], declaredLength: 1_000)],
        ]
    )
    func oversized(frames: [[UInt8]]) {
        var machine = Harness.machine(maxFrameSize: 200, maxMessageSize: 100)
        let steps = Harness.read(frames.flatMap { $0 }, into: &machine)
        #expect(steps.first?.closeCode == CloseCode.messageTooBig.rawValue)
        #expect(steps.count == 1)
        #expect(Harness.finish(&machine)?.error?.code == .messageTooLarge)
    }

    @Test("A message exactly at the limit is delivered")
    func messageAtTheLimit() {
        var machine = Harness.machine(maxFrameSize: 200, maxMessageSize: 100)
        let frames =
            TestFrame.encode(opcode: 0x2, payload: Array(repeating: 1, count: 50), fin: false)
            + TestFrame.encode(opcode: 0x0, payload: Array(repeating: 2, count: 50))
        #expect(
            Harness.read(frames, into: &machine)
                == [.deliver(.binary(Array(repeating: 1, count: 50) + Array(repeating: 2, count: 50)))])
    }

    @Test(
        "Text that is not UTF-8 fails the connection with 1007, whether in one frame or several",
        arguments: [
            [TestFrame.encode(opcode: 0x1, payload: [0x61, 0xC3])],
            [
                TestFrame.encode(opcode: 0x1, payload: [0x61, 0xE2, 0x82], fin: false),
                TestFrame.encode(opcode: 0x0, payload: [0x41]),
            ],
        ]
    )
    func invalidText(frames: [[UInt8]]) {
        var machine = Harness.machine()
        let steps = Harness.read(frames.flatMap { $0 }, into: &machine)
        #expect(
            steps == [.sendClose(code: 1007, reason: "text message is not valid UTF-8", thenCloseChannel: true)])
        #expect(Harness.finish(&machine)?.error?.code == .invalidUTF8)
    }

    @Test("Binary messages are not checked for UTF-8")
    func binaryIsNotValidated() {
        var machine = Harness.machine()
        #expect(
            Harness.read(TestFrame.encode(opcode: 0x2, payload: [0xFF, 0xC3]), into: &machine)
                == [.deliver(.binary([0xFF, 0xC3]))])
    }

    // MARK: Protocol violations

    @Test("Frames the protocol forbids fail the connection with their close code", arguments: Violation.all)
    func violations(violation: Violation) {
        var machine = Harness.machine(role: violation.role)
        // A well-formed message after the offending frame must not be read.
        let after = TestFrame.encode(opcode: 0x2, payload: [1], masked: violation.role == .server)
        let steps = Harness.read(violation.frames.flatMap { $0 } + after, into: &machine)
        #expect(steps == [.sendClose(code: violation.closeCode, reason: violation.reason, thenCloseChannel: true)])
        #expect(!machine.isOpen)
        let closure = Harness.finish(&machine)
        #expect(closure?.code?.rawValue == violation.closeCode)
        #expect(closure?.initiatedLocally == true)
        #expect(closure?.error?.code == violation.errorCode)
    }

    @Test("A client accepts the unmasked frames of a server")
    func clientReadsUnmaskedFrames() {
        var machine = Harness.machine(role: .client)
        #expect(
            Harness.read(TestFrame.encode(opcode: 0x1, payload: Array("hi".utf8), masked: false), into: &machine)
                == [.deliver(.text("hi"))])
    }

    // MARK: Close handshake

    @Test("When this side closes first, the peer's close frame closes the channel and the close is clean")
    func localCloseFirst() {
        var machine = Harness.machine()
        #expect(
            Harness.Step(machine.closeRequested(code: .normal, reason: "bye"))
                == .sendClose(code: 1000, reason: "bye", thenCloseChannel: false))
        #expect(!machine.isOpen)
        // Closing again, or pinging, does nothing once the close started.
        #expect(Harness.Step(machine.closeRequested(code: .goingAway, reason: "again")) == nil)
        #expect(Harness.Step(machine.pingRequested()) == nil)
        // Messages still arriving are delivered; pings are no longer answered.
        let steps = Harness.read(
            TestFrame.encode(opcode: 0x1, payload: Array("late".utf8)) + TestFrame.encode(opcode: 0x9, payload: [1])
                + TestFrame.encode(opcode: 0x8, payload: TestFrame.closePayload(1000, "ok")),
            into: &machine)
        #expect(steps == [.deliver(.text("late")), .closeChannel])
        let closure = Harness.finish(&machine)
        #expect(closure?.code == .normal)
        #expect(closure?.reason == "bye")
        #expect(closure?.initiatedLocally == true)
        #expect(closure?.isClean == true)
    }

    @Test("A close reason too long for a close frame is cut on a character boundary")
    func longCloseReason() {
        var machine = Harness.machine()
        let reason = String(repeating: "€", count: 50)
        #expect(
            Harness.Step(machine.closeRequested(code: .normal, reason: reason))
                == .sendClose(code: 1000, reason: String(repeating: "€", count: 41), thenCloseChannel: false))
    }

    @Test(
        "When the peer closes first, its close frame is echoed, the channel closes after it, and nothing more is read",
        arguments: [
            (TestFrame.closePayload(1001, "going away"), UInt16(1001), "going away"),
            ([], UInt16(1005), ""),
            (TestFrame.closePayload(4000), UInt16(4000), ""),
        ] as [([UInt8], UInt16, String)]
    )
    func peerCloseFirst(payload: [UInt8], code: UInt16, reason: String) {
        var machine = Harness.machine()
        let steps = Harness.read(
            TestFrame.encode(opcode: 0x8, payload: payload) + TestFrame.encode(opcode: 0x2, payload: [1]),
            into: &machine)
        #expect(steps == [.sendClose(code: code, reason: "", thenCloseChannel: true)])
        #expect(Harness.Step(machine.closeRequested(code: .normal, reason: "")) == nil)
        let closure = Harness.finish(&machine)
        #expect(closure?.code?.rawValue == code)
        #expect(closure?.reason == reason)
        #expect(closure?.initiatedLocally == false)
        #expect(closure?.isClean == true)
    }

    @Test("The close timer cuts the channel and the connection ends with the close that was under way")
    func closeTimer() {
        var machine = Harness.machine()
        _ = machine.closeRequested(code: .goingAway, reason: "shutting down")
        #expect(Harness.Step(machine.closeTimerFired()) == .closeChannel)
        let closure = Harness.finish(&machine)
        #expect(closure?.code == .goingAway)
        #expect(closure?.reason == "shutting down")
        #expect(closure?.initiatedLocally == true)
    }

    @Test("A protocol error after this side's close frame closes the channel without a second close frame")
    func failureWhileClosing() {
        var machine = Harness.machine()
        _ = machine.closeRequested(code: .normal, reason: "")
        let steps = Harness.read(TestFrame.encode(opcode: 0x3), into: &machine)
        #expect(steps == [.closeChannel])
        #expect(Harness.Step(machine.fail(TransportError(code: .protocolViolation, message: "again"))) == nil)
    }

    @Test("The channel going away without a close handshake ends the connection as lost, once")
    func channelLost() {
        var machine = Harness.machine()
        let closure = Harness.finish(&machine)
        #expect(closure?.code == .abnormal)
        #expect(closure?.initiatedLocally == false)
        #expect(closure?.error?.code == .closed)
        #expect(machine.isFinished)
        #expect(Harness.Step(machine.channelClosed()) == nil)
        #expect(Harness.Step(machine.closeRequested(code: .normal, reason: "")) == nil)
        #expect(Harness.Step(machine.abort(TransportError(code: .ioError, message: "x"), initiatedLocally: true)) == nil)
    }

    @Test("An abort closes the channel at once; during the close handshake it keeps the close under way")
    func aborts() {
        var open = Harness.machine()
        let timeout = TransportError(code: .keepaliveTimeout, message: "no pong", closeCode: .goingAway)
        #expect(Harness.Step(open.abort(timeout, initiatedLocally: true)) == .closeChannel)
        let aborted = Harness.finish(&open)
        #expect(aborted?.code == .goingAway)
        #expect(aborted?.error?.code == .keepaliveTimeout)
        #expect(aborted?.initiatedLocally == true)

        var closing = Harness.machine()
        _ = closing.closeRequested(code: .normal, reason: "done")
        #expect(Harness.Step(closing.abort(timeout, initiatedLocally: true)) == .closeChannel)
        let closed = Harness.finish(&closing)
        #expect(closed?.code == .normal)
        #expect(closed?.isClean == true)
    }

    @Test("A channel error aborts an open connection as an I/O failure, and only closes the channel after the peer's close")
    func channelErrors() {
        struct Broken: Error {}
        var open = Harness.machine()
        #expect(Harness.Step(open.errorCaught(Broken())) == .closeChannel)
        let failed = Harness.finish(&open)
        #expect(failed?.error?.code == .ioError)
        #expect(failed?.code == .abnormal)
        #expect(failed?.initiatedLocally == false)

        var closed = Harness.machine()
        _ = Harness.read(TestFrame.encode(opcode: 0x8, payload: TestFrame.closePayload(1000)), into: &closed)
        #expect(Harness.Step(closed.errorCaught(Broken())) == .closeChannel)
        #expect(Harness.finish(&closed)?.isClean == true)

        var transportError = Harness.machine()
        let error = TransportError(code: .tlsHandshakeFailed, message: "bad record", closeCode: .abnormal)
        #expect(Harness.Step(transportError.errorCaught(error)) == .closeChannel)
        #expect(Harness.finish(&transportError)?.error?.code == .tlsHandshakeFailed)
    }

    // MARK: Timers and pings

    @Test("The frame read timer starts when a frame begins, keeps running while it trickles in, and stops when it is whole")
    func frameTimerArming() {
        var machine = Harness.machine()
        let first = TestFrame.encode(opcode: 0x2, payload: Array(repeating: 7, count: 20))
        let second = TestFrame.encode(opcode: 0x2, payload: [8])
        #expect(Harness.read(Array(first[0 ..< 5]), into: &machine) == [.startFrameTimer])
        #expect(Harness.read(Array(first[5 ..< 10]), into: &machine) == [])
        // The first frame completes and the second begins in the same read: its timer starts afresh.
        #expect(
            Harness.read(Array(first[10...]) + second[0 ..< 2], into: &machine)
                == [.deliver(.binary(Array(repeating: 7, count: 20))), .startFrameTimer])
        #expect(machine.frameTimerRunning)
        #expect(Harness.read(Array(second[2...]), into: &machine) == [.deliver(.binary([8])), .cancelFrameTimer])
        #expect(!machine.frameTimerRunning)
        // Whole frames alone touch no timer.
        #expect(Harness.read(second, into: &machine) == [.deliver(.binary([8]))])
    }

    @Test("The frame read timer firing fails the connection with 1008 and a read timeout")
    func frameTimerFiring() {
        var machine = Harness.machine()
        #expect(Harness.read([0x82, 0x85, 0x01], into: &machine) == [.startFrameTimer])
        #expect(
            Harness.Step(machine.frameReadTimerFired())
                == .sendClose(
                    code: 1008,
                    reason: "a frame began to arrive and did not finish within 2500 ms",
                    thenCloseChannel: true))
        #expect(!machine.frameTimerRunning)
        #expect(Harness.finish(&machine)?.error?.code == .readTimeout)
    }

    @Test("The frame read timer firing after the connection failed changes nothing")
    func frameTimerAfterFailure() {
        var machine = Harness.machine()
        _ = machine.fail(TransportError(code: .protocolViolation, message: "first"))
        #expect(Harness.Step(machine.frameReadTimerFired()) == nil)
        #expect(Harness.finish(&machine)?.error?.message == "first")
    }

    @Test("This side's pings are numbered by their payload, pongs answer the waiters, and the peer's pings are answered")
    func pingsAndPongs() {
        var machine = Harness.machine()
        #expect(Harness.Step(machine.pingRequested()) == .sendPing([0, 0, 0, 0, 0, 0, 0, 1]))
        #expect(Harness.Step(machine.pingRequested()) == .sendPing([0, 0, 0, 0, 0, 0, 0, 2]))
        let steps = Harness.read(
            TestFrame.encode(opcode: 0xA, payload: [0, 0, 0, 0, 0, 0, 0, 1])
                + TestFrame.encode(opcode: 0x9, payload: Array("are you there".utf8))
                + TestFrame.encode(opcode: 0x9),
            into: &machine)
        #expect(steps == [.answerPings, .sendPong(Array("are you there".utf8)), .sendPong([])])
    }

    // MARK: permessage-deflate

    @Test("Compressed messages are inflated, in one frame or fragmented with control frames between")
    func compressedMessages() throws {
        let (machineCodec, peer) = try Harness.codecs(maxMessageSize: 1 << 20)
        var machine = Harness.machine(maxMessageSize: 1 << 20, codec: machineCodec)
        let text = String(repeating: "compressible text ", count: 100)
        let whole = try Harness.compress(Array(text.utf8), with: peer)
        #expect(
            Harness.read(TestFrame.encode(opcode: 0x1, payload: whole, reserved: 0x40), into: &machine)
                == [.deliver(.text(text))])

        let binary = (0 ..< 3_000).map { UInt8(truncatingIfNeeded: $0 % 17) }
        let compressed = try Harness.compress(binary, with: peer)
        let middle = compressed.count / 2
        let frames =
            TestFrame.encode(opcode: 0x2, payload: Array(compressed[..<middle]), fin: false, reserved: 0x40)
            + TestFrame.encode(opcode: 0x9, payload: [5])
            + TestFrame.encode(opcode: 0x0, payload: Array(compressed[middle...]))
        #expect(Harness.read(frames, into: &machine) == [.sendPong([5]), .deliver(.binary(binary))])
        // Uncompressed messages still pass through as they are.
        #expect(
            Harness.read(TestFrame.encode(opcode: 0x1, payload: Array("plain".utf8)), into: &machine)
                == [.deliver(.text("plain"))])
    }

    @Test(
        "Compressed messages that break the rules fail the connection",
        arguments: [
            // RSV1 on a continuation frame.
            CompressedCase(payload: .text, rsv1OnContinuation: true, closeCode: 1002, errorCode: .protocolViolation),
            // Inflated text that is not UTF-8.
            CompressedCase(payload: .invalidText, closeCode: 1007, errorCode: .invalidUTF8),
            // Inflated past the message limit (a compression bomb).
            CompressedCase(payload: .zeros, closeCode: 1009, errorCode: .messageTooLarge),
            // Bytes that are not DEFLATE data.
            CompressedCase(payload: .garbage, closeCode: 1002, errorCode: .protocolViolation),
        ]
    )
    func compressedViolations(compressedCase: CompressedCase) throws {
        let (machineCodec, peer) = try Harness.codecs(maxMessageSize: 4_096)
        var machine = Harness.machine(maxMessageSize: 4_096, codec: machineCodec)
        let payload = try compressedCase.payload.bytes(compressedWith: peer)
        let opcode = compressedCase.payload.opcode
        let frames: [UInt8]
        if compressedCase.rsv1OnContinuation {
            let middle = payload.count / 2
            frames =
                TestFrame.encode(opcode: opcode, payload: Array(payload[..<middle]), fin: false, reserved: 0x40)
                + TestFrame.encode(opcode: 0x0, payload: Array(payload[middle...]), reserved: 0x40)
        } else {
            frames = TestFrame.encode(opcode: opcode, payload: payload, reserved: 0x40)
        }
        let steps = Harness.read(frames, into: &machine)
        #expect(steps.count == 1)
        #expect(steps.first?.closeCode == compressedCase.closeCode)
        #expect(Harness.finish(&machine)?.error?.code == compressedCase.errorCode)
    }
}

extension WebSocketStateMachineTests {
    // MARK: - Cases

    /// A fragmented message case: the frames of one read and what they must produce.
    struct FragmentCase: CustomTestStringConvertible, Sendable {
        var name: String
        var frames: [[UInt8]]
        var expected: [Harness.Step]

        var testDescription: String { name }
    }

    /// A frame the protocol forbids, on one side, with the close code and error it must cause.
    struct Violation: CustomTestStringConvertible, Sendable {
        var name: String
        var role: WebSocketConnectionSettings.Role = .server
        var frames: [[UInt8]]
        var closeCode: UInt16
        var reason: String
        var errorCode: TransportError.Code = .protocolViolation

        var testDescription: String { name }

        static let all: [Violation] = [
            Violation(
                name: "unmasked frame from a client", frames: [TestFrame.encode(opcode: 0x2, payload: [1], masked: false)],
                closeCode: 1002, reason: "client frame is not masked"),
            Violation(
                name: "masked frame from a server", role: .client, frames: [TestFrame.encode(opcode: 0x2, payload: [1])],
                closeCode: 1002, reason: "server frame is masked"),
            Violation(
                name: "RSV2 set", frames: [TestFrame.encode(opcode: 0x2, payload: [1], reserved: 0x20)],
                closeCode: 1002, reason: "reserved bits set without a negotiated extension"),
            Violation(
                name: "RSV3 set", frames: [TestFrame.encode(opcode: 0x2, payload: [1], reserved: 0x10)],
                closeCode: 1002, reason: "reserved bits set without a negotiated extension"),
            Violation(
                name: "RSV1 on a control frame", frames: [TestFrame.encode(opcode: 0x9, reserved: 0x40)],
                closeCode: 1002, reason: "RSV1 set on a control frame"),
            Violation(
                name: "RSV1 without permessage-deflate", frames: [TestFrame.encode(opcode: 0x1, payload: [0x61], reserved: 0x40)],
                closeCode: 1002, reason: "RSV1 set without permessage-deflate"),
            Violation(
                name: "reserved data opcode", frames: [TestFrame.encode(opcode: 0x3)],
                closeCode: 1002, reason: "frame with the reserved opcode 3"),
            Violation(
                name: "reserved control opcode", frames: [TestFrame.encode(opcode: 0xB)],
                closeCode: 1002, reason: "frame with the reserved opcode 11"),
            Violation(
                name: "continuation without a message", frames: [TestFrame.encode(opcode: 0x0, payload: [1])],
                closeCode: 1002, reason: "continuation frame without a message to continue"),
            Violation(
                name: "new message inside a fragmented one",
                frames: [TestFrame.encode(opcode: 0x1, payload: [0x61], fin: false), TestFrame.encode(opcode: 0x2, payload: [1])],
                closeCode: 1002, reason: "new message started before the fragmented one ended"),
            Violation(
                name: "RSV1 on a continuation frame",
                frames: [
                    TestFrame.encode(opcode: 0x2, payload: [1], fin: false),
                    TestFrame.encode(opcode: 0x0, payload: [2], reserved: 0x40),
                ],
                closeCode: 1002, reason: "RSV1 set on a continuation frame"),
            Violation(
                name: "fragmented ping", frames: [TestFrame.encode(opcode: 0x9, payload: [1], fin: false)],
                closeCode: 1002, reason: "fragmented control frame"),
            Violation(
                name: "ping longer than 125 bytes", frames: [TestFrame.encode(opcode: 0x9, payload: Array(repeating: 0, count: 126))],
                closeCode: 1002, reason: "control frame longer than 125 bytes"),
            Violation(
                name: "64-bit length with its top bit set",
                frames: [TestFrame.encode(opcode: 0x2, declaredLength: 1 << 63)],
                closeCode: 1002, reason: "frame length with its most significant bit set"),
            Violation(
                name: "close frame with a one-byte payload", frames: [TestFrame.encode(opcode: 0x8, payload: [0x03])],
                closeCode: 1002, reason: "close frame with a one-byte payload"),
            Violation(
                name: "close frame with a reserved code",
                frames: [TestFrame.encode(opcode: 0x8, payload: TestFrame.closePayload(1005))],
                closeCode: 1002, reason: "close frame with the invalid code 1005"),
            Violation(
                name: "close reason that is not UTF-8", frames: [TestFrame.encode(opcode: 0x8, payload: [0x03, 0xE8, 0xFF])],
                closeCode: 1007, reason: "close reason is not valid UTF-8", errorCode: .invalidUTF8),
        ]
    }

    /// A compressed message that breaks a rule, and the failure it must cause.
    struct CompressedCase: CustomTestStringConvertible, Sendable {
        /// What the frames carry.
        enum Payload: Sendable {
            case text, invalidText, zeros, garbage

            var opcode: UInt8 { self == .zeros || self == .garbage ? 0x2 : 0x1 }

            func bytes(compressedWith codec: PerMessageDeflateCodec) throws -> [UInt8] {
                switch self {
                case .text: try Harness.compress(Array(String(repeating: "abc", count: 200).utf8), with: codec)
                case .invalidText: try Harness.compress([0x61, 0x62, 0xFF, 0xFE], with: codec)
                case .zeros: try Harness.compress(Array(repeating: 0, count: 100_000), with: codec)
                case .garbage: [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x11]
                }
            }
        }

        var payload: Payload
        /// Whether the message is sent in two frames, the continuation with RSV1 set too.
        var rsv1OnContinuation = false
        var closeCode: UInt16
        var errorCode: TransportError.Code

        var testDescription: String { "\(payload), close code \(closeCode)" }
    }

    // MARK: - Harness

    /// Drives a ``WebSocketStateMachine`` as the connection handler does, recording its actions.
    enum Harness {
        /// An action, in a form tests can compare.
        enum Step: Equatable, Sendable {
            case deliver(TransportMessage)
            case answerPings
            case sendPong([UInt8])
            case sendPing([UInt8])
            case sendClose(code: UInt16, reason: String, thenCloseChannel: Bool)
            case closeChannel
            case startFrameTimer
            case cancelFrameTimer
            case finish

            /// `nil` for ``WebSocketStateMachine/Action/nothing``.
            init?(_ action: WebSocketStateMachine.Action) {
                switch action {
                case .nothing: return nil
                case .deliver(let message): self = .deliver(message)
                case .answerPings: self = .answerPings
                case .sendPong(let payload): self = .sendPong(payload)
                case .sendPing(let payload): self = .sendPing(payload)
                case .sendClose(let code, let reason, let thenCloseChannel):
                    self = .sendClose(code: code.rawValue, reason: reason, thenCloseChannel: thenCloseChannel)
                case .closeChannel: self = .closeChannel
                case .startFrameTimer: self = .startFrameTimer
                case .cancelFrameTimer: self = .cancelFrameTimer
                case .finish: self = .finish
                }
            }

            /// The code of a close frame to send.
            var closeCode: UInt16? {
                guard case .sendClose(let code, _, _) = self else { return nil }
                return code
            }

            var isFrameTimer: Bool { self == .startFrameTimer || self == .cancelFrameTimer }
        }

        static func settings(
            role: WebSocketConnectionSettings.Role,
            maxFrameSize: Int,
            maxMessageSize: Int
        ) -> WebSocketConnectionSettings {
            WebSocketConnectionSettings(
                role: role,
                maxFrameSize: maxFrameSize,
                maxMessageSize: maxMessageSize,
                maxOutboundFrameSize: 1 << 16,
                writeCoalescingLimit: 4_096,
                outboundBufferLimit: 1 << 20,
                maxPendingOutboundBytes: 1 << 22,
                keepalive: nil,
                closeTimeout: .seconds(5),
                frameReadTimeout: .milliseconds(2_500)
            )
        }

        static func machine(
            role: WebSocketConnectionSettings.Role = .server,
            maxFrameSize: Int = 1 << 20,
            maxMessageSize: Int = 1 << 20,
            codec: PerMessageDeflateCodec? = nil
        ) -> WebSocketStateMachine {
            WebSocketStateMachine(
                settings: settings(role: role, maxFrameSize: maxFrameSize, maxMessageSize: maxMessageSize), codec: codec)
        }

        /// Feeds the bytes of one read and returns the actions, those of the end of the read last.
        static func read(_ bytes: [UInt8], into machine: inout WebSocketStateMachine) -> [Step] {
            var buffer = ByteBuffer(bytes: bytes)
            var steps: [Step] = []
            machine.beginRead(&buffer)
            while let action = machine.nextReadAction(in: &buffer) {
                if let step = Step(action) { steps.append(step) }
            }
            if let step = Step(machine.endRead(keeping: buffer, allocator: ByteBufferAllocator())) {
                steps.append(step)
            }
            return steps
        }

        /// Tells the machine the channel is gone and returns how the connection ended.
        static func finish(_ machine: inout WebSocketStateMachine) -> TransportClosure? {
            guard case .finish(let closure) = machine.channelClosed() else { return nil }
            return closure
        }

        /// A codec for the machine and one for its peer, agreed with context takeover both ways.
        static func codecs(maxMessageSize: Int) throws -> (machine: PerMessageDeflateCodec, peer: PerMessageDeflateCodec) {
            let agreed = AgreedDeflateParameters(
                sendWindowBits: 15, sendNoContextTakeover: false, receiveWindowBits: 15, receiveNoContextTakeover: false)
            let configuration = PerMessageDeflateConfiguration(minimumSizeToCompress: 0)
            return (
                try PerMessageDeflateCodec(agreed: agreed, configuration: configuration, maximumMessageSize: maxMessageSize),
                try PerMessageDeflateCodec(agreed: agreed, configuration: configuration, maximumMessageSize: 1 << 24)
            )
        }

        /// `bytes` compressed as the payload of one message.
        static func compress(_ bytes: [UInt8], with codec: PerMessageDeflateCodec) throws -> [UInt8] {
            let compressed = try codec.compress(ByteBuffer(bytes: bytes), allocator: ByteBufferAllocator())
            return Array(compressed.readableBytesView)
        }
    }
}
