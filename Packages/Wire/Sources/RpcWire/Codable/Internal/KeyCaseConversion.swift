/// Conversions between camel-case coding keys and snake-case JSON keys.
///
/// Leading and trailing underscores are kept as they are in both directions, since they often
/// carry meaning of their own (`_id`, `value_`).
enum KeyCaseConversion {
    /// `oneTwoThree` → `one_two_three`, `myURLValue` → `my_url_value`.
    ///
    /// A word starts at an uppercase letter that follows a letter or digit that is not
    /// uppercase, and at the last uppercase letter of a run that is followed by a lowercase
    /// letter. Words are lowercased and joined with `_`.
    static func snakeCase(_ key: String) -> String {
        let characters = Array(key)
        guard let firstCore = characters.firstIndex(where: { $0 != "_" }),
              let lastCore = characters.lastIndex(where: { $0 != "_" })
        else {
            return key
        }
        guard characters[firstCore...lastCore].contains(where: \.isUppercase) else {
            return key
        }
        var result = String(characters[..<firstCore])
        var word = ""
        var index = firstCore
        while index <= lastCore {
            let character = characters[index]
            if index > firstCore, character.isUppercase, !word.isEmpty {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 <= lastCore && characters[index + 1].isLowercase
                if previous != "_", !previous.isUppercase || nextIsLower {
                    result += word.lowercased()
                    result += "_"
                    word = ""
                }
            }
            word.append(character)
            index += 1
        }
        result += word.lowercased()
        result += String(characters[(lastCore + 1)...])
        return result
    }

    /// `one_two_three` → `oneTwoThree`.
    ///
    /// The part between leading and trailing underscores is split at `_`; the first word is
    /// lowercased and each later word capitalised (first letter uppercase, the rest
    /// lowercase). A key with no inner underscore is returned unchanged.
    static func camelCase(_ key: String) -> String {
        guard key.utf8.contains(UInt8(ascii: "_")) else { return key }
        guard let firstCore = key.firstIndex(where: { $0 != "_" }),
              let lastCore = key.lastIndex(where: { $0 != "_" })
        else {
            return key
        }
        let core = key[firstCore...lastCore]
        let words = core.split(separator: "_")
        guard words.count > 1 else { return key }
        var result = String(key[..<firstCore])
        result += words[0].lowercased()
        for word in words.dropFirst() {
            result += word.prefix(1).uppercased()
            result += word.dropFirst().lowercased()
        }
        result += key[key.index(after: lastCore)...]
        return result
    }
}
