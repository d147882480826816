// The server's API uses the protocol types and errors of the client module.
@_exported public import RivetKit
