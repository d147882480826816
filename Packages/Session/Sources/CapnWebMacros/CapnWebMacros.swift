// `import CapnWebMacros`: everything `import CapnWeb` gives, the macros `@RpcProtocol`, `@Rpc` and
// `@RpcName`, and the small runtime their expansions call.
@_exported public import CapnWeb
