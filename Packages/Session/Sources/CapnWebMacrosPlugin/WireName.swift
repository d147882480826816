import SwiftSyntax

/// The name a member has on the wire: its Swift base name, or the one `@RpcName("…")` gives.
enum WireName {
    /// The string literal of an `@RpcName("…")` attribute, `nil` when it is not one plain literal.
    static func literal(of attribute: AttributeSyntax) -> String? {
        guard case .argumentList(let arguments) = attribute.arguments, arguments.count == 1,
              let argument = arguments.first, argument.label == nil,
              let literal = argument.expression.as(StringLiteralExprSyntax.self),
              literal.segments.count == 1,
              case .stringSegment(let segment) = literal.segments.first
        else { return nil }
        return segment.content.text
    }

    /// The `@RpcName` name among `attributes`, if any.
    static func override(in attributes: AttributeListSyntax) -> String? {
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            let name = attribute.attributeName.trimmedDescription
            if name == "RpcName" || name.hasSuffix(".RpcName") {
                return literal(of: attribute)
            }
        }
        return nil
    }

    /// A Swift identifier without its backticks.
    static func plain(_ token: TokenSyntax) -> String {
        var text = token.text
        if text.hasPrefix("`"), text.hasSuffix("`"), text.count >= 2 {
            text = String(text.dropFirst().dropLast())
        }
        return text
    }

    /// `text` as a Swift string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text.unicodeScalars {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if character.value < 0x20 {
                    result += "\\u{\(String(character.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(character)
                }
            }
        }
        return result + "\""
    }
}
