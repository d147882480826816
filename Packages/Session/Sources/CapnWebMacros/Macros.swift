/// Makes a protocol a typed Cap'n Web API: the macro generates `<Name>Stub`, a struct
/// conforming to the protocol over a ``Ref``. A session typed by the stub hands out its
/// `api` as that stub.
///
/// ```swift
/// @RpcProtocol
/// protocol TodoService {
///     func list(filter: TodoFilter?) async throws -> [Todo]
///     subscript(id: String) -> SingleTodoService { get }
/// }
///
/// try await withRpcSession(to: url, as: TodoAPIStub.self) { session in
///     let active = try await session.api.todos.list(filter: .active)
/// }
/// ```
///
/// Requirements may be properties `{ get async throws }`, `async throws` methods, and
/// `{ get }` subscripts with one `String` or `Int` key. A member whose type is another
/// `@RpcProtocol` protocol (or a ``Ref``) yields its stub at once, pipelined, without a round
/// trip; a member of a `Decodable` type or `Void` sends and awaits. Arguments are encoded in
/// order with their labels dropped; ``Ref``s and stubs pass as references. Every stub exposes
/// its ``RpcProtocolStub/ref`` for dynamic calls.
@attached(
    peer,
    names: suffixed(Stub), named(_capnwebResult), named(_capnwebStub), named(_capnwebArgument),
    named(_capnwebEncode))
public macro RpcProtocol() = #externalMacro(module: "CapnWebMacrosPlugin", type: "RpcProtocolMacro")

/// Makes an actor or a final class callable by the peer: the macro generates its ``RpcTarget``
/// conformance and `stub`, a ``Ref`` to pass it to the peer.
///
/// ```swift
/// @Rpc actor ChatRoom {
///     func join(userId: String) -> [Message] { … }
///     private func audit() { … }   // not callable remotely
/// }
/// try await session.api.subscribe(callback: room.stub)
/// ```
///
/// Every method and property declared in the type's body is exposed, unless it is `private`,
/// `fileprivate`, `static` or its name starts with `_`. Arguments are decoded by position; a
/// wrong count or type rejects the call with a `TypeError` naming the method and the argument.
/// Methods and properties that never suspend (those of a final class, and an actor's
/// `nonisolated` ones and `let`s) are answered on the thread that delivers the call.
@attached(
    extension, conformances: RpcTarget,
    names: named(call), named(callImmediately), named(property), named(propertyImmediately), named(stub))
public macro Rpc() = #externalMacro(module: "CapnWebMacrosPlugin", type: "RpcMacro")

/// Gives a member of an `@RpcProtocol` protocol or an `@Rpc` type its name on the wire, for a
/// remote name Swift cannot spell or one it reserves: `@RpcName("delete") func remove() async throws`.
@attached(peer)
public macro RpcName(_ name: String) = #externalMacro(module: "CapnWebMacrosPlugin", type: "RpcNameMacro")
