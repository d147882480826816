import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@RpcName("delete")`: the member's name on the wire. A marker read by `@RpcProtocol` and
/// `@Rpc`; it adds nothing itself.
struct RpcNameMacro: PeerMacro {
    static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if WireName.literal(of: node) == nil {
            context.diagnose(.init(node: Syntax(node), message: MacroMessage.badRpcName()))
        }
        return []
    }
}
