// The transport abstractions speak in the wire layer's values (`JSONValue`, messages), so
// importing this module brings that layer along.
@_exported public import RpcWire
