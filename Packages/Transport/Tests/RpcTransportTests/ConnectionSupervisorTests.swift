import RpcTransport
import Testing

/// The machine under test: a link is known by its generation, a waiter by a name.
private typealias Machine = ConnectionSupervisor<Int, String>

// MARK: Inputs

/// One input to the machine, with the decision a failure is answered with.
enum SupervisorInput: Sendable, CustomStringConvertible {
    case start(String)
    case reconnect(String, keepTrying: Bool)
    case close
    case send(String)
    case wait(String)
    case cancelWaiter(UInt64)
    case linkOpened(attempt: UInt64)
    case handshakeFinished(generation: UInt64)
    case openFailed(attempt: UInt64, RetryDecision)
    case linkFailed(generation: UInt64, RetryDecision)
    case openTimer(UInt64, RetryDecision)
    case handshakeTimer(UInt64, RetryDecision)
    case backoffTimer(after: UInt64)

    /// The input's name without its arguments: the coverage check counts rows by it.
    var kind: String {
        switch self {
        case .start: "start"
        case .reconnect: "reconnect"
        case .close: "close"
        case .send: "send"
        case .wait: "waitForLink"
        case .cancelWaiter: "cancelWaiter"
        case .linkOpened: "linkOpened"
        case .handshakeFinished: "handshakeFinished"
        case .openFailed: "openFailed"
        case .linkFailed: "linkFailed"
        case .openTimer, .handshakeTimer, .backoffTimer: "timerFired"
        }
    }

    var description: String {
        switch self {
        case .start(let waiter): "start(\(waiter))"
        case .reconnect(let waiter, let keepTrying): "reconnect(\(waiter)\(keepTrying ? ", keepTrying" : ""))"
        case .close: "close"
        case .send(let text): "send(\(text))"
        case .wait(let waiter): "waitForLink(\(waiter))"
        case .cancelWaiter(let id): "cancelWaiter(\(id))"
        case .linkOpened(let id): "linkOpened(#\(id))"
        case .handshakeFinished(let generation): "handshakeFinished(@\(generation))"
        case .openFailed(let id, let decision): "openFailed(#\(id), \(decision))"
        case .linkFailed(let generation, let decision): "linkFailed(@\(generation), \(decision))"
        case .openTimer(let id, let decision): "timerFired(open#\(id), \(decision))"
        case .handshakeTimer(let generation, let decision): "timerFired(handshake@\(generation), \(decision))"
        case .backoffTimer(let id): "timerFired(backoff#\(id))"
        }
    }
}

/// The error a failed open reports, and the one a lost link reports.
private let refused = TransportError(code: .connectFailed, message: "refused")
private let dropped = TransportError(code: .ioError, message: "dropped")

/// Feeds `input` to `machine` and renders what came out: the input's own decision first
/// (`=…` returned, `!…` thrown), then every retry decision asked for (`ask(stage,attempt)`,
/// `ever` once connected), then the actions in order.
private func apply(_ input: SupervisorInput, to machine: inout Machine) -> [String] {
    var asked: [String] = []
    let actions: [Machine.Action]
    var decision: [String] = []
    switch input {
    case .start(let waiter):
        let (wait, started) = machine.start(waiter)
        decision = [render(wait)]
        actions = started
    case .reconnect(let waiter, let keepTrying):
        guard let (_, started) = machine.reconnect(waiter, keepTrying: keepTrying) else { return ["=nil"] }
        decision = ["=waiting"]
        actions = started
    case .close:
        actions = machine.close()
    case .send(let text):
        do {
            switch try machine.send(.text(text)) {
            case .write(let link): return ["=write@\(link)"]
            case .held: return ["=held"]
            }
        } catch {
            return ["!" + render(error)]
        }
    case .wait(let waiter):
        do {
            return [render(try machine.waitForLink(waiter))]
        } catch {
            return ["!" + render(error)]
        }
    case .cancelWaiter(let id):
        return ["=" + (machine.cancelWaiter(id) ?? "none")]
    case .linkOpened(let id):
        actions = machine.linkOpened(attempt: id) { Int($0) }
    case .handshakeFinished(let generation):
        actions = machine.handshakeFinished(generation: generation)
    case .openFailed(let id, let answer):
        actions = machine.openFailed(attempt: id, error: refused) { _, context in
            asked.append(render(context))
            return answer
        }
    case .linkFailed(let generation, let answer):
        actions = machine.linkFailed(generation: generation, error: dropped) { _, context in
            asked.append(render(context))
            return answer
        }
    case .openTimer(let id, let answer):
        actions = machine.timerFired(.open(id)) { _, context in
            asked.append(render(context))
            return answer
        }
    case .handshakeTimer(let generation, let answer):
        actions = machine.timerFired(.handshake(generation)) { _, context in
            asked.append(render(context))
            return answer
        }
    case .backoffTimer(let id):
        actions = machine.timerFired(.backoff(after: id)) { _, context in
            asked.append(render(context))
            return .retry
        }
    }
    return decision + asked + actions.map(render)
}

// MARK: Rendering

private func render(_ error: any Error) -> String {
    guard let error = error as? TransportError else { return "\(type(of: error))" }
    guard let cause = error.cause as? TransportError else { return "\(error.code)" }
    return "\(error.code)(\(cause.code))"
}

private func render(_ context: ConnectionFailureContext) -> String {
    "ask(\(context.stage),\(context.attempt)\(context.everConnected ? ",ever" : ""))"
}

private func render(_ decision: Machine.WaitDecision) -> String {
    switch decision {
    case .ready(let link, let generation): "=ready" + at(link, generation)
    case .waiting: "=waiting"
    }
}

/// `@g` for a link whose value is its generation (as the tests make them), else `<link>@g`.
private func at(_ link: Int, _ generation: UInt64) -> String {
    link == Int(generation) ? "@\(generation)" : "<\(link)>@\(generation)"
}

private func render(_ timer: Machine.Timer) -> String {
    switch timer {
    case .open(let id): "open#\(id)"
    case .handshake(let generation): "handshake@\(generation)"
    case .backoff(let id): "backoff#\(id)"
    }
}

private func render(_ state: ConnectionState) -> String {
    switch state {
    case .disconnected(let error?): "disconnected(\(render(error)))"
    default: state.description
    }
}

private func render(_ reason: Machine.CloseReason) -> String {
    switch reason {
    case .closed: "closed"
    case .reconnecting: "reconnecting"
    case .failed(let error): "failed(\(render(error)))"
    }
}

private func render(_ action: Machine.Action) -> String {
    switch action {
    case .open(let id): "open#\(id)"
    case .cancelOpen(let id): "cancelOpen#\(id)"
    case .attach(let link, let generation): "attach" + at(link, generation)
    case .handshake(let link, let generation): "handshake" + at(link, generation)
    case .cancelHandshake(let generation): "cancelHandshake@\(generation)"
    case .startLiveness(let link, let generation): "liveness" + at(link, generation)
    case .startTimer(let timer, _): "timer+" + render(timer)
    case .cancelTimer(let timer): "timer-" + render(timer)
    case .flush(let messages, let link): "flush[\(messages.map { $0.text ?? "?" }.joined(separator: ","))]@\(link)"
    case .ready(let link, let generation): "ready" + at(link, generation)
    case .closeLink(let link, let generation, let reason): "close" + at(link, generation) + ":" + render(reason)
    case .lost(let generation): "lost@\(generation)"
    case .publish(let state): "publish:" + render(state)
    case .resume(let waiters, let link, let generation): "resume[\(waiters.joined(separator: ","))]" + at(link, generation)
    case .fail(let waiters, let error): "fail[\(waiters.joined(separator: ","))]:" + render(error)
    case .finishObservers: "finish"
    }
}

private func render(_ phase: Machine.Phase) -> String {
    switch phase {
    case .idle: "idle"
    case .opening(let id, let attempt): "opening#\(id)/\(attempt)"
    case .handshaking(let link, let generation, let attempt): "handshaking" + at(link, generation) + "/\(attempt)"
    case .connected(let link, let generation): "connected" + at(link, generation)
    case .backingOff(let attempt): "backingOff(\(attempt))"
    case .gaveUp: "gaveUp"
    case .closed: "closed"
    }
}

// MARK: Setups

/// The settings of the table: a ready handshake, 3 attempts after a failure, up to 4 held.
private func machineSettings(
    handshake: Bool = true, offlineQueueLimit: Int? = 4, policy: ReconnectPolicy? = nil
) -> Machine.Settings {
    Machine.Settings(
        policy: policy
            ?? ReconnectPolicy(
                maxAttempts: 3, backoff: Backoff(initialDelay: .milliseconds(100), maxDelay: .seconds(1), jitter: .none)),
        connectTimeout: .seconds(10), handshakeTimeout: .seconds(5), hasHandshake: handshake,
        offlineQueueLimit: offlineQueueLimit)
}

/// A fresh machine driven into a phase through its inputs. The first seven are one per phase;
/// the rest are the same phases reached another way, for stale inputs and special cases.
enum SupervisorSetup: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Fresh.
    case idle
    /// `start(s)`, then `m` sent and `c` waiting: the first attempt (#1).
    case opening
    /// The first attempt's link (generation 1) is open; its handshake runs.
    case handshaking
    /// Ready on generation 1; `m` was flushed, `s` and `c` resumed.
    case connected
    /// Generation 1 was lost; waiting before retry 1; then `m2` sent and `w` waiting.
    case backingOff
    /// The first attempt failed and the decision was to give up.
    case gaveUp
    /// Closed while connected.
    case closed
    /// The connection that backed off now makes retry 1 (attempt #2).
    case openingRetry
    /// Retry 1's link (generation 2) is open; its handshake runs.
    case handshakingRetry
    /// Ready again, on generation 2.
    case connectedAgain
    /// The last attempt the policy allows (retry 3, attempt #4) is under way.
    case openingLast
    /// While connected, `reconnect(r)` (without keep-trying), then `start(s2)` and `c2` waiting.
    case reconnecting
    /// While connected, `reconnect(r, keepTrying)`.
    case reconnectingKeepTrying
    /// Without a ready handshake: `start(s)`, then `m` sent and `c` waiting.
    case openingWithoutHandshake

    var description: String { rawValue }

    /// The seven setups, one per phase.
    static let perPhase: [SupervisorSetup] = [.idle, .opening, .handshaking, .connected, .backingOff, .gaveUp, .closed]

    fileprivate var settings: Machine.Settings {
        machineSettings(handshake: self != .openingWithoutHandshake)
    }

    /// The inputs that lead here from a fresh machine.
    var steps: [SupervisorInput] {
        switch self {
        case .idle: []
        case .opening, .openingWithoutHandshake: [.start("s"), .send("m"), .wait("c")]
        case .handshaking: Self.opening.steps + [.linkOpened(attempt: 1)]
        case .connected: Self.handshaking.steps + [.handshakeFinished(generation: 1)]
        case .backingOff: Self.connected.steps + [.linkFailed(generation: 1, .retry), .send("m2"), .wait("w")]
        case .gaveUp: Self.opening.steps + [.openFailed(attempt: 1, .giveUp)]
        case .closed: Self.connected.steps + [.close]
        case .openingRetry: Self.backingOff.steps + [.backoffTimer(after: 1)]
        case .handshakingRetry: Self.openingRetry.steps + [.linkOpened(attempt: 2)]
        case .connectedAgain: Self.handshakingRetry.steps + [.handshakeFinished(generation: 2)]
        case .openingLast:
            Self.openingRetry.steps + [
                .openFailed(attempt: 2, .retry), .backoffTimer(after: 2), .openFailed(attempt: 3, .retry), .backoffTimer(after: 3),
            ]
        case .reconnecting: Self.connected.steps + [.reconnect("r", keepTrying: false), .start("s2"), .wait("c2")]
        case .reconnectingKeepTrying: Self.connected.steps + [.reconnect("r", keepTrying: true)]
        }
    }

    /// The phase the steps reach.
    var phase: String {
        switch self {
        case .idle: "idle"
        case .opening, .openingWithoutHandshake: "opening#1/0"
        case .handshaking: "handshaking@1/0"
        case .connected: "connected@1"
        case .backingOff: "backingOff(1)"
        case .gaveUp: "gaveUp"
        case .closed: "closed"
        case .openingRetry: "opening#2/1"
        case .handshakingRetry: "handshaking@2/1"
        case .connectedAgain: "connected@2"
        case .openingLast: "opening#4/3"
        case .reconnecting, .reconnectingKeepTrying: "opening#2/1"
        }
    }

    /// A machine driven through the steps; every step must be accepted.
    fileprivate func make() -> Machine {
        var machine = Machine(settings: settings)
        for step in steps {
            let out = apply(step, to: &machine)
            if out.contains(where: { $0.hasPrefix("!") || $0 == "=nil" }) {
                Issue.record("setup \(self): \(step) was refused: \(out)")
            }
        }
        return machine
    }
}

// MARK: The table

/// One (phase, input) pair: the rendered output of the input and the phase after it.
struct SupervisorRow: Sendable, CustomTestStringConvertible {
    let setup: SupervisorSetup
    let input: SupervisorInput
    let output: [String]
    let after: String

    init(_ setup: SupervisorSetup, _ input: SupervisorInput, _ output: [String], _ after: String) {
        self.setup = setup
        self.input = input
        self.output = output
        self.after = after
    }

    var testDescription: String { "\(setup) · \(input)" }
}

private typealias Row = SupervisorRow

/// Every (phase, input) pair. Reading a row: in this phase, this input returns / asks / does
/// this, and leaves the machine in that phase.
let supervisorTable: [SupervisorRow] = [
    // idle: only start and close do anything; everything late is ignored (a late link closed).
    Row(.idle, .start("a"), ["=waiting", "open#1", "timer+open#1"], "opening#1/0"),
    Row(.idle, .reconnect("r", keepTrying: false), ["=nil"], "idle"),
    Row(.idle, .close, ["publish:disconnected", "finish"], "closed"),
    Row(.idle, .send("x"), ["!notConnected"], "idle"),
    Row(.idle, .wait("x"), ["!notConnected"], "idle"),
    Row(.idle, .cancelWaiter(1), ["=none"], "idle"),
    Row(.idle, .linkOpened(attempt: 1), ["close@0:closed"], "idle"),
    Row(.idle, .handshakeFinished(generation: 1), [], "idle"),
    Row(.idle, .openFailed(attempt: 1, .retry), [], "idle"),
    Row(.idle, .linkFailed(generation: 1, .retry), [], "idle"),
    Row(.idle, .backoffTimer(after: 0), [], "idle"),

    // opening (attempt #1 of a start; m held, s starting, c waiting)
    Row(.opening, .start("a"), ["=waiting"], "opening#1/0"),
    Row(
        .opening, .reconnect("r", keepTrying: false),
        ["=waiting", "timer-open#1", "cancelOpen#1", "publish:reconnecting(1)", "open#2", "timer+open#2"], "opening#2/1"),
    Row(.opening, .close, ["timer-open#1", "cancelOpen#1", "fail[s,c]:closed", "publish:disconnected", "finish"], "closed"),
    Row(.opening, .send("x"), ["=held"], "opening#1/0"),
    Row(.opening, .wait("x"), ["=waiting"], "opening#1/0"),
    Row(.opening, .cancelWaiter(1), ["=s"], "opening#1/0"),
    Row(.opening, .linkOpened(attempt: 1), ["timer-open#1", "attach@1", "handshake@1", "timer+handshake@1"], "handshaking@1/0"),
    Row(.opening, .handshakeFinished(generation: 1), [], "opening#1/0"),
    Row(.opening, .openFailed(attempt: 1, .retry), ["ask(opening,0)", "timer-open#1", "timer+backoff#1"], "backingOff(1)"),
    Row(
        .opening, .openFailed(attempt: 1, .giveUp),
        [
            "ask(opening,0)", "timer-open#1", "publish:disconnected(connectFailed)", "fail[s]:connectFailed",
            "fail[c]:notConnected(connectFailed)",
        ], "gaveUp"),
    Row(
        .opening, .openFailed(attempt: 1, .goIdle),
        [
            "ask(opening,0)", "timer-open#1", "publish:disconnected(connectFailed)", "fail[s]:connectFailed",
            "fail[c]:notConnected(connectFailed)",
        ], "idle"),
    Row(.opening, .linkFailed(generation: 1, .retry), [], "opening#1/0"),
    Row(.opening, .openTimer(1, .retry), ["ask(opening,0)", "cancelOpen#1", "timer-open#1", "timer+backoff#1"], "backingOff(1)"),
    Row(
        .opening, .openTimer(1, .giveUp),
        [
            "ask(opening,0)", "cancelOpen#1", "timer-open#1", "publish:disconnected(connectTimeout)", "fail[s]:connectTimeout",
            "fail[c]:notConnected(connectTimeout)",
        ], "gaveUp"),
    Row(.opening, .handshakeTimer(1, .retry), [], "opening#1/0"),
    Row(.opening, .backoffTimer(after: 1), [], "opening#1/0"),

    // handshaking (generation 1, from attempt #1; m held, s and c waiting)
    Row(.handshaking, .start("a"), ["=waiting"], "handshaking@1/0"),
    Row(
        .handshaking, .reconnect("r", keepTrying: false),
        [
            "=waiting", "timer-handshake@1", "cancelHandshake@1", "close@1:reconnecting", "lost@1", "publish:reconnecting(1)",
            "open#2", "timer+open#2",
        ], "opening#2/1"),
    Row(
        .handshaking, .close,
        [
            "timer-handshake@1", "cancelHandshake@1", "close@1:closed", "lost@1", "fail[s,c]:closed", "publish:disconnected",
            "finish",
        ], "closed"),
    Row(.handshaking, .send("x"), ["=held"], "handshaking@1/0"),
    Row(.handshaking, .wait("x"), ["=waiting"], "handshaking@1/0"),
    Row(.handshaking, .cancelWaiter(2), ["=c"], "handshaking@1/0"),
    Row(.handshaking, .linkOpened(attempt: 1), ["close@0:closed"], "handshaking@1/0"),
    Row(
        .handshaking, .handshakeFinished(generation: 1),
        ["timer-handshake@1", "liveness@1", "flush[m]@1", "ready@1", "publish:connected", "resume[s,c]@1"], "connected@1"),
    Row(.handshaking, .openFailed(attempt: 1, .retry), [], "handshaking@1/0"),
    Row(
        .handshaking, .linkFailed(generation: 1, .retry),
        ["ask(handshaking,0)", "timer-handshake@1", "cancelHandshake@1", "close@1:failed(ioError)", "lost@1", "timer+backoff#1"],
        "backingOff(1)"),
    Row(
        .handshaking, .linkFailed(generation: 1, .giveUp),
        [
            "ask(handshaking,0)", "timer-handshake@1", "cancelHandshake@1", "close@1:failed(ioError)", "lost@1",
            "publish:disconnected(ioError)", "fail[s]:ioError", "fail[c]:notConnected(ioError)",
        ], "gaveUp"),
    Row(
        .handshaking, .handshakeTimer(1, .giveUp),
        [
            "ask(handshaking,0)", "timer-handshake@1", "cancelHandshake@1", "close@1:failed(handshakeTimeout)", "lost@1",
            "publish:disconnected(handshakeTimeout)", "fail[s]:handshakeTimeout", "fail[c]:notConnected(handshakeTimeout)",
        ], "gaveUp"),
    Row(.handshaking, .openTimer(1, .retry), [], "handshaking@1/0"),

    // connected (generation 1; nothing held)
    Row(.connected, .start("a"), ["=ready@1"], "connected@1"),
    Row(
        .connected, .reconnect("r", keepTrying: false),
        ["=waiting", "close@1:reconnecting", "lost@1", "publish:reconnecting(1)", "open#2", "timer+open#2"], "opening#2/1"),
    Row(.connected, .close, ["close@1:closed", "lost@1", "publish:disconnected", "finish"], "closed"),
    Row(.connected, .send("x"), ["=write@1"], "connected@1"),
    Row(.connected, .wait("x"), ["=ready@1"], "connected@1"),
    Row(.connected, .cancelWaiter(1), ["=none"], "connected@1"),
    Row(.connected, .linkOpened(attempt: 1), ["close@0:closed"], "connected@1"),
    Row(.connected, .handshakeFinished(generation: 1), [], "connected@1"),
    Row(.connected, .openFailed(attempt: 1, .retry), [], "connected@1"),
    Row(
        .connected, .linkFailed(generation: 1, .retry),
        ["ask(connected,0,ever)", "close@1:failed(ioError)", "lost@1", "publish:reconnecting(1)", "timer+backoff#1"],
        "backingOff(1)"),
    Row(
        .connected, .linkFailed(generation: 1, .giveUp),
        ["ask(connected,0,ever)", "close@1:failed(ioError)", "lost@1", "publish:disconnected(ioError)"], "gaveUp"),
    Row(
        .connected, .linkFailed(generation: 1, .goIdle),
        ["ask(connected,0,ever)", "close@1:failed(ioError)", "lost@1", "publish:disconnected(ioError)"], "idle"),
    Row(.connected, .handshakeTimer(1, .retry), [], "connected@1"),
    Row(.connected, .backoffTimer(after: 1), [], "connected@1"),

    // backingOff (before retry 1, after generation 1 was lost; m2 held, w waiting)
    Row(.backingOff, .start("a"), ["=waiting"], "backingOff(1)"),
    Row(
        .backingOff, .reconnect("r", keepTrying: false),
        ["=waiting", "timer-backoff#1", "publish:reconnecting(1)", "open#2", "timer+open#2"], "opening#2/1"),
    Row(.backingOff, .close, ["timer-backoff#1", "fail[w]:closed", "publish:disconnected", "finish"], "closed"),
    Row(.backingOff, .send("x"), ["=held"], "backingOff(1)"),
    Row(.backingOff, .wait("x"), ["=waiting"], "backingOff(1)"),
    Row(.backingOff, .cancelWaiter(3), ["=w"], "backingOff(1)"),
    Row(.backingOff, .linkOpened(attempt: 1), ["close@0:closed"], "backingOff(1)"),
    Row(.backingOff, .handshakeFinished(generation: 1), [], "backingOff(1)"),
    Row(.backingOff, .openFailed(attempt: 1, .retry), [], "backingOff(1)"),
    Row(.backingOff, .linkFailed(generation: 1, .retry), [], "backingOff(1)"),
    Row(.backingOff, .backoffTimer(after: 1), ["open#2", "timer+open#2"], "opening#2/1"),
    Row(.backingOff, .backoffTimer(after: 0), [], "backingOff(1)"),
    Row(.backingOff, .openTimer(1, .retry), [], "backingOff(1)"),

    // gaveUp (the first attempt failed and was given up)
    Row(.gaveUp, .start("a"), ["=waiting", "publish:connecting", "open#2", "timer+open#2"], "opening#2/0"),
    Row(.gaveUp, .reconnect("r", keepTrying: false), ["=waiting", "publish:reconnecting(1)", "open#2", "timer+open#2"], "opening#2/1"),
    Row(.gaveUp, .close, ["publish:disconnected", "finish"], "closed"),
    Row(.gaveUp, .send("x"), ["!notConnected(connectFailed)"], "gaveUp"),
    Row(.gaveUp, .wait("x"), ["!notConnected(connectFailed)"], "gaveUp"),
    Row(.gaveUp, .cancelWaiter(1), ["=none"], "gaveUp"),
    Row(.gaveUp, .linkOpened(attempt: 1), ["close@0:closed"], "gaveUp"),
    Row(.gaveUp, .handshakeFinished(generation: 1), [], "gaveUp"),
    Row(.gaveUp, .openFailed(attempt: 1, .retry), [], "gaveUp"),
    Row(.gaveUp, .linkFailed(generation: 1, .retry), [], "gaveUp"),
    Row(.gaveUp, .openTimer(1, .retry), [], "gaveUp"),

    // closed (while connected on generation 1)
    Row(.closed, .start("a"), ["=waiting", "publish:connecting", "open#2", "timer+open#2"], "opening#2/0"),
    Row(.closed, .reconnect("r", keepTrying: false), ["=nil"], "closed"),
    Row(.closed, .close, [], "closed"),
    Row(.closed, .send("x"), ["!notConnected"], "closed"),
    Row(.closed, .wait("x"), ["!notConnected"], "closed"),
    Row(.closed, .cancelWaiter(1), ["=none"], "closed"),
    Row(.closed, .linkOpened(attempt: 1), ["close@0:closed"], "closed"),
    Row(.closed, .handshakeFinished(generation: 1), [], "closed"),
    Row(.closed, .openFailed(attempt: 1, .retry), [], "closed"),
    Row(.closed, .linkFailed(generation: 1, .retry), [], "closed"),
    Row(.closed, .backoffTimer(after: 1), [], "closed"),

    // A retry (attempt #2): what attempt #1 reports late is stale; its own outcome counts.
    Row(.openingRetry, .linkOpened(attempt: 1), ["close@0:closed"], "opening#2/1"),
    Row(.openingRetry, .openFailed(attempt: 1, .retry), [], "opening#2/1"),
    Row(.openingRetry, .openTimer(1, .giveUp), [], "opening#2/1"),
    Row(.openingRetry, .backoffTimer(after: 1), [], "opening#2/1"),
    Row(
        .openingRetry, .openFailed(attempt: 2, .retry),
        ["ask(opening,1,ever)", "timer-open#2", "publish:reconnecting(2)", "timer+backoff#2"], "backingOff(2)"),
    Row(.openingRetry, .linkOpened(attempt: 2), ["timer-open#2", "attach@2", "handshake@2", "timer+handshake@2"], "handshaking@2/1"),

    // The retry's link (generation 2): generation 1 is stale.
    Row(.handshakingRetry, .handshakeFinished(generation: 1), [], "handshaking@2/1"),
    Row(.handshakingRetry, .linkFailed(generation: 1, .giveUp), [], "handshaking@2/1"),
    Row(.handshakingRetry, .handshakeTimer(1, .giveUp), [], "handshaking@2/1"),
    Row(
        .handshakingRetry, .handshakeFinished(generation: 2),
        ["timer-handshake@2", "liveness@2", "flush[m2]@2", "ready@2", "publish:connected", "resume[w]@2"], "connected@2"),
    Row(
        .handshakingRetry, .linkFailed(generation: 2, .retry),
        [
            "ask(handshaking,1,ever)", "timer-handshake@2", "cancelHandshake@2", "close@2:failed(ioError)", "lost@2",
            "publish:reconnecting(2)", "timer+backoff#2",
        ], "backingOff(2)"),

    // Ready on generation 2: generation 1 is stale; a loss starts again from retry 1.
    Row(.connectedAgain, .linkFailed(generation: 1, .giveUp), [], "connected@2"),
    Row(.connectedAgain, .handshakeFinished(generation: 1), [], "connected@2"),
    Row(.connectedAgain, .handshakeTimer(1, .giveUp), [], "connected@2"),
    Row(
        .connectedAgain, .linkFailed(generation: 2, .retry),
        ["ask(connected,0,ever)", "close@2:failed(ioError)", "lost@2", "publish:reconnecting(1)", "timer+backoff#2"],
        "backingOff(1)"),

    // The policy allows 3 retries: the third failing gives up although the decision is retry.
    Row(
        .openingLast, .openFailed(attempt: 4, .retry),
        ["ask(opening,3,ever)", "timer-open#4", "publish:disconnected(connectFailed)", "fail[w]:notConnected(connectFailed)"],
        "gaveUp"),
    Row(
        .openingLast, .openFailed(attempt: 4, .goIdle),
        ["ask(opening,3,ever)", "timer-open#4", "publish:disconnected(connectFailed)", "fail[w]:notConnected(connectFailed)"],
        "idle"),

    // An explicit reconnect: a second caller joins it; its failure stops the connection whatever
    // the decision, failing the reconnect's caller and the start's with the failure itself, and
    // held work with notConnected carrying it.
    Row(.reconnecting, .reconnect("r2", keepTrying: true), ["=waiting"], "opening#2/1"),
    Row(
        .reconnecting, .openFailed(attempt: 2, .retry),
        [
            "ask(opening,1,ever)", "timer-open#2", "fail[r]:connectFailed", "publish:disconnected(connectFailed)",
            "fail[s2]:connectFailed", "fail[c2]:notConnected(connectFailed)",
        ], "gaveUp"),
    Row(
        .reconnecting, .linkOpened(attempt: 2),
        ["timer-open#2", "attach@2", "handshake@2", "timer+handshake@2"], "handshaking@2/1"),
    // Keep-trying: the caller learns of the first failure at once, the connection backs off.
    Row(
        .reconnectingKeepTrying, .openFailed(attempt: 2, .retry),
        ["ask(opening,1,ever)", "timer-open#2", "fail[r]:connectFailed", "publish:reconnecting(2)", "timer+backoff#2"],
        "backingOff(2)"),
    Row(
        .reconnectingKeepTrying, .openFailed(attempt: 2, .goIdle),
        ["ask(opening,1,ever)", "timer-open#2", "fail[r]:connectFailed", "publish:disconnected(connectFailed)"], "idle"),

    // Without a ready handshake the open link is ready at once.
    Row(
        .openingWithoutHandshake, .linkOpened(attempt: 1),
        ["timer-open#1", "attach@1", "liveness@1", "flush[m]@1", "ready@1", "publish:connected", "resume[s,c]@1"],
        "connected@1"),
]

@Suite("ConnectionSupervisor (the connection's state machine, as a table)")
struct ConnectionSupervisorTests {
    @Test("each setup reaches its phase through the machine's inputs", arguments: SupervisorSetup.allCases)
    func setupReachesPhase(_ setup: SupervisorSetup) {
        let machine = setup.make()
        #expect(render(machine.phase) == setup.phase)
    }

    @Test("a (phase, input) pair returns the row's decision and actions and leaves the row's phase", arguments: supervisorTable)
    func row(_ row: SupervisorRow) {
        var machine = row.setup.make()
        let output = apply(row.input, to: &machine)
        #expect(output == row.output)
        #expect(render(machine.phase) == row.after)
    }

    @Test("the table has a row for every input in every phase")
    func tableCoversEveryPair() {
        let inputs = [
            "start", "reconnect", "close", "send", "waitForLink", "cancelWaiter", "linkOpened", "handshakeFinished", "openFailed",
            "linkFailed", "timerFired",
        ]
        for setup in SupervisorSetup.perPhase {
            let covered = Set(supervisorTable.filter { $0.setup == setup }.map(\.input.kind))
            #expect(covered == Set(inputs), "\(setup) lacks \(Set(inputs).subtracting(covered).sorted())")
        }
        #expect(Set(SupervisorSetup.perPhase.map { $0.phase.prefix(while: \.isLetter) }).count == 7)
    }

    @Test("stale inputs do nothing but close a late link, and ask no retry decision")
    func staleInputsAreInert() {
        let stale = supervisorTable.filter { row in
            switch (row.setup, row.input) {
            case (.openingRetry, .linkOpened(attempt: 1)), (.openingRetry, .openFailed(attempt: 1, _)),
                (.openingRetry, .openTimer(1, _)), (.openingRetry, .backoffTimer(after: 1)),
                (.handshakingRetry, .handshakeFinished(generation: 1)), (.handshakingRetry, .linkFailed(generation: 1, _)),
                (.handshakingRetry, .handshakeTimer(1, _)), (.connectedAgain, .linkFailed(generation: 1, _)),
                (.connectedAgain, .handshakeFinished(generation: 1)), (.connectedAgain, .handshakeTimer(1, _)),
                (.backingOff, .backoffTimer(after: 0)):
                true
            default: false
            }
        }
        #expect(stale.count == 11)
        for row in stale {
            var machine = row.setup.make()
            let output = apply(row.input, to: &machine)
            #expect(output == [] || output == ["close@0:closed"], "\(row.testDescription): \(output)")
            #expect(render(machine.phase) == row.setup.phase)
        }
    }

    @Test("the offline limit counts held messages plus waiting callers, not the caller of start; the held messages are flushed in order")
    func offlineQueueLimit() {
        var machine = Machine(settings: machineSettings(offlineQueueLimit: 3))
        var log: [String] = []
        for input: SupervisorInput in [.start("s"), .send("a"), .wait("c"), .send("b"), .send("d"), .wait("e")] {
            log += apply(input, to: &machine)
        }
        #expect(log == ["=waiting", "open#1", "timer+open#1", "=held", "=waiting", "=held", "!offlineQueueFull", "!offlineQueueFull"])
        #expect(machine.heldMessages == 2)
        #expect(machine.waitingCallers == 2)
        // A caller that stops waiting frees its place.
        #expect(apply(.cancelWaiter(2), to: &machine) == ["=c"])
        #expect(apply(.send("e"), to: &machine) == ["=held"])
        #expect(apply(.linkOpened(attempt: 1), to: &machine) == ["timer-open#1", "attach@1", "handshake@1", "timer+handshake@1"])
        // Still held during the handshake, and still limited.
        #expect(apply(.send("f"), to: &machine) == ["!offlineQueueFull"])
        #expect(
            apply(.handshakeFinished(generation: 1), to: &machine)
                == ["timer-handshake@1", "liveness@1", "flush[a,b,e]@1", "ready@1", "publish:connected", "resume[s]@1"])
        #expect(apply(.send("f"), to: &machine) == ["=write@1"])
        #expect(machine.heldMessages == 0)
        #expect(machine.waitingCallers == 0)
    }

    @Test("without an offline queue nothing is held while not ready, but start still waits")
    func noOfflineQueue() {
        var machine = Machine(settings: machineSettings(offlineQueueLimit: nil))
        #expect(apply(.start("s"), to: &machine) == ["=waiting", "open#1", "timer+open#1"])
        #expect(apply(.send("a"), to: &machine) == ["!notConnected"])
        #expect(apply(.wait("c"), to: &machine) == ["!notConnected"])
        #expect(apply(.start("s2"), to: &machine) == ["=waiting"])
        #expect(apply(.linkOpened(attempt: 1), to: &machine).count == 4)
        #expect(
            apply(.handshakeFinished(generation: 1), to: &machine)
                == ["timer-handshake@1", "liveness@1", "ready@1", "publish:connected", "resume[s,s2]@1"])
    }

    @Test("a connection that never connected retries without publishing reconnecting; once connected, each retry is published")
    func reconnectingOnlyOnceConnectedBefore() {
        var machine = Machine(settings: machineSettings())
        var published: [String] = []
        let inputs: [SupervisorInput] = [
            // The first connection: two attempts fail, the third's handshake fails, the fourth is ready.
            .start("s"), .openFailed(attempt: 1, .retry), .backoffTimer(after: 1), .openFailed(attempt: 2, .retry),
            .backoffTimer(after: 2), .linkOpened(attempt: 3), .linkFailed(generation: 1, .retry), .start("s2"),
            .backoffTimer(after: 3), .linkOpened(attempt: 4), .handshakeFinished(generation: 2),
            // Lost: each retry is published until the policy's three are spent.
            .linkFailed(generation: 2, .retry), .backoffTimer(after: 4), .openFailed(attempt: 5, .retry),
            .backoffTimer(after: 5), .openFailed(attempt: 6, .retry), .backoffTimer(after: 6),
            .openFailed(attempt: 7, .retry),
        ]
        for input in inputs {
            published += apply(input, to: &machine).filter { $0.hasPrefix("publish:") }
        }
        #expect(
            published == [
                "publish:connected", "publish:reconnecting(1)", "publish:reconnecting(2)", "publish:reconnecting(3)",
                "publish:disconnected(connectFailed)",
            ])
        #expect(render(machine.phase) == "gaveUp")
    }

    @Test("a policy that never reconnects gives up at the first loss although the decision is retry")
    func neverPolicy() {
        var machine = Machine(settings: machineSettings(policy: .never))
        for input: SupervisorInput in [.start("s"), .linkOpened(attempt: 1), .handshakeFinished(generation: 1)] {
            _ = apply(input, to: &machine)
        }
        #expect(
            apply(.linkFailed(generation: 1, .retry), to: &machine)
                == ["ask(connected,0,ever)", "close@1:failed(ioError)", "lost@1", "publish:disconnected(ioError)"])
        #expect(render(machine.phase) == "gaveUp")
        #expect(!machine.isRunning)
    }

    @Test("timers run for the configured durations and the backoff grows with the retry")
    func timerDurations() {
        var machine = Machine(settings: machineSettings())
        var delays: [String] = []
        func record(_ actions: [Machine.Action]) {
            for case .startTimer(let timer, let delay) in actions { delays.append("\(render(timer))=\(delay)") }
        }
        record(machine.start("s").1)
        record(machine.linkOpened(attempt: 1) { Int($0) })
        record(machine.handshakeFinished(generation: 1))
        record(machine.linkFailed(generation: 1, error: dropped) { _, _ in .retry })
        record(machine.timerFired(.backoff(after: 1)) { _, _ in .retry })
        record(machine.openFailed(attempt: 2, error: refused) { _, _ in .retry })
        record(machine.timerFired(.backoff(after: 2)) { _, _ in .retry })
        record(machine.openFailed(attempt: 3, error: refused) { _, _ in .retry })
        #expect(
            delays == [
                "open#1=10.0 seconds", "handshake@1=5.0 seconds", "backoff#1=0.1 seconds", "open#2=10.0 seconds",
                "backoff#2=0.2 seconds", "open#3=10.0 seconds", "backoff#3=0.4 seconds",
            ])
    }

    @Test("the retry decision is told the stage, the attempt, whether it was ever connected and how the link closed")
    func failureContext() {
        var machine = Machine(settings: machineSettings())
        _ = machine.start("s")
        _ = machine.linkOpened(attempt: 1) { Int($0) }
        _ = machine.handshakeFinished(generation: 1)
        let closure = TransportClosure(code: CloseCode(4001), reason: "gone", initiatedLocally: false)
        var seen: [ConnectionFailureContext] = []
        _ = machine.linkFailed(generation: 1, error: dropped, closure: closure) { _, context in
            seen.append(context)
            return .goIdle
        }
        #expect(seen.count == 1)
        #expect(seen.first?.stage == .connected)
        #expect(seen.first?.everConnected == true)
        #expect(seen.first?.closure?.code == CloseCode(4001))
        #expect(seen.first?.closure?.reason == "gone")
        #expect(!machine.isRunning)
        // A start after going idle begins as new: a failure is no longer after a connection.
        _ = machine.start("s2")
        _ = machine.openFailed(attempt: 2, error: refused) { _, context in
            seen.append(context)
            return RetryDecision.default(for: context)
        }
        #expect(seen.last?.stage == .opening)
        #expect(seen.last?.everConnected == false)
        #expect(render(machine.phase) == "gaveUp")
    }
}
