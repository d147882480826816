import MacroTesting
import SwiftSyntaxMacros
import SwiftSyntaxMacroExpansion
import Testing
@testable import CapnWebMacrosPlugin

@Suite(
    "@RpcProtocol expansion",
    .macros(["RpcProtocol": RpcProtocolMacro.self, "RpcName": RpcNameMacro.self]))
struct RpcProtocolExpansionTests {
    @Test("a property, a method with labels, a method returning nothing, a subscript and a renamed method become stub members")
    func everyMemberForm() {
        assertMacro {
            """
            @RpcProtocol
            protocol TodoService {
                var count: Int { get async throws }
                func list(filter: TodoFilter?) async throws -> [Todo]
                func move(_ id: String, to position: Int) async throws -> Todo
                func clear() async throws
                @RpcName("delete") func remove(id: String) async throws
                subscript(id: String) -> SingleTodoService { get }
            }
            """
        } expansion: {
            """
            protocol TodoService {
                var count: Int { get async throws }
                func list(filter: TodoFilter?) async throws -> [Todo]
                func move(_ id: String, to position: Int) async throws -> Todo
                func clear() async throws
                func remove(id: String) async throws
                subscript(id: String) -> SingleTodoService { get }
            }

            /// The typed stub `@RpcProtocol` generates for `TodoService`: each member reads or calls the remote member of the same name through `ref`.
            struct TodoServiceStub: TodoService, RpcProtocolStub {
                /// The reference every member builds on.
                let ref: Ref<Any>

                /// A stub over `ref`.
                init(ref: Ref<Any>) {
                    self.ref = ref
                }

                var count: Int {
                    get async throws {
                        try await _capnwebResult((Int).self, RpcStubSupport.member(ref, "count"))
                    }
                }

                func list(filter a0: TodoFilter?) async throws -> [Todo] {
                    try await _capnwebResult(([Todo]).self, RpcStubSupport.call(ref, "list", [_capnwebEncode(a0)]))
                }

                func move(_ a0: String, to a1: Int) async throws -> Todo {
                    try await _capnwebResult((Todo).self, RpcStubSupport.call(ref, "move", [_capnwebEncode(a0), _capnwebEncode(a1)]))
                }

                func clear() async throws {
                    try await _capnwebResult(Void.self, RpcStubSupport.call(ref, "clear", []))
                }

                func remove(id a0: String) async throws {
                    try await _capnwebResult(Void.self, RpcStubSupport.call(ref, "delete", [_capnwebEncode(a0)]))
                }

                subscript(key: String) -> SingleTodoService {
                    _capnwebStub((SingleTodoService).self, RpcStubSupport.element(ref, key))
                }
            }

            /// A member of type `TodoService` yields its stub at once, without a round trip.
            func _capnwebResult(_ type: (any TodoService).Type, _ ref: Ref<Any>) async throws -> any TodoService {
                TodoServiceStub(ref: ref)
            }

            /// A subscript of type `TodoService` yields its stub.
            func _capnwebStub(_ type: (any TodoService).Type, _ ref: Ref<Any>) -> any TodoService {
                TodoServiceStub(ref: ref)
            }

            /// An argument of type `TodoService` passed to an `@Rpc` method: a stub over the reference the peer sent.
            func _capnwebArgument(_ type: (any TodoService).Type, _ arguments: RpcArguments, _ index: Int, method: String, parameter: String) throws -> any TodoService {
                TodoServiceStub(ref: try RpcTargetSupport.reference(arguments, index, method: method, parameter: parameter))
            }

            /// A value of type `TodoService` sent to the peer: the reference a stub holds, or a local target.
            func _capnwebEncode(_ value: any TodoService) throws -> RpcPayload {
                try RpcStubSupport.payload(ofAny: value)
            }
            """
        }
    }

    @Test("a public protocol gets a public stub, public overloads and a public typed api")
    func publicProtocol() {
        assertMacro {
            """
            @RpcProtocol
            public protocol Counter {
                func increment(_ amount: Int) async throws -> Int
            }
            """
        } expansion: {
            """
            public protocol Counter {
                func increment(_ amount: Int) async throws -> Int
            }

            /// The typed stub `@RpcProtocol` generates for `Counter`: each member reads or calls the remote member of the same name through `ref`.
            public struct CounterStub: Counter, RpcProtocolStub {
                /// The reference every member builds on.
                public let ref: Ref<Any>

                /// A stub over `ref`.
                public init(ref: Ref<Any>) {
                    self.ref = ref
                }

                public func increment(_ a0: Int) async throws -> Int {
                    try await _capnwebResult((Int).self, RpcStubSupport.call(ref, "increment", [_capnwebEncode(a0)]))
                }
            }

            /// A member of type `Counter` yields its stub at once, without a round trip.
            public func _capnwebResult(_ type: (any Counter).Type, _ ref: Ref<Any>) async throws -> any Counter {
                CounterStub(ref: ref)
            }

            /// A subscript of type `Counter` yields its stub.
            public func _capnwebStub(_ type: (any Counter).Type, _ ref: Ref<Any>) -> any Counter {
                CounterStub(ref: ref)
            }

            /// An argument of type `Counter` passed to an `@Rpc` method: a stub over the reference the peer sent.
            public func _capnwebArgument(_ type: (any Counter).Type, _ arguments: RpcArguments, _ index: Int, method: String, parameter: String) throws -> any Counter {
                CounterStub(ref: try RpcTargetSupport.reference(arguments, index, method: method, parameter: parameter))
            }

            /// A value of type `Counter` sent to the peer: the reference a stub holds, or a local target.
            public func _capnwebEncode(_ value: any Counter) throws -> RpcPayload {
                try RpcStubSupport.payload(ofAny: value)
            }
            """
        }
    }

    @Test("a property that is not async throws is an error saying to declare it { get async throws }")
    func synchronousProperty() {
        assertMacro {
            """
            @RpcProtocol
            protocol API {
                var name: String { get }
            }
            """
        } diagnostics: {
            """
            @RpcProtocol
            protocol API {
                var name: String { get }
                ┬───────────────────────
                ╰─ 🛑 property 'name' of an @RpcProtocol protocol must be declared '{ get async throws }': reading it may cross the network
            }
            """
        }
    }

    @Test("a property with a setter is an error")
    func settableProperty() {
        assertMacro {
            """
            @RpcProtocol
            protocol API {
                var name: String { get set }
            }
            """
        } diagnostics: {
            """
            @RpcProtocol
            protocol API {
                var name: String { get set }
                ┬───────────────────────────
                ╰─ 🛑 property 'name' of an @RpcProtocol protocol cannot have a setter: Cap'n Web has no remote assignment; declare a method instead
            }
            """
        }
    }

    @Test("a method that is not async throws is an error")
    func synchronousMethod() {
        assertMacro {
            """
            @RpcProtocol
            protocol API {
                func name() -> String
            }
            """
        } diagnostics: {
            """
            @RpcProtocol
            protocol API {
                func name() -> String
                ┬────────────────────
                ╰─ 🛑 method 'name' of an @RpcProtocol protocol must be declared 'async throws': calling it may cross the network
            }
            """
        }
    }

    @Test("a generic method is an error")
    func genericMethod() {
        assertMacro {
            """
            @RpcProtocol
            protocol API {
                func echo<T: Codable>(_ value: T) async throws -> T
            }
            """
        } diagnostics: {
            """
            @RpcProtocol
            protocol API {
                func echo<T: Codable>(_ value: T) async throws -> T
                ┬──────────────────────────────────────────────────
                ╰─ 🛑 generic method 'echo' cannot be called remotely: its arguments arrive as JSON with no type to decode them as; make it non-generic
            }
            """
        }
    }

    @Test("an inout parameter is an error")
    func inoutParameter() {
        assertMacro {
            """
            @RpcProtocol
            protocol API {
                func fill(_ values: inout [Int]) async throws
            }
            """
        } diagnostics: {
            """
            @RpcProtocol
            protocol API {
                func fill(_ values: inout [Int]) async throws
                          ┬────────────────────
                          ╰─ 🛑 'inout' parameter 'values' of 'fill' cannot cross the wire: the caller would never see the change; take the value and return the new one instead
            }
            """
        }
    }

    @Test("a subscript with two keys is an error")
    func subscriptShape() {
        assertMacro {
            """
            @RpcProtocol
            protocol API {
                subscript(a: String, b: String) -> Other { get }
            }
            """
        } diagnostics: {
            """
            @RpcProtocol
            protocol API {
                subscript(a: String, b: String) -> Other { get }
                ┬───────────────────────────────────────────────
                ╰─ 🛑 a subscript of an @RpcProtocol protocol takes one String or Int key and is '{ get }' only; it names a member of the remote object
            }
            """
        }
    }

    @Test("@RpcProtocol on a struct is an error")
    func notAProtocol() {
        assertMacro {
            """
            @RpcProtocol
            struct API {}
            """
        } diagnostics: {
            """
            @RpcProtocol
            ┬───────────
            ╰─ 🛑 @RpcProtocol applies to a protocol; declare the API as a protocol
            struct API {}
            """
        }
    }
}
