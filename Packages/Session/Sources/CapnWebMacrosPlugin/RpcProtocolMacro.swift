import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@RpcProtocol`: a typed client for a remote API. For protocol `P` it generates `PStub`, a
/// struct conforming to `P` over a ``Ref``, the overloads that let members of type `P`
/// elsewhere yield a `PStub` without a round trip.
struct RpcProtocolMacro: PeerMacro {
    static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let proto = declaration.as(ProtocolDeclSyntax.self) else {
            context.diagnose(.init(node: Syntax(node), message: MacroMessage.rpcProtocolNotOnProtocol()))
            return []
        }
        let name = proto.name.text
        let access = DeclAccess.visibleModifier(proto.modifiers)
        var members: [String] = []
        var failed = false
        for item in proto.memberBlock.members {
            let decl = item.decl
            let generated: String?
            if let variable = decl.as(VariableDeclSyntax.self) {
                generated = property(variable, access: access, context: context)
            } else if let function = decl.as(FunctionDeclSyntax.self) {
                generated = method(function, access: access, context: context)
            } else if let subscriptDecl = decl.as(SubscriptDeclSyntax.self) {
                generated = subscriptMember(subscriptDecl, access: access, context: context)
            } else {
                context.diagnose(.init(node: Syntax(decl), message: MacroMessage.unsupportedRequirement()))
                generated = nil
            }
            if let generated { members.append(generated) } else { failed = true }
        }
        if failed { return [] }
        let stub = "\(name)Stub"
        let body = members.joined(separator: "\n\n")
        return [
            """
            /// The typed stub `@RpcProtocol` generates for `\(raw: name)`: each member reads or calls \
            the remote member of the same name through `ref`.
            \(raw: access)struct \(raw: stub): \(raw: name), RpcProtocolStub {
                /// The reference every member builds on.
                \(raw: access)let ref: Ref<Any>

                /// A stub over `ref`.
                \(raw: access)init(ref: Ref<Any>) {
                    self.ref = ref
                }

            \(raw: body)
            }
            """,
            """
            /// A member of type `\(raw: name)` yields its stub at once, without a round trip.
            \(raw: access)func _capnwebResult(_ type: (any \(raw: name)).Type, _ ref: Ref<Any>) async throws -> any \(raw: name) {
                \(raw: stub)(ref: ref)
            }
            """,
            """
            /// A subscript of type `\(raw: name)` yields its stub.
            \(raw: access)func _capnwebStub(_ type: (any \(raw: name)).Type, _ ref: Ref<Any>) -> any \(raw: name) {
                \(raw: stub)(ref: ref)
            }
            """,
            """
            /// An argument of type `\(raw: name)` passed to an `@Rpc` method: a stub over the reference the peer sent.
            \(raw: access)func _capnwebArgument(_ type: (any \(raw: name)).Type, _ arguments: RpcArguments, _ index: Int, method: String, parameter: String) throws -> any \(raw: name) {
                \(raw: stub)(ref: try RpcTargetSupport.reference(arguments, index, method: method, parameter: parameter))
            }
            """,
            """
            /// A value of type `\(raw: name)` sent to the peer: the reference a stub holds, or a local target.
            \(raw: access)func _capnwebEncode(_ value: any \(raw: name)) throws -> RpcPayload {
                try RpcStubSupport.payload(ofAny: value)
            }
            """,
        ]
    }

    // MARK: Members

    /// A `{ get async throws }` property: reads the remote member.
    private static func property(
        _ variable: VariableDeclSyntax, access: String, context: some MacroExpansionContext
    ) -> String? {
        guard !DeclAccess.has(.static, in: variable.modifiers), variable.bindings.count == 1,
              let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self),
              let type = binding.typeAnnotation?.type
        else {
            context.diagnose(.init(node: Syntax(variable), message: MacroMessage.unsupportedRequirement()))
            return nil
        }
        let swiftName = WireName.plain(identifier.identifier)
        guard case .accessors(let accessors) = binding.accessorBlock?.accessors else {
            context.diagnose(.init(node: Syntax(variable), message: MacroMessage.propertyNotAsync(swiftName)))
            return nil
        }
        if accessors.contains(where: { $0.accessorSpecifier.tokenKind != .keyword(.get) }) {
            context.diagnose(.init(node: Syntax(variable), message: MacroMessage.settableProperty(swiftName)))
            return nil
        }
        guard let getter = accessors.first,
              getter.effectSpecifiers?.asyncSpecifier != nil,
              getter.effectSpecifiers?.throwsClause != nil
        else {
            context.diagnose(.init(node: Syntax(variable), message: MacroMessage.propertyNotAsync(swiftName)))
            return nil
        }
        let wire = WireName.override(in: variable.attributes) ?? swiftName
        return """
                \(access)var \(identifier.identifier.text): \(type.trimmedDescription) {
                    get async throws {
                        try await _capnwebResult((\(type.trimmedDescription)).self, RpcStubSupport.member(ref, \(WireName.quoted(wire))))
                    }
                }
            """
    }

    /// An `async throws` method: calls the remote method with the arguments in order.
    private static func method(
        _ function: FunctionDeclSyntax, access: String, context: some MacroExpansionContext
    ) -> String? {
        let swiftName = WireName.plain(function.name)
        if DeclAccess.has(.static, in: function.modifiers) {
            context.diagnose(.init(node: Syntax(function), message: MacroMessage.unsupportedRequirement()))
            return nil
        }
        if function.genericParameterClause != nil || function.genericWhereClause != nil {
            context.diagnose(.init(node: Syntax(function), message: MacroMessage.genericMethod(swiftName, canHide: false)))
            return nil
        }
        let effects = function.signature.effectSpecifiers
        guard effects?.asyncSpecifier != nil, effects?.throwsClause != nil else {
            context.diagnose(.init(node: Syntax(function), message: MacroMessage.methodNotAsync(swiftName)))
            return nil
        }
        guard let parameters = ParameterShape.read(function.signature.parameterClause.parameters, of: swiftName, context: context) else {
            return nil
        }
        let wire = WireName.override(in: function.attributes) ?? swiftName
        let signature = parameters.map(\.declaration).joined(separator: ", ")
        let arguments = parameters.map { "_capnwebEncode(\($0.local))" }.joined(separator: ", ")
        let returnType = function.signature.returnClause?.type
        let resultType = DeclAccess.isVoid(returnType) ? "Void" : "(\(returnType?.trimmedDescription ?? "Void"))"
        let arrow = returnType.map { " -> \($0.trimmedDescription)" } ?? ""
        return """
                \(access)func \(function.name.text)(\(signature)) async throws\(arrow) {
                    try await _capnwebResult(\(resultType).self, RpcStubSupport.call(ref, \(WireName.quoted(wire)), [\(arguments)]))
                }
            """
    }

    /// A `{ get }` subscript with one `String` or `Int` key: the remote member it names, as a stub.
    private static func subscriptMember(
        _ subscriptDecl: SubscriptDeclSyntax, access: String, context: some MacroExpansionContext
    ) -> String? {
        let parameters = subscriptDecl.parameterClause.parameters
        var getterOnly = true
        switch subscriptDecl.accessorBlock?.accessors {
        case .accessors(let accessors):
            getterOnly = accessors.allSatisfy {
                $0.accessorSpecifier.tokenKind == .keyword(.get) && $0.effectSpecifiers == nil
            }
        case .getter, nil:
            break
        }
        guard getterOnly, parameters.count == 1, let parameter = parameters.first,
              subscriptDecl.genericParameterClause == nil,
              !DeclAccess.has(.static, in: subscriptDecl.modifiers)
        else {
            context.diagnose(.init(node: Syntax(subscriptDecl), message: MacroMessage.subscriptShape()))
            return nil
        }
        let label = parameter.secondName != nil ? "\(parameter.firstName.text) key" : "key"
        let result = subscriptDecl.returnClause.type.trimmedDescription
        return """
                \(access)subscript(\(label): \(parameter.type.trimmedDescription)) -> \(result) {
                    _capnwebStub((\(result)).self, RpcStubSupport.element(ref, key))
                }
            """
    }

    /// Records that `wire` is taken; diagnoses a second member with the same wire name.
    static func claim(
        _ wire: String, at node: Syntax, in names: inout [String: Syntax], context: some MacroExpansionContext
    ) -> Bool {
        if names[wire] != nil {
            context.diagnose(.init(node: node, message: MacroMessage.duplicateName(wire)))
            return false
        }
        names[wire] = node
        return true
    }
}
