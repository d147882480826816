import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The plug-in's entry point: the macros it provides.
@main
struct CapnWebMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        RpcProtocolMacro.self,
        RpcMacro.self,
        RpcNameMacro.self,
    ]
}
