import SwiftSyntax

/// What the macros read off declarations: access levels, effects, names.
enum DeclAccess {
    /// `public ` or `package ` when `modifiers` say so (generated members must be as visible as
    /// the declaration they serve), otherwise empty.
    static func visibleModifier(_ modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    /// Whether `modifiers` make a member private or fileprivate (so not exposed).
    static func isHidden(_ modifiers: DeclModifierListSyntax) -> Bool {
        modifiers.contains { modifier in
            (modifier.name.tokenKind == .keyword(.private) || modifier.name.tokenKind == .keyword(.fileprivate))
                && modifier.detail == nil
        }
    }

    /// Whether `modifiers` contain `keyword`.
    static func has(_ keyword: Keyword, in modifiers: DeclModifierListSyntax) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(keyword) }
    }

    /// Whether a type written as `type` is an optional (`T?`, `T!`, `Optional<T>`).
    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return true
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" {
            return true
        }
        return false
    }

    /// Whether a return type is `Void` (absent, `Void` or `()`).
    static func isVoid(_ type: TypeSyntax?) -> Bool {
        guard let type else { return true }
        let text = type.trimmedDescription
        return text == "Void" || text == "()" || text == "Swift.Void"
    }
}
