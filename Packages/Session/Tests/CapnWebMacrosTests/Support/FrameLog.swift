import CapnWebMacros
import Foundation
import Testing
import CapnWebTesting

/// Frames a session sent and received, in order, as `>` (sent) or `<` (received) and the text.
final class FrameLog: Sendable {
    let frames = Recorder<String>()

    /// The sent frames, without releases.
    var sentCalls: [String] {
        frames.all.filter { $0.hasPrefix(">") && !$0.hasPrefix(">[\"release\"") }
    }

    /// The received frames, without releases.
    var answers: [String] {
        frames.all.filter { $0.hasPrefix("<") && !$0.hasPrefix("<[\"release\"") }
    }

    /// Makes `configuration` record every frame here: the `configure` argument of the session
    /// harness.
    func record(_ configuration: inout Configuration) {
        configuration.trace = { [frames] sent, text in
            frames.append((sent ? ">" : "<") + text)
        }
    }

    /// The frames sent before the first frame received.
    var sentBeforeFirstAnswer: [String] {
        Array(frames.all.prefix { $0.hasPrefix(">") })
    }
}
