import MacroTesting
import SwiftSyntaxMacros
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import Testing
@testable import CapnWebMacrosPlugin

@Suite(
    "@Rpc expansion",
    .macros(
        [
            "Rpc": MacroSpec(type: RpcMacro.self, conformances: ["RpcTarget"]),
            "RpcName": MacroSpec(type: RpcNameMacro.self),
        ]))
struct RpcExpansionTests {
    @Test("an actor's isolated methods and stored var run in a task, its nonisolated method and let at once, private and underscore members stay hidden")
    func actorMembers() {
        assertMacro {
            """
            @Rpc actor ChatRoom {
                let name: String
                private var messages: [Message] = []
                var count: Int { messages.count }

                func join(userId: String) -> [Message] { [] }
                func send(_ text: String, from userId: String) async throws -> Message { fatalError() }
                nonisolated func ping() -> String { "pong" }
                private func audit() {}
                fileprivate func trace() {}
                func _internal() {}
                static func make() -> ChatRoom { fatalError() }
            }
            """
        } expansion: {
            """
            actor ChatRoom {
                let name: String
                private var messages: [Message] = []
                var count: Int { messages.count }

                func join(userId: String) -> [Message] { [] }
                func send(_ text: String, from userId: String) async throws -> Message { fatalError() }
                nonisolated func ping() -> String { "pong" }
                private func audit() {}
                fileprivate func trace() {}
                func _internal() {}
                static func make() -> ChatRoom { fatalError() }
            }

            extension ChatRoom: RpcTarget {
                /// Runs the methods that never suspend, on the thread that delivers the call.
                nonisolated func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
                    switch method {
                    case "ping":
                        try RpcTargetSupport.checkCount(arguments, method: "ping", required: 0, maximum: 0)
                        return try _capnwebEncode(self.ping())
                    default:
                        return nil
                    }
                }

                /// Runs the methods that may suspend.
                nonisolated func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
                    switch method {
                    case "join":
                        try RpcTargetSupport.checkCount(arguments, method: "join", required: 1, maximum: 1)
                        let a0: String = try _capnwebArgument((String).self, arguments, 0, method: "join", parameter: "userId")
                        return try _capnwebEncode(await self.join(userId: a0))
                    case "send":
                        try RpcTargetSupport.checkCount(arguments, method: "send", required: 2, maximum: 2)
                        let a0: String = try _capnwebArgument((String).self, arguments, 0, method: "send", parameter: "text")
                        let a1: String = try _capnwebArgument((String).self, arguments, 1, method: "send", parameter: "userId")
                        return try _capnwebEncode(try await self.send(a0, from: a1))
                    default:
                        if let value = try callImmediately(method, with: arguments) {
                            return value
                        }
                        throw RpcErrorValue.notAFunction(method)
                    }
                }

                /// Reads the properties that never suspend.
                nonisolated func propertyImmediately(_ name: String) throws -> RpcPayload? {
                    switch name {
                    case "name":
                        return try _capnwebEncode(self.name)
                    default:
                        return nil
                    }
                }

                /// Reads the properties that may suspend.
                nonisolated func property(_ name: String) async throws -> RpcPayload {
                    switch name {
                    case "count":
                        return try _capnwebEncode(await self.count)
                    default:
                        return try propertyImmediately(name) ?? .undefined
                    }
                }

                /// A reference to this object, to pass to the peer (as an argument or a result).
                nonisolated var stub: Ref<ChatRoom> {
                    Ref<ChatRoom>(self)
                }
            }
            """
        }
    }

    @Test("a final class's synchronous methods and properties run at once, async ones in a task; defaults, optionals and @RpcName apply")
    func finalClassMembers() {
        assertMacro {
            """
            @Rpc public final class Calculator {
                public let precision: Int = 2
                var asyncTotal: Double { get async throws { 0 } }

                func square(_ n: Double) -> Double { n * n }
                func add(_ a: Int, _ b: Int = 1) throws -> Int { a + b }
                func greet(name: String?) async -> String { "" }
                @RpcName("delete") func remove(id: String) {}
            }
            """
        } expansion: {
            """
            public final class Calculator {
                public let precision: Int = 2
                var asyncTotal: Double { get async throws { 0 } }

                func square(_ n: Double) -> Double { n * n }
                func add(_ a: Int, _ b: Int = 1) throws -> Int { a + b }
                func greet(name: String?) async -> String { "" }
                func remove(id: String) {}
            }

            extension Calculator: RpcTarget {
                /// Runs the methods that never suspend, on the thread that delivers the call.
                public nonisolated func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
                    switch method {
                    case "square":
                        try RpcTargetSupport.checkCount(arguments, method: "square", required: 1, maximum: 1)
                        let a0: Double = try _capnwebArgument((Double).self, arguments, 0, method: "square", parameter: "n")
                        return try _capnwebEncode(self.square(a0))
                    case "add":
                        try RpcTargetSupport.checkCount(arguments, method: "add", required: 1, maximum: 2)
                        let a0: Int = try _capnwebArgument((Int).self, arguments, 0, method: "add", parameter: "a")
                        let a1: Int = try RpcTargetSupport.isMissing(arguments, 1) ? 1 : _capnwebArgument((Int).self, arguments, 1, method: "add", parameter: "b")
                        return try _capnwebEncode(try self.add(a0, a1))
                    case "delete":
                        try RpcTargetSupport.checkCount(arguments, method: "delete", required: 1, maximum: 1)
                        let a0: String = try _capnwebArgument((String).self, arguments, 0, method: "delete", parameter: "id")
                        return try _capnwebEncode(self.remove(id: a0))
                    default:
                        return nil
                    }
                }

                /// Runs the methods that may suspend.
                public nonisolated func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
                    switch method {
                    case "greet":
                        try RpcTargetSupport.checkCount(arguments, method: "greet", required: 0, maximum: 1)
                        let a0: String? = try _capnwebArgument((String?).self, arguments, 0, method: "greet", parameter: "name")
                        return try _capnwebEncode(await self.greet(name: a0))
                    default:
                        if let value = try callImmediately(method, with: arguments) {
                            return value
                        }
                        throw RpcErrorValue.notAFunction(method)
                    }
                }

                /// Reads the properties that never suspend.
                public nonisolated func propertyImmediately(_ name: String) throws -> RpcPayload? {
                    switch name {
                    case "precision":
                        return try _capnwebEncode(self.precision)
                    default:
                        return nil
                    }
                }

                /// Reads the properties that may suspend.
                public nonisolated func property(_ name: String) async throws -> RpcPayload {
                    switch name {
                    case "asyncTotal":
                        return try _capnwebEncode(try await self.asyncTotal)
                    default:
                        return try propertyImmediately(name) ?? .undefined
                    }
                }

                /// A reference to this object, to pass to the peer (as an argument or a result).
                public nonisolated var stub: Ref<Calculator> {
                    Ref<Calculator>(self)
                }
            }
            """
        }
    }

    @Test("a String subscript answers reads of names no property has; an actor's nonisolated property and a throwing getter are read as declared")
    func subscriptAndGetters() {
        assertMacro {
            """
            @Rpc actor TodoCollection {
                nonisolated let kind = "todos"
                var first: Todo { get throws { try load() } }
                subscript(id: String) -> SingleTodo { SingleTodo(id: id) }
                private func load() throws -> Todo { fatalError() }
            }
            """
        } expansion: {
            """
            actor TodoCollection {
                nonisolated let kind = "todos"
                var first: Todo { get throws { try load() } }
                subscript(id: String) -> SingleTodo { SingleTodo(id: id) }
                private func load() throws -> Todo { fatalError() }
            }

            extension TodoCollection: RpcTarget {
                /// Reads the properties that never suspend.
                nonisolated func propertyImmediately(_ name: String) throws -> RpcPayload? {
                    switch name {
                    case "kind":
                        return try _capnwebEncode(self.kind)
                    default:
                        return nil
                    }
                }

                /// Reads the properties that may suspend.
                nonisolated func property(_ name: String) async throws -> RpcPayload {
                    switch name {
                    case "first":
                        return try _capnwebEncode(try await self.first)
                    default:
                        if let value = try propertyImmediately(name) {
                            return value
                        }
                        return try _capnwebEncode(await self[name])
                    }
                }

                /// A reference to this object, to pass to the peer (as an argument or a result).
                nonisolated var stub: Ref<TodoCollection> {
                    Ref<TodoCollection>(self)
                }
            }
            """
        }
    }

    @Test("parameters of type Ref and RpcPayload, and a method returning another @Rpc object, decode and encode through the same overloads")
    func referenceParameters() {
        assertMacro {
            """
            @Rpc final class Hub {
                func subscribe(callback: Ref<Any>, filter: RpcPayload) -> Subscription { Subscription() }
            }
            """
        } expansion: {
            """
            final class Hub {
                func subscribe(callback: Ref<Any>, filter: RpcPayload) -> Subscription { Subscription() }
            }

            extension Hub: RpcTarget {
                /// Runs the methods that never suspend, on the thread that delivers the call.
                nonisolated func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
                    switch method {
                    case "subscribe":
                        try RpcTargetSupport.checkCount(arguments, method: "subscribe", required: 2, maximum: 2)
                        let a0: Ref<Any> = try _capnwebArgument((Ref<Any>).self, arguments, 0, method: "subscribe", parameter: "callback")
                        let a1: RpcPayload = try _capnwebArgument((RpcPayload).self, arguments, 1, method: "subscribe", parameter: "filter")
                        return try _capnwebEncode(self.subscribe(callback: a0, filter: a1))
                    default:
                        return nil
                    }
                }

                /// A reference to this object, to pass to the peer (as an argument or a result).
                nonisolated var stub: Ref<Hub> {
                    Ref<Hub>(self)
                }
            }
            """
        }
    }

    @Test("@Rpc on a struct is an error saying to make it an actor or a final class")
    func onStruct() {
        assertMacro {
            """
            @Rpc struct Handler {
                func onMessage(_ text: String) {}
            }
            """
        } diagnostics: {
            """
            @Rpc struct Handler {
            ┬───
            ╰─ 🛑 @Rpc applies to an actor or a final class, not to a struct; make it an actor or a final class
                func onMessage(_ text: String) {}
            }
            """
        }
    }

    @Test("@Rpc on a non-final class is an error")
    func onOpenClass() {
        assertMacro {
            """
            @Rpc class Handler {
                func onMessage(_ text: String) {}
            }
            """
        } diagnostics: {
            """
            @Rpc class Handler {
            ┬───
            ╰─ 🛑 @Rpc applies to an actor or a final class, not to a non-final class; make it an actor or a final class
                func onMessage(_ text: String) {}
            }
            """
        }
    }

    @Test("an exposed generic method is an error; a private one is left alone")
    func genericMethod() {
        assertMacro {
            """
            @Rpc actor Store {
                func put<T: Codable>(_ value: T) {}
                private func hidden<T>(_ value: T) {}
            }
            """
        } diagnostics: {
            """
            @Rpc actor Store {
                func put<T: Codable>(_ value: T) {}
                ┬──────────────────────────────────
                ╰─ 🛑 generic method 'put' cannot be called remotely: its arguments arrive as JSON with no type to decode them as; make it non-generic or private
                private func hidden<T>(_ value: T) {}
            }
            """
        }
    }

    @Test("an inout parameter is an error")
    func inoutParameter() {
        assertMacro {
            """
            @Rpc actor Store {
                func fill(_ values: inout [Int]) {}
            }
            """
        } diagnostics: {
            """
            @Rpc actor Store {
                func fill(_ values: inout [Int]) {}
                          ┬────────────────────
                          ╰─ 🛑 'inout' parameter 'values' of 'fill' cannot cross the wire: the caller would never see the change; take the value and return the new one instead
            }
            """
        }
    }

    @Test("two exposed members with one wire name are an error")
    func duplicateWireName() {
        assertMacro {
            """
            @Rpc final class API {
                func get() -> Int { 1 }
                @RpcName("get") func fetch() -> Int { 2 }
            }
            """
        } diagnostics: {
            """
            @Rpc final class API {
                func get() -> Int { 1 }
                @RpcName("get") func fetch() -> Int { 2 }
                ┬────────────────────────────────────────
                ╰─ 🛑 two exposed members are named 'get' on the wire, and a call cannot tell them apart; rename one, mark it private, or give it @RpcName("…")
            }
            """
        }
    }
}
