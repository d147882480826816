import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Rpc`: makes an actor or a final class callable by the peer. It generates the `RpcTarget`
/// conformance (every non-private method and property, arguments decoded by position) and
/// `stub`, a reference to pass the object to the peer.
struct RpcMacro: ExtensionMacro {
    static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let isActor: Bool
        if declaration.is(ActorDeclSyntax.self) {
            isActor = true
        } else if let classDecl = declaration.as(ClassDeclSyntax.self),
                  DeclAccess.has(.final, in: classDecl.modifiers) {
            isActor = false
        } else {
            let kind: String
            switch declaration.kind {
            case .structDecl: kind = "struct"
            case .enumDecl: kind = "enum"
            case .classDecl: kind = "non-final class"
            case .protocolDecl: kind = "protocol (use @RpcProtocol for a typed client)"
            default: kind = "declaration of this kind"
            }
            context.diagnose(.init(node: Syntax(node), message: MacroMessage.rpcNotOnActorOrFinalClass(kind)))
            return []
        }
        let access = DeclAccess.visibleModifier(declaration.modifiers)
        var methods: [ExposedMethod] = []
        var properties: [ExposedProperty] = []
        var failed = false
        var wireNames: [String: Syntax] = [:]
        var fallback: MemberSubscript?
        for item in declaration.memberBlock.members {
            if let subscriptDecl = item.decl.as(SubscriptDeclSyntax.self),
               let found = MemberSubscript.read(subscriptDecl, isActor: isActor) {
                fallback = found
                continue
            }
            if let function = item.decl.as(FunctionDeclSyntax.self) {
                switch ExposedMethod.read(function, isActor: isActor, context: context) {
                case .skipped: continue
                case .failed: failed = true
                case .exposed(let method):
                    if RpcProtocolMacro.claim(method.wire, at: Syntax(function), in: &wireNames, context: context) {
                        methods.append(method)
                    } else {
                        failed = true
                    }
                }
            } else if let variable = item.decl.as(VariableDeclSyntax.self) {
                for property in ExposedProperty.read(variable, isActor: isActor) {
                    if RpcProtocolMacro.claim(property.wire, at: Syntax(variable), in: &wireNames, context: context) {
                        properties.append(property)
                    } else {
                        failed = true
                    }
                }
            }
        }
        if failed { return [] }
        let conformance = protocols.isEmpty ? "" : ": RpcTarget"
        var members: [String] = []
        let immediateMethods = methods.filter(\.isImmediate)
        let taskMethods = methods.filter { !$0.isImmediate }
        if !immediateMethods.isEmpty {
            members.append(
                """
                    /// Runs the methods that never suspend, on the thread that delivers the call.
                    \(access)nonisolated func callImmediately(_ method: String, with arguments: RpcArguments) throws -> RpcPayload? {
                        switch method {
                \(immediateMethods.map(\.switchCase).joined(separator: "\n"))
                        default:
                            return nil
                        }
                    }
                """)
        }
        if !taskMethods.isEmpty {
            members.append(
                """
                    /// Runs the methods that may suspend.
                    \(access)nonisolated func call(_ method: String, with arguments: RpcArguments) async throws -> RpcPayload {
                        switch method {
                \(taskMethods.map(\.switchCase).joined(separator: "\n"))
                        default:
                            if let value = try callImmediately(method, with: arguments) {
                                return value
                            }
                            throw RpcErrorValue.notAFunction(method)
                        }
                    }
                """)
        }
        let immediateProperties = properties.filter(\.isImmediate)
        let taskProperties = properties.filter { !$0.isImmediate }
        let immediateFallback = fallback.map { $0.isImmediate ? $0.read : "return nil" } ?? "return nil"
        let taskFallback = fallback.map {
            $0.isImmediate
                ? "return try propertyImmediately(name) ?? .undefined"
                : "if let value = try propertyImmediately(name) {\n                return value\n            }\n            " + $0.read
        } ?? "return try propertyImmediately(name) ?? .undefined"
        if !immediateProperties.isEmpty || fallback?.isImmediate == true {
            members.append(
                """
                    /// Reads the properties that never suspend.
                    \(access)nonisolated func propertyImmediately(_ name: String) throws -> RpcPayload? {
                        switch name {
                \(immediateProperties.map(\.switchCase).joined(separator: "\n"))
                        default:
                            \(immediateFallback)
                        }
                    }
                """)
        }
        if !taskProperties.isEmpty || fallback?.isImmediate == false {
            members.append(
                """
                    /// Reads the properties that may suspend.
                    \(access)nonisolated func property(_ name: String) async throws -> RpcPayload {
                        switch name {
                \(taskProperties.map(\.switchCase).joined(separator: "\n"))
                        default:
                            \(taskFallback)
                        }
                    }
                """)
        }
        members.append(
            """
                /// A reference to this object, to pass to the peer (as an argument or a result).
                \(access)nonisolated var stub: Ref<\(type.trimmedDescription)> {
                    Ref<\(type.trimmedDescription)>(self)
                }
            """)
        let decl: DeclSyntax = """
            extension \(type.trimmed)\(raw: conformance) {
            \(raw: members.joined(separator: "\n\n"))
            }
            """
        guard let ext = decl.as(ExtensionDeclSyntax.self) else { return [] }
        return [ext]
    }
}

/// A method `@Rpc` exposes.
struct ExposedMethod {
    /// What reading a declaration gave.
    enum Reading {
        case skipped
        case failed
        case exposed(ExposedMethod)
    }

    let wire: String
    let isImmediate: Bool
    let switchCase: String

    static func read(_ function: FunctionDeclSyntax, isActor: Bool, context: some MacroExpansionContext) -> Reading {
        let swiftName = WireName.plain(function.name)
        if DeclAccess.isHidden(function.modifiers) || DeclAccess.has(.static, in: function.modifiers)
            || DeclAccess.has(.class, in: function.modifiers) || swiftName.hasPrefix("_")
        {
            return .skipped
        }
        if function.genericParameterClause != nil || function.genericWhereClause != nil {
            context.diagnose(.init(node: Syntax(function), message: MacroMessage.genericMethod(swiftName, canHide: true)))
            return .failed
        }
        guard let parameters = ParameterShape.read(function.signature.parameterClause.parameters, of: swiftName, context: context) else {
            return .failed
        }
        let wire = WireName.override(in: function.attributes) ?? swiftName
        let effects = function.signature.effectSpecifiers
        let isAsync = effects?.asyncSpecifier != nil
        let throwsErrors = effects?.throwsClause != nil
        let isolated = isActor && !DeclAccess.has(.nonisolated, in: function.modifiers)
        let quotedWire = WireName.quoted(wire)
        let required = parameters.lastIndex(where: { !$0.isOptional }).map { $0 + 1 } ?? 0
        var lines: [String] = []
        lines.append("        case \(quotedWire):")
        lines.append(
            "            try RpcTargetSupport.checkCount(arguments, method: \(quotedWire), required: \(required), maximum: \(parameters.count))")
        for (index, parameter) in parameters.enumerated() {
            let type = parameter.type.trimmedDescription
            let decode = "_capnwebArgument((\(type)).self, arguments, \(index), method: \(quotedWire), parameter: \(WireName.quoted(parameter.displayName)))"
            if let defaultValue = parameter.defaultValue {
                lines.append(
                    "            let \(parameter.local): \(type) = try RpcTargetSupport.isMissing(arguments, \(index)) ? \(defaultValue.trimmedDescription) : \(decode)")
            } else {
                lines.append("            let \(parameter.local): \(type) = try \(decode)")
            }
        }
        let callArguments = parameters.map { parameter in
            parameter.label.map { "\($0): \(parameter.local)" } ?? parameter.local
        }.joined(separator: ", ")
        let effectsPrefix = (throwsErrors ? "try " : "") + ((isAsync || isolated) ? "await " : "")
        lines.append("            return try _capnwebEncode(\(effectsPrefix)self.\(function.name.text)(\(callArguments)))")
        return .exposed(ExposedMethod(wire: wire, isImmediate: !isAsync && !isolated, switchCase: lines.joined(separator: "\n")))
    }
}

/// A property `@Rpc` exposes.
struct ExposedProperty {
    let wire: String
    let isImmediate: Bool
    let switchCase: String

    static func read(_ variable: VariableDeclSyntax, isActor: Bool) -> [ExposedProperty] {
        if DeclAccess.isHidden(variable.modifiers) || DeclAccess.has(.static, in: variable.modifiers)
            || DeclAccess.has(.class, in: variable.modifiers)
        {
            return []
        }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        let nonisolated = DeclAccess.has(.nonisolated, in: variable.modifiers)
        let wireOverride = variable.bindings.count == 1 ? WireName.override(in: variable.attributes) : nil
        var result: [ExposedProperty] = []
        for binding in variable.bindings {
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
            let swiftName = WireName.plain(identifier.identifier)
            if swiftName.hasPrefix("_") { continue }
            var isAsync = false
            var throwsErrors = false
            switch binding.accessorBlock?.accessors {
            case .accessors(let accessors):
                if let getter = accessors.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) }) {
                    isAsync = getter.effectSpecifiers?.asyncSpecifier != nil
                    throwsErrors = getter.effectSpecifiers?.throwsClause != nil
                } else if !accessors.contains(where: {
                    [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
                }) {
                    // `set`/`_modify` only, or other accessors without a getter: nothing to read.
                    continue
                }
            case .getter, nil:
                break
            }
            let isolated = isActor && !isLet && !nonisolated
            let wire = wireOverride ?? swiftName
            let effectsPrefix = (throwsErrors ? "try " : "") + ((isAsync || isolated) ? "await " : "")
            let switchCase = """
                        case \(WireName.quoted(wire)):
                            return try _capnwebEncode(\(effectsPrefix)self.\(identifier.identifier.text))
                """
            result.append(ExposedProperty(wire: wire, isImmediate: !isAsync && !isolated, switchCase: switchCase))
        }
        return result
    }
}

/// A `subscript(_: String) -> T` of an `@Rpc` type: it answers reads of member names no
/// property has (`todos["123"]`).
struct MemberSubscript {
    let isImmediate: Bool
    let read: String

    static func read(_ subscriptDecl: SubscriptDeclSyntax, isActor: Bool) -> MemberSubscript? {
        let parameters = subscriptDecl.parameterClause.parameters
        guard !DeclAccess.isHidden(subscriptDecl.modifiers), !DeclAccess.has(.static, in: subscriptDecl.modifiers),
              parameters.count == 1, let parameter = parameters.first,
              parameter.type.trimmedDescription == "String",
              subscriptDecl.genericParameterClause == nil
        else { return nil }
        var isAsync = false
        var throwsErrors = false
        if case .accessors(let accessors) = subscriptDecl.accessorBlock?.accessors,
           let getter = accessors.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) }) {
            isAsync = getter.effectSpecifiers?.asyncSpecifier != nil
            throwsErrors = getter.effectSpecifiers?.throwsClause != nil
        }
        let isolated = isActor && !DeclAccess.has(.nonisolated, in: subscriptDecl.modifiers)
        let label = parameter.firstName.text == "_" || parameter.secondName == nil ? "" : "\(parameter.firstName.text): "
        let effects = (throwsErrors ? "try " : "") + ((isAsync || isolated) ? "await " : "")
        return MemberSubscript(
            isImmediate: !isAsync && !isolated,
            read: "return try _capnwebEncode(\(effects)self[\(label)name])")
    }
}
