import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A parameter of an exposed or stubbed method, as the generated code uses it.
struct ParameterShape {
    /// The argument label at the call site, `nil` for none (`_`).
    let label: String?
    /// The name the parameter is shown under in messages.
    let displayName: String
    /// The local name the generated code uses.
    let local: String
    /// The type as written.
    let type: TypeSyntax
    /// The default value as written, if any.
    let defaultValue: ExprSyntax?
    /// The parameter as the generated stub declares it.
    var declaration: String {
        "\(label ?? "_") \(local): \(type.trimmedDescription)"
    }
    /// Whether a call may leave it out (it has a default or is optional).
    var isOptional: Bool {
        defaultValue != nil || DeclAccess.isOptional(type)
    }

    /// The shapes of `parameters`, or `nil` after diagnosing an `inout` or variadic one.
    static func read(
        _ parameters: FunctionParameterListSyntax, of method: String, context: some MacroExpansionContext
    ) -> [ParameterShape]? {
        var shapes: [ParameterShape] = []
        var failed = false
        for (index, parameter) in parameters.enumerated() {
            let display = WireName.plain(parameter.secondName ?? parameter.firstName)
            if let attributed = parameter.type.as(AttributedTypeSyntax.self),
               attributed.specifiers.contains(where: {
                   if case .simpleTypeSpecifier(let specifier) = $0 {
                       return specifier.specifier.tokenKind == .keyword(.inout)
                   }
                   return false
               }) {
                context.diagnose(.init(node: Syntax(parameter), message: MacroMessage.inoutParameter(display, of: method)))
                failed = true
                continue
            }
            if parameter.ellipsis != nil {
                context.diagnose(.init(node: Syntax(parameter), message: MacroMessage.variadicParameter(display, of: method)))
                failed = true
                continue
            }
            let firstName = parameter.firstName.text
            shapes.append(
                ParameterShape(
                    label: firstName == "_" ? nil : firstName,
                    displayName: display == "_" ? "#\(index)" : display,
                    local: "a\(index)",
                    type: parameter.type,
                    defaultValue: parameter.defaultValue?.value))
        }
        return failed ? nil : shapes
    }
}
