/// Builds the readable descriptions of Cap'n Web messages and expressions.
enum CapnWebText {
    /// `text` in double quotes, with quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"":
                result += "\\\""
            case "\\":
                result += "\\\\"
            case "\n":
                result += "\\n"
            case "\r":
                result += "\\r"
            case "\t":
                result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        result += "\""
        return result
    }

    /// A number as JavaScript would show it when it is integral (`5`), otherwise Swift's
    /// shortest form (`2.5`); non-finite values as `inf`, `-inf` and `nan`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if let integral = CapnWebNumbers.exactInteger(value) {
            return String(integral)
        }
        return String(value)
    }

    /// Appends a compact rendering of plain JSON.
    static func appendJSON(_ value: JSONValue, to text: inout String) {
        switch value {
        case .null:
            text += "null"
        case .bool(let flag):
            text += flag ? "true" : "false"
        case .integer(let integer):
            text += String(integer)
        case .double(let double):
            text += String(double)
        case .string(let string):
            text += quoted(string)
        case .array(let elements):
            text += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { text += ", " }
                appendJSON(element, to: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (position, member) in object.enumerated() {
                if position > 0 { text += ", " }
                text += quoted(member.key)
                text += ": "
                appendJSON(member.value, to: &text)
            }
            text += "}"
        }
    }

    /// Appends the readable form of `expression`.
    static func appendExpression(_ expression: CapnWebExpression, to text: inout String) {
        switch expression {
        case .null:
            text += "null"
        case .bool(let flag):
            text += flag ? "true" : "false"
        case .integer(let integer):
            text += String(integer)
        case .double(let double):
            if double.isFinite {
                text += String(double)
            } else {
                text += number(double)
            }
        case .string(let string):
            text += quoted(string)
        case .object(let members):
            text += "{"
            appendList(members, to: &text) { member, text in
                text += quoted(member.key)
                text += ": "
                appendExpression(member.value, to: &text)
            }
            text += "}"
        case .array(let elements):
            appendExpressions(elements, to: &text)
        case .undefined:
            text += "undefined"
        case .infinity:
            text += "inf"
        case .negativeInfinity:
            text += "-inf"
        case .nan:
            text += "nan"
        case .bigint(let digits):
            text += "bigint(\(digits))"
        case .date(let milliseconds):
            if let milliseconds, milliseconds.isFinite {
                text += "date(\(number(milliseconds)))"
            } else {
                text += "date(invalid)"
            }
        case .bytes(let bytes, let type):
            text += "bytes(\(bytes.count) B"
            if let type {
                text += ", \(type.rawValue)"
            }
            text += ")"
        case .error(let name, let message, let stack, let properties):
            text += "error(\(quoted(name)), \(quoted(message))"
            if let stack {
                text += ", stack: \(quoted(stack))"
            }
            if let properties {
                text += ", {"
                appendList(properties, to: &text) { member, text in
                    text += quoted(member.key)
                    text += ": "
                    appendExpression(member.value, to: &text)
                }
                text += "}"
            }
            text += ")"
        case .url(let href):
            text += "url(\(quoted(href)))"
        case .headers(let headers):
            text += "headers(["
            appendList(headers, to: &text) { header, text in
                text += header.description
            }
            text += "])"
        case .request(let url, let requestInit):
            text += "request(\(quoted(url)), \(requestInit))"
        case .response(let body, let responseInit):
            text += "response("
            appendExpression(body, to: &text)
            text += ", \(responseInit))"
        case .blob(let mimeType, let readable):
            text += "blob(\(quoted(mimeType)), readable(\(readable)))"
        case .export(let id):
            text += "export(\(id))"
        case .promise(let id):
            text += "promise(\(id))"
        case .import(let id, let path, let arguments):
            appendReference("import", id, path, arguments, to: &text)
        case .pipeline(let id, let path, let arguments):
            appendReference("pipeline", id, path, arguments, to: &text)
        case .remap(let id, let path, let captures, let instructions):
            text += "remap(\(id), "
            appendPath(path, to: &text)
            text += ", ["
            appendList(captures, to: &text) { capture, text in
                text += capture.description
            }
            text += "], "
            appendExpressions(instructions, to: &text)
            text += ")"
        case .readable(let id):
            text += "readable(\(id))"
        case .writable(let id):
            text += "writable(\(id))"
        }
    }

    private static func appendReference(
        _ name: String, _ id: Int64, _ path: [CapnWebPathKey]?, _ arguments: [CapnWebExpression]?,
        to text: inout String
    ) {
        text += "\(name)(\(id)"
        if path != nil || arguments != nil {
            text += ", "
            appendPath(path ?? [], to: &text)
        }
        if let arguments {
            text += ", "
            appendExpressions(arguments, to: &text)
        }
        text += ")"
    }

    private static func appendPath(_ path: [CapnWebPathKey], to text: inout String) {
        text += "["
        appendList(path, to: &text) { key, text in
            text += key.description
        }
        text += "]"
    }

    private static func appendExpressions(_ expressions: [CapnWebExpression], to text: inout String) {
        text += "["
        appendList(expressions, to: &text) { expression, text in
            appendExpression(expression, to: &text)
        }
        text += "]"
    }

    private static func appendList<Element>(
        _ elements: [Element], to text: inout String, _ appendElement: (Element, inout String) -> Void
    ) {
        for (position, element) in elements.enumerated() {
            if position > 0 { text += ", " }
            appendElement(element, &text)
        }
    }
}
