import SwiftDiagnostics

/// An error one of the macros reports at the declaration it cannot handle, saying what to change.
struct MacroMessage: DiagnosticMessage, Error {
    let message: String
    let id: String

    var diagnosticID: MessageID { MessageID(domain: "CapnWebMacros", id: id) }
    var severity: DiagnosticSeverity { .error }

    static func rpcProtocolNotOnProtocol() -> MacroMessage {
        MacroMessage(
            message: "@RpcProtocol applies to a protocol; declare the API as a protocol",
            id: "rpcProtocolNotOnProtocol")
    }

    static func rpcNotOnActorOrFinalClass(_ kind: String) -> MacroMessage {
        MacroMessage(
            message: "@Rpc applies to an actor or a final class, not to a \(kind); make it an actor or a final class",
            id: "rpcNotOnActorOrFinalClass")
    }

    static func propertyNotAsync(_ name: String) -> MacroMessage {
        MacroMessage(
            message: "property '\(name)' of an @RpcProtocol protocol must be declared '{ get async throws }': reading it may cross the network",
            id: "propertyNotAsync")
    }

    static func methodNotAsync(_ name: String) -> MacroMessage {
        MacroMessage(
            message: "method '\(name)' of an @RpcProtocol protocol must be declared 'async throws': calling it may cross the network",
            id: "methodNotAsync")
    }

    static func genericMethod(_ name: String, canHide: Bool) -> MacroMessage {
        MacroMessage(
            message: "generic method '\(name)' cannot be called remotely: its arguments arrive as JSON with no type to decode them as; make it non-generic\(canHide ? " or private" : "")",
            id: "genericMethod")
    }

    static func inoutParameter(_ parameter: String, of name: String) -> MacroMessage {
        MacroMessage(
            message: "'inout' parameter '\(parameter)' of '\(name)' cannot cross the wire: the caller would never see the change; take the value and return the new one instead",
            id: "inoutParameter")
    }

    static func variadicParameter(_ parameter: String, of name: String) -> MacroMessage {
        MacroMessage(
            message: "variadic parameter '\(parameter)' of '\(name)' cannot be called remotely; take an array instead",
            id: "variadicParameter")
    }

    static func subscriptShape() -> MacroMessage {
        MacroMessage(
            message: "a subscript of an @RpcProtocol protocol takes one String or Int key and is '{ get }' only; it names a member of the remote object",
            id: "subscriptShape")
    }

    static func settableProperty(_ name: String) -> MacroMessage {
        MacroMessage(
            message: "property '\(name)' of an @RpcProtocol protocol cannot have a setter: Cap'n Web has no remote assignment; declare a method instead",
            id: "settableProperty")
    }

    static func unsupportedRequirement() -> MacroMessage {
        MacroMessage(
            message: "@RpcProtocol supports properties '{ get async throws }', 'async throws' methods and '{ get }' subscripts only; remove this requirement or move it to another protocol",
            id: "unsupportedRequirement")
    }

    static func badRpcName() -> MacroMessage {
        MacroMessage(
            message: "@RpcName takes one string literal: the member's name on the wire, e.g. @RpcName(\"delete\")",
            id: "badRpcName")
    }

    static func duplicateName(_ name: String) -> MacroMessage {
        MacroMessage(
            message: "two exposed members are named '\(name)' on the wire, and a call cannot tell them apart; rename one, mark it private, or give it @RpcName(\"…\")",
            id: "duplicateName")
    }
}
